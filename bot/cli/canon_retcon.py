"""`lorekeeper canon retcon FACT`: retcon a fact named by what it says, as the GM.

FACT is the fact's words ("Corvan Marrow is dead"), enough of them to pick one fact, or its handle ("fact 53",
as the GM's views print it after the words). Words that fit several facts are answered with those facts and
exit code 1: nothing is retconned on a guess.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import cli_actor, emit, with_campaign

CampaignOption = Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON")]


def canon_retcon(
    fact: Annotated[
        str, typer.Argument(help="The fact: its words (enough to pick one), or its handle like “fact 53”")
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
    from canon.wording import PLAIN
    from canon.wording.fact_names import fact_choice

    async def work(services: Any, found: Any) -> Any:
        fact_id = await services.facts.pick(found, fact, viewer=Viewer.GM)
        return await services.admin.retcon(
            found, fact_id, cli_actor(), rationale=rationale, new_value=new_value
        )

    result = with_campaign(campaign, work)

    def named(view: Any, fact_id: int | None) -> str:
        return fact_choice(view, PLAIN, limit=1000) if view is not None else f"(fact {fact_id})"

    def text() -> str:
        lines = [f"Retconned: {named(result.retconned, result.retconned_id)}"]
        if result.replacement_id is not None:
            lines.append(f"Replaced by: {named(result.replacement, result.replacement_id)}")
        lines += [f"To review (it relied on the old fact): {named(v, None)}" for v in result.dependents]
        if result.closed:
            lines.append(
                f"Closed {len(result.closed)} open conflict{'s' if len(result.closed) != 1 else ''}."
            )
        return "\n".join(lines)

    emit(
        {
            "retconned_id": result.retconned_id,
            "replacement_id": result.replacement_id,
            "dependents": [v.model_dump(mode="json") for v in result.dependents],
            "closed_conflicts": [c.id for c in result.closed],
        },
        as_json=as_json,
        text=text,
    )
