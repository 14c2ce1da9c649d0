"""Reading and writing the canon graph of one campaign (or branch), as of any point.

`CanonReader` answers questions: resolve a name, an entity's card, its timeline, what depends on a fact, the
neighbourhood within n hops. `CanonWriter` appends rows under one changeset. Both see a campaign through its
lineage (see `canon.campaigns`): a branch reads its ancestors' rows up to its fork point, never later ones,
and writes only its own.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import unicodedata
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import is_, itemgetter
from typing import Any

from rapidfuzz import fuzz, process
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    String,
    and_,
    false,
    func,
    insert,
    literal,
    or_,
    select,
    type_coerce,
    union,
)
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import OPEN_END, ChangesetRow, LineageStep, lineage
from canon.domain import (
    ALWAYS,
    NOW,
    AsOf,
    Authority,
    CanonLevel,
    Entity,
    EntityCard,
    EntityRef,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    StatementView,
    Validity,
    Viewer,
    Visibility,
)
from canon.errors import Conflict, InvalidInput, NotFound
from canon.models import AliasRow, DependencyRow, EntityRow, EvidenceRow, StatementRow, StatusChangeRow
from canon.ontology import Ontology
from canon.visibility import gm_only, may_see

FUZZY_CUTOFF = 80


def fold(name: str) -> str:
    """Return a name normalised for matching: NFKC, case-folded, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


# Built conditions by (model, lineage): a branch's condition has a clause per ancestor, and building it for every
# query of a card costs more than the queries themselves. The model is kept in the value so its id stays its own.
_FILTERS: OrderedDict[tuple[int, tuple[LineageStep, ...]], tuple[Any, ColumnElement[bool]]] = OrderedDict()
_FILTERS_KEPT = 512


def lineage_filter(model: Any, steps: Sequence[LineageStep]) -> ColumnElement[bool]:
    """Return the SQL condition selecting rows of `model` visible through a campaign's lineage.

    An inherited step is cut at its changeset, and, for rows that carry the clocks, at its scene order (rows of
    the parent's later scenes, however early their commit) and at its world date (an `at_date` fork).
    """
    key = (id(model), tuple(steps))
    found = _FILTERS.get(key)
    if found is not None and found[0] is model:
        _FILTERS.move_to_end(key)
        return found[1]
    condition = _lineage_condition(model, key[1])
    _FILTERS[key] = (model, condition)
    while len(_FILTERS) > _FILTERS_KEPT:
        _FILTERS.popitem(last=False)
    return condition


def _lineage_condition(model: Any, steps: Sequence[LineageStep]) -> ColumnElement[bool]:
    world = getattr(model, "world_from_key", None)
    story = getattr(model, "story_from", None)
    clauses: list[ColumnElement[bool]] = []
    for step in steps:
        if step.up_to_changeset >= OPEN_END:
            clauses.append(model.campaign_id == step.campaign_id)
            continue
        parts = [model.campaign_id == step.campaign_id, model.changeset_id <= step.up_to_changeset]
        if step.up_to_scene_order is not None and story is not None:
            parts.append(or_(story.is_(None), story <= step.up_to_scene_order))
        if step.world_until_key is not None and world is not None:
            parts.append(or_(world.is_(None), world <= step.world_until_key))
        clauses.append(and_(*parts))
    if len(clauses) > 1:
        # The IN list first: it lets the planner seek a (campaign, ...) index once per campaign of the lineage.
        return and_(model.campaign_id.in_(_fixed_list([step.campaign_id for step in steps])), or_(*clauses))
    return clauses[0] if clauses else false()


def _fixed_list(values: Sequence[int]) -> list[Any]:
    """Return values for a fixed-length IN: one bound parameter each, so that the statement's SQL is compiled
    once (an expanding IN list is rewritten at every execution)."""
    return [literal(v, BigInteger) for v in values]


def in_lineage(campaign_id: int, changeset_id: int, steps: Sequence[LineageStep]) -> bool:
    """Return whether a row written by (campaign, changeset) is visible through a lineage."""
    return any(s.campaign_id == campaign_id and changeset_id <= s.up_to_changeset for s in steps)


# Enum lookups by value: calling an Enum class is slow, and these run for every row of a whole-graph check.
AUTHORITY_OF = {a.value: a for a in Authority}
VISIBILITY_OF = {v.value: v for v in Visibility}
STATEMENT_KIND_OF = {k.value: k for k in StatementKind}


def validity_columns(v: Validity) -> dict[str, Any]:
    """Return the `world_*` and `story_*` column values of a validity (dataclasses.asdict is slow in bulk)."""
    return {
        "world_from": v.world_from,
        "world_from_key": v.world_from_key,
        "world_until": v.world_until,
        "world_until_key": v.world_until_key,
        "story_from": v.story_from,
        "story_until": v.story_until,
    }


class RowReader:
    """Build entities and statements from rows of a table joined with their retcon (`retconned_at`,
    `replaced_by`, the last two columns), by position: a row's attributes by name cost more than the rest.

    Equal validities and provenances are shared (both are frozen): a whole-graph read turns a million rows
    into objects, and they have only a few thousand distinct values of each, which cost more to build than
    to look up. One reader per query or batch of queries keeps the memo from outliving them.
    """

    def __init__(self, table: Any) -> None:
        at = {name: index for index, name in enumerate([c.name for c in table.c] + RETCON_COLUMNS)}
        self.at = at
        self._validity_key = itemgetter(*(at[name] for name in VALIDITY_COLUMNS))
        self._provenance_key = itemgetter(*(at[name] for name in PROVENANCE_COLUMNS))
        self._validities: dict[tuple[Any, ...], Validity] = {}
        self._provenances: dict[tuple[Any, ...], Provenance] = {}

    def validity(self, row: Any) -> Validity:
        """Return a row's validity."""
        key = self._validity_key(row)
        found = self._validities.get(key)
        if found is None:
            found = self._validities[key] = Validity(*key)
        return found

    def provenance(self, row: Any) -> Provenance:
        """Return a row's provenance."""
        key = self._provenance_key(row)
        found = self._provenances.get(key)
        if found is None:
            campaign_id, changeset_id, recorded_at, authority, confidence, retconned_at, replaced_by = key
            found = self._provenances[key] = Provenance(
                campaign_id=campaign_id,
                changeset_id=changeset_id,
                recorded_at=_aware(recorded_at),
                authority=AUTHORITY_OF[authority],
                confidence=confidence,
                level=CanonLevel.RETCONNED if retconned_at is not None else CanonLevel.CANON,
                retconned_at=_aware(retconned_at) if retconned_at is not None else None,
                replaced_by=replaced_by,
            )
        return found

    def entity(self, row: Any, aliases: Sequence[str] = ()) -> Entity:
        """Return an entity from a row of `entities`."""
        at = self.at
        return Entity(
            id=row[at["id"]],
            type=row[at["type"]],
            name=row[at["name"]],
            key=row[at["key"]],
            kind=row[at["kind"]],
            visibility=VISIBILITY_OF[row[at["visibility"]]],
            description=row[at["description"]],
            attributes=dict(row[at["attributes"]] or {}),
            aliases=tuple(aliases),
            validity=self.validity(row),
            provenance=self.provenance(row),
        )

    def statements(self, rows: Iterable[Any], evidence: Mapping[int, Sequence[Evidence]]) -> list[Statement]:
        """Return the statements of rows of `statements`, with their evidence by id."""
        at = self.at
        i_id, i_kind, i_subject, i_predicate = at["id"], at["kind"], at["subject_id"], at["predicate"]
        i_object, i_value, i_via, i_visibility = at["object_id"], at["value"], at["via"], at["visibility"]
        i_replaces = at["replaces_id"]
        validity, provenance = self.validity, self.provenance
        return [
            Statement(
                row[i_id],
                STATEMENT_KIND_OF[row[i_kind]],
                row[i_subject],
                row[i_predicate],
                provenance(row),
                row[i_object],
                row[i_value],
                row[i_via],
                VISIBILITY_OF[row[i_visibility]],
                validity(row),
                row[i_replaces],
                tuple(evidence.get(row[i_id], ())),
            )
            for row in rows
        ]


