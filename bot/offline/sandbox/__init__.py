"""The sandbox: the whole bot in a browser, without a Discord account.

`lorekeeper sandbox` runs the real bot against the Discord emulator (`bot.offline.emulator`) and serves a page that looks
and behaves like a Discord channel, where you act as the GM or one of three players. See `docs/sandbox.md`.
"""
