"""Answering an interaction as Discord documents it: one place for "thinking…" deferrals, answers and refusals.

Discord's rules (interactions/receiving-and-responding in its developer documentation): the first answer after
a "thinking…" deferral (`DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE`) edits that message; a followup sent instead
fills it too, but that is deprecated, and its ephemeral flag is ignored. Later followups are new messages with
their own ephemeral flag. So a command that may take long calls `think` (private or public), then `answer`
once; a refusal goes through `reply_ephemeral`, which never shows a private answer in public.

Which deferral an interaction had is kept in its `extras` (discord.py's own copy of the original response is
not refreshed by edits), so every cog defers through `think`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import discord

from bot.client import limits

NONE = discord.AllowedMentions.none()
#: `interaction.extras` key: "private" or "public" while the "thinking…" message waits, "answered" after.
_DEFERRAL = "lk_deferral"
#: What a public "thinking…" message says for the instant before it is deleted, when the answer is private.
WITHDRAWN = "…"


async def think(interaction: discord.Interaction, *, ephemeral: bool = True) -> None:
    """Defer with a "thinking…" message that `answer` will edit (public only when `ephemeral` is false)."""
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    interaction.extras[_DEFERRAL] = "private" if ephemeral else "public"


def waiting(interaction: discord.Interaction) -> bool:
    """Return whether a "thinking…" message of `think` still waits for its answer."""
    return interaction.extras.get(_DEFERRAL) in {"private", "public"}


async def answer(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] | None = None,
    file: discord.File | None = None,
    files: Sequence[discord.File] | None = None,
    view: discord.ui.View | None = None,
    ephemeral: bool = True,
) -> discord.Message | None:
    """Send an answer: the reply, the edit of a waiting "thinking…" message, or a new followup.

    `ephemeral` applies to a reply or a followup; an edited "thinking…" message keeps what `think` chose.
    Returns the message when Discord gives it back (not for a first reply).
    """
    attached = list(files or ()) + ([file] if file is not None else [])
    shown = list(embeds or ()) + ([embed] if embed is not None else [])
    if not interaction.response.is_done():
        kwargs: dict[str, Any] = {"embeds": shown, "files": attached, "ephemeral": ephemeral}
        if view is not None:
            kwargs["view"] = view
        await interaction.response.send_message(content, allowed_mentions=NONE, **kwargs)
        return None
    if waiting(interaction):
        interaction.extras[_DEFERRAL] = "answered"
        edit: dict[str, Any] = {"content": content, "embeds": shown, "attachments": attached}
        if view is not None:
            edit["view"] = view
        return await interaction.edit_original_response(allowed_mentions=NONE, **edit)
    send: dict[str, Any] = {"embeds": shown, "files": attached, "ephemeral": ephemeral, "wait": True}
    if view is not None:
        send["view"] = view
    if content is not None:
        send["content"] = content
    message: discord.Message = await interaction.followup.send(allowed_mentions=NONE, **send)
    return message


async def progress(interaction: discord.Interaction, text: str) -> None:
    """Show how long work goes on in a waiting "thinking…" message (its answer replaces it)."""
    if waiting(interaction):
        await interaction.edit_original_response(content=text, allowed_mentions=NONE)


async def reply_ephemeral(interaction: discord.Interaction, text: str) -> None:
    """Tell only the user something (a refusal, an error), whatever the interaction's state.

    A private "thinking…" message is edited into the text. A public one must not carry it: it is filled with
    a neutral mark, the text goes in a private followup (a new message, since the original was edited), and the
    public message is deleted; when that fails the HTTPException propagates before anything private is lost.
    """
    text = limits.clip(text, limits.MESSAGE)  # error texts are assembled from many places: cut, never refused
    if not interaction.response.is_done():
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NONE)
        return
    state = interaction.extras.get(_DEFERRAL)
    if state == "private":
        interaction.extras[_DEFERRAL] = "answered"
        await interaction.edit_original_response(
            content=text, embeds=[], attachments=[], view=None, allowed_mentions=NONE
        )
        return
    if state == "public":
        interaction.extras[_DEFERRAL] = "answered"
        await interaction.edit_original_response(content=WITHDRAWN, allowed_mentions=NONE)
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NONE)
        with contextlib.suppress(discord.NotFound):  # deleted meanwhile: gone all the same
            await interaction.delete_original_response()
        return
    await interaction.followup.send(text, ephemeral=True, allowed_mentions=NONE)
