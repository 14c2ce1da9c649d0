"""`CanonReader`: questions about one campaign's canon for one viewer, as of any point.

Resolve a name (found by `canon.graph.name_lookup.NameLookup`), an entity's card, its timeline, what depends on a fact, the neighbourhood within n hops, which
ontology names canon uses. The rows come through the campaign's lineage (`canon.graph.reads.LineageReader`): a
branch reads its ancestors' rows up to its fork point, never later ones.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import func, or_, select

from canon.calendar import UNKNOWN
from canon.errors import InvalidInput, NotFound
from canon.graph import naming
from canon.graph.keys import statement_sort_key
from canon.graph.lineage import lineage_filter
from canon.graph.name_lookup import NameLookup
from canon.graph.reads import LineageReader
from canon.models import (
    NOW,
    AsOf,
    CanonLevel,
    Entity,
    EntityCard,
    Statement,
    StatementKind,
    StatementView,
    Viewer,
)
from canon.tables import DependencyRow, EntityRow, StatementRow
from canon.visibility import TOLD_FOR, statement_is_public_sql

FUZZY_CUTOFF = 80
_DEAD = frozenset({"dead"})


class CanonReader(NameLookup):
    """Answers questions about one campaign's canon for one viewer, through the campaign's lineage."""

    async def resolve(self, name: str, as_of: AsOf = NOW, *, type_hint: str | None = None) -> Entity:
        """Return the entity a name means: exact name, alias or key first, then a unique whole word of a name
        (`canon.graph.naming`), then the closest fuzzy match; several ask which, in words (never ids)."""
        entity, found = await naming.settle(self, name, as_of)
        if entity is None and type_hint is not None:
            typed = [e for e in found if self.ontology.is_a(e.type, [type_hint])]
            found = typed or found
            entity = found[0] if len(found) == 1 else None
        if entity is not None:
            return entity
        if len(found) > 1:
            raise await naming.ambiguity(self, name, found)
        matches = await self.fuzzy(name, limit=3, whole=True)
        return await naming.closest(self, name, matches, FUZZY_CUTOFF, as_of)

    current_state = staticmethod(lambda statements, terminal=_DEAD: current_state(statements, terminal))

    async def card(
        self,
        entity_or_id: Entity | int,
        as_of: AsOf = NOW,
        *,
        with_evidence: bool = True,
        attributes: Collection[str] | None = None,
    ) -> EntityCard:
        """Return an entity's card: current state, aliases, relations, facts (only those of `attributes`, when
        given) and, unless `with_evidence` is off, their evidence, as of a point."""
        entity = entity_or_id if isinstance(entity_or_id, Entity) else await self.entity(entity_or_id, as_of)
        entity_id = entity.id
        if (
            as_of.scene is not None
            and entity.validity.story_from is not None
            and entity.validity.story_from > as_of.scene
        ):
            raise NotFound(f"{entity.name} does not exist yet after scene {as_of.scene}.")
        chosen = _facts_of(attributes)
        statements = await self.statements(
            subject_ids=[entity_id], object_ids=[entity_id], as_of=as_of, with_evidence=False, where=chosen
        )
        evidence = (
            await self.evidence_of({"statement": [s.id for s in statements], "entity": [entity_id]}, as_of)
            if with_evidence
            else {}
        )
        if evidence:
            statements = [
                replace(s, evidence=tuple(evidence.get(("statement", s.id), ()))) for s in statements
            ]
        views = await self.views(statements, as_of)
        hidden = len(statements) - len(views)
        terminal = [tag for tag, spec in self.ontology.states.tags.items() if spec.terminal]
        own = [v.statement for v in views if v.statement.subject_id == entity_id]
        state = self.current_state(own, terminal if as_of.world_key is None else ())
        state_view = next((v for v in views if state is not None and v.statement.id == state.id), None)
        relations = tuple(
            sorted(
                (v for v in views if v.statement.kind == StatementKind.RELATION),
                # The statement's id last: ties (the entity itself at the object's end) read in the order canon
                # wrote them, on every database.
                key=lambda v: (v.statement.predicate, (v.object or v.subject).name, v.statement.id),
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
            states=_states(views, entity_id),
            changed_at=self._changes(
                entity, [v.statement for v in facts if v.statement.subject_id == entity_id]
            ),
        )

    def _changes(self, entity: Entity, facts: list[Statement]) -> dict[int, str]:
        """Return the facts of a single-valued attribute that a later value changed, with the date it changed:
        a change is a different value with an in-world date after the earlier one's (or the earlier is undated)."""
        groups: dict[str, list[Statement]] = {}
        for s in facts:
            name, spec = self.ontology.attribute(entity.type, s.predicate)
            if spec is not None and not spec.many and spec.changes:
                groups.setdefault(name, []).append(s)
        changed: dict[int, str] = {}
        for group in groups.values():
            ordered = sorted(group, key=_world_order)
            for old, new in itertools.pairwise(ordered):
                start, since = old.validity.world_from_key, new.validity.world_from_key
                if since is None or (start is not None and start >= since):
                    continue
                if " ".join((old.value or "").casefold().split()) != " ".join(
                    (new.value or "").casefold().split()
                ):
                    changed[old.id] = new.validity.world_from or str(since)
        return changed

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

    async def attribute_names(self, prefix: str = "", *, limit: int = 25) -> list[str]:
        """Return the attribute names the lineage's canon uses that start with `prefix`, most used first.

        A player hears only of names used by public facts about public entities: a name used only in GM-only
        canon (`true_heir`) would hint at it.
        """
        statement = StatementRow.__table__.c
        conditions = [
            lineage_filter(statement, self.steps),
            statement.kind == StatementKind.ATTRIBUTE.value,
            statement.predicate.like(f"{fold_prefix(prefix)}%", escape="\\"),
        ]
        if self.viewer != Viewer.GM:
            conditions.append(statement_is_public_sql(StatementRow, EntityRow))
        used = func.count(statement.id)
        query = (
            select(statement.predicate)
            .where(*conditions)
            .group_by(statement.predicate)
            .order_by(used.desc(), statement.predicate)
            .limit(limit)
        )
        return list((await self.session.execute(query)).scalars())

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