# Read times without type processing (a String has none, on SQLite and PostgreSQL alike): SQLite gives the
# stored text, asyncpg a datetime; `_aware` makes either an aware UTC datetime.
_RAW = String()


def _aware(value: Any) -> dt.datetime:
    """Return a time read raw from the database as an aware UTC datetime."""
    moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


RETCON_COLUMNS = ["retconned_at", "replaced_by"]
VALIDITY_COLUMNS = (
    "world_from",
    "world_from_key",
    "world_until",
    "world_until_key",
    "story_from",
    "story_until",
)
PROVENANCE_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    "authority",
    "confidence",
    "retconned_at",
    "replaced_by",
)


def _evidence(row: Any) -> Evidence:
    return Evidence(
        kind=EvidenceKind(row.kind),
        scene_id=row.scene_id,
        turn_from=row.turn_from,
        turn_to=row.turn_to,
        source_id=row.source_id,
        chunk_id=row.chunk_id,
        file=row.file,
        line=row.line,
        proposal_id=row.proposal_id,
        note=row.note,
        changeset_id=row.changeset_id,
    )


def statement_sort_key(statement: Statement) -> tuple[int, int, int]:
    """Order statements in story time: static canon (no scene) first by world date, then play by scene."""
    return validity_sort_key(statement.validity, statement.provenance.changeset_id)


def validity_sort_key(v: Validity, changeset_id: int) -> tuple[int, int, int]:
    """Return where a statement of this validity, written by this changeset, falls in story order."""
    return (
        v.story_from if v.story_from is not None else -1,
        v.world_from_key if v.world_from_key is not None else -(2**62),
        changeset_id,
    )


