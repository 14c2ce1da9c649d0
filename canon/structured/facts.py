"""Ingest stage 3: what each changed file states, fact by fact, once every entity exists.

An entry's attributes become attribute statements (timeless, under the names the ontology declares: a
family tree's `titles` is a Person's `title`), born and died the states `alive` and `dead` from
those dates (an `unknown` date writes the state from a start written `unknown`, the calendar's word for a date
nobody knows: "dead, when is not known" is canon, not nothing), and each relation record a relation statement with its validity
and visibility. Each fact fills a slot of its file (`attr|key|name`, `state|key|alive`, `rel|TYPE|src|dst`) that
names it independently of its value; its fingerprint tells a changed value from the same one.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue
from sqlalchemy import select

from canon.calendar import UNKNOWN, DateError, WorldDate, parse_date
from canon.continuity import world_key
from canon.models import ALWAYS, StatementKind, Validity, Visibility
from canon.structured.files import LoadedFile
from canon.structured.records import LoreEntry, LoreRelation
from canon.structured.schemas import SYMMETRIC
from canon.structured.title_spans import HELD_TITLE
from canon.structured.versions import CHUNK
from canon.tables import EntityRow
from canon.visibility import gm_only, visibility_of

if TYPE_CHECKING:
    from canon.structured.planned import Planned
    from canon.structured.resolve import Index
    from canon.structured.state import IngestState

# Attributes that are not attribute statements: they become the entity's validity or its states.
_NOT_ATTRIBUTES: dict[str, frozenset[str]] = {
    "Era": frozenset({"start", "end"}),
    "Event": frozenset({"date"}),
    "Person": frozenset({"born", "died"}),
    "NPC": frozenset({"born", "died"}),
    "PC": frozenset({"born", "died"}),
}
_LIFE_STATES = {"born": "alive", "died": "dead"}
_LIVING = frozenset({"Person", "NPC", "PC", "Creature", "Deity"})
#: Types whose `status` is their state (intact, destroyed, missing, ...), not an attribute: the ontology's states.
_STATE_STATUS = frozenset({"Item"})
_VISIBILITY = {v.value: v for v in Visibility}
_SEP = "\x1f"
#: When a birth or a death written `unknown` holds from: a date nobody knows, never a key (it sorts as no date).
_UNKNOWN_START = Validity(world_from=UNKNOWN)
_blake = hashlib.blake2b


@dataclass(slots=True)
class Fact:
    """One fact a file states, in its slot (one per fact of the file, whatever its value), with its fingerprint."""

    slot: str
    kind: StatementKind
    subject_id: int
    predicate: str
    object_id: int | None
    value: str | None
    validity: Validity
    visibility: Visibility
    line: int
    fp: str


def entity_fingerprint(entity_type: str, name: str, visibility: str, validity: Validity) -> str:
    text = _SEP.join((entity_type, name, visibility, validity.world_from or "", validity.world_until or ""))
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def tie_fingerprint(fact: Fact, visibility: str) -> str:
    """Return the fingerprint of a relation fact at a visibility (a tie made GM-only, or its open twin)."""
    return statement_fingerprint(
        "relation", fact.subject_id, fact.predicate, fact.object_id, None, fact.validity, visibility
    )


def statement_fingerprint(
    kind: str,
    subject_id: int,
    predicate: str,
    object_id: int | None,
    value: str | None,
    validity: Validity,
    visibility: str,
) -> str:
    text = _SEP.join(
        (
            kind,
            str(subject_id),
            predicate,
            "" if object_id is None else str(object_id),
            "" if value is None else value,
            validity.world_from or "",
            validity.world_until or "",
            visibility,
        )
    )
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def clean_name(name: str) -> str:
    return " ".join(name.split())


def _date_text(date: WorldDate | None) -> tuple[str | None, int | None]:
    if date is None:
        return None, None
    return (None if date.is_unknown else str(date)), world_key(date)


def _date_validity(
    start: tuple[str | None, int | None], end: tuple[str | None, int | None] = (None, None)
) -> Validity:
    return Validity(start[0], start[1], end[0], end[1])  # world_from, _key, world_until, _key


def entity_validity(entry: LoreEntry) -> Validity:
    attributes = entry.attributes
    if entry.entity_type == "Era":
        start, end = attributes.get("start"), attributes.get("end")
        return _date_validity(
            _date_text(WorldDate(era=entry.id, year=start) if isinstance(start, int) else None),
            _date_text(WorldDate(era=entry.id, year=end) if isinstance(end, int) else None),
        )
    if entry.entity_type == "Event":
        text = attributes.get("date")
        if isinstance(text, str):
            try:
                return _date_validity(_date_text(parse_date(text)))
            except DateError:  # pragma: no cover - the loader wrote it in canonical form
                return ALWAYS
    return ALWAYS


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, int) or float(value).is_integer() else str(value)


def value_text(value: JsonValue) -> str | None:
    """Return an attribute's value as statement text (None: nothing to state)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, list):
        items = [t for t in (value_text(v) for v in value) if t]
        return ", ".join(items) or None
    if isinstance(value, dict):
        return ", ".join(f"{k}={value_text(v)}" for k, v in value.items()) or None
    return str(value)  # pragma: no cover


