"""`lorekeeper canon ...`: look up, check and write canon from the command line, with JSON for scripts.

Registered on the main app by `bot.cli.main`. Every command names its campaign (`--campaign NAME`) and calls the
same `CanonService` methods as the Discord commands. The command line acts as the GM when it writes; it reads
as a player unless `--as gm` is given, so hidden canon is only printed on request.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from bot.cli.calendar import canon_calendar
from bot.cli.canon_add import canon_add_app
from bot.cli.canon_retcon import canon_retcon
from bot.cli.common import (
    IN_WORLD_DATE_HELP,
    CampaignOption,
    JsonOption,
    Typer,
    ViewerChoice,
    checked,
    emit,
    fail,
    with_campaign,
)
from bot.cli.knowledge import canon_known, canon_reveal, canon_unreveal

if TYPE_CHECKING:
    from canon.campaign_calendar import CampaignCalendar
    from canon.models import EntityCard, StatementView, Viewer
    from canon.ontology import Ontology
    from canon.wording import Wording

T = TypeVar("T")

canon_app = Typer(help="Look up, check and write canon without Discord.", no_args_is_help=True)
canon_app.add_typer(canon_add_app, name="add")
canon_app.command("calendar")(canon_calendar)
canon_app.command("retcon")(canon_retcon)
canon_app.command("reveal")(canon_reveal)
canon_app.command("unreveal")(canon_unreveal)
canon_app.command("known")(canon_known)


AsOption = Annotated[
    ViewerChoice, typer.Option("--as", help="Read as a player (public canon) or as the GM (everything)")
]


def _line(view: StatementView, words: Wording | None = None, viewer: Viewer | None = None) -> str:
    """Return one statement for the command line, in the table's words (the campaign's calendar's `words`): what
    `lorekeeper canon retcon` takes back (ids only in --json); its evidence as `viewer` reads it (a player: "from
    the lore files", never a file's name and line)."""
    from canon.models import CanonLevel, Viewer
    from canon.visibility import view_hidden
    from canon.wording import PLAIN, statement_words

    s = view.statement
    lock = "[gm only] " if view_hidden(view) else ""
    retconned = " [retconned]" if s.provenance.level == CanonLevel.RETCONNED else ""
    return f"{lock}{statement_words(view, words or PLAIN, viewer or Viewer.GM)}{retconned}"


def _plain() -> Wording:
    from canon.wording import PLAIN

    return PLAIN


def _state_line(card: EntityCard, words: Wording, viewer: Viewer) -> str:
    """Return a card's state as `_line` says a statement, a living person's status over a birth's "alive"."""
    from canon.visibility import view_hidden
    from canon.wording.statements import state_words, status_fact_over_life, status_over_life

    assert card.state is not None
    view = card.state
    status = status_fact_over_life(view, card.facts)  # a status the GM keeps: the line is the GM's too
    text = state_words(view, words, status_over_life(view, card.facts))
    if view.statement.evidence:
        text += " — " + "; ".join(words.evidence(e, viewer) for e in view.statement.evidence[:2])
    hidden = view_hidden(view) or (status is not None and view_hidden(status))
    return ("[gm only] " if hidden else "") + text


def _words(calendar: CampaignCalendar) -> Wording:
    """Return the words of the campaign's calendar for the command line's text."""
    from canon.wording import Wording

    return Wording(calendar=calendar.words())


def _said(payload: Any, words: Wording | None) -> Any:
    """Return a JSON payload with its dates in the reader's calendar's words (`bot.cli.json_words`)."""
    from bot.cli.json_words import dates_in_words

    return dates_in_words(payload, (words or _plain()).calendar)


def _card_text(card: EntityCard, as_of: str, words: Wording | None, viewer: Viewer) -> str:
    from canon.visibility import entity_hidden

    entity = card.entity
    lock = " [gm only]" if entity_hidden(entity) else ""
    lines = [f"{entity.name} ({entity.type}){lock} — as of {as_of}"]
    if entity.aliases:
        lines.append("Also known as: " + ", ".join(entity.aliases))
    from canon.wording.statements import for_a_card, said_above

    words = for_a_card(words or _plain(), card.state)  # a dead man "lived in" his town
    if card.state:  # a place or an event has no state: nothing to say, rather than "unknown"
        lines.append("State: " + _state_line(card, words, viewer))
    lines += (
        ["Relations:", *(f"  {_line(v, words, viewer)}" for v in card.relations)] if card.relations else []
    )
    facts = [v for v in card.facts if not said_above(v, entity.aliases)]  # its names once: "Also known as"
    lines += ["Facts:", *(f"  {_line(v, words, viewer)}" for v in facts)] if facts else []
    return "\n".join(lines)


@canon_app.command("entity")
def canon_entity(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help=IN_WORLD_DATE_HELP,
        ),
    ] = None,
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
    from bot.services.canon_queries import parse_as_of
    from canon.models import Viewer

    point = checked(lambda: parse_as_of(at_scene=as_of_scene, believed_at=believed_at))
    described = point.describe()
    words = None

    async def work(services: Any, found: Any) -> EntityCard:
        nonlocal point, described, words
        calendar = await services.calendars.calendar(found, Viewer(viewer.value))
        words = _words(calendar)
        if as_of:  # read on the campaign's calendar, as the table writes dates
            point = parse_as_of(
                at_date=as_of, at_scene=as_of_scene, believed_at=believed_at, calendar=calendar
            )
            described = calendar.words().in_words(point.describe()).removeprefix("at ")  # "as of year 330 …"
        card: EntityCard
        card, worded = await services.queries.worded_card(
            found, name, viewer=Viewer(viewer.value), as_of=point
        )
        # a parent as father or mother as this viewer may know it, what is over in the past
        words = replace(
            words, sexes=worded.sexes, deaths=worded.deaths, tensed=worded.tensed, now_key=worded.now_key
        )
        return card

    card = with_campaign(campaign, work)
    payload = {**card.model_dump(mode="json"), "as_of": point.model_dump(mode="json"), "viewer": viewer.value}
    if viewer == ViewerChoice.PLAYER:
        payload.pop("hidden_count", None)  # not even how much is hidden
    emit(
        _said(payload, words),
        as_json=as_json,
        text=lambda: _card_text(card, described, words, Viewer(viewer.value)),
    )