class CanonReader:
    """Answers questions about one campaign's canon for one viewer, through the campaign's lineage."""

    def __init__(
        self,
        session: AsyncSession,
        steps: Sequence[LineageStep],
        ontology: Ontology,
        *,
        viewer: Viewer = Viewer.PLAYER,
    ) -> None:
        self.session = session
        self.steps = tuple(steps)
        self.ontology = ontology
        self.viewer = viewer

    @classmethod
    async def open(
        cls, session: AsyncSession, campaign_id: int, ontology: Ontology, *, viewer: Viewer = Viewer.PLAYER
    ) -> CanonReader:
        """Return a reader for a campaign, its lineage resolved."""
        return cls(session, await lineage(session, campaign_id), ontology, viewer=viewer)

    @property
    def campaign_id(self) -> int:
        """Return the campaign being read (the first step of the lineage)."""
        return self.steps[0].campaign_id

    # -- filters --------------------------------------------------------------------------------------

    def _visible(self, model: Any, as_of: AsOf) -> list[ColumnElement[bool]]:
        conditions = [lineage_filter(model, self.steps)]
        if as_of.believed_at is not None:
            conditions.append(model.recorded_at <= as_of.believed_at)
        return conditions

    def _valid_at(self, model: Any, as_of: AsOf) -> list[ColumnElement[bool]]:
        """Return the conditions for rows valid at an as-of point: begun, and not yet ended.

        Validity is [from, until) on both clocks: a relation that ends in year 305 (or in scene 4) no longer
        holds in year 305 (after scene 4); an unknown end holds on.
        """
        conditions: list[ColumnElement[bool]] = []
        if as_of.world_key is not None:
            conditions.append(or_(model.world_from_key.is_(None), model.world_from_key <= as_of.world_key))
            conditions.append(or_(model.world_until_key.is_(None), model.world_until_key > as_of.world_key))
        if as_of.scene is not None:
            conditions.append(or_(model.story_from.is_(None), model.story_from <= as_of.scene))
            conditions.append(or_(model.story_until.is_(None), model.story_until > as_of.scene))
        return conditions

    def _may_see(self, visibility: str) -> bool:
        return may_see(self.viewer, gm_only(visibility))

    async def _retcons(self, kind: str, ids: Iterable[int], as_of: AsOf) -> dict[int, StatusChangeRow]:
        id_list = list(set(ids))
        if not id_list:
            return {}
        found: dict[int, StatusChangeRow] = {}
        for start in range(0, len(id_list), 500):
            query = select(StatusChangeRow).where(
                StatusChangeRow.target_kind == kind,
                StatusChangeRow.target_id.in_(id_list[start : start + 500]),
                *self._visible(StatusChangeRow, as_of),
            )
            for row in (await self.session.execute(query)).scalars():
                found.setdefault(row.target_id, row)
        return found

    # -- entities -------------------------------------------------------------------------------------

    def _retcon_subquery(self, kind: str, as_of: AsOf) -> Any:
        """Return a subquery of the retcons visible from here: target id, when, and the replacement."""
        sc = StatusChangeRow.__table__.c
        conditions = [sc.target_kind == kind, lineage_filter(sc, self.steps)]
        if as_of.believed_at is not None:
            conditions.append(sc.recorded_at <= as_of.believed_at)
        return (
            select(sc.target_id, sc.recorded_at.label("retconned_at"), sc.replacement_id.label("replaced_by"))
            .where(*conditions)
            .subquery()
        )

    def _with_retcons(self, table: Any, kind: str, as_of: AsOf) -> Any:
        """Return a select of a table's rows joined with their retcons, in `RowReader`'s column order.

        The times come raw (no type processing: `RowReader` converts each distinct one once); a whole-graph
        read would otherwise parse two timestamps per row.
        """
        retcons = self._retcon_subquery(kind, as_of)
        columns = [type_coerce(c, _RAW).label(c.name) if c.name == "recorded_at" else c for c in table.c]
        return select(
            *columns, type_coerce(retcons.c.retconned_at, _RAW).label("retconned_at"), retcons.c.replaced_by
        ).outerjoin(retcons, retcons.c.target_id == table.c.id)

    async def _entity_rows(self, conditions: Sequence[ColumnElement[bool]], as_of: AsOf) -> list[Any]:
        table = EntityRow.__table__
        query = self._with_retcons(table, "entity", as_of).where(*conditions, *self._visible(table.c, as_of))
        return [r for r in (await self.session.execute(query)).all() if self._may_see(r.visibility)]

    async def entities(
        self,
        ids: Iterable[int],
        as_of: AsOf = NOW,
        *,
        include_retconned: bool = False,
        with_aliases: bool = True,
    ) -> dict[int, Entity]:
        """Return the visible entities among `ids`, keyed by id (hidden ones left out for players)."""
        id_list = list(set(ids))
        rows: list[Any] = []
        for start in range(0, len(id_list), 500):
            rows += await self._entity_rows(
                [EntityRow.__table__.c.id.in_(id_list[start : start + 500])], as_of
            )
        if not include_retconned:
            rows = [r for r in rows if r.retconned_at is None]
        aliases = await self._aliases([r.id for r in rows], as_of) if with_aliases else {}
        build = RowReader(EntityRow.__table__)
        return {r.id: build.entity(r, aliases.get(r.id, ())) for r in rows}

    async def all_entities(self, as_of: AsOf = NOW, *, include_retconned: bool = False) -> dict[int, Entity]:
        """Return every visible entity of the lineage in one query, without aliases (for whole-graph work)."""
        rows = await self._entity_rows([], as_of)
        build = RowReader(EntityRow.__table__)
        return {r.id: build.entity(r) for r in rows if include_retconned or r.retconned_at is None}

    async def _aliases(self, ids: list[int], as_of: AsOf) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for start in range(0, len(ids), 500):
            query = (
                select(AliasRow.entity_id, AliasRow.alias)
                .where(AliasRow.entity_id.in_(ids[start : start + 500]), *self._visible(AliasRow, as_of))
                .order_by(AliasRow.id)
            )
            for entity_id, alias in (await self.session.execute(query)).all():
                found.setdefault(entity_id, []).append(alias)
        return found

    async def entity(self, entity_id: int, as_of: AsOf = NOW) -> Entity:
        """Return one visible entity or raise `NotFound`."""
        found = await self.entities([entity_id], as_of, include_retconned=True)
        if entity_id not in found:
            raise NotFound(f"There is no entity #{entity_id} in this campaign.")
        return found[entity_id]

    async def find_exact(self, name: str, as_of: AsOf = NOW) -> list[Entity]:
        """Return visible, standing entities whose name, alias or key is exactly `name` (case-insensitive)."""
        folded = fold(name)
        table = EntityRow.__table__.c
        # Three lookups on covering (campaign, name) indexes, instead of one OR that the planner answers by a
        # scan of every entity; the exact lineage cut (changeset, scene, date) applies to the few rows found.
        campaigns = [step.campaign_id for step in self.steps]
        ids = union(
            select(table.id).where(
                table.campaign_id.in_(_fixed_list(campaigns)), table.name_folded == folded
            ),
            select(table.id).where(table.campaign_id.in_(_fixed_list(campaigns)), table.key == name.strip()),
            select(AliasRow.entity_id).where(
                AliasRow.alias_folded == folded, lineage_filter(AliasRow, self.steps)
            ),
        )
        rows = await self._entity_rows([table.id.in_(ids)], as_of)
        rows = [r for r in rows if r.retconned_at is None]
        aliases = await self._aliases([r.id for r in rows], as_of)
        build = RowReader(EntityRow.__table__)
        return sorted((build.entity(r, aliases.get(r.id, ())) for r in rows), key=lambda e: e.id)

    async def names(self) -> list[tuple[str, int]]:
        """Return every visible (name or alias, entity id) pair, for fuzzy matching and autocomplete."""
        pairs: list[tuple[str, int]] = []
        query = select(EntityRow.name, EntityRow.id, EntityRow.visibility).where(
            lineage_filter(EntityRow, self.steps)
        )
        hidden: set[int] = set()
        for name, entity_id, visibility in (await self.session.execute(query)).all():
            if self._may_see(visibility):
                pairs.append((name, entity_id))
            else:
                hidden.add(entity_id)
        alias_query = select(AliasRow.alias, AliasRow.entity_id).where(lineage_filter(AliasRow, self.steps))
        pairs += [(a, e) for a, e in (await self.session.execute(alias_query)).all() if e not in hidden]
        retconned = await self._retcons("entity", {e for _, e in pairs}, NOW)
        return [(n, e) for n, e in pairs if e not in retconned]

    async def resolve(self, name: str, as_of: AsOf = NOW, *, type_hint: str | None = None) -> Entity:
        """Return the entity a name means: exact name, alias or key first, then the closest fuzzy match."""
        exact = await self.find_exact(name, as_of)
        if type_hint is not None:
            typed = [e for e in exact if self.ontology.is_a(e.type, [type_hint])]
            exact = typed or exact
        if len(exact) == 1:
            return exact[0]
        if len(exact) > 1:
            listed = ", ".join(f"{e.name} ({e.type} #{e.id})" for e in exact[:5])
            raise InvalidInput(
                f"“{name}” could mean several entities: {listed}. Use the id, like #{exact[0].id}."
            )
        if name.strip().startswith("#") and name.strip()[1:].isdigit():
            return await self.entity(int(name.strip()[1:]), as_of)
        matches = await self.fuzzy(name, limit=3, whole=True)
        if matches and matches[0][1] >= FUZZY_CUTOFF:
            return await self.entity(matches[0][0].id, as_of)
        hint = f" Did you mean {', '.join(m.name for m, _ in matches)}?" if matches else ""
        raise NotFound(f"No entity called “{name}” in this campaign's canon.{hint}")

    async def fuzzy(self, text: str, *, limit: int = 5, whole: bool = False) -> list[tuple[EntityRef, float]]:
        """Return the entities whose names are closest to `text`, with a 0-100 score.

        By default partial matches score high (good for suggestions); `whole=True` compares whole names only,
        so that a typo ("Aldrik") still finds "Aldric" while "The Hidden King" does not find "the Knight".
        """
        pairs = await self.names()
        if not pairs or not text.strip():
            return []
        choices = [fold(n) for n, _ in pairs]
        scorer = fuzz.ratio if whole else fuzz.WRatio
        hits = process.extract(fold(text), choices, scorer=scorer, limit=limit * 3)
        best: dict[int, float] = {}
        for _, score, index in hits:
            entity_id = pairs[index][1]
            best[entity_id] = max(best.get(entity_id, 0.0), float(score))
        top = sorted(best.items(), key=lambda kv: -kv[1])[:limit]
        found = await self.entities([e for e, _ in top])
        return [(self.ref(found[e]), s) for e, s in top if e in found]

    async def autocomplete(self, prefix: str, *, limit: int = 25) -> list[EntityRef]:
        """Return entities for an autocomplete box: prefix matches first, then fuzzy ones."""
        pairs = await self.names()
        folded = fold(prefix)
        starts = [e for n, e in pairs if fold(n).startswith(folded)] if folded else [e for _, e in pairs]
        ordered = list(dict.fromkeys(starts))[:limit]
        if len(ordered) < limit and folded:
            ordered += [
                r.id
                for r, score in await self.fuzzy(prefix, limit=limit)
                if score >= 60 and r.id not in ordered
            ]
        found = await self.entities(ordered[:limit])
        return [self.ref(found[e]) for e in ordered[:limit] if e in found]

    @staticmethod
    def ref(entity: Entity) -> EntityRef:
        """Return a short reference to an entity."""
        return EntityRef(id=entity.id, name=entity.name, type=entity.type, visibility=entity.visibility)

    # -- statements -----------------------------------------------------------------------------------

    async def statements(
        self,
        *,
        subject_ids: Iterable[int] | None = None,
        object_ids: Iterable[int] | None = None,
        statement_ids: Iterable[int] | None = None,
        predicates: Iterable[str] | None = None,
        as_of: AsOf = NOW,
        include_retconned: bool = False,
        with_evidence: bool = True,
    ) -> list[Statement]:
        """Return visible statements matching every filter given (about/to these entities, these ids)."""
        conditions = [
            *self._visible(StatementRow.__table__.c, as_of),
            *self._valid_at(StatementRow.__table__.c, as_of),
        ]
        about: list[ColumnElement[bool]] = []
        if subject_ids is not None:
            about.append(StatementRow.subject_id.in_(list(subject_ids)))
        if object_ids is not None:
            about.append(StatementRow.object_id.in_(list(object_ids)))
        if about:
            conditions.append(or_(*about))
        if statement_ids is not None:
            conditions.append(StatementRow.id.in_(list(statement_ids)))
        if predicates is not None:
            conditions.append(StatementRow.predicate.in_(list(predicates)))
        table = StatementRow.__table__
        query = self._with_retcons(table, "statement", as_of).where(*conditions)
        build = RowReader(table)
        rows = (await self.session.execute(query)).all()
        at = build.at
        if self.viewer != Viewer.GM:
            visibility = at["visibility"]
            # A statement's own visibility here; one about a hidden entity goes in `views` (`statement_hidden`).
            rows = [r for r in rows if may_see(self.viewer, gm_only(r[visibility]))]
        if not include_retconned:
            retconned = at["retconned_at"]
            rows = [r for r in rows if r[retconned] is None]
        evidence = (
            await self.evidence("statement", [r[at["id"]] for r in rows], as_of) if with_evidence else {}
        )
        return build.statements(rows, evidence)

    async def evidence(self, kind: str, ids: Sequence[int], as_of: AsOf = NOW) -> dict[int, list[Evidence]]:
        """Return the evidence of entities or statements, keyed by their id."""
        return {target: found for (_, target), found in (await self.evidence_of({kind: ids}, as_of)).items()}

    async def evidence_of(
        self, targets: Mapping[str, Sequence[int]], as_of: AsOf = NOW
    ) -> dict[tuple[str, int], list[Evidence]]:
        """Return the evidence of entities and statements at once, keyed by (kind, id)."""
        table = EvidenceRow.__table__.c
        clauses = [
            and_(table.target_kind == kind, table.target_id.in_(list(ids[start : start + 500])))
            for kind, ids in targets.items()
            for start in range(0, len(ids), 500)
        ]
        found: dict[tuple[str, int], list[Evidence]] = {}
        for start in range(0, len(clauses), 4):  # a few IN lists per query: a card's facts and itself in one
            query = (
                select(EvidenceRow.__table__)
                .where(or_(*clauses[start : start + 4]), *self._visible(table, as_of))
                .order_by(table.id)
            )
            for row in (await self.session.execute(query)).all():
                found.setdefault((row.target_kind, row.target_id), []).append(_evidence(row))
        return found

    async def views(self, statements: Sequence[Statement], as_of: AsOf = NOW) -> list[StatementView]:
        """Name the subject and object of each statement; statements about hidden entities are dropped."""
        ids = {s.subject_id for s in statements} | {
            s.object_id for s in statements if s.object_id is not None
        }
        entities = await self.entities(ids, as_of, include_retconned=True, with_aliases=False)
        views = []
        for s in statements:
            subject = entities.get(s.subject_id)
            obj = entities.get(s.object_id) if s.object_id is not None else None
            if subject is None or (s.object_id is not None and obj is None):
                continue
            views.append(
                StatementView(statement=s, subject=self.ref(subject), object=self.ref(obj) if obj else None)
            )
        return views

    @staticmethod
    def current_state(statements: Sequence[Statement]) -> Statement | None:
        """Return the latest standing state statement among `statements` (story order, then world date)."""
        states = [
            s for s in statements if s.kind == StatementKind.STATE and s.provenance.level == CanonLevel.CANON
        ]
        return max(states, key=statement_sort_key) if states else None

    async def card(self, entity_or_id: Entity | int, as_of: AsOf = NOW) -> EntityCard:
        """Return an entity's card: current state, aliases, relations, facts and their evidence, as of a point."""
        entity = entity_or_id if isinstance(entity_or_id, Entity) else await self.entity(entity_or_id, as_of)
        entity_id = entity.id
        if (
            as_of.scene is not None
            and entity.validity.story_from is not None
            and entity.validity.story_from > as_of.scene
        ):
            raise NotFound(f"{entity.name} does not exist yet after scene {as_of.scene}.")
        statements = await self.statements(
            subject_ids=[entity_id], object_ids=[entity_id], as_of=as_of, with_evidence=False
        )
        evidence = await self.evidence_of(
            {"statement": [s.id for s in statements], "entity": [entity_id]}, as_of
        )
        statements = [replace(s, evidence=tuple(evidence.get(("statement", s.id), ()))) for s in statements]
        views = await self.views(statements, as_of)
        hidden = len(statements) - len(views)
        state = self.current_state([v.statement for v in views if v.statement.subject_id == entity_id])
        state_view = next((v for v in views if state is not None and v.statement.id == state.id), None)
        relations = tuple(
            sorted(
                (v for v in views if v.statement.kind == StatementKind.RELATION),
                key=lambda v: (v.statement.predicate, (v.object or v.subject).name),
            )
        )
        facts = tuple(
            sorted(
                (v for v in views if v.statement.kind == StatementKind.ATTRIBUTE),
                key=lambda v: statement_sort_key(v.statement),
            )
        )
        own_evidence = evidence.get(("entity", entity_id), [])
        return EntityCard(
            entity=entity,
            state=state_view,
            relations=relations,
            facts=facts,
            evidence=tuple(own_evidence),
            hidden_count=hidden,
        )

    async def timeline(self, entity_id: int, as_of: AsOf = NOW) -> list[StatementView]:
        """Return everything about an entity in story order, retconned rows included and marked."""
        await self.entity(entity_id, as_of)
        statements = await self.statements(
            subject_ids=[entity_id], object_ids=[entity_id], as_of=as_of, include_retconned=True
        )
        views = await self.views(statements, as_of)
        return sorted(views, key=lambda v: statement_sort_key(v.statement))

    async def neighbourhood(
        self, entity_id: int, hops: int = 1, as_of: AsOf = NOW
    ) -> list[tuple[int, StatementView]]:
        """Return the relations within `hops` steps of an entity, each with the step it was found at.

        The walk goes only through what this viewer may see: a player never reaches entities that are
        linked only through a GM-only entity or relation.
        """
        if not 1 <= hops <= 4:
            raise InvalidInput("A neighbourhood is 1 to 4 hops.")
        await self.entity(entity_id, as_of)
        frontier, seen = {entity_id}, {entity_id}
        found: dict[int, tuple[int, StatementView]] = {}
        for hop in range(1, hops + 1):
            statements = await self.statements(
                subject_ids=frontier, object_ids=frontier, as_of=as_of, with_evidence=False
            )
            relations = [s for s in statements if s.kind == StatementKind.RELATION and s.id not in found]
            views = await self.views(relations, as_of)
            for view in views:
                found[view.statement.id] = (hop, view)
            reached = {v.subject.id for v in views} | {v.object.id for v in views if v.object is not None}
            frontier = reached - seen
            seen |= reached
            if not frontier:
                break
        return sorted(
            found.values(), key=lambda item: (item[0], item[1].statement.predicate, item[1].statement.id)
        )

    async def names_in_use(
        self,
        *,
        entity_types: Iterable[str] = (),
        relations: Iterable[str] = (),
        states: Iterable[str] = (),
        via: Iterable[str] = (),
    ) -> set[str]:
        """Return which of these ontology names the lineage's canon uses, retconned rows included."""
        entity, statement = EntityRow.__table__.c, StatementRow.__table__.c
        in_lineage = lineage_filter(statement, self.steps)
        queries: list[Any] = []
        if names := list(entity_types):
            queries.append(
                select(entity.type).where(lineage_filter(entity, self.steps), entity.type.in_(names))
            )
        if names := list(relations):
            queries.append(select(statement.predicate).where(in_lineage, statement.predicate.in_(names)))
        if names := list(states):
            queries.append(
                select(statement.value).where(
                    in_lineage, statement.kind == StatementKind.STATE.value, statement.value.in_(names)
                )
            )
        if names := list(via):
            queries.append(select(statement.via).where(in_lineage, statement.via.in_(names)))
        used: set[str] = set()
        for query in queries:
            used |= set((await self.session.execute(query.distinct())).scalars())
        return used

    async def dependents(self, kind: str, target_id: int) -> list[StatementView]:
        """Return the standing statements that rely on an entity or statement (to review after a retcon)."""
        query = select(DependencyRow.statement_id).where(
            DependencyRow.depends_on_kind == kind,
            DependencyRow.depends_on_id == target_id,
            lineage_filter(DependencyRow, self.steps),
        )
        ids = set((await self.session.execute(query)).scalars())
        if kind == "entity":
            about = await self.statements(
                subject_ids=[target_id], object_ids=[target_id], with_evidence=False
            )
            ids |= {s.id for s in about}
        if not ids:
            return []
        return await self.views(await self.statements(statement_ids=ids))


