"""`lorekeeper canon ...`: look up, check and write canon from the command line, with JSON for scripts.

Registered on the main app by `bot.cli.main`. Every command names its campaign (`--campaign NAME`) and calls the
same `CanonService` methods as the Discord commands. The command line acts as the GM when it writes; it reads
as a player unless `--as gm` is given, so hidden canon is only printed on request.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from bot.cli.common import Typer, cli_actor, emit, fail, run_async, settings_or_exit, with_services
from canon.errors import GameError

if TYPE_CHECKING:
    from canon.domain import EntityCard, StatementView
    from canon.ontology import Ontology
    from canon.proposals import ProposalContent

T = TypeVar("T")

canon_app = Typer(help="Look up, check and write canon without Discord.", no_args_is_help=True)
canon_add_app = Typer(
    help="Write canon directly, as the GM (the command is the evidence).", no_args_is_help=True
)
canon_app.add_typer(canon_add_app, name="add")


class ViewerChoice(enum.StrEnum):
    """Who the command line reads as."""

    PLAYER = "player"
    GM = "gm"


CampaignOption = Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON")]
AsOption = Annotated[
    ViewerChoice, typer.Option("--as", help="Read as a player (public canon) or as the GM (everything)")
]
WhenOption = Annotated[str | None, typer.Option("--when", help="In-world date, like 3rd_age.year_300")]
GmOnlyOption = Annotated[bool, typer.Option("--gm-only", help="Hide it from players")]
ReliesOnOption = Annotated[
    str | None, typer.Option("--relies-on", help="The facts it builds on, like 12 or 12,15")
]


def _checked(build: Callable[[], T]) -> T:
    """Return `build()`, or print a malformed option's message and exit 1 (as `run_async` does)."""
    try:
        return build()
    except GameError as error:
        fail(error.message, code=1)