@canon_app.command("timeline")
def canon_timeline(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Print everything about an entity in story order, retconned rows included and marked."""
    from canon.models import Viewer

    words = None

    async def work(services: Any, found: Any) -> tuple[str, list[StatementView]]:
        nonlocal words
        words = _words(await services.calendars.calendar(found, Viewer(viewer.value)))
        title, views, worded = await services.queries.worded_timeline(
            found, name, viewer=Viewer(viewer.value)
        )
        # a parent as father or mother as this viewer may know it, what is over in the past, a birth as one
        words = replace(
            words,
            sexes=worded.sexes,
            deaths=worded.deaths,
            births=worded.births,
            tensed=worded.tensed,
            now_key=worded.now_key,
        )
        return title, views

    title, views = with_campaign(campaign, work)
    emit(
        _said(
            {"entity": title, "viewer": viewer.value, "timeline": [v.model_dump(mode="json") for v in views]},
            words,
        ),
        as_json=as_json,
        text=lambda: "\n".join(
            [f"Timeline of {title}:", *(f"  {_line(v, words, Viewer(viewer.value))}" for v in views)]
        ),
    )


@canon_app.command("neighbours")
def canon_neighbours(
    name: Annotated[str, typer.Argument(help="The entity's name, alias or #id")],
    campaign: CampaignOption,
    hops: Annotated[int, typer.Option("--hops", help="How many steps out (1 to 4)")] = 1,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help=IN_WORLD_DATE_HELP,
        ),
    ] = None,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Print the relations within N steps of an entity, nearest first."""
    from bot.services.canon_queries import parse_as_of
    from canon.models import Viewer
    from canon.wording.counts import counted

    point = checked(lambda: parse_as_of())
    words = None

    async def work(services: Any, found: Any) -> Any:
        nonlocal point, words
        calendar = await services.calendars.calendar(found, Viewer(viewer.value))
        words = _words(calendar)
        if as_of:  # read on the campaign's calendar, as the table writes dates
            point = parse_as_of(at_date=as_of, calendar=calendar)
        return await services.queries.neighbours(
            found, name, viewer=Viewer(viewer.value), hops=hops, as_of=point
        )

    entity, found = with_campaign(campaign, work)
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
        _said(payload, words),
        as_json=as_json,
        text=lambda: "\n".join(
            [f"Within {counted(hops, 'step')} of {entity.name}:"]
            + [f"  [{hop}] {_line(view, words, Viewer(viewer.value))}" for hop, view in found]
            + ([] if found else ["  nothing"])
        ),
    )