def _facts_of(attributes: Collection[str] | None) -> list[Any]:
    """Return the condition that keeps, of an entity's facts, those of these attributes (None: all of them)."""
    if attributes is None:
        return []
    # What players are told of a truth the GM keeps stands for it (`visibility.as_told`): asked with it.
    asked = {*attributes, *(told for told, truth in TOLD_FOR.items() if truth in attributes)}
    kept = StatementRow.predicate.in_(sorted(asked))
    return [or_(StatementRow.kind != StatementKind.ATTRIBUTE.value, kept)]


def fold_prefix(text: str) -> str:
    """Return typed text as a LIKE pattern's escaped start of an attribute name (stored as `normalise` does)."""
    name = "_".join(text.strip().lower().split())
    return name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def believed_at(value: dt.datetime) -> AsOf:
    """Return an as-of point for "what we believed at real time T"."""
    return AsOf(believed_at=value if value.tzinfo else value.replace(tzinfo=dt.UTC))


def current_state(statements: Sequence[Statement], terminal: Collection[str] = _DEAD) -> Statement | None:
    """Return the latest standing state statement among `statements` (story order, then world date).

    A `terminal` state of static canon whose start is written `unknown` ("died: unknown") comes after the dated
    states of static canon: a death whose day nobody knows still follows the birth (play, in scenes, comes later
    still)."""
    states = [
        s for s in statements if s.kind == StatementKind.STATE and s.provenance.level == CanonLevel.CANON
    ]
    return max(states, key=lambda s: _state_order(s, terminal)) if states else None


def _state_order(s: Statement, terminal: Collection[str]) -> tuple[int, int, int, int]:
    """Order states in story time, a terminal state of static canon from an unknown date after the dated ones."""
    story, world, changeset = statement_sort_key(s)
    unknown_end = story == -1 and s.validity.world_from == UNKNOWN and (s.value or "") in terminal
    return story, int(unknown_end), world, changeset


def _world_order(s: Statement) -> tuple[int, int]:
    """Order a fact by its in-world start (undated first), then by when it was written."""
    key = s.validity.world_from_key
    return (-(2**62) if key is None else key, s.id)


def _states(views: Sequence[StatementView], entity_id: int) -> tuple[StatementView, ...]:
    """Return an entity's own states among a card's statements, in story order."""
    own = (
        v for v in views if v.statement.kind == StatementKind.STATE and v.statement.subject_id == entity_id
    )
    return tuple(sorted(own, key=lambda v: statement_sort_key(v.statement)))


async def titles_naming(reader: LineageReader, words: str) -> list[Statement]:
    """Return the title facts the reader's viewer sees whose value holds `words` ("Lady of Saltmarch" for
    "saltmarch"), on the campaign-and-attribute index: who holds a title of a place or a group. The words are held
    in their order whatever stands between them ("Master of the Lampwrights' Compact" for "lampwrights compact": a
    name's apostrophe is no word of it)."""
    parts = words.split()
    if len(parts) < 2:
        return await facts_holding(reader, ("title", "titles", "tenure"), [words])
    run = re.compile(r"[\W_]+".join(re.escape(p) for p in parts), re.IGNORECASE)
    found = await facts_holding(reader, ("title", "titles", "tenure"), parts)
    return [s for s in found if run.search(s.value or "")]


async def facts_holding(
    reader: LineageReader, attributes: Sequence[str], texts: Sequence[str]
) -> list[Statement]:
    """Return the facts of these attributes the reader's viewer sees whose value holds each of `texts` (in any
    case), on the campaign-and-attribute index."""
    like = [
        StatementRow.value.ilike(
            "%" + t.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", escape="\\"
        )
        for t in texts
    ]
    return await reader.statements(
        predicates=list(attributes),
        where=[StatementRow.kind == StatementKind.ATTRIBUTE.value, *like],
        with_evidence=False,
    )


async def happened_in_year(reader: LineageReader, year: int) -> list[Statement]:
    """Return the statements placing an event the reader's viewer sees in a year (of any era), on the
    campaign-and-relation index: "What happened in 866?". Where it took place says it, and the era it took place
    during says it of an event canon gives no place."""
    # Stored as keys, labelled or not: `age_of_tides.year_866.month_4.day_12`, `age_of_tides.866`.
    dated = or_(
        *(
            StatementRow.world_from.like(f"%.{label}{year}{end}")
            for label in ("year_", "")
            for end in ("", ".%")
        )
    )
    return await reader.statements(
        predicates=["OCCURRED_AT", "OCCURRED_DURING"], where=[dated], with_evidence=False
    )


async def states_begun_in_year(reader: LineageReader, year: int, value: str) -> list[Statement]:
    """Return the state statements of one value ("alive" from a birth, "dead" from a death) the reader's viewer
    sees that begin in a year (of any era): "Who was born in 335?". By their world keys, which count a year as
    `year * 10000` and its days after it (`canon.continuity.world_key`, not imported: a question stays light)."""
    first = year * 10000
    return await reader.statements(
        predicates=["state"],
        where=[
            StatementRow.kind == StatementKind.STATE.value,
            StatementRow.value == value,
            StatementRow.world_from_key.between(first, first + 9999),
        ],
        with_evidence=False,
    )
