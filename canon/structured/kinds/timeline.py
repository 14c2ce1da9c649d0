"""Timeline files: eras on the absolute year axis, and the events in them.

Either one era at the top level (the seed's form) or several under `eras:`; events sit under their era, or at
the top level with their own `era:` (a path such as `3rd_age.age_of_iron`, outermost first, promises the
nesting), or, in a campaign whose years have no eras, with only a `year:` (a plain year). Edges: era
SUB_ERA_OF parent; event OCCURRED_DURING its era, OCCURRED_AT its location, each participant PARTICIPATED_IN it
and each winner (`winner`, `winners`) WON it, all from the event's date; `outcome` and `terms` (a treaty's) are
attributes. An event's `gm_only` hides the fields it names, as a character's.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field, JsonValue

from canon.calendar import EraCalendar, EraSpan, WorldDate
from canon.campaign_calendar import CampaignCalendar, era_key, era_key_for
from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.fates import told_attributes, truths_told
from canon.structured.kinds.hidden import hidden_fields
from canon.structured.kinds.leaks import warn_told_truths
from canon.structured.schemas import (
    ERAS,
    HOUSES_TOO,
    PLACES,
    Date,
    Day,
    Entry,
    EraId,
    EraPath,
    EraRef,
    Id,
    LoreModel,
    Month,
    Name,
    Ref,
    RelationField,
    Text,
    Visibility,
    Year,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.tree import Map
    from canon.structured.validate import Loc, Validator


class Event(Entry):
    """A named event; its date is its era (or the enclosing era) plus optional year, month and day."""

    yaml_aliases: ClassVar[dict[str, str]] = {"slug": "id", "label": "name"}

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    in_fiction_date: Text | None = None
    era: EraPath | None = None
    # Its date as a person's `born:` is written ("9 Scorch, 668 CY", "668", "crown_years.668.3.9"), or:
    date: Date | None = None
    year: Year | None = None
    month: Month | None = None
    day: Day | None = None
    location: Ref | None = None
    participants: list[Ref] = Field(default_factory=list)
    # Who died in it (DIED_IN): "who died in the Battle of X?".
    deaths: list[Ref] = Field(default_factory=list)
    # How it ended: who won (WON edges), the outcome in words, a treaty's terms.
    winner: Ref | None = None
    winners: list[Ref] = Field(default_factory=list)
    outcome: Text | None = None
    public_outcome: Text | None = None  # what players are told in place of a true `outcome` (`kinds.fates`)
    terms: Text | None = None
    description: Text | None = None
    significance: Text | None = None
    # The fields only the GM may read (a secret clause: `gm_only: [terms]`), as a character's.
    gm_only: list[Text] = Field(default_factory=list)


class Era(Entry):
    """An era with absolute start and end years (both inclusive; no end means ongoing) and its events."""

    era: EraId
    name: Name | None = None
    abbreviation: Text | None = None
    parent_era: EraRef | None = None
    start: Year | None = None
    end: Year | None = None
    description: Text | None = None
    events: list[Event] = Field(default_factory=list)


class TimelineFile(LoreModel):
    """A timeline: one or more eras; events nested in an era or listed at the top with their own era."""

    eras: list[Era] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)


_ERA_HEADER_FIELDS = frozenset(Era.model_fields) - {"events"}


def read_root(node: Map, validator: Validator) -> TimelineFile | None:
    """Read a timeline: several eras under `eras:`, or one era described at the top level (the seed's form)."""
    keys = {key.value for key, _ in node.pairs}
    header = keys & _ERA_HEADER_FIELDS
    if "eras" in keys or not header:
        for key, _ in node.pairs:
            if key.value in header:
                validator.at(
                    key,
                    f'"{key.value}" describes a single era; with "eras:" put it inside each era\'s entry, '
                    'or drop "eras:" and describe one era at the top level',
                )
        data = validator.fields(node, TimelineFile, (), skip=frozenset(header))
        return validator.document(TimelineFile, data)
    era = validator.unit(node, Era, (), "the timeline")
    if era is None:
        return None
    return TimelineFile(eras=[era])


def normalise(n: Normaliser, document: TimelineFile) -> None:
    """Define the eras and their events, with their dates, bounds and edges."""
    eras = document.eras
    by_id = {era.era: era for era in eras}
    # An era this file gives an id of its own ("the_ashen_reckoning") is still found by its name.
    named = {era_key(e.name): e.era for e in eras if e.name and era_key(e.name) not in by_id}

    def own(era_id: str | None) -> str | None:
        return named.get(era_id, era_id) if era_id is not None else None

    n.calendar = EraCalendar(
        {
            era.era: EraSpan(id=era.era, start=era.start, end=era.end, parent=own(era.parent_era))
            for era in eras
        }.values()
    )
    parents: dict[str, list[tuple[str, Loc]]] = {}
    calendar = n.v.context.get("calendar")
    for era in eras:
        loc = n.v.loc_of(era)
        _check_calendar_key(n, era, calendar, loc)
        attributes: dict[str, JsonValue] = {
            "start": era.start,
            "end": era.end,
            "abbreviation": era.abbreviation,  # what the table types for it: "363 TA" (the campaign calendar)
            "description": era.description,
        }
        n.define(
            "Era",
            era.era,
            era.name or era.era,
            attributes,
            era.visibility or "public",
            loc,
        )
        if era.start is not None and era.end is not None and era.end < era.start:
            n.v.report((*loc, "end"), f'"end" ({era.end}) is before "start" ({era.start})')
        if era.start is not None:
            n.life(era.era, "era_start", WorldDate(era=era.era, year=era.start), (*loc, "start"))
        if era.end is not None:
            n.life(era.era, "era_end", WorldDate(era=era.era, year=era.end), (*loc, "end"))
        parent_id = own(era.parent_era)
        if parent_id is not None:
            parent_loc = (*loc, "parent_era")
            n.refer(era.era, parent_loc, "parent_era", parent_id, ERAS)
            if parent_id == era.era:
                n.v.report(parent_loc, f'"parent_era" refers to "{era.era}" itself')
            else:
                n.relate("SUB_ERA_OF", era.era, parent_id, "parent_era", era.era, parent_loc)
                parents.setdefault(era.era, []).append((parent_id, parent_loc))
            parent = by_id.get(parent_id)
            if parent is not None:
                _check_sub_era(n, era, parent, loc)
    n.report_cycles(parents, lambda cycle: f'era "{cycle[0]}" would be inside itself: {" -> ".join(cycle)}')
    for era in eras:
        for event in era.events:
            _event(n, event, era, by_id, named)
    for event in document.events:
        _event(n, event, None, by_id, named)


def _check_calendar_key(n: Normaliser, era: Era, calendar: CampaignCalendar | None, loc: Loc) -> None:
    """Refuse an era whose name the campaign calendar gives to an era of another id: one name, one era."""
    if era.name is None or calendar is None:
        return
    keyed = era_key_for(era.name, calendar)
    if calendar.era(keyed) is not None and keyed != era.era:
        n.v.report(
            (*loc, "era"),
            f'"era" is {era.era}, but the campaign calendar names its era “{era.name}” {keyed}; write '
            f'"era: {keyed}" (or leave "era:" out: the name gives it), or give the era another name',
        )


def _check_sub_era(n: Normaliser, era: Era, parent: Era, loc: Loc) -> None:
    bounds = n.calendar.bounds(parent.era)
    if bounds is None:
        return
    start, end = bounds
    if era.start is not None and start is not None and era.start < start:
        n.v.report(
            (*loc, "start"),
            f'"start" ({era.start}) is before the start of its parent era {parent.era} ({start})',
        )
    if era.end is not None and end is not None and era.end > end:
        n.v.report(
            (*loc, "end"), f'"end" ({era.end}) is after the end of its parent era {parent.era} ({end})'
        )


def _event(
    n: Normaliser, event: Event, enclosing: Era | None, eras: dict[str, Era], named: dict[str, str]
) -> None:
    loc = n.v.loc_of(event)
    visibility: Visibility = event.visibility or (enclosing.visibility if enclosing else None) or "public"
    path = [named.get(p, p) for p in event.era.split(".")] if event.era else []
    era_loc = (*loc, "era")
    if enclosing is not None and path and enclosing.era not in path:
        n.v.report(era_loc, f'"era" is {event.era}, but this event is listed under era {enclosing.era}')
    for outer, inner in itertools.pairwise(path):
        inner_era = eras.get(inner)
        if inner_era is not None and named.get(inner_era.parent_era or "", inner_era.parent_era) != outer:
            n.v.report(
                era_loc,
                f'"era" is {event.era}, but era {inner} is not inside {outer} (its parent_era is '
                f"{inner_era.parent_era or 'not set'})",
            )
    era_id = path[-1] if path else (enclosing.era if enclosing else None)
    written = _written_date(n, event, loc)
    if era_id is None and written is not None:
        era_id = written.era  # the date names the era: "9 Scorch, 668 CY"
    elif written is not None and not _same_era(written.era, era_id, path, n.calendar):
        n.v.report(
            (*loc, "date"), f'"date" is in era {written.era}, but this event is in era {era_id}: give one era'
        )
        written = None
    date: WorldDate | None = None
    refused = (*loc, "date") in n.v.reported  # a `date:` that could not be read: reported where it is written
    if refused or (written is None and event.date is not None and not event.date.is_unknown):
        pass  # a date refused: nothing more to say of it
    elif era_id is None and event.year is None and (written is None or written.year is None):
        n.v.report(
            loc,
            'an event listed outside an era needs its date: "date:" written as a person\'s "born:" is (in the '
            'calendar\'s words, or a year), "era:" (the era it happened in), or "year:" in a campaign whose years '
            "have no eras",
        )
    else:
        date = _event_date(n, event, era_id, path[:-1], loc, written)
    attributes: dict[str, JsonValue] = {
        "aliases": list(event.aliases),
        "date": n.date_text(date),
        "in_fiction_date": event.in_fiction_date,
        "outcome": event.outcome,
        **told_attributes(event),
        "terms": event.terms,
        "description": event.description,
        "significance": event.significance,
    }
    hidden = truths_told(n, event, loc, hidden_fields(n, event, loc, _EVENT_HIDEABLE))
    n.define("Event", event.id, event.name, attributes, visibility, loc, hidden)
    warn_told_truths(n, event, loc, hidden, visibility=visibility)
    if era_id is not None:
        n.link("Event", "era", event.id, era_loc if path else loc, era_id, valid_from=date)
    if date is not None:
        n.life(event.id, "occurred", date, loc)
    if event.location is not None:
        n.link(
            "Event",
            "location",
            event.id,
            (*loc, "location"),
            event.location,
            valid_from=date,
            gm_only="location" in hidden,
        )
    for field_name in ("participants", "winners", "deaths"):
        for index, agent in enumerate(getattr(event, field_name)):
            at = (*loc, field_name, index)
            since = None if field_name == "deaths" else date  # a death is no state that holds from a day on
            n.link("Event", field_name, event.id, at, agent, valid_from=since, gm_only=field_name in hidden)
    if event.winner is not None:
        at = (*loc, "winner")
        n.link("Event", "winner", event.id, at, event.winner, valid_from=date, gm_only="winner" in hidden)


def _written_date(n: Normaliser, event: Event, loc: Loc) -> WorldDate | None:
    """Return an event's `date:` (None when it has none, or says nothing known); refuse it beside `year`,
    `month` or `day`: a date is said one way."""
    if event.date is None or event.date.is_unknown:
        return None
    also = [name for name in ("year", "month", "day") if getattr(event, name) is not None]
    if also:
        n.v.report(
            (*loc, "date"),
            f'"date" and "{also[0]}" both say when this event happened: write its date once, "date:" alone or '
            '"year:" (with "month:" and "day:")',
        )
        return None
    return event.date


def _same_era(written: str | None, era: str | None, path: list[str], calendar: EraCalendar) -> bool:
    """Tell whether a date's era agrees with the event's: none (a plain year), the era itself or one of its path,
    or an era the event's era lies inside (a sub-era's event dated in its parent era's words)."""
    if written is None or written in (era, *path):
        return True
    seen: set[str] = set()
    while era is not None and era not in seen and era in calendar.eras:
        seen.add(era)
        era = calendar.eras[era].parent
        if era == written:
            return True
    return False


def _event_date(
    n: Normaliser,
    event: Event,
    era_id: str | None,
    outer_eras: list[str],
    loc: Loc,
    written: WorldDate | None = None,
) -> WorldDate | None:
    if written is not None:
        return _checked(n, written.model_copy(update={"era": era_id}), era_id, outer_eras, (*loc, "date"))
    broken = False
    if event.month is not None and event.year is None:
        n.v.report((*loc, "month"), '"month" needs a "year"')
        broken = True
    if event.day is not None and event.month is None:
        n.v.report((*loc, "day"), '"day" needs a "month"')
        broken = True
    calendar = n.v.context.get("calendar")
    if isinstance(calendar, CampaignCalendar):  # the campaign's months, each of its own length
        broken = broken or (event.month is not None and _outside_the_months(n, event, calendar, loc))
    else:
        rules = n.v.rules
        if event.month is not None and event.month > rules.months_per_year:
            n.v.report(
                (*loc, "month"),
                f'"month" must be 1 to {rules.months_per_year} (the months of the calendar); got {event.month}',
            )
            broken = True
        if event.day is not None and event.day > rules.days_per_month:
            n.v.report((*loc, "day"), f'"day" must be 1 to {rules.days_per_month}; got {event.day}')
            broken = True
    if broken:
        return None
    date = WorldDate(era=era_id, year=event.year, month=event.month, day=event.day)
    return _checked(n, date, era_id, outer_eras, (*loc, "year"))


def _outside_the_months(n: Normaliser, event: Event, calendar: CampaignCalendar, loc: Loc) -> bool:
    """Report a `month` the campaign's calendar lacks, or a `day` its month lacks (each month has its length)."""
    month = event.month or 0
    days = calendar.days_in(month)
    if not days:
        n.v.report(
            (*loc, "month"), f'"month" must be 1 to {calendar.month_count} (the months of the calendar)'
        )
        return True
    if event.day is not None and event.day > days:
        n.v.report((*loc, "day"), f'"day" is {event.day}, but {calendar.month_name(month)} has {days} days')
        return True
    return False


def _checked(n: Normaliser, date: WorldDate, era_id: str | None, outer_eras: list[str], at: Loc) -> WorldDate:
    """Report a date whose year lies outside its era (a path such as 3rd_age.age_of_iron also promises the year
    lies inside 3rd_age), at the field that gives the year."""
    for era in [era_id, *reversed(outer_eras)] if era_id is not None else ():
        reason = n.calendar.check(date.model_copy(update={"era": era}))
        if reason is not None:
            n.v.report(at, f'"{at[-1]}": {reason}')
            break
    return date


#: An event's fields the GM may hide one by one (its date and era make the event itself: hide it whole).
_EVENT_HIDEABLE = frozenset(
    {
        *("aliases", "in_fiction_date", "location", "participants", "winner", "winners", "deaths"),
        *("outcome", "public_outcome", "terms", "description", "significance"),
    }
)


def event_hideable() -> frozenset[str]:
    """Return an event's fields the GM may hide one by one (the cheat-sheet lists them)."""
    return _EVENT_HIDEABLE


KIND = KindSpec(
    name="timeline",
    keys=("era", "eras", "events", "parent_era", "start", "end"),
    model=TimelineFile,
    also_top=tuple(sorted(_ERA_HEADER_FIELDS)),
    entries={Era: ("Era", "era"), Event: ("Event", "id")},
    normalise=normalise,
    relations=(
        RelationField(
            entity_type="Era", field="parent_era", relation="SUB_ERA_OF", outgoing=True, target_types=ERAS
        ),
        RelationField(
            entity_type="Event", field="era", relation="OCCURRED_DURING", outgoing=True, target_types=ERAS
        ),
        RelationField(
            entity_type="Event", field="location", relation="OCCURRED_AT", outgoing=True, target_types=PLACES
        ),
        RelationField(
            entity_type="Event",
            field="participants",
            relation="PARTICIPATED_IN",
            outgoing=False,
            target_types=HOUSES_TOO,
        ),
        RelationField(
            entity_type="Event", field="winner", relation="WON", outgoing=False, target_types=HOUSES_TOO
        ),
        RelationField(
            entity_type="Event", field="winners", relation="WON", outgoing=False, target_types=HOUSES_TOO
        ),
        RelationField(
            entity_type="Event",
            field="deaths",
            relation="DIED_IN",
            outgoing=False,
            target_types=("Person", "Creature"),
        ),
    ),
    read_root=read_root,
)
