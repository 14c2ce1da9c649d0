"""`lorekeeper canon add fact|entity|relationship|state|event`: write canon directly, as the GM.

The command is the evidence: each write records the command line that made it, and goes through the same
gate as a decision on Discord (its continuity warnings are printed with what was written).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import (
    IN_WORLD_DATE_HELP,
    CampaignOption,
    JsonOption,
    Typer,
    checked,
    cli_actor,
    emit,
    with_campaign,
)

if TYPE_CHECKING:
    from canon.proposals import ProposalContent

canon_add_app = Typer(
    help="Write canon directly, as the GM (the command is the evidence).", no_args_is_help=True
)

#: The exit code of a `canon add` that wrote canon and recorded a continuity conflict (1: nothing written).
CONFLICT_RECORDED = 3

WhenOption = Annotated[
    str | None,
    typer.Option(
        "--when",
        help=IN_WORLD_DATE_HELP,
    ),
]
GmOnlyOption = Annotated[bool, typer.Option("--gm-only", help="Hide it from players")]
ReliesOnOption = Annotated[
    str | None,
    typer.Option("--relies-on", help='The facts it builds on, by their words; several separated by ";"'),
]


def _add(
    campaign: str,
    kind: str,
    build: Callable[[], ProposalContent],
    as_json: bool,
    relies_on: str | None = None,
    new_detail: bool = False,
) -> None:
    from canon.errors import AskedAttribute, InvalidInput
    from canon.models import Viewer
    from canon.wording import describe

    content = checked(build)

    words: Any = None

    async def work(services: Any, found: Any) -> Any:
        nonlocal words, content
        if relies_on:  # the facts by their words, picked as `canon retcon` picks one
            cited = await services.facts.pick_many(found, relies_on, viewer=Viewer.GM)
            content = content.model_copy(update={"relies_on": cited})
        words = await services.queries.words(
            found, viewer=Viewer.GM
        )  # dates in the campaign calendar's words
        try:
            return await services.canon.add_direct(
                found, content, cli_actor(), command=f"lorekeeper canon add {kind}", new_detail=new_detail
            )
        except AskedAttribute as asked:  # the GM says which attribute they meant: nothing is picked
            raise InvalidInput(asked.sentence("add it again with --new-detail")) from None

    result = with_campaign(campaign, work)
    payload = {
        "changeset_id": result.changeset_id,
        "written": [p.model_dump(mode="json") for p in result.accepted],
        "entity_ids": {str(k): v for k, v in result.entity_ids.items()},
        "statement_ids": result.statement_ids,
        "conflicts": [f.model_dump(mode="json") for f in result.findings],
    }
    if words is not None:  # dates in the calendar's words, as the text says them
        from bot.cli.json_words import dates_in_words

        payload = dates_in_words(payload, words.calendar)

    def text() -> str:
        from canon.wording import PLAIN, warning_sentence

        lines = ["Written to canon:"]
        lines += [f"  {describe(p.content, words or PLAIN)}" for p in result.accepted]
        if result.findings:
            many = len(result.findings) != 1
            lines.append(
                f"It was written, and {len(result.findings)} continuity conflict{'s were' if many else ' was'} "
                "recorded (see lorekeeper canon conflicts):"
            )
        lines += [f"  - {warning_sentence(f.message, words or PLAIN)}" for f in result.findings]
        return "\n".join(lines)

    emit(payload, as_json=as_json, text=text)
    if result.findings:  # written, with a conflict recorded: scripts learn it from the exit code
        raise typer.Exit(CONFLICT_RECORDED)


@canon_add_app.command("fact")
def add_fact(
    subject: Annotated[str, typer.Argument(help="Who or what it is about")],
    attribute: Annotated[str, typer.Argument(help="What about it, like title")],
    value: Annotated[str, typer.Argument(help="Its value")],
    campaign: CampaignOption,
    when: WhenOption = None,
    relies_on: ReliesOnOption = None,
    gm_only: GmOnlyOption = False,
    new_detail: Annotated[
        bool,
        typer.Option(
            "--new-detail", help="Keep ATTRIBUTE as a new kind of detail, even when close to a known one"
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write a fact: SUBJECT's ATTRIBUTE is VALUE."""
    from canon import forms

    _add(
        campaign,
        "fact",
        lambda: forms.fact_content(
            subject=subject, attribute=attribute, value=value, when=when, gm_only=gm_only
        ),
        as_json,
        relies_on,
        new_detail,
    )