@dataclass(frozen=True)
class NewEntity:
    """An entity to create (`CanonWriter.create_entities`): its type, name, and what comes with it."""

    type: str
    name: str
    authority: Authority
    key: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    description: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    validity: Validity = ALWAYS
    confidence: float = 1.0
    evidence: tuple[Evidence, ...] = ()


class CanonWriter:
    """Appends canon rows to one campaign under one changeset; the caller owns the transaction."""

    def __init__(
        self, session: AsyncSession, changeset: ChangesetRow, ontology: Ontology, *, deferred: bool = False
    ) -> None:
        self.session = session
        self.changeset = changeset
        self.ontology = ontology
        # Deferred: statements are queued and written in bulk by flush() (a commit of hundreds of proposals
        # would otherwise make a round trip per row); add_statement then returns a negative placeholder id.
        self.deferred = deferred
        # Each queued statement's row (a dict, or a tuple in `_STATEMENT_COLUMNS` order), evidence, dependencies.
        self._pending: list[
            tuple[dict[str, Any] | tuple[Any, ...], list[Evidence], list[tuple[str, int]]]
        ] = []
        self._stamp_values: dict[str, Any] | None = None
        # The shared column values of each validity written, by identity (see `_statement_values`).
        self._validity_values: dict[int, tuple[Validity, Authority, float, str | None, dict[str, Any]]] = {}
        # The same shared values as a tuple, by identity of their `_validity_values` entry (`queue_statements`).
        self._validity_heads: dict[int, tuple[Any, tuple[Any, ...]]] = {}

    @property
    def campaign_id(self) -> int:
        """Return the campaign written to."""
        return self.changeset.campaign_id

    def _stamp(self) -> dict[str, Any]:
        # Read once: the changeset's ORM attributes cost more than the rest of a bulk add_statement. Callers
        # only spread it (`**self._stamp()`), never change it.
        stamp = self._stamp_values
        if stamp is None:
            stamp = self._stamp_values = {
                "campaign_id": self.changeset.campaign_id,
                "changeset_id": self.changeset.id,
                "recorded_at": self.changeset.recorded_at,
            }
        return stamp

    async def create_entity(
        self,
        *,
        type: str,
        name: str,
        key: str | None = None,
        visibility: Visibility = Visibility.PUBLIC,
        description: str | None = None,
        attributes: dict[str, Any] | None = None,
        aliases: Iterable[str] = (),
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        evidence: Iterable[Evidence] = (),
    ) -> int:
        """Create an entity of an ontology type with its aliases and evidence; return its id."""
        (created,) = await self.create_entities(
            [
                NewEntity(
                    type=type,
                    name=name,
                    key=key,
                    visibility=visibility,
                    description=description,
                    attributes=attributes or {},
                    aliases=tuple(aliases),
                    validity=validity,
                    authority=authority,
                    confidence=confidence,
                    evidence=tuple(evidence),
                )
            ]
        )
        return created

    async def create_entities(self, entities: Sequence[NewEntity]) -> list[int]:
        """Create entities with their aliases and evidence in bulk (a commit's new entities); return their ids."""
        rows = []
        for entity in entities:
            type_name = self.ontology.entity_type(entity.type)
            clean = " ".join(entity.name.split())
            if not clean or len(clean) > 200:
                raise InvalidInput("An entity's name is 1 to 200 characters.")
            rows.append(
                {
                    **self._stamp(),
                    **validity_columns(entity.validity),
                    "type": type_name,
                    "name": clean,
                    "name_folded": fold(clean),
                    "key": entity.key,
                    "kind": self.ontology.entity_types[type_name].kind.value,
                    "visibility": entity.visibility.value,
                    "description": entity.description,
                    "attributes": entity.attributes,
                    "authority": entity.authority.value,
                    "confidence": entity.confidence,
                }
            )
        ids = await insert_returning_ids(self.session, EntityRow.__table__, rows)
        stamp = self._stamp()
        aliases = [
            {**stamp, "entity_id": entity_id, "alias": clean, "alias_folded": fold(clean)}
            for entity_id, entity in zip(ids, entities, strict=True)
            for clean in (" ".join(alias.split()) for alias in entity.aliases)
            if clean
        ]
        evidence = [
            {
                **stamp,
                "target_kind": "entity",
                "target_id": entity_id,
                **item.model_dump(exclude={"changeset_id"}),
            }
            for entity_id, entity in zip(ids, entities, strict=True)
            for item in entity.evidence
        ]
        await bulk_insert(self.session, AliasRow.__table__, aliases)
        await bulk_insert(self.session, EvidenceRow.__table__, evidence)
        return ids

    async def add_alias(self, entity_id: int, alias: str) -> None:
        """Give an entity another name."""
        clean = " ".join(alias.split())
        if clean:
            self.session.add(
                AliasRow(**self._stamp(), entity_id=entity_id, alias=clean, alias_folded=fold(clean))
            )

    async def add_statement(
        self,
        *,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None = None,
        value: str | None = None,
        via: str | None = None,
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        visibility: Visibility = Visibility.PUBLIC,
        replaces_id: int | None = None,
        evidence: Iterable[Evidence] = (),
        depends_on: Iterable[tuple[str, int]] = (),
    ) -> int:
        """Append a statement with its evidence and dependencies; return its id."""
        values = self._statement_values(
            kind, subject_id, predicate, object_id, value, via, validity, authority, confidence, visibility
        )
        values["replaces_id"] = replaces_id
        if self.deferred:
            self._pending.append((values, list(evidence), list(depends_on)))
            return -len(self._pending)
        row = StatementRow(**values)
        self.session.add(row)
        await self.session.flush()
        await self.add_evidence("statement", row.id, evidence)
        for dep_kind, dep_id in depends_on:
            self.session.add(
                DependencyRow(
                    **self._stamp(), statement_id=row.id, depends_on_kind=dep_kind, depends_on_id=dep_id
                )
            )
        return row.id

    def queue_statement(
        self,
        *,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None = None,
        value: str | None = None,
        validity: Validity = ALWAYS,
        authority: Authority,
        confidence: float = 1.0,
        visibility: Visibility = Visibility.PUBLIC,
        replaces_id: int | None = None,
    ) -> int:
        """Queue a statement without evidence for `flush` (a deferred writer's bulk path); return its placeholder.

        The same statement as `add_statement` without the await, for imports that queue tens of thousands.
        """
        if not self.deferred:
            raise RuntimeError("queue_statement needs a deferred writer")
        values = self._statement_values(
            kind, subject_id, predicate, object_id, value, None, validity, authority, confidence, visibility
        )
        values["replaces_id"] = replaces_id
        self._pending.append((values, _NO_EVIDENCE, _NO_DEPENDENCIES))
        return -len(self._pending)

    def queue_statements(
        self,
        rows: Iterable[
            tuple[StatementKind, int, str, int | None, str | None, Validity, Visibility, int | None]
        ],
        *,
        authority: Authority,
        confidence: float = 1.0,
    ) -> list[int]:
        """Queue many statements of one authority and confidence, like `queue_statement` each (same rows,
        same checks); return their placeholders in order.

        Each row is (kind, subject_id, predicate, object_id, value, validity, visibility, replaces_id): one
        loop for the tens of thousands of an import, without a call with keywords per statement.
        """
        if not self.deferred:
            raise RuntimeError("queue_statement needs a deferred writer")
        pending, values_of, shared_of = self._pending, self._statement_values, self._validity_values
        append, relation, heads = pending.append, StatementKind.RELATION, self._validity_heads
        first = len(pending)
        for kind, subject_id, predicate, object_id, value, validity, visibility, replaces_id in rows:
            known = shared_of.get(id(validity))
            if (
                known is None
                or known[0] is not validity
                or known[1] is not authority
                or known[2] != confidence
                or known[3] is not None
                or (object_id is None if kind == relation else value is None)
            ):
                # A validity seen first, or a row the checks refuse: the one-statement path says why.
                values = values_of(
                    kind,
                    subject_id,
                    predicate,
                    object_id,
                    value,
                    None,
                    validity,
                    authority,
                    confidence,
                    visibility,
                )
                values["replaces_id"] = replaces_id
                append((values, _NO_EVIDENCE, _NO_DEPENDENCIES))
                continue
            # `_statement_values`' row as a tuple in `_STATEMENT_COLUMNS` order (a dict per row of a big import
            # costs more than SQLite's insert); `_value_`: an enum's `.value` is a costly property.
            head = heads.get(id(known))
            if head is None or head[0] is not known:
                if tuple(known[4]) != _STATEMENT_COLUMNS[:-7]:  # pragma: no cover - a column added above
                    raise AssertionError("_STATEMENT_COLUMNS must follow _statement_values")
                head = heads[id(known)] = (known, tuple(known[4].values()))
            append(
                (
                    (
                        *head[1],
                        kind._value_,
                        subject_id,
                        predicate,
                        object_id,
                        value,
                        visibility._value_,
                        replaces_id,
                    ),
                    _NO_EVIDENCE,
                    _NO_DEPENDENCIES,
                )
            )
        return list(range(-first - 1, -len(pending) - 1, -1))

    def _statement_values(
        self,
        kind: StatementKind,
        subject_id: int,
        predicate: str,
        object_id: int | None,
        value: str | None,
        via: str | None,
        validity: Validity,
        authority: Authority,
        confidence: float,
        visibility: Visibility,
    ) -> dict[str, Any]:
        """Check a statement's shape and return its row's values (all but `replaces_id`)."""
        if kind == StatementKind.RELATION:
            if object_id is None:
                raise InvalidInput("A relation needs an entity at its other end.")
        elif value is None:
            raise InvalidInput("A fact or state needs a value.")
        # The columns every statement of one validity, authority, confidence and `via` shares (the stamp,
        # the validity's columns ...), built once: a bulk writer shares one Validity per date.
        known = self._validity_values.get(id(validity))
        if (
            known is None
            or known[0] is not validity
            or known[1] is not authority
            or known[2] != confidence
            or known[3] != via
        ):
            shared = {
                **self._stamp(),
                **validity_columns(validity),
                "via": via,
                "authority": authority.value,
                "confidence": confidence,
            }
            known = self._validity_values[id(validity)] = (validity, authority, confidence, via, shared)
        # `_value_`: an enum's `.value` is a property, costly on tens of thousands of rows.
        return {
            **known[4],
            "kind": kind._value_,
            "subject_id": subject_id,
            "predicate": predicate,
            "object_id": object_id,
            "value": value,
            "visibility": visibility._value_,
        }

    async def flush(self) -> dict[int, int]:
        """Write the queued statements, their evidence and dependencies in bulk; map placeholders to ids."""
        if not self._pending:
            return {}
        rows: list[Any] = [v for v, _, _ in self._pending]
        if any(type(v) is tuple for v in rows):
            # Rows queued by `queue_statements` are tuples: the others become tuples too.
            as_tuple = itemgetter(*_STATEMENT_COLUMNS)
            rows = [v if type(v) is tuple else as_tuple(v) for v in rows]
            ids = await insert_returning_ids(
                self.session, StatementRow.__table__, rows, columns=_STATEMENT_COLUMNS
            )
        else:
            ids = await insert_returning_ids(self.session, StatementRow.__table__, rows)
        stamp = self._stamp()
        evidence_rows = [
            {
                **stamp,
                "target_kind": "statement",
                "target_id": sid,
                **item.model_dump(exclude={"changeset_id"}),
            }
            for sid, (_, items, _) in zip(ids, self._pending, strict=True)
            for item in items
        ]
        # A statement may depend on another of the same flush (a state on the previous one): by placeholder.
        placed = {-(i + 1): sid for i, sid in enumerate(ids)}
        dependency_rows = [
            {
                **stamp,
                "statement_id": sid,
                "depends_on_kind": kind,
                "depends_on_id": placed.get(target, target) if kind == "statement" else target,
            }
            for sid, (_, _, deps) in zip(ids, self._pending, strict=True)
            for kind, target in deps
        ]
        await bulk_insert(self.session, EvidenceRow.__table__, evidence_rows)
        await bulk_insert(self.session, DependencyRow.__table__, dependency_rows)
        self._pending.clear()
        return placed

    async def add_evidence(self, target_kind: str, target_id: int, evidence: Iterable[Evidence]) -> None:
        """Attach evidence to an entity or statement."""
        for item in evidence:
            self.session.add(
                EvidenceRow(
                    **self._stamp(),
                    target_kind=target_kind,
                    target_id=target_id,
                    **item.model_dump(exclude={"changeset_id"}),
                )
            )

    async def retcon(
        self,
        reader: CanonReader,
        target_kind: str,
        target_id: int,
        *,
        replacement_id: int | None,
        rationale: str | None,
    ) -> None:
        """Mark an entity or statement retconned from this changeset on; refuse one already retconned."""
        existing = await reader._retcons(target_kind, [target_id], NOW)
        if target_id in existing:
            current = existing[target_id].replacement_id
            named = f" The current fact is #{current}." if current else " Nothing replaced it."
            raise Conflict(f"{target_kind.title()} #{target_id} was already retconned.{named}")
        self.session.add(
            StatusChangeRow(
                **self._stamp(),
                target_kind=target_kind,
                target_id=target_id,
                level=CanonLevel.RETCONNED.value,
                replacement_id=replacement_id,
                rationale=rationale,
            )
        )
        await self.session.flush()


