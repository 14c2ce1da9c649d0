"""The sandbox's Discord server: who plays (a GM and three players) and where (a few channels)."""

from __future__ import annotations

from dataclasses import dataclass, field

import discord

from bot.offline.emulator import Channel, DiscordEmulator, Guild, Member, Role

GUILD_NAME = "Lorekeeper Sandbox"
CATEGORY_NAME = "The campaign"

#: (key, name, is the GM): the people you can be on the page.
PEOPLE: tuple[tuple[str, str, bool], ...] = (
    ("gm", "Gwen", True),
    ("pat", "Pat", False),
    ("quinn", "Quinn", False),
    ("rowan", "Rowan", False),
)

#: (key, channel name, topic), in the order the page lists them.
CHANNELS: tuple[tuple[str, str, str], ...] = (
    ("general", "general", "Questions for the table: /lore ask, /canon entity, /canon tree."),
    ("lore", "lore-library", "Where the GM imports the world's files with /lore import."),
    ("tavern", "the-gilded-eel", "A scene channel: the GM starts a scene with /scene start."),
    ("road", "the-north-road", "Another scene channel."),
)

#: The channel the page opens first.
FIRST_CHANNEL = "tavern"


@dataclass
class SandboxWorld:
    """The sandbox's server as the emulator holds it, by the keys the page and the sample use."""

    guild: Guild
    gm_role: Role
    people: dict[str, Member]
    channels: dict[str, Channel]
    #: Whether the sample world was imported (an existing sandbox never imports it twice).
    sample_loaded: bool = False
    #: Whether the GM imported anything (the page then stops offering the sample world to an empty campaign).
    lore_imported: bool = False
    #: "/lore ask" and the like, by the id of the message that answered it ("Pat used /lore ask").
    labels: dict[int, str] = field(default_factory=dict)

    def person(self, user_id: int) -> Member | None:
        """Return the member the page acts as, by user id (None: not one of the sandbox's people)."""
        return next((m for m in self.people.values() if m.id == user_id), None)

    def channel(self, channel_id: int) -> Channel | None:
        """Return one of the sandbox's text channels by id."""
        return next((c for c in self.channels.values() if c.id == channel_id), None)

    def is_gm(self, member: Member) -> bool:
        """Return whether a member holds the GM role."""
        return self.gm_role.id in member.role_ids


def build_world(emu: DiscordEmulator, gm_role_name: str) -> SandboxWorld:
    """Create the sandbox's server in a fresh emulator: the GM role, four people and the channels."""
    guild = emu.add_guild(GUILD_NAME)
    # The GM runs the server here: Manage Server, so that the server admins' commands (/admin) are theirs too.
    gm_role = emu.add_role(
        guild, gm_role_name, color=0xE67E22, permissions=discord.Permissions(manage_guild=True)
    )
    people = {key: emu.add_member(guild, name, roles=[gm_role] if gm else []) for key, name, gm in PEOPLE}
    category = emu.add_category(guild, CATEGORY_NAME)
    channels = {
        key: emu.add_text_channel(guild, name, category=category, topic=topic)
        for key, name, topic in CHANNELS
    }
    return SandboxWorld(guild, gm_role, people, channels)
