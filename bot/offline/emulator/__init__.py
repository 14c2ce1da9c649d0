"""A local Discord (REST API v10 + gateway) for testing the unmodified discord.py client end to end.

Usage::

    async with DiscordEmulator() as emu:
        guild = emu.add_guild("Tavern")
        chan = emu.add_text_channel(guild, "scene-1")
        pat = emu.add_member(guild, "Pat")
        bot = MyBot(intents=..., guild_ready_timeout=0.05)
        await emu.start_bot(bot)
        r = await emu.invoke(chan, pat, "scene start", title="The Inn")
        assert r.content == "..."
        await emu.stop_bot(bot)

See ``DiscordEmulator`` for the full API and ``capture_bot_errors`` for failing tests on logged errors.
"""

from .emulator import DiscordEmulator, handler_tasks, point_client_at
from .errors import BotErrorCapture, capture_bot_errors
from .interactions import CommandNotAvailable, InteractionResult
from .messages import Attachment, StoredMessage, Webhook
from .models import Channel, Guild, Member, Role, User
from .rest import Fault, RequestRecord

__all__ = [
    "Attachment",
    "BotErrorCapture",
    "Channel",
    "CommandNotAvailable",
    "DiscordEmulator",
    "Fault",
    "Guild",
    "InteractionResult",
    "Member",
    "RequestRecord",
    "Role",
    "StoredMessage",
    "User",
    "Webhook",
    "capture_bot_errors",
    "handler_tasks",
    "point_client_at",
]
