"""`lorekeeper canon reveal|unreveal|known`: who knows what, from the command line, as the GM.

The same `KnowledgeDesk` methods as `/canon reveal`, `/canon unreveal` and `/canon known`. The command line acts
as the GM: a reveal names its fact by its words (as `lorekeeper canon entity` prints them) or a hidden entity, and who learns it
(characters separated by commas, or "the party"). Bad input exits 1 with the reason; nothing is written.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, cli_actor, emit, with_campaign


def _lines(items: list[Any]) -> str:
    return (
        "\n".join(
            f"{i.said} ({i.since}) — {i.reveal.reason}"
            + (f" — undone by {i.reveal.undone_by}" if i.reveal.undone_at else "")
            for i in items
        )
        or "Nothing hidden has been revealed."
    )


def _payload(items: list[Any]) -> list[dict[str, Any]]:
    return [
        {"who": i.who, "what": i.what, "since": i.since, **i.reveal.model_dump(mode="json")} for i in items
    ]


def canon_reveal(
    campaign: CampaignOption,
    to: Annotated[str, typer.Option("--to", help="Characters separated by commas, or “the party”")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="How they learn it: kept as evidence")],
    fact: Annotated[
        str | None, typer.Option("--fact", help="The fact's words, as canon entity prints them")
    ] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="A hidden entity")] = None,
    source: Annotated[str | None, typer.Option("--source", help="A hidden source's title")] = None,
    from_date: Annotated[str | None, typer.Option("--from-date", help="From when they know it")] = None,
    as_json: JsonOption = False,
) -> None:
    """Let characters learn a hidden fact or entity."""
    from canon.models import Viewer

    async def work(services: Any, found: Any) -> Any:
        fact_id = await services.facts.pick(found, fact, viewer=Viewer.GM) if fact else None
        return await services.reveals.reveal(
            found,
            cli_actor(),
            to=to,
            reason=reason,
            fact=fact_id,
            entity=entity,
            source=source,
            from_date=from_date,
        )

    items = with_campaign(campaign, work)
    emit(_payload(items), as_json=as_json, text=lambda: _lines(items))


def canon_unreveal(
    reveal: Annotated[
        str, typer.Argument(help="The reveal's words, as `canon known` prints them (some are enough)")
    ],
    campaign: CampaignOption,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why it is undone")],
    as_json: JsonOption = False,
) -> None:
    """Undo a reveal; it stays in the history, marked undone."""

    async def work(services: Any, found: Any) -> Any:
        gm = cli_actor()
        return await services.reveals.undo(found, await services.reveals.pick(found, gm, reveal), gm, reason)

    item = with_campaign(campaign, work)
    emit(_payload([item]), as_json=as_json, text=lambda: _lines([item]))


def canon_known(
    campaign: CampaignOption,
    character: Annotated[str | None, typer.Option("--character", help="One character (default: all)")] = None,
    as_json: JsonOption = False,
) -> None:
    """Print who knows what of hidden canon, undone reveals included."""

    async def work(services: Any, found: Any) -> Any:
        return await services.reveals.known(found, cli_actor(), character=character, standing=False)

    items = with_campaign(campaign, work)
    emit(_payload(items), as_json=as_json, text=lambda: _lines(items))
