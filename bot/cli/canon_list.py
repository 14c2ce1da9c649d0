"""`lorekeeper canon list`: the entities of a campaign by kind, by their names, so a GM can check an import
without guessing names. It reads as a player unless `--as gm` is given (then GM-only entries are marked); `--kind`
keeps one kind (an entity type, its subtypes included, or a file's word for it: `characters`, `places`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, ViewerChoice, emit, with_campaign

if TYPE_CHECKING:
    from bot.services.directory import DirectoryEntry

#: A file's words for a kind of entity -> the entity type it lists.
_KIND_WORDS = {
    **dict.fromkeys(("character", "characters", "people", "persons", "person"), "Person"),
    **dict.fromkeys(("place", "places", "location", "locations", "gazetteer"), "Location"),
    **dict.fromkeys(("region", "regions"), "Region"),
    **dict.fromkeys(("faction", "factions"), "Faction"),
    **dict.fromkeys(("event", "events", "timeline"), "Event"),
    **dict.fromkeys(("era", "eras"), "Era"),
    **dict.fromkeys(("creature", "creatures", "bestiary"), "Creature"),
    **dict.fromkeys(("item", "items", "artifact", "artifacts"), "Item"),
    **dict.fromkeys(("lineage", "lineages", "house", "houses", "family tree", "family_tree"), "Lineage"),
    **dict.fromkeys(("culture", "cultures"), "Culture"),
    **dict.fromkeys(("language", "languages"), "Language"),
    **dict.fromkeys(("deity", "deities", "god", "gods"), "Deity"),
    **dict.fromkeys(("spell", "spells"), "Spell"),
}
#: How a kind is headed in the list (a type not here: its name).
_HEADINGS = {
    "NPC": "People",
    "PC": "Player characters",
    "Person": "People",
    "Location": "Places",
    "Region": "Regions",
    "Faction": "Factions",
    "Event": "Events",
    "Era": "Eras",
    "Creature": "Creatures",
    "Item": "Items",
    "Lineage": "Houses and lineages",
    "Culture": "Cultures",
    "Language": "Languages",
    "Deity": "Deities",
    "Spell": "Spells",
    "MagicSystem": "Magic systems",
}


def canon_list(
    campaign: CampaignOption,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind", help="Only this kind: an entity type (Person, Location...) or characters, places..."
        ),
    ] = None,
    viewer: Annotated[
        ViewerChoice, typer.Option("--as", help="Read as a player (public canon) or as the GM (everything)")
    ] = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """List the campaign's entities by kind, by name: what players (or, with --as gm, the GM) may read."""
    from canon.models import Viewer

    wanted = _KIND_WORDS.get(" ".join((kind or "").split()).casefold(), kind) if kind else None

    async def work(services: Any, found: Any) -> list[DirectoryEntry]:
        listed: list[DirectoryEntry] = await services.directory.listing(
            found, Viewer(viewer.value), kind=wanted
        )
        return listed

    listed = with_campaign(campaign, work)
    payload = {
        "campaign": campaign,
        "viewer": viewer.value,
        "kind": wanted,
        "entities": [
            {"name": e.name, "type": e.type, **({"gm_only": e.hidden} if viewer == ViewerChoice.GM else {})}
            for e in listed
        ],
    }
    emit(payload, as_json=as_json, text=lambda: _text(campaign, viewer, listed, kind))


def _text(campaign: str, viewer: ViewerChoice, listed: list[DirectoryEntry], kind: str | None) -> str:
    """Return the list as lines: a heading per kind, with how many, then the names (GM-only ones marked)."""
    who = "the GM" if viewer == ViewerChoice.GM else "a player"
    if not listed:
        what = f"no {kind}" if kind else "nothing"
        return f"Campaign “{campaign}”, as {who} reads it: {what} yet."
    groups: dict[str, list[str]] = {}
    for entry in listed:
        heading = _HEADINGS.get(entry.type, entry.type)
        groups.setdefault(heading, []).append(entry.name + (" [gm only]" if entry.hidden else ""))
    count = f"{len(listed)} {'entity' if len(listed) == 1 else 'entities'}"
    lines = [f"Campaign “{campaign}”, as {who} reads it: {count}."]
    for heading in sorted(groups):
        names = groups[heading]
        lines.append(f"{heading} ({len(names)}): {', '.join(names)}")
    return "\n".join(lines)