async def insert_returning_ids(
    session: AsyncSession, table: Any, rows: Sequence[Any], *, columns: Sequence[str] | None = None
) -> list[int]:
    """Insert rows in bulk and return their new ids in the order of `rows`.

    Rows are dicts, or tuples of the values of `columns` in that order.

    PostgreSQL batches `RETURNING` sorted by parameter order itself. SQLAlchemy cannot do that on SQLite and
    falls back to one INSERT per row (seconds for 50,000 statements), so on SQLite the ids are allocated
    here, after the largest id, and the rows go through the driver's `executemany` (`bulk_insert`). The
    caller's transaction holds SQLite's write lock from its first write (every write goes through
    `Database.run`, BEGIN IMMEDIATE), so no other writer can take those ids meanwhile; if one somehow
    did, the insert fails on the primary key instead of mixing rows up.
    """
    if not rows:
        return []
    if _is_sqlite(session):
        last = (await session.execute(select(func.max(table.c.id)))).scalar() or 0
        ids = list(range(last + 1, last + 1 + len(rows)))
        await _sqlite_bulk_insert(session, table, rows, {"id": ids}, columns)
        return ids
    dicts = list(rows) if columns is None else [dict(zip(columns, row, strict=True)) for row in rows]
    result = await session.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True), dicts)
    return [row[0] for row in result.all()]


