"""Stage 6 of loading a lore file: what spans entries is checked, and the kind-independent records built.

Each kind normalises its own document (`canon.structured.kinds`) through the `Normaliser`'s shared steps:
`define` an entity, `link` a reference field into the edge `RELATION_FIELDS` assigns it, `life` for a dated
moment, `check_date` against the eras the file defines. Once every entry is known, `resolve` checks each
reference: to an id the file defines (of a type the field allows) or, when the file does not define it, an
`UnresolvedReference` for the caller to resolve against the campaign's canon. Identical edges are kept once,
at the first place they are written; a relation is `gm_only` when the entry declaring it or either end
defined in the file is.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from canon.calendar import EraCalendar, WorldDate
from canon.structured.records import (
    LifeEvent,
    LoreEntry,
    LoreProblem,
    LoreRelation,
    RosterPlayer,
    UnresolvedReference,
    from_values,
    record,
)
from canon.structured.schemas import (
    ERAS,
    SYMMETRIC,
    EntityType,
    LifeEventKind,
    LoreModel,
    RelationField,
    RelationType,
    TargetType,
    Visibility,
    fits,
    id_from_name,
)
from canon.structured.validate import Loc, Validator
from canon.visibility import entity_hidden, visibility_of


@dataclass(slots=True)
class _Defined:
    type: EntityType
    line: int
    visibility: Visibility
    name: str = ""


_EMPTY: list[JsonValue] = []
# A reference to check once every id is known: (source, place, field, target as written, types it may name).
_Check = tuple[str, Loc, str, str, tuple[TargetType, ...]]
# An edge's visibility as its row holds it, by whether the edge is the GM's alone (asked once per edge).
_EDGE_VISIBILITY = {hidden: visibility_of(hidden).value for hidden in (False, True)}


class Normaliser:
    """Check what spans entries and build the kind-independent records."""

    def __init__(
        self, validator: Validator, file: str, relation_fields: Mapping[tuple[EntityType, str], RelationField]
    ) -> None:
        self.v = validator
        self.file = file
        #: Which reference field writes which edge (`canon.structured.kinds.RELATION_FIELDS`, handed in by the
        #: loader: the kinds call this normaliser, so it does not import them).
        self.relation_fields = relation_fields
        self._linked: dict[tuple[str, type[LoreModel]], tuple[str, ...]] = {}
        self.defined: dict[str, _Defined] = {}
        #: The id each entry's name makes, to the entry's own id: a reference may name an entry by its name.
        self.named: dict[str, str] = {}
        self.entries: list[LoreEntry] = []
        # A relation's record values (its visibility still to decide) and the entry declaring it.
        self.relations: list[tuple[dict[str, Any], str]] = []
        # Each edge recorded, by (relation, source, target): its record values.
        self.relation_keys: dict[tuple[str, ...], dict[str, Any]] = {}
        self.life_events: list[LifeEvent] = []
        self.players: list[RosterPlayer] = []
        self.unresolved: list[UnresolvedReference] = []
        #: What a player could read that the file's public story tells otherwise (`kinds.leaks`): warnings.
        self.warnings: list[LoreProblem] = []
        self.ties: list[LoreRelation] = []  # edges a text field makes when that entity exists (`tie`)
        self.calendar = EraCalendar()
        self.reference_checks: list[_Check] = []
        # The references of the file's earlier documents, each with the validator that knows their places.
        self.earlier_checks: list[tuple[Validator, list[_Check]]] = []
        # Dates as text, by identity (the date kept with it): the models share one WorldDate per date written,
        # and a tree repeats each year hundreds of times.
        self.date_texts: dict[int, tuple[WorldDate, str]] = {}

    # -- shared helpers --

    def use(self, validator: Validator) -> None:
        """Go on with the file's next YAML document, whose places `validator` knows (one file's entries)."""
        if validator is self.v:
            return
        self.earlier_checks.append((self.v, self.reference_checks))
        self.reference_checks = []
        self.v = validator

    def _linked_fields(self, entity_type: EntityType, model: type[LoreModel]) -> tuple[str, ...]:
        """Return the fields of `model` that `relation_fields` turns into edges for `entity_type` (cached)."""
        key = (entity_type, model)
        found = self._linked.get(key)
        if found is None:
            names = set(model.model_fields)
            found = tuple(f for (t, f) in self.relation_fields if t == entity_type and f in names)
            self._linked[key] = found
        return found

    # Records below are built with record (no validation): every value comes from validated models, and
    # re-validating ~100k records per 10k-person tree costs seconds.

    def define(
        self,
        entity_type: EntityType,
        entity_id: str,
        name: str,
        attributes: dict[str, JsonValue],
        visibility: Visibility,
        entry_loc: Loc,
        gm_only: tuple[str, ...] = (),
    ) -> None:
        if entity_id in self.defined:
            return  # reported by validate.report_duplicate_ids
        if self.v.secret_items and attributes.get("aliases"):
            attributes, gm_only = _secret_aliases(self.v, attributes, entry_loc, gm_only)
        line, column = self.v.pos(entry_loc)
        self.defined[entity_id] = _Defined(entity_type, line, visibility, name)
        self.named.setdefault(id_from_name(name), entity_id)  # "Ser Aldric" finds the entry `aldric`
        clean: dict[str, JsonValue] = {k: v for k, v in attributes.items() if v is not None and v != _EMPTY}
        values = {
            "id": entity_id,
            "entity_type": entity_type,
            "name": name,
            "attributes": clean,
            "visibility": visibility,
            "file": self.file,
            "line": line,
            "column": column,
            "gm_only": gm_only,
        }
        self.entries.append(from_values(LoreEntry, values))

    def refer(
        self,
        source: str,
        loc: Loc,
        field_name: str,
        target: str,
        expected: tuple[TargetType, ...],
    ) -> None:
        """Note a reference to check once every id is known."""
        self.reference_checks.append((source, loc, field_name, target, expected))

    def relate(
        self,
        relation: RelationType,
        source: str,
        target: str,
        field_name: str,
        declared_by: str,
        loc: Loc,
        valid_from: WorldDate | None = None,
        valid_until: WorldDate | None = None,
    ) -> None:
        """Record the edge `source -[relation]-> target`, at the place of the reference (`loc`), once."""
        key = (
            (relation, target, source)
            if relation in SYMMETRIC and target < source
            else (relation, source, target)
        )
        if key in self.relation_keys:
            return
        line, column = self.v.pos(loc)
        values = {
            "type": relation,
            "source_id": source,
            "target_id": target,
            "field": field_name,
            "visibility": "public",
            "valid_from": valid_from,
            "valid_until": valid_until,
            "file": self.file,
            "line": line,
            "column": column,
        }
        self.relation_keys[key] = values
        self.relations.append((values, declared_by))

    def link(
        self,
        entity_type: EntityType,
        field_name: str,
        owner: str,
        loc: Loc,
        target: str,
        *,
        valid_from: WorldDate | None = None,
        valid_until: WorldDate | None = None,
        gm_only: bool = False,
        again: int = 0,
    ) -> None:
        """Record this field's edge and check its reference (`gm_only`: the GM's; `again`: a tie's earlier span)."""
        spec = self.relation_fields[(entity_type, field_name)]
        # One item kept for the GM (`parents: [Ann, {name: Bo, gm_only: true}]`) is the GM's edge; one written with
        # its date (`spouses: [{name: Bo, married: 640}]`) starts then.
        gm_only = gm_only or bool(self.v.secret_items and loc in self.v.secret_items)
        valid_from = valid_from or (self.v.item_dates.get(loc) if self.v.item_dates else None)  # `married:`
        # `refer`, inlined: a big tree links tens of thousands of references.
        self.reference_checks.append((owner, loc, field_name, target, spec.target_types))
        if target == owner:
            self.v.report(loc, f'{self.v.label(loc)} refers to "{owner}" itself')
            return
        source, dest = (owner, target) if spec.outgoing else (target, owner)
        relation = spec.relation
        key = (
            (relation, dest, source) if relation in SYMMETRIC and dest < source else (relation, source, dest)
        ) + ((str(again),) if again else ())
        known = self.relation_keys.get(key)
        if known is not None:
            _said_again(self.v, known, gm_only, valid_from, loc, valid_until)
            return
        line, column = self.v.pos(loc)
        values = {
            "type": relation,
            "source_id": source,
            "target_id": dest,
            "field": field_name,
            "visibility": _EDGE_VISIBILITY[gm_only],
            "valid_from": valid_from,
            "valid_until": valid_until,
            "file": self.file,
            "line": line,
            "column": column,
        }
        self.relation_keys[key] = values
        self.relations.append((values, owner))

    def link_fields(
        self,
        entity_type: EntityType,
        entry: LoreModel,
        loc: Loc,
        *,
        skip: tuple[str, ...] = (),
        gm_only: tuple[str, ...] = (),
    ) -> None:
        """Record the edges of every reference field of `entry` that carries no dates (those named in
        `gm_only` the GM's alone)."""
        for field_name in self._linked_fields(entity_type, type(entry)):
            if field_name in skip:
                continue
            value = getattr(entry, field_name)
            owner = getattr(entry, "id")  # noqa: B009 - every linked entry has an id
            hidden = field_name in gm_only
            if isinstance(value, list):
                for index, target in enumerate(value):
                    self.link(
                        entity_type, field_name, owner, (*loc, field_name, index), target, gm_only=hidden
                    )
            elif value is not None:
                self.link(entity_type, field_name, owner, (*loc, field_name), value, gm_only=hidden)

    def date_text(self, date: WorldDate | None) -> str | None:
        """Return a date as text (None for none)."""
        if date is None:
            return None
        found = self.date_texts.get(id(date))
        if found is None:
            found = self.date_texts[id(date)] = (date, str(date))
        return found[1]

    def life(self, entity_id: str, event: LifeEventKind, date: WorldDate, loc: Loc) -> None:
        line, column = self.v.pos(loc)
        values = {
            "entity_id": entity_id,
            "event": event,
            "date": date,
            "file": self.file,
            "line": line,
            "column": column,
        }
        self.life_events.append(from_values(LifeEvent, values))

    def check_date(self, owner: str, date: WorldDate | None, loc: Loc, field_name: str) -> None:
        if date is None or date.era is None:
            return
        self.reference_checks.append((owner, loc, field_name, date.era, ERAS))
        reason = self.calendar.check(date)
        if reason is not None:
            self.v.report(loc, f"{self.v.label(loc)} is {date}, but {reason}")

    # -- after every entry is known --

    def own_id(self, target: str) -> str:
        """Return the id of the entry a reference means: its id, or the id of the entry it names by name."""
        return target if target in self.defined else self.named.get(target, target)

    def resolve(self) -> None:
        documents = [*self.earlier_checks, (self.v, self.reference_checks)]
        failed = set().union(*(v.failed_ids for v, _ in documents))
        for v, checks in documents:
            self._resolve(v, checks, failed)

    def _resolve(self, v: Validator, checks: list[_Check], failed: set[str]) -> None:
        for source, loc, field_name, target_as_written, expected in checks:
            target = self.own_id(target_as_written)
            defined = self.defined.get(target)
            if defined is not None:
                if expected and not fits(defined.type, expected):
                    v.report(
                        loc,
                        f"{v.label(loc)} must name {_a(expected)}; “{defined.name or target}” is the "
                        f"{defined.type} at line {defined.line}",
                    )
                continue
            if target in failed:
                continue
            line, column = v.pos(loc)
            self.unresolved.append(
                record(
                    UnresolvedReference,
                    file=self.file,
                    line=line,
                    column=column,
                    source_id=source,
                    field=field_name,
                    target_id=target,
                    expected_types=expected,
                )
            )

    def final_relations(self) -> list[LoreRelation]:
        for values, _ in self.relations:
            values["source_id"], values["target_id"] = (
                self.own_id(values["source_id"]),
                self.own_id(values["target_id"]),
            )
        hidden = {key for key, defined in self.defined.items() if entity_hidden(defined.visibility)}
        if not hidden:
            return [from_values(LoreRelation, values) for values, _ in self.relations]
        found: list[LoreRelation] = []
        for values, declared_by in self.relations:
            if hidden and (
                declared_by in hidden or values["source_id"] in hidden or values["target_id"] in hidden
            ):
                values["visibility"] = visibility_of(True).value
            found.append(from_values(LoreRelation, values))
        return found

    def report_cycles(
        self, edges: dict[str, list[tuple[str, Loc]]], describe: typing.Callable[[list[str]], str]
    ) -> None:
        for cycle, loc in _find_cycles(edges):
            self.v.report(loc, describe(cycle))