@canon_app.command("check")
def canon_check(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Run every continuity rule over the whole graph; print each conflict (exit code 1 when there is one)."""
    words: Wording | None = None

    async def work(services: Any, found: Any) -> Any:
        nonlocal words
        from canon.models import Viewer

        # The GM's findings: dates in the campaign calendar's words, a GM-only era's too.
        words = _words(await services.calendars.calendar(found, Viewer.GM))
        return await services.queries.check(found)

    findings, new = with_campaign(campaign, work)
    fresh = {f.fingerprint for f in new}

    def text() -> str:
        if not findings:
            return "No continuity problems."
        from canon.models import Viewer
        from canon.wording import PLAIN, evidence_words, warning_sentence
        from canon.wording.findings import kind_words

        lines = [f"{len(findings)} problem{'s' if len(findings) != 1 else ''}, {len(new)} new:"]
        for f in findings:
            new_mark = " (new)" if f.fingerprint in fresh else ""
            lines.append(
                f"- {kind_words(f.kind.value)}{new_mark}: {warning_sentence(f.message, words or PLAIN)}"
            )
            for side in f.sides:
                evidence = "; ".join(evidence_words(e, Viewer.GM) for e in side.evidence)
                said = warning_sentence(side.sentence, words or PLAIN)
                lines.append(f"    {said}" + (f" — {evidence}" if evidence else ""))
        return "\n".join(lines)

    emit(
        _said(
            {
                "campaign": campaign,
                "conflicts": [{**f.model_dump(mode="json"), "new": f.fingerprint in fresh} for f in findings],
            },
            words,
        ),
        as_json=as_json,
        text=text,
    )
    if findings:  # a check that finds problems fails, for scripts and CI
        raise typer.Exit(1)


@canon_app.command("conflicts")
def canon_conflicts(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Print the conflicts recorded for the campaign, newest first."""
    words: Wording | None = None

    async def work(services: Any, found: Any) -> Any:
        nonlocal words
        from canon.models import Viewer

        # The GM's findings: dates in the campaign calendar's words, a GM-only era's too.
        words = _words(await services.calendars.calendar(found, Viewer.GM))
        return await services.queries.conflicts(found)

    recorded = with_campaign(campaign, work)
    emit(
        _said([c.model_dump(mode="json") for c in recorded], words),
        as_json=as_json,
        text=lambda: (
            "\n".join(
                f"{_kind_words(c.kind)} ({c.status}): {_warning(c.message, words)} (conflict {c.id})"
                for c in recorded
            )
            or "No conflicts recorded."
        ),
    )


def _kind_words(kind: str) -> str:
    from canon.wording.findings import kind_words

    return kind_words(kind)


def _warning(message: str, words: Wording | None = None) -> str:
    from canon.wording import PLAIN, warning_sentence

    return warning_sentence(message, words or PLAIN)


def _read_extension(path: Path) -> dict[str, Any] | None:
    """Return the ontology extension in a YAML (or JSON) file (None when empty), or exit 1 saying why."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    except OSError as error:
        fail(f"Cannot read {path}: {error.strerror or error}.", code=1)
    except YAMLError as error:
        from canon.yaml_errors import syntax_problem

        found = syntax_problem(error, path.read_text(encoding="utf-8"))
        fail(f"{path}, line {found.line}: {found.message}.", code=1)
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
            return extension, await services.admin.set_ontology(found, extension)
        return found.settings.get("ontology"), services.access.ontology_for(found)

    shown, ontology = with_campaign(campaign, work)
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