_UNSET = object()
# A statement row's columns in the order `_statement_values` gives them, then `replaces_id` (tuple rows).
_STATEMENT_COLUMNS = (
    "campaign_id",
    "changeset_id",
    "recorded_at",
    *VALIDITY_COLUMNS,  # as `validity_columns` gives them
    "via",
    "authority",
    "confidence",
    "kind",
    "subject_id",
    "predicate",
    "object_id",
    "value",
    "visibility",
    "replaces_id",
)
# What a queued statement without evidence or dependencies carries (never changed).
_NO_EVIDENCE: list[Evidence] = []
_NO_DEPENDENCIES: list[tuple[str, int]] = []


def _is_sqlite(session: AsyncSession) -> bool:
    return session.bind is not None and session.bind.dialect.name == "sqlite"


async def bulk_insert(
    session: AsyncSession, table: Any, rows: Sequence[Any], *, columns: Sequence[str] | None = None
) -> None:
    """Insert rows in bulk (no ids returned); every row must give the same columns.

    Rows are dicts, or tuples of the values of `columns` in that order (no dict per row of a big import).

    On SQLite the rows go straight to the driver's `executemany` with each column's bind processing done
    here (SQLAlchemy's per-row statement handling costs more than SQLite's own insert); columns a row does
    not give take their Python-side default. Elsewhere a plain Core `insert` (asyncpg's executemany is fast).
    """
    if not rows:
        return
    if not _is_sqlite(session):
        dicts = list(rows) if columns is None else [dict(zip(columns, row, strict=True)) for row in rows]
        await session.execute(insert(table), dicts)
        return
    await _sqlite_bulk_insert(session, table, rows, {}, columns)