class FactBuilder:
    """Turn the changed files' records into facts by slot, with every entity id known."""

    def __init__(
        self,
        ids: dict[str, int],
        planned_keys: Iterable[str],
        event_dates: dict[str, Validity],
        *,
        attribute_name: Callable[[str, str], str] | None = None,
    ) -> None:
        self._ids = ids
        # A field's attribute as the ontology declares it for the entry's type (`titles` is `title`).
        named = attribute_name or (lambda _type, name: name)
        # Asked once per (type, field): a file repeats the same few fields on every entry.
        names: dict[tuple[str, str], str] = {}

        def cached(type_name: str, name: str) -> str:
            found = names.get((type_name, name))
            if found is None:
                found = names[(type_name, name)] = named(type_name, name)
            return found

        self._attribute_name = cached
        self._planned = set(planned_keys)
        self.event_dates = event_dates
        # Validities and date texts by identity: the loader shares one WorldDate per date text, and hashing
        # pydantic models is slow.
        self._validities: dict[tuple[int, int], tuple[Validity, str]] = {}
        self._dates: dict[int, tuple[str | None, int | None]] = {}

    def facts(self, changed: Iterable[LoadedFile]) -> dict[str, dict[str, Fact]]:
        """Return, per changed file, the facts it states by slot."""
        facts: dict[str, dict[str, Fact]] = {}
        for loaded in changed:
            assert loaded.result is not None
            own: dict[str, Fact] = {}
            facts[loaded.name] = own
            lives: dict[str, list[Any]] = {}
            for life in loaded.result.life_events:
                lives.setdefault(life.entity_id, []).append(life)
            for entry in loaded.result.entries:
                if entry.id not in self._planned:
                    continue
                self._entry_facts(entry, lives.get(entry.id, ()), own)
            self._relation_facts(loaded.result.relations, own)
            self._death_states(loaded.result.entries, loaded.result.relations, own)
        _keep_secret_ties(facts)
        return facts

    def _validity(self, start: WorldDate | None, end: WorldDate | None = None) -> tuple[Validity, str]:
        """Return the validity from `start` to `end` and its bounds as a fingerprint writes them."""
        # By identity: the loader shares one WorldDate per date text, and hashing pydantic models is slow.
        key = (id(start), id(end))
        found = self._validities.get(key)
        if found is None:
            validity = _date_validity(self._date(start), self._date(end))
            found = self._validities[key] = (validity, _bounds(validity))
        return found

    def _date(self, date: WorldDate | None) -> tuple[str | None, int | None]:
        if date is None:
            return None, None
        found = self._dates.get(id(date))
        if found is None:
            found = self._dates[id(date)] = (None if date.is_unknown else str(date), world_key(date))
        return found

    def _entry_facts(self, entry: LoreEntry, lives: Iterable[Any], own: dict[str, Fact]) -> None:
        subject = self._ids[entry.id]
        visibility = _VISIBILITY[entry.visibility]
        skipped = _NOT_ATTRIBUTES.get(entry.entity_type, frozenset())
        for name, raw in entry.attributes.items():
            if name in skipped:
                continue
            if name == "held_titles" and isinstance(raw, list):
                self._held_titles(entry, subject, visibility, raw, own)
                continue
            value = value_text(raw)
            if value is None:
                continue
            shown = Visibility.GM_ONLY if name in entry.gm_only else visibility
            if name == "status" and entry.entity_type in _STATE_STATUS:
                # An item's status is its state ("The Bone Flute is missing"), one at a time.
                slot = f"state|{entry.id}|status"
                fp = statement_fingerprint("state", subject, "state", None, value, ALWAYS, shown.value)
                kind = StatementKind.STATE
                own[slot] = Fact(slot, kind, subject, "state", None, value, ALWAYS, shown, entry.line, fp)
                continue
            slot = f"attr|{entry.id}|{name}"
            predicate = self._attribute_name(entry.entity_type, name)
            fp = statement_fingerprint("attribute", subject, predicate, None, value, ALWAYS, shown.value)
            own[slot] = Fact(
                slot, StatementKind.ATTRIBUTE, subject, predicate, None, value, ALWAYS, shown, entry.line, fp
            )
        if entry.entity_type not in _LIVING:
            return
        state_kind = StatementKind.STATE
        for life in lives:
            state = _LIFE_STATES.get(life.event)
            if state is None:
                continue
            if life.date.is_unknown:
                validity, bounds = _UNKNOWN_START, _bounds(_UNKNOWN_START)
            else:
                validity, bounds = self._validity(life.date)
            slot = f"state|{entry.id}|{state}"
            shown = Visibility.GM_ONLY if life.event in entry.gm_only else visibility
            # statement_fingerprint("state", subject, "state", None, state, validity, visibility), inlined.
            text = f"state{_SEP}{subject}{_SEP}state{_SEP}{_SEP}{state}{_SEP}{bounds}{_SEP}{shown._value_}"
            fp = _blake(text.encode(), digest_size=10).hexdigest()
            own[slot] = Fact(slot, state_kind, subject, "state", None, state, validity, shown, life.line, fp)

    def _held_titles(
        self, entry: LoreEntry, subject: int, visibility: Visibility, spans: list[Any], own: dict[str, Fact]
    ) -> None:
        """Add the fact of each title the entry held for a span: the attribute `tenure`, valid from its
        `from` to its `to`, in a slot of its own (the title, and which time the entry held it)."""
        times: dict[str, int] = {}
        for span in spans:
            title = str(span["title"])
            times[title] = times.get(title, 0) + 1
            slot = f"attr|{entry.id}|title {title}" + (f" #{times[title]}" if times[title] > 1 else "")
            validity = _date_validity(_text_date(span.get("from")), _text_date(span.get("to")))
            shown = Visibility.GM_ONLY if span.get("gm_only") else visibility
            fp = statement_fingerprint("attribute", subject, HELD_TITLE, None, title, validity, shown.value)
            own[slot] = Fact(
                slot,
                StatementKind.ATTRIBUTE,
                subject,
                HELD_TITLE,
                None,
                title,
                validity,
                shown,
                entry.line,
                fp,
            )

    def _relation_facts(self, relations: Iterable[LoreRelation], own: dict[str, Fact]) -> None:
        """Add the fact of each relation record (one loop: a big tree has tens of thousands)."""
        ids, validities, event_dates = self._ids, self._validities, self.event_dates
        relation_kind, visibilities, blake, fact = StatementKind.RELATION, _VISIBILITY, _blake, Fact
        for relation in relations:
            kind, source_id, target_id = relation.type, relation.source_id, relation.target_id
            source, target = ids[source_id], ids[target_id]
            valid_from = relation.valid_from
            found = validities.get((id(valid_from), id(relation.valid_until)))
            if found is None:
                found = self._validity(valid_from, relation.valid_until)
            validity, bounds = found
            if valid_from is None and kind == "OCCURRED_AT" and source_id in event_dates:
                validity = event_dates[source_id]
                bounds = _bounds(validity)
            if kind in SYMMETRIC and target_id < source_id:
                slot = f"rel|{kind}|{target_id}|{source_id}"
            else:
                slot = f"rel|{kind}|{source_id}|{target_id}"
            if slot in own:  # one who led twice: each span a fact of its own (`kinds.spans`)
                slot = _next_slot(slot, own)
            visibility = relation.visibility
            # statement_fingerprint("relation", source, kind, target, None, validity, visibility), inlined.
            text = f"relation{_SEP}{source}{_SEP}{kind}{_SEP}{target}{_SEP}{_SEP}{bounds}{_SEP}{visibility}"
            own[slot] = fact(
                slot,
                relation_kind,
                source,
                kind,
                target,
                None,
                validity,
                visibilities[visibility],
                relation.line,
                blake(text.encode(), digest_size=10).hexdigest(),
            )

    def _death_states(
        self, entries: Iterable[LoreEntry], relations: Iterable[LoreRelation], own: dict[str, Fact]
    ) -> None:
        """Add the state `dead` of each one an event's `deaths:` names, from the event's date, as a death accepted
        in play is kept: their card and `/lore` read them dead. An event kept for the GM, or a death it keeps for
        the GM, keeps the state for the GM; an undated event's death holds from a date nobody knows."""
        died_in = [r for r in relations if r.type == "DIED_IN"]
        if not died_in:
            return
        events = {e.id: e for e in entries if e.entity_type == "Event"}
        for relation in died_in:
            event = events.get(relation.target_id)
            if event is None:
                continue
            validity = entity_validity(event)
            if validity.world_from_key is None:
                validity = _UNKNOWN_START
            hidden = gm_only(relation.visibility) or gm_only(event.visibility)
            shown = visibility_of(hidden)
            subject = self._ids[relation.source_id]
            fp = statement_fingerprint("state", subject, "state", None, "dead", validity, shown.value)
            slot = f"state|{relation.source_id}|dead|{event.id}"
            own[slot] = Fact(
                slot, StatementKind.STATE, subject, "state", None, "dead", validity, shown, relation.line, fp
            )


