"""GM tools of `/lore`: the sections a source hides, the section picker, `/lore section`'s answer, the source order.

Pure renderers and the autocomplete of `/lore section`; the GM alone reaches any of them (a player's autocomplete
gets nothing, as for the source picker).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord import app_commands

from bot.client import limits
from canon.errors import GameError
from cogs.canon_options import campaign_of
from cogs.checks import is_gm
from cogs.embeds import DONE_COLOUR, clip, escape
from cogs.services import services_of
from memory.knowledge.sections import Section, path_words
from memory.knowledge.source_models import SectionChange

__all__ = ["hidden_lines", "order_text", "section_changed_embed", "section_choices"]

LOCK = "🔒"
MAX_CHOICES = 25


def hidden_lines(sections: Sequence[Section]) -> list[str]:
    """Return one line per hidden section whose parent is not hidden itself (its subsections go with it)."""
    hidden = {s.path for s in sections if s.hidden}
    tops = [s for s in sections if s.hidden and not any(s.path[:n] in hidden for n in range(1, len(s.path)))]
    return [
        f"{LOCK} {escape(clip(s.words, 150))} ({s.chunks} passage{'s' if s.chunks != 1 else ''})"
        for s in tops
    ]


def order_text(order: Sequence[str], *, changed: bool) -> str:
    """Say the campaign's source order (`/lore order`): where Canon sources disagree, the higher prevails."""
    if not order:
        start = "The source order is cleared." if changed else "No source order is set."
        return (
            f"{start} Where Canon sources disagree, nothing is guessed: pick the source that prevails in "
            "`/canon conflicts`, or set an order with `/lore order` (highest first)."
        )
    ranked = ", then ".join(f"`{clip(name, 80)}`" for name in order)
    start = "Source order set" if changed else "Source order"
    return (
        f"{start}: {ranked}. Where these disagree, the higher prevails (a source not listed ranks below them; "
        "your pick for one disagreement in `/canon conflicts` comes first)."
    )


def section_changed_embed(change: SectionChange) -> discord.Embed:
    """Render the answer to `/lore section`: which section, hidden or shown, and what that means for players."""
    words = path_words(change.path)
    state = "hidden from players" if change.hidden else "shown to players"
    embed = discord.Embed(
        title=clip(f"{change.source.title}: {change.path[-1] if change.path else words} {state}", 256),
        colour=DONE_COLOUR,
    )
    lines = [
        f"Section: {escape(clip(words, 300))} ({change.chunks} passage{'s' if change.chunks != 1 else ''})."
    ]
    if change.hidden:
        lines.append(
            "Players never read it, in answers, passages, NPCs or narration; you still do, marked "
            f"{LOCK}. The rest of the source stays as it was."
        )
    else:
        lines.append("Players may read it now, like the rest of the source.")
    if change.also:
        shared = ", ".join(f"“{escape(clip(words, 80))}”" for words in change.also[:5])
        went = "hidden" if change.hidden else "shown"
        lines.append(
            f"{shared} {'shares' if len(change.also) == 1 else 'share'} its passage, so "
            f"{'it is' if len(change.also) == 1 else 'they are'} {went} too. To hide exactly one section, mark "
            "its heading in the file (“(GM only)”) and import it again."
        )
    if change.rechunked:
        lines.append(
            "It shared a passage with other sections: the source was split again so it stands alone."
        )
    if not change.changed and not change.rechunked:
        lines.append("It already was: nothing changed.")
    lines.append("A new version of the file keeps this choice; `/lore source` lists the hidden sections.")
    embed.description = "\n".join(lines)
    return embed


async def section_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest the chosen source's sections by heading, to GMs only (hidden ones marked)."""
    services = services_of(interaction)
    source = getattr(interaction.namespace, "source", None)
    if not is_gm(interaction.user, services.settings.gm_role) or not isinstance(source, int):
        return []
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        sections = await services.knowledge.sections(campaign.id, source)
    except GameError:
        return []
    typed = " ".join(str(current or "").split()).casefold()
    found = [s for s in sections if not typed or typed in s.words.casefold()]
    choices = []
    for s in found[:MAX_CHOICES]:
        # A long path is offered by its last heading, which `/lore section` also understands.
        value = s.words if len(s.words) <= limits.CHOICE_VALUE else s.path[-1][: limits.CHOICE_VALUE]
        name = clip(f"{LOCK + ' ' if s.hidden else ''}{s.words}", 100)
        choices.append(app_commands.Choice(name=name, value=value))
    return choices
