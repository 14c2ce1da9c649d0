"""`lorekeeper glossary list | add | remove`: the campaign's glossary of the table's words, which `/lore` reads
questions through (as `/lore glossary` does in Discord).

    lorekeeper glossary list -c "Shattered Isles"
    lorekeeper glossary add gobbo goblin -c "Shattered Isles"
    lorekeeper glossary remove gobbo -c "Shattered Isles"
    lorekeeper glossary remove armour -c "Shattered Isles"   # a shipped term: read as written from now on
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, Typer, emit, with_campaign

glossary_app = Typer(
    help="The campaign's glossary: the table's abbreviations and slang, read as the books' words by /lore.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add the glossary commands to the main app."""
    app.add_typer(glossary_app, name="glossary")


def _line(entry: Any) -> str:
    from canon.wording.glossary import entry_words

    return entry_words(entry.term, entry.meaning, own=entry.own, shipped=entry.shipped)


def _json(entry: Any) -> dict[str, Any]:
    return {"term": entry.term, "meaning": entry.meaning, "own": entry.own}


@glossary_app.command("list")
def glossary_list(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """List the campaign's terms, then the shipped ones it does not change."""

    async def work(services: Any, found: Any) -> list[Any]:
        from canon.models import Viewer  # pydantic: loaded by the command, not by `--help`

        return list(await services.glossary.entries(found, Viewer.GM))

    entries = with_campaign(campaign, work)
    emit([_json(e) for e in entries], as_json=as_json, text=lambda: "\n".join(_line(e) for e in entries))


@glossary_app.command("add")
def glossary_add(
    term: Annotated[str, typer.Argument(metavar="TERM", help="The table's word, e.g. greenskin")],
    meaning: Annotated[str, typer.Argument(metavar="MEANING", help="What the books call it, e.g. goblin")],
    campaign: CampaignOption,
    as_json: JsonOption = False,
) -> None:
    """Add a term to the campaign's glossary (or give one a new meaning)."""

    async def work(services: Any, found: Any) -> Any:
        return await services.glossary.add(found, term, meaning)

    entry = with_campaign(campaign, work)
    emit(_json(entry), as_json=as_json, text=lambda: f"Added to the glossary: {_line(entry)}.")


@glossary_app.command("remove")
def glossary_remove(
    term: Annotated[str, typer.Argument(metavar="TERM", help="The term to remove")],
    campaign: CampaignOption,
    as_json: JsonOption = False,
) -> None:
    """Remove one of the campaign's terms, or switch a shipped one off (it is then read as written)."""
    from canon.wording.glossary import removal_words

    async def work(services: Any, found: Any) -> Any:
        return await services.glossary.remove(found, term)

    done = with_campaign(campaign, work)
    emit(
        {"term": done.term, "removed": done.removed, "shipped": done.shipped},
        as_json=as_json,
        text=lambda: removal_words(done.term, done.removed, done.shipped),
    )