#: The type of entity each tie a text field makes must name (`tie`).
TIE_TARGETS: dict[str, tuple[TargetType, ...]] = {"WORSHIPS": ("Deity",), "SPEAKS": ("Language",)}


def tie(
    n: Normaliser,
    relation: RelationType,
    owner: str,
    field_name: str,
    name: str | None,
    loc: Loc,
    *,
    gm_only: bool,
) -> None:
    """Note the edge `owner -[relation]-> the entity called name` that a text field makes (a faction's
    `worships: Saint Orla`): written when the import or canon holds an entity of that name and of the type
    `TIE_TARGETS` gives, and otherwise not (the text stands alone: "the old gods" names no god)."""
    if name is None or not id_from_name(name):
        return
    line, column = n.v.pos(loc)
    hidden = gm_only or (owner in n.defined and entity_hidden(n.defined[owner].visibility))
    values = {
        "type": relation,
        "source_id": owner,
        "target_id": id_from_name(name),
        "field": field_name,
        "visibility": visibility_of(hidden).value,
        "valid_from": None,
        "valid_until": None,
        "file": n.file,
        "line": line,
        "column": column,
    }
    n.ties.append(from_values(LoreRelation, values))


def _a(types_: tuple[str, ...]) -> str:
    words = " or ".join(types_)
    return ("an " if words[:1] in "AEIOU" else "a ") + words