@canon_add_app.command("entity")
def add_entity(
    name: Annotated[str, typer.Argument(help="Its name")],
    entity_type: Annotated[
        str, typer.Argument(metavar="TYPE", help="Its ontology type, like NPC or Location")
    ],
    campaign: CampaignOption,
    description: Annotated[str | None, typer.Option("--description", help="A few words about it")] = None,
    aliases: Annotated[str | None, typer.Option("--aliases", help="Other names, comma-separated")] = None,
    gm_only: GmOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write a new entity of an ontology type."""
    from canon import forms

    _add(
        campaign,
        "entity",
        lambda: forms.entity_content(
            name=name, entity_type=entity_type, description=description, aliases=aliases, gm_only=gm_only
        ),
        as_json,
    )


@canon_add_app.command("relationship")
def add_relationship(
    subject: Annotated[str, typer.Argument(help="Who or what it starts from")],
    relation: Annotated[str, typer.Argument(help="The relation, like ALLY_OF")],
    target: Annotated[str, typer.Argument(metavar="OBJECT", help="Who or what it points at")],
    campaign: CampaignOption,
    since: Annotated[str | None, typer.Option("--since", help="In-world date it starts")] = None,
    until: Annotated[str | None, typer.Option("--until", help="In-world date it ends")] = None,
    relies_on: ReliesOnOption = None,
    gm_only: GmOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write a relation: SUBJECT RELATION OBJECT."""
    from canon import forms

    _add(
        campaign,
        "relationship",
        lambda: forms.relationship_content(
            subject=subject,
            relation=relation,
            target=target,
            since=since,
            until=until,
            gm_only=gm_only,
        ),
        as_json,
        relies_on,
    )


@canon_add_app.command("state")
def add_state(
    subject: Annotated[str, typer.Argument(help="Who or what changes")],
    state: Annotated[str, typer.Argument(help="The new state, like dead")],
    campaign: CampaignOption,
    via: Annotated[
        str | None, typer.Option("--via", help="The event that allows it, like resurrection")
    ] = None,
    when: WhenOption = None,
    relies_on: ReliesOnOption = None,
    gm_only: GmOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write that SUBJECT enters STATE."""
    from canon import forms

    _add(
        campaign,
        "state",
        lambda: forms.state_content(subject=subject, state=state, via=via, when=when, gm_only=gm_only),
        as_json,
        relies_on,
    )


@canon_add_app.command("event")
def add_event(
    name: Annotated[str, typer.Argument(help="What happened")],
    campaign: CampaignOption,
    when: WhenOption = None,
    location: Annotated[str | None, typer.Option("--location", help="Where it happened")] = None,
    era: Annotated[str | None, typer.Option("--era", help="The era it belongs to")] = None,
    participants: Annotated[
        str | None, typer.Option("--participants", help="Who took part, comma-separated")
    ] = None,
    description: Annotated[str | None, typer.Option("--description", help="A few words about it")] = None,
    relies_on: ReliesOnOption = None,
    gm_only: GmOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write an event with its date, place, era and participants."""
    from canon import forms

    _add(
        campaign,
        "event",
        lambda: forms.event_content(
            name=name,
            when=when,
            location=location,
            era=era,
            participants=participants,
            description=description,
            gm_only=gm_only,
        ),
        as_json,
        relies_on,
    )
