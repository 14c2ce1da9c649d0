"""The Discord client: the bot itself (`client`: the `commands.Bot` subclass, its command tree, startup and
error replies), syncing the command tree only when it changed (`command_sync`), answering interactions
(`replies`), and Discord's documented size limits with the pure functions that fit text inside them (`limits`,
which imports no Discord and is used by services and the command line too)."""