async def _sqlite_bulk_insert(
    session: AsyncSession,
    table: Any,
    rows: Sequence[Any],
    extra: dict[str, list[Any]],
    columns_of_rows: Sequence[str] | None = None,
) -> None:
    """Insert rows through the driver's `executemany`; `extra` gives whole columns (the ids) beside the rows.

    Rows are dicts, or tuples of the values of `columns_of_rows` in that order (read by position alike).

    Each row is read once, by one `itemgetter` (the rows of a big import do not fit in the CPU's caches, and a
    Python loop per row and column cost more than SQLite's own insert); only the few columns with a bind
    processor (times, JSON, floats) are read again, and processed once per distinct value in a run.
    """
    dialect = session.bind.dialect  # type: ignore[union-attr]
    # Where each given column is read in a row: its name in a dict, its position in a tuple.
    at: dict[str, Any] = (
        {name: name for name in rows[0]}
        if columns_of_rows is None
        else {name: i for i, name in enumerate(columns_of_rows)}
    )
    given = at.keys() | extra.keys()
    columns = [c for c in table.c if c.name in given or (c.default is not None and c.default.is_scalar)]
    missing = [c for c in table.c if c.name not in given and c not in columns and not c.nullable]
    missing = [c for c in missing if not (c.primary_key and c.autoincrement)]
    if missing or any(
        c.default is not None and not c.default.is_scalar and c.name not in given for c in table.c
    ):
        # A callable default: let SQLAlchemy apply it.
        as_dicts = (
            rows if columns_of_rows is None else [dict(zip(columns_of_rows, r, strict=True)) for r in rows]
        )
        merged = [row | {name: values[i] for name, values in extra.items()} for i, row in enumerate(as_dicts)]
        await session.execute(insert(table), merged)
        return
    count = len(rows)
    plain: list[str] = []  # read as they are, by one itemgetter
    later: list[tuple[str, Iterable[Any]]] = []  # processed, default or extra columns, whole
    # Numbers and NULLs that are the same in every row (the campaign, the changeset, confidence, open ends)
    # are written into the statement as literals: SQLite then binds only what varies.
    fixed: list[tuple[str, str]] = []
    for column in columns:
        name = column.name
        processor = column.type._cached_bind_processor(dialect)
        if name in extra:
            later.append((name, extra[name]))
        elif name not in given:
            default = column.default.arg
            value = default if processor is None else processor(default)
            literal = _sql_literal(value) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                later.append((name, itertools.repeat(value, count)))
        elif processor is not None:
            values = _processed(list(map(itemgetter(at[name]), rows)), processor)
            literal = _constant_literal(values) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                later.append((name, values))
        else:
            literal = _constant_literal(rows, at[name]) if count > 1 else None
            if literal is not None:
                fixed.append((name, literal))
            else:
                plain.append(name)
    if len(plain) > 1:
        heads: Iterable[tuple[Any, ...]] = map(itemgetter(*(at[name] for name in plain)), rows)
    else:
        heads = [tuple(row[at[name]] for name in plain) for row in rows]
    tails = zip(*(values for _, values in later), strict=True)
    params = list(map(tuple.__add__, heads, tails)) if later else list(heads)
    bound = [*plain, *(n for n, _ in later)]
    quote = dialect.identifier_preparer.quote
    names = ", ".join(quote(name) for name in [*bound, *(n for n, _ in fixed)])
    slots = ", ".join(["?"] * len(bound) + [literal for _, literal in fixed])
    sql = f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) VALUES ({slots})"
    connection = await session.connection()
    await connection.exec_driver_sql(sql, params)


