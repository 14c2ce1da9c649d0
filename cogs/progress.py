"""Long work shown as it goes: a message edited as pieces are read, never more than once per interval.

Work that may outlive an interaction's 15 minutes (reading a long scene or file into proposals) shows its
progress and its result in a message of the channel, which no token limits; a message the work cannot edit any
more (deleted, or a private answer whose token expired) is let go and the work goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

import discord

from canon.errors import InvalidInput

log = logging.getLogger(__name__)

NONE = discord.AllowedMentions.none()
#: At most one progress edit per this many seconds (Discord rate-limits message edits).
PROGRESS_INTERVAL = 1.0

Edit = Callable[[str], Awaitable[object]]


class Progress:
    """Call `edit(text)` with `render(read, total)`: the first and last time always, else once per interval."""

    def __init__(
        self, edit: Edit, render: Callable[[int, int], str], *, interval: float = PROGRESS_INTERVAL
    ) -> None:
        self.edit = edit
        self.render = render
        self.interval = interval
        self.last = float("-inf")
        self.alive = True

    async def __call__(self, read: int, total: int) -> None:
        """Show that `read` pieces of `total` are done."""
        now = time.monotonic()
        if not self.alive or (read < total and now - self.last < self.interval):
            return
        self.last = now
        try:
            await self.edit(self.render(read, total))
        except discord.HTTPException as error:  # deleted, or the token expired: the work goes on unseen
            log.info("stopped showing progress: %s", error)
            self.alive = False


def message_editor(message: discord.Message) -> Edit:
    """Return an `Edit` that replaces a channel message's text (its embeds stay)."""

    async def edit(text: str) -> None:
        await message.edit(content=text, allowed_mentions=NONE)

    return edit


def pieces_text(what: str, read: int, total: int) -> str:
    """Return a progress line like "Reading the transcript for canon proposals: 3 of 10 passages read…"."""
    if total <= 0:
        return f"{what}…"
    return f"{what}: {read} of {total} passage{'s' if total != 1 else ''} read…"


async def post(channel: discord.abc.Messageable, text: str) -> discord.Message:
    """Post the message long work will edit, or say plainly what the bot lacks to post here."""
    try:
        return await channel.send(text, allowed_mentions=NONE)
    except discord.Forbidden:
        raise InvalidInput(
            "I may not post in this channel: give me View Channel, Send Messages and Embed Links here."
        ) from None