def _find_cycles(edges: dict[str, list[tuple[str, Loc]]]) -> Iterator[tuple[list[str], Loc]]:
    """Yield each cycle once (as the ids along it, first repeated last) with the edge that closes it."""
    white, grey, black = 0, 1, 2
    colour: dict[str, int] = {}
    for start in edges:
        if colour.get(start, white) != white:
            continue
        colour[start] = grey
        path = [start]
        stack: list[Iterator[tuple[str, Loc]]] = [iter(edges.get(start, ()))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                colour[path.pop()] = black
                continue
            target, loc = step
            state = colour.get(target, white)
            if state == grey:
                cycle = [*path[path.index(target) :], target]
                yield cycle, loc
            elif state == white:
                colour[target] = grey
                path.append(target)
                stack.append(iter(edges.get(target, ())))


def _secret_aliases(
    v: Validator, attributes: dict[str, JsonValue], entry_loc: Loc, gm_only: tuple[str, ...]
) -> tuple[dict[str, JsonValue], tuple[str, ...]]:
    """Move the aliases written `{name: ..., gm_only: true}` out of `aliases` (the names the entity is found by,
    everyone's) into `secret_aliases`, a fact only the GM may read."""
    aliases = attributes["aliases"]
    assert isinstance(aliases, list)
    kept = [(*entry_loc, "aliases", index) in v.secret_items for index in range(len(aliases))]
    if not any(kept):
        return attributes, gm_only
    public = [alias for alias, secret in zip(aliases, kept, strict=True) if not secret]
    secret = [alias for alias, secret in zip(aliases, kept, strict=True) if secret]
    return {**attributes, "aliases": public, "secret_aliases": secret}, (*gm_only, "secret_aliases")


def _said_again(
    v: Validator,
    known: dict[str, Any],
    gm_only: bool,
    married: WorldDate | None,
    loc: Loc,
    until: WorldDate | None = None,
) -> None:
    """Merge an edge said a second time into the first: one side saying it in secret (`gm_only: [spouse_of]`)
    makes the tie the GM's alone; a marriage (a tie's span: `from`, `to`) both sides name is dated by the side that
    says when (two sides giving two dates are refused)."""
    if gm_only:
        known["visibility"] = _EDGE_VISIBILITY[True]
    said = known["valid_from"]
    if known["type"] != "SPOUSE_OF" and (married or until):
        if said is None and known["valid_until"] is None:
            known["valid_from"], known["valid_until"] = married, until
        elif (said, known["valid_until"]) != (married, until):
            v.report(
                loc,
                f"this tie is dated otherwise than on line {known['line']}: date it once (on one side, or the same on both)",
            )
        return
    if known["type"] != "SPOUSE_OF" or married is None:
        return
    if said is None:
        known["valid_from"] = married
    elif said != married:
        v.report(
            (*loc, "married"),
            f'"married" gives this marriage another date than line {known["line"]} does: date it once (on one '
            "side, or the same on both)",
        )