def _with_campaign(campaign: str, work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run `work(services, campaign)` for a campaign named on the command line."""
    settings = settings_or_exit()

    async def run(services: Any) -> T:
        found = await services.campaigns.by_name(campaign)
        return await work(services, found)

    return run_async(lambda: with_services(settings, run))


def _line(view: StatementView) -> str:
    from canon.domain import CanonLevel, Visibility

    s = view.statement
    lock = "[gm only] " if s.visibility == Visibility.GM_ONLY else ""
    when = s.validity.describe()
    retconned = " [retconned]" if s.provenance.level == CanonLevel.RETCONNED else ""
    evidence = "; ".join(e.describe() for e in s.evidence[:2])
    return (
        f"#{s.id} {lock}{view.sentence()}"
        + (f" ({when})" if when else "")
        + retconned
        + (f" — {evidence}" if evidence else "")
    )


def _card_text(card: EntityCard, as_of: str) -> str:
    from canon.domain import Visibility

    entity = card.entity
    lock = " [gm only]" if entity.visibility == Visibility.GM_ONLY else ""
    lines = [f"{entity.name} ({entity.type}, #{entity.id}){lock} — as of {as_of}"]
    if entity.aliases:
        lines.append("Also known as: " + ", ".join(entity.aliases))
    lines.append("State: " + (_line(card.state) if card.state else "unknown"))
    lines += ["Relations:", *(f"  {_line(v)}" for v in card.relations)] if card.relations else []
    lines += ["Facts:", *(f"  {_line(v)}" for v in card.facts)] if card.facts else []
    return "\n".join(lines)


@canon_app.command("entity")
def canon_entity(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    as_of: Annotated[str | None, typer.Option("--as-of", help="In-world date, like 3rd_age.year_300")] = None,
    as_of_scene: Annotated[
        int | None, typer.Option("--as-of-scene", help="As it stood after this scene (0: before any)")
    ] = None,
    believed_at: Annotated[
        str | None, typer.Option("--believed-at", help="What we believed at a real time (ISO, UTC)")
    ] = None,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Print an entity's card: state, aliases, relations, facts and their evidence."""
    from bot.services.canon_service import parse_as_of
    from canon.domain import Viewer

    point = _checked(lambda: parse_as_of(at_date=as_of, at_scene=as_of_scene, believed_at=believed_at))

    async def work(services: Any, found: Any) -> EntityCard:
        card: EntityCard = await services.canon.card(found, name, viewer=Viewer(viewer.value), as_of=point)
        return card

    card = _with_campaign(campaign, work)
    payload = {**card.model_dump(mode="json"), "as_of": point.model_dump(mode="json"), "viewer": viewer.value}
    if viewer == ViewerChoice.PLAYER:
        payload.pop("hidden_count", None)  # not even how much is hidden
    emit(payload, as_json=as_json, text=lambda: _card_text(card, point.describe()))


@canon_app.command("timeline")
def canon_timeline(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Print everything about an entity in story order, retconned rows included and marked."""
    from canon.domain import Viewer

    async def work(services: Any, found: Any) -> tuple[str, list[StatementView]]:
        result: tuple[str, list[StatementView]] = await services.canon.timeline(
            found, name, viewer=Viewer(viewer.value)
        )
        return result

    title, views = _with_campaign(campaign, work)
    emit(
        {"entity": title, "viewer": viewer.value, "timeline": [v.model_dump(mode="json") for v in views]},
        as_json=as_json,
        text=lambda: "\n".join([f"Timeline of {title}:", *(f"  {_line(v)}" for v in views)]),
    )


@canon_app.command("neighbours")
def canon_neighbours(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    hops: Annotated[int, typer.Option("--hops", help="How many steps out (1 to 4)")] = 1,
    as_of: Annotated[str | None, typer.Option("--as-of", help="In-world date, like 3rd_age.year_300")] = None,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Print the relations within N steps of an entity, nearest first."""
    from bot.services.canon_service import parse_as_of
    from canon.domain import Viewer

    point = _checked(lambda: parse_as_of(at_date=as_of))

    async def work(services: Any, found: Any) -> Any:
        return await services.canon.neighbours(
            found, name, viewer=Viewer(viewer.value), hops=hops, as_of=point
        )

    entity, found = _with_campaign(campaign, work)
    reached: dict[int, tuple[int, Any]] = {}
    for hop, view in found:
        for ref in (view.subject, view.object):
            if ref is not None and ref.id != entity.id and ref.id not in reached:
                reached[ref.id] = (hop, ref)
    payload = {
        "entity": entity.model_dump(mode="json"),
        "hops": hops,
        "as_of": point.model_dump(mode="json"),
        "viewer": viewer.value,
        "relations": [{"hop": hop, **view.model_dump(mode="json")} for hop, view in found],
        "entities": [{"hop": hop, **ref.model_dump(mode="json")} for hop, ref in reached.values()],
    }
    emit(
        payload,
        as_json=as_json,
        text=lambda: "\n".join(
            [f"Within {hops} step(s) of {entity.name}:"]
            + [f"  [{hop}] {_line(view)}" for hop, view in found]
            + ([] if found else ["  nothing"])
        ),
    )


@canon_app.command("check")
def canon_check(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Run every continuity rule over the whole graph; print each conflict (exit code 1 when there is one)."""

    async def work(services: Any, found: Any) -> Any:
        return await services.canon.check(found)

    findings, new = _with_campaign(campaign, work)
    fresh = {f.fingerprint for f in new}

    def text() -> str:
        if not findings:
            return "No continuity problems."
        lines = [f"{len(findings)} problem(s), {len(new)} new:"]
        for f in findings:
            lines.append(f"- [{f.kind.value}]{' (new)' if f.fingerprint in fresh else ''} {f.message}")
            for side in f.sides:
                evidence = "; ".join(e.describe() for e in side.evidence)
                lines.append(f"    {side.sentence}" + (f" — {evidence}" if evidence else ""))
        return "\n".join(lines)

    emit(
        {
            "campaign": campaign,
            "conflicts": [{**f.model_dump(mode="json"), "new": f.fingerprint in fresh} for f in findings],
        },
        as_json=as_json,
        text=text,
    )
    if findings:  # a check that finds problems fails, for scripts and CI
        raise typer.Exit(1)


@canon_app.command("conflicts")
def canon_conflicts(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Print the conflicts recorded for the campaign, newest first."""

    async def work(services: Any, found: Any) -> Any:
        return await services.canon.conflicts(found)

    recorded = _with_campaign(campaign, work)
    emit(
        [c.model_dump(mode="json") for c in recorded],
        as_json=as_json,
        text=lambda: (
            "\n".join(f"#{c.id} [{c.kind}, {c.status}] {c.message}" for c in recorded)
            or "No conflicts recorded."
        ),
    )


def _read_extension(path: Path) -> dict[str, Any] | None:
    """Return the ontology extension in a YAML (or JSON) file (None when empty), or exit 1 saying why."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    except OSError as error:
        fail(f"Cannot read {path}: {error.strerror or error}.", code=1)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        fail(f"{path} is not valid YAML{where}: {getattr(error, 'problem', None) or error}.", code=1)
    if data is not None and not isinstance(data, dict):
        fail(f"{path} must hold a mapping with entity_types, relation_types and states.", code=1)
    return data or None


def _ontology_payload(campaign: str, extension: Any, ontology: Ontology) -> dict[str, Any]:
    return {
        "campaign": campaign,
        "extension": extension,
        "entity_types": sorted(ontology.entity_types),
        "relation_types": sorted(ontology.relation_types),
        "states": sorted(ontology.states.tags),
        "transitions": {k: list(v) for k, v in sorted(ontology.states.transitions.items())},
        "via": {k: v.model_dump(by_alias=True) for k, v in sorted(ontology.states.via.items())},
    }


@canon_app.command("ontology")
def canon_ontology(
    campaign: CampaignOption,
    set_file: Annotated[
        Path | None,
        typer.Option("--set", help="Replace the campaign's extension with this YAML file (validated first)"),
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the campaign's extension")] = False,
    as_json: JsonOption = False,
) -> None:
    """Show the campaign's ontology and its extension, or set the extension (it may only add to the base)."""
    if set_file is not None and clear:
        fail("Give --set FILE or --clear, not both.", code=1)
    extension = _read_extension(set_file) if set_file is not None else None

    async def work(services: Any, found: Any) -> tuple[Any, Ontology]:
        if set_file is not None or clear:
            return extension, await services.canon.set_ontology(found, extension)
        return found.settings.get("ontology"), services.canon.ontology_for(found)

    shown, ontology = _with_campaign(campaign, work)
    payload = _ontology_payload(campaign, shown, ontology)

    def text() -> str:
        lines = [
            f"Ontology of {campaign}" + (" (base plus the campaign's extension)" if shown else " (base)")
        ]
        lines.append("Entity types: " + ", ".join(payload["entity_types"]))
        lines.append("Relations: " + ", ".join(payload["relation_types"]))
        lines.append("States: " + ", ".join(payload["states"]))
        lines.append("Events that change states: " + ", ".join(payload["via"]))
        if shown:
            lines.append("Extension: " + json.dumps(shown, ensure_ascii=False, sort_keys=True))
        return "\n".join(lines)

    emit(payload, as_json=as_json, text=text)


def _add(campaign: str, kind: str, build: Callable[[], ProposalContent], as_json: bool) -> None:
    from canon.proposals import describe

    content = _checked(build)

    async def work(services: Any, found: Any) -> Any:
        return await services.canon.add_direct(
            found, content, cli_actor(), command=f"lorekeeper canon add {kind}"
        )

    result = _with_campaign(campaign, work)
    payload = {
        "changeset_id": result.changeset_id,
        "written": [p.model_dump(mode="json") for p in result.accepted],
        "entity_ids": {str(k): v for k, v in result.entity_ids.items()},
        "statement_ids": result.statement_ids,
        "conflicts": [f.model_dump(mode="json") for f in result.findings],
    }

    def text() -> str:
        lines = [f"Written to canon (changeset #{result.changeset_id}):"]
        lines += [f"  {describe(p.content)}" for p in result.accepted]
        if result.statement_ids:
            lines.append("  facts: " + ", ".join(f"#{i}" for i in result.statement_ids))
        lines += [f"  conflict [{f.kind.value}]: {f.message}" for f in result.findings]
        return "\n".join(lines)

    emit(payload, as_json=as_json, text=text)


@canon_add_app.command("fact")
def add_fact(
    subject: Annotated[str, typer.Argument(help="Who or what it is about")],
    attribute: Annotated[str, typer.Argument(help="What about it, like title")],
    value: Annotated[str, typer.Argument(help="Its value")],
    campaign: CampaignOption,
    when: WhenOption = None,
    relies_on: ReliesOnOption = None,
    gm_only: GmOnlyOption = False,
    as_json: JsonOption = False,
) -> None:
    """Write a fact: SUBJECT's ATTRIBUTE is VALUE."""
    from canon import forms

    _add(
        campaign,
        "fact",
        lambda: forms.fact_content(
            subject=subject, attribute=attribute, value=value, when=when, gm_only=gm_only, relies_on=relies_on
        ),
        as_json,
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
            relies_on=relies_on,
        ),
        as_json,
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
        lambda: forms.state_content(
            subject=subject, state=state, via=via, when=when, gm_only=gm_only, relies_on=relies_on
        ),
        as_json,
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
            relies_on=relies_on,
        ),
        as_json,
    )