def _keep_secret_ties(facts: dict[str, dict[str, Fact]]) -> None:
    """Make a tie that one file of the import keeps for the GM the GM's in every file saying it (a faction's
    `members:` that lists her openly, a character whose `factions:` keeps it secret): one file telling it in
    the open would tell it to every player."""
    secret = {
        slot
        for own in facts.values()
        for slot, fact in own.items()
        if fact.kind is StatementKind.RELATION and gm_only(fact.visibility)
    }
    if not secret or len(facts) < 2:
        return
    hidden = visibility_of(True)
    for own in facts.values():
        for slot in secret & own.keys():
            fact = own[slot]
            if not gm_only(fact.visibility):
                own[slot] = dataclasses.replace(
                    fact, visibility=hidden, fp=tie_fingerprint(fact, hidden.value)
                )


def _next_slot(slot: str, own: dict[str, Fact]) -> str:
    """Return the slot of a tie a file states again for another span: `rel|LEADS|ann|guild|2`, then `|3`."""
    times = 2
    while f"{slot}|{times}" in own:
        times += 1
    return f"{slot}|{times}"


def _text_date(text: Any) -> tuple[str | None, int | None]:
    """Return a date the loader wrote as text (a title's span) as a validity's bound."""
    return _date_text(parse_date(text)) if isinstance(text, str) else (None, None)