def _constant_literal(rows: Sequence[Any], name: str | int | None = None) -> str | None:
    """Return the SQL literal of a column whose every row holds the same object (`rows[i][name]`, or
    `rows[i]` without a name), else None. Only the very same object counts (1 and True, 1 and 1.0 differ)."""
    read = itemgetter(name) if name is not None else None
    first = rows[0] if read is None else read(rows[0])
    middle = rows[len(rows) // 2] if read is None else read(rows[len(rows) // 2])
    last = rows[-1] if read is None else read(rows[-1])
    if middle is not first or last is not first:
        return None
    literal = _sql_literal(first)
    if literal is None:
        return None
    values = rows if read is None else map(read, rows)
    return literal if all(map(is_, values, itertools.repeat(first))) else None


_INT64 = range(-(2**63), 2**63)


def _sql_literal(value: Any) -> str | None:
    """Return a number or NULL as an SQLite literal that stores exactly what binding it would, else None."""
    if value is None:
        return "NULL"
    kind = type(value)
    if kind is int:
        return str(value) if value in _INT64 else None
    if kind is float:
        return repr(value) if math.isfinite(value) else None
    # Text is always bound, never spliced: imported names and files must not become part of a statement.
    return None  # text, bytes, bools, anything else: bound as usual


def _processed(values: Sequence[Any], processor: Any) -> list[Any]:
    """Return a column's values bind-processed; runs of one object (the changeset's time, {}) are done once."""
    found: list[Any] = []
    last: object = _UNSET
    done: Any = None
    for value in values:
        if value is not last:
            last = value
            done = None if value is None else processor(value)
        found.append(done)
    return found


def believed_at(value: dt.datetime) -> AsOf:
    """Return an as-of point for "what we believed at real time T"."""
    return AsOf(believed_at=value if value.tzinfo else value.replace(tzinfo=dt.UTC))
