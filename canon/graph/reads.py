"""`LineageReader`: a campaign's canon rows read through its lineage as values, for one viewer.

The building blocks of every question (`canon.graph.reader.CanonReader` asks them): entities with their aliases,
statements valid at an as-of point, their evidence, and views naming both ends. A player's reader leaves out
what is GM-only.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Self

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar_seen import calendar_seen, story_date_seen
from canon.campaign_calendar import CALENDAR_SETTINGS, GLOSSARY_SETTINGS, CampaignCalendar, calendar_from
from canon.campaigns import CampaignRow, lineage
from canon.errors import InvalidInput, NotFound
from canon.forks import LineageStep
from canon.graph.lineage import lineage_as_of, valid_at
from canon.graph.rows import RowReader, evidence_from_row, with_retcons
from canon.graph.told import HiddenEraText
from canon.models import NOW, AsOf, Entity, EntityRef, Evidence, Statement, StatementView, Viewer
from canon.ontology import Ontology
from canon.tables import AliasRow, EntityRow, EvidenceRow, StatementRow, StatusChangeRow
from canon.visibility import Knowing, as_told, entity_named_only, entity_seen, statement_seen


class LineageReader:
    """Reads one campaign's canon rows for one viewer, through the campaign's lineage."""

    def __init__(
        self,
        session: AsyncSession,
        steps: Sequence[LineageStep],
        ontology: Ontology,
        *,
        viewer: Viewer = Viewer.PLAYER,
        knowing: Knowing | None = None,
    ) -> None:
        self.session = session
        self.steps = tuple(steps)
        self.ontology = ontology
        self.viewer = viewer
        #: What the player's character knows (`canon.visibility.Knowing`); None: public canon only.
        self.knowing = knowing if viewer != Viewer.GM else None
        #: Free text as the viewer reads it, without the eras hidden from them (`canon.graph.told`).
        self.told = HiddenEraText(self)

    @classmethod
    async def open(
        cls,
        session: AsyncSession,
        campaign_id: int,
        ontology: Ontology,
        *,
        viewer: Viewer = Viewer.PLAYER,
        knowing: Knowing | None = None,
    ) -> Self:
        """Return a reader for a campaign, its lineage resolved."""
        return cls(session, await lineage(session, campaign_id), ontology, viewer=viewer, knowing=knowing)

    @property
    def campaign_id(self) -> int:
        """Return the campaign being read (the first step of the lineage)."""
        return self.steps[0].campaign_id

    def _sees_entity(self, entity_id: int, visibility: str, as_of: AsOf = NOW) -> bool:
        return entity_seen(self.viewer, visibility, entity_id, self.knowing, as_of)

    def _name_only(self, entity_id: int, visibility: str, as_of: AsOf = NOW) -> bool:
        return self.knowing is not None and entity_named_only(
            self.viewer, visibility, entity_id, self.knowing, as_of
        )

    def sees_name(self, entity_id: int, visibility: str) -> tuple[bool, bool]:
        """Return whether the viewer sees an entity's name, and whether its name alone (no alias, nothing else:
        a hidden entity known only by name)."""
        seen = self._sees_entity(entity_id, visibility)
        return seen, seen and self._name_only(entity_id, visibility)

    def _named_only(self, entity: Entity, as_of: AsOf) -> Entity:
        """Return an entity as the viewer knows it: a hidden one known only by name shows nothing else."""
        if not self._name_only(entity.id, entity.visibility, as_of):
            return entity
        return replace(entity, description=None, attributes={}, aliases=())

    async def _retcons(self, kind: str, ids: Iterable[int], as_of: AsOf) -> dict[int, StatusChangeRow]:
        id_list = list(set(ids))
        if not id_list:
            return {}
        found: dict[int, StatusChangeRow] = {}
        for start in range(0, len(id_list), 500):
            query = select(StatusChangeRow).where(
                StatusChangeRow.target_kind == kind,
                StatusChangeRow.target_id.in_(id_list[start : start + 500]),
                *lineage_as_of(StatusChangeRow, self.steps, as_of),
            )
            for row in (await self.session.execute(query)).scalars():
                found.setdefault(row.target_id, row)
        return found

    async def _entity_rows(self, conditions: Sequence[ColumnElement[bool]], as_of: AsOf) -> list[Any]:
        table = EntityRow.__table__
        query = with_retcons(table, self.steps, "entity", as_of).where(
            *conditions, *lineage_as_of(table.c, self.steps, as_of)
        )
        return [
            r
            for r in (await self.session.execute(query)).all()
            if self._sees_entity(r.id, r.visibility, as_of)
        ]

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
        return await self.told.entities(
            {r.id: self._named_only(build.entity(r, aliases.get(r.id, ())), as_of) for r in rows}
        )

    async def all_entities(
        self, as_of: AsOf = NOW, *, include_retconned: bool = False, types: Collection[str] | None = None
    ) -> dict[int, Entity]:
        """Return every visible entity of the lineage (of these `types` only, when given) in one query, without
        aliases (for whole-graph work)."""
        conditions = [] if types is None else [EntityRow.__table__.c.type.in_(sorted(types))]
        rows = [
            r
            for r in await self._entity_rows(conditions, as_of)
            if include_retconned or r.retconned_at is None
        ]
        build = RowReader(EntityRow.__table__)
        return await self.told.entities({r.id: self._named_only(build.entity(r), as_of) for r in rows})

    async def era_names(self) -> dict[str, str]:
        """Return the names of the eras this viewer may see, by their keys (the dates' first segment)."""
        rows = await self._entity_rows([EntityRow.__table__.c.type == "Era"], NOW)
        return {r.key: r.name for r in rows if r.key and r.retconned_at is None}

    async def calendar(self) -> CampaignCalendar:
        """Return the campaign's calendar: the Era entities this viewer may see (names, `start` and `end`
        years), named further by the calendar block the GM set (`canon.campaign_calendar`). A player's leaves out
        a GM-only era the block names, and a today in one (`canon.calendar_seen`)."""
        eras, every = await _eras_seen(self)
        seen = await _calendar_of(self.session, self.campaign_id, eras)
        if hidden := every.keys() - eras.keys():
            return calendar_seen(seen, await _calendar_of(self.session, self.campaign_id, every), hidden)
        return seen

    async def canon_eras(self) -> dict[str, tuple[Any, ...]]:
        """Return the Era entities this viewer may see: (name, first year, last year, abbreviations) by key (an
        era's years are its validity on the world's clock; its abbreviation a timeline's `abbreviation:`)."""
        rows = await self._entity_rows([EntityRow.__table__.c.type == "Era"], NOW)
        build = RowReader(EntityRow.__table__)
        eras: dict[str, tuple[Any, ...]] = {}
        for row in rows:
            if not row.key or row.retconned_at is not None:
                continue
            validity = build.entity(row).validity
            start, end = validity.world_from_key, validity.world_until_key
            eras[row.key] = (
                row.name,
                start // 10000 if start is not None else None,
                end // 10000 if end is not None else None,
            )
        if keys := {row.id: row.key for row in rows if row.key in eras and row.retconned_at is None}:
            named = await self.statements(subject_ids=keys, predicates=("abbreviation",), with_evidence=False)
            for fact in sorted(named, key=lambda f: f.id):
                key = keys[fact.subject_id]
                if fact.value and fact.value.strip():
                    name, start, end, *more = eras[key]
                    eras[key] = (name, start, end, (*(more[0] if more else ()), fact.value.strip()))
        return eras

    async def _aliases(self, ids: list[int], as_of: AsOf) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for start in range(0, len(ids), 500):
            query = (
                select(AliasRow.entity_id, AliasRow.alias)
                .where(
                    AliasRow.entity_id.in_(ids[start : start + 500]),
                    *lineage_as_of(AliasRow, self.steps, as_of),
                )
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
        where: Sequence[ColumnElement[bool]] = (),
    ) -> list[Statement]:
        """Return visible statements matching every filter given (about/to these entities, these ids, `where`)."""
        conditions = [
            *lineage_as_of(StatementRow.__table__.c, self.steps, as_of),
            *valid_at(StatementRow.__table__.c, as_of),
            *where,
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
        # In the order written: PostgreSQL's join order may change between two asks, and answers must not.
        query = with_retcons(table, self.steps, "statement", as_of).where(*conditions).order_by(table.c.id)
        build = RowReader(table)
        rows = (await self.session.execute(query)).all()
        at = build.at
        if self.viewer != Viewer.GM:
            visibility, ident = at["visibility"], at["id"]
            # A statement's own visibility here; one about a hidden entity goes in `views` (`statement_seen`).
            rows = [
                r
                for r in rows
                if statement_seen(self.viewer, r[ident], r[visibility], (), self.knowing, as_of)
            ]
        if not include_retconned:
            retconned = at["retconned_at"]
            rows = [r for r in rows if r[retconned] is None]
        evidence = (
            await self.evidence("statement", [r[at["id"]] for r in rows], as_of) if with_evidence else {}
        )
        return await self.told.statements(build.statements(rows, evidence))

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
                .where(or_(*clauses[start : start + 4]), *lineage_as_of(table, self.steps, as_of))
                .order_by(table.id)
            )
            for row in (await self.session.execute(query)).all():
                found.setdefault((row.target_kind, row.target_id), []).append(evidence_from_row(row))
        return found

    async def written_by(self, proposal_ids: Iterable[int]) -> dict[int, list[tuple[str, int]]]:
        """Return the rows (("entity" or "statement", id)) that each committed proposal among `proposal_ids`
        wrote, by the decision each row's evidence records."""
        ids = sorted(set(proposal_ids))
        table = EvidenceRow.__table__.c
        found: dict[int, list[tuple[str, int]]] = {}
        for start in range(0, len(ids), 500):
            query = select(table.proposal_id, table.target_kind, table.target_id).where(
                table.proposal_id.in_(ids[start : start + 500]), *lineage_as_of(table, self.steps, NOW)
            )
            for proposal_id, kind, target_id in (await self.session.execute(query)).all():
                found.setdefault(proposal_id, []).append((kind, target_id))
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
            ends = [(e.id, e.visibility) for e in (subject, obj) if e is not None]
            if not statement_seen(self.viewer, s.id, s.visibility, ends, self.knowing, as_of):
                continue
            views.append(
                StatementView(statement=s, subject=self.ref(subject), object=self.ref(obj) if obj else None)
            )
        return as_told(views, self.viewer)


async def dated_keys(reader: LineageReader) -> list[int]:
    """Return every world key a campaign's canon entities and statements are dated by, retconned ones too (a
    calendar set later must still hold each: its month, its day)."""
    ids = [step.campaign_id for step in reader.steps]
    keys: set[int] = set()
    for table in (EntityRow, StatementRow):
        for column in (table.world_from_key, table.world_until_key):
            query = select(column).where(table.campaign_id.in_(ids), column.is_not(None)).distinct()
            keys.update(k for k in (await reader.session.execute(query)).scalars() if k is not None)
    return sorted(keys)


async def _calendar_of(
    session: AsyncSession, campaign_id: int, eras: dict[str, tuple[Any, ...]]
) -> CampaignCalendar:
    """Return the calendar of canon's `eras` named further by the block the campaign's GM set."""
    campaign = await session.get(CampaignRow, campaign_id)
    settings = (campaign.settings or {}) if campaign is not None else {}
    block, glossary = settings.get(CALENDAR_SETTINGS), settings.get(GLOSSARY_SETTINGS)
    try:
        return calendar_from(block, eras, glossary)
    except (InvalidInput, ValueError):  # a block that no longer fits canon's eras: canon's alone
        return calendar_from(None, eras, glossary)


async def _eras_seen(reader: LineageReader) -> tuple[dict[str, tuple[Any, ...]], dict[str, tuple[Any, ...]]]:
    """Return the Era entities a reader's viewer may see, and every one (the GM's), by key."""
    eras = await reader.canon_eras()
    if reader.viewer == Viewer.GM:
        return eras, eras
    gm = LineageReader(reader.session, reader.steps, reader.ontology, viewer=Viewer.GM)
    return eras, await gm.canon_eras()


async def story_date(reader: LineageReader, scene: str | None) -> str | None:
    """Return the story's date a reader's viewer reads (as canon stores dates), given the latest dated scene's: the
    later of it and the calendar's today, judged as the GM has them; None where there is none, or where it falls
    in an era hidden from the viewer (`canon.calendar_seen.story_date_seen`)."""
    eras, every = await _eras_seen(reader)
    whole = await _calendar_of(reader.session, reader.campaign_id, every)
    return story_date_seen(scene, whole, every.keys() - eras.keys())