def _bounds(validity: Validity) -> str:
    """Return a validity's world bounds as a statement's fingerprint writes them."""
    return f"{validity.world_from or ''}{_SEP}{validity.world_until or ''}"


async def event_dates(state: IngestState, index: Index, planned: dict[str, Planned]) -> dict[str, Validity]:
    """Return the date of every event named by an undated OCCURRED_AT (a gazetteer's `events_held`).

    A timeline's `location` and a gazetteer's `events_held` say the same thing, where an event took place; the
    timeline dates it from the event and the gazetteer cannot. Dated alike, the two are one fact (one statement
    with evidence from both files) instead of the same edge twice.
    """
    found: dict[str, Validity] = {}
    wanted = {
        r.source_id
        for f in state.changed
        for r in (f.result.relations if f.result is not None else ())
        if r.type == "OCCURRED_AT" and r.valid_from is None
    }
    elsewhere: dict[int, str] = {}
    for key in wanted:
        plan = planned.get(key)
        if plan is not None:
            found[key] = plan.validity
        elif index.known[key].entity_id is not None:
            elsewhere[int(index.known[key].entity_id or 0)] = key
    table = EntityRow.__table__.c
    ids = sorted(elsewhere)
    for start in range(0, len(ids), CHUNK):
        query = select(table.id, table.world_from, table.world_from_key).where(
            table.id.in_(ids[start : start + CHUNK])
        )
        for entity_id, world_from, world_from_key in (await state.session.execute(query)).all():
            found[elsewhere[entity_id]] = Validity(world_from=world_from, world_from_key=world_from_key)
    return found
