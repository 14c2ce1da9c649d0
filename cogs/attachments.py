"""Fetch a file a person attached from Discord's file server, and say in words when that fails.

Discord keeps an attachment on its own file server; reading it is a download that can be refused (an
expired link, a server error) or cut off halfway. Either way nothing has been written yet: the reply names the
file and what went wrong, and asks to try again.
"""

from __future__ import annotations

import asyncio

import aiohttp
import discord

from canon.errors import Unavailable

__all__ = ["read_attachment"]

#: How long one download may take before it counts as cut off.
DOWNLOAD_TIMEOUT = 60.0


def _why(error: BaseException) -> str:
    if isinstance(error, discord.NotFound):
        return "the file is no longer there (the message may have been deleted)"
    if isinstance(error, discord.Forbidden):
        return "Discord's file server refused to send it (the link may have expired)"
    if isinstance(error, discord.HTTPException):
        return f"Discord's file server answered with an error ({error.status})"
    if isinstance(error, TimeoutError):
        return "the download took too long"
    return "the transfer was cut off before the whole file arrived"


async def read_attachment(attachment: discord.Attachment) -> bytes:
    """Return an attachment's bytes; raise `Unavailable` saying which file failed and why, in words."""
    try:
        return await asyncio.wait_for(attachment.read(), DOWNLOAD_TIMEOUT)
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as error:
        raise Unavailable(
            f"I could not fetch {attachment.filename} from Discord: {_why(error)}. "
            "Nothing was imported; attach the file again and try once more."
        ) from error
