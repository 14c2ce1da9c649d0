"""`lorekeeper canon retcon FACT`: retcon a fact named by what it says, as the GM.

FACT is the fact's words ("Corvan Marrow is dead"), enough of them to pick one fact, as `lorekeeper canon
entity` prints them (a fact's id, from the --json output, is still understood). Words that fit several facts are
answered with those facts and exit code 1: nothing is retconned on a guess. The answer names facts by their words.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, cli_actor, emit, with_campaign


def canon_retcon(
    fact: Annotated[
        str, typer.Argument(help="The fact: its words, as `canon entity` prints them (enough to pick one)")
    ],
    campaign: CampaignOption,
    rationale: Annotated[str, typer.Option("--rationale", "-r", help="Why it no longer holds")],
    new_value: Annotated[
        str | None,
        typer.Option("--new-value", help="The value (or, for a relation, the entity) that replaces it"),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Retcon a fact named by its words; print it, its replacement and the facts that relied on it."""
    from canon.models import Viewer
    from canon.wording.fact_names import fact_name

    async def work(services: Any, found: Any) -> Any:
        fact_id = await services.facts.pick(found, fact, viewer=Viewer.GM)
        return await services.admin.retcon(
            found, fact_id, cli_actor(), rationale=rationale, new_value=new_value
        )

    result = with_campaign(campaign, work)
    from bot.cli.json_words import dates_in_words

    def named(view: Any, unread: str) -> str:  # the words typed back to `canon retcon` pick it; ids in --json
        return fact_name(view, result.words) if view is not None else unread

    def text() -> str:
        lines = [f"Retconned: {named(result.retconned, 'the fact')}"]
        if result.replacement_id is not None:
            lines.append(f"Replaced by: {named(result.replacement, 'a new fact')}")
        lines += [f"To review (it relied on the old fact): {named(v, '')}" for v in result.dependents]
        if result.closed:
            lines.append(
                f"Closed {len(result.closed)} open conflict{'s' if len(result.closed) != 1 else ''}."
            )
        return "\n".join(lines)

    emit(
        dates_in_words(
            {
                "retconned_id": result.retconned_id,
                "replacement_id": result.replacement_id,
                "dependents": [v.model_dump(mode="json") for v in result.dependents],
                "closed_conflicts": [c.id for c in result.closed],
            },
            result.words.calendar,
        ),
        as_json=as_json,
        text=text,
    )
