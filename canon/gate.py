"""The canonization gate: proposals are drafted, reviewed one by one, and committed together with evidence.

Turns never write canon. A proposal waits (pending) until the GM accepts or rejects it; each decision is one
conditional UPDATE, so two GMs clicking at once, or a double click, make exactly one decision. Commit writes
every accepted proposal of a scene, its evidence and the decision, in the caller's single transaction.
The campaign's authority policy says which authorities need review: by default imported sources and the GM
are accepted automatically, players and the system (an LLM) go through the GM.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.calendar import parse_date
from canon.campaigns import ChangesetKind, get_campaign, open_changeset
from canon.continuity import Finding, world_key
from canon.domain import (
    Authority,
    CanonLevel,
    Evidence,
    EvidenceKind,
    StatementKind,
    Validity,
    Viewer,
)
from canon.errors import Conflict, InvalidInput, NotFound
from canon.graph import CanonReader, CanonWriter, NewEntity, statement_sort_key, validity_sort_key
from canon.models import ProposalRow
from canon.ontology import Ontology
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    Proposal,
    ProposalContent,
    ProposalStatus,
    Ref,
    RelationshipContent,
    StateChangeContent,
    check_date,
    citations,
    fingerprint,
    parse_content,
    references,
)
from canon.storage import utc_now

log = logging.getLogger(__name__)

DEFAULT_POLICY: dict[str, str] = {
    Authority.SOURCE: "auto",
    Authority.GM: "auto",
    Authority.PLAYER: "review",
    Authority.SYSTEM: "review",
}
UNDECIDED_AT_COMMIT = "Left undecided when the scene was committed."
# The policy accepts an authority's proposals without review only when they are certain: facts extracted from
# prose (confidence 0.6, the seed's default) wait for the GM even though their authority is `source`.
AUTO_ACCEPT_MIN_CONFIDENCE = 0.9


def authority_policy(settings: dict[str, Any]) -> dict[str, str]:
    """Return a campaign's authority policy (which authorities are accepted without review)."""
    return {**DEFAULT_POLICY, **(settings.get("authority_policy") or {})}


def proposal_from_row(row: ProposalRow) -> Proposal:
    """Return the domain view of a proposal row."""
    return Proposal(
        id=row.id,
        campaign_id=row.campaign_id,
        scene_id=row.scene_id,
        batch=row.batch,
        content=parse_content(row.content),
        evidence=tuple(Evidence.model_validate(e) for e in row.evidence or []),
        authority=Authority(row.authority),
        confidence=row.confidence,
        origin=row.origin,
        status=ProposalStatus(row.status),
        rationale=row.rationale,
        warnings=tuple(row.warnings or []),
        proposer_id=row.proposer_id,
        proposer_name=row.proposer_name,
        created_at=row.created_at,
        decided_by_name=row.decided_by_name,
        decided_at=row.decided_at,
        override_rationale=row.override_rationale,
        committed_changeset_id=row.committed_changeset_id,
    )


@dataclass
class Draft:
    """What someone proposes, before names are resolved."""

    content: ProposalContent
    authority: Authority
    evidence: list[Evidence] = field(default_factory=list)
    confidence: float = 1.0
    origin: str = "command"
    proposer_id: int | None = None
    proposer_name: str | None = None
    rationale: str | None = None


@dataclass(frozen=True)
class CommitResult:
    """What a commit wrote; `written_by` maps each accepted proposal's id to the statements it wrote."""

    changeset_id: int
    accepted: list[Proposal]
    rejected: list[Proposal]
    entity_ids: dict[int, int]
    statement_ids: list[int]
    findings: list[Finding]
    written_by: dict[int, list[int]] = field(default_factory=dict)

    def overridden(self) -> dict[str, str]:
        """Return the rationale of each finding the GM accepted anyway, keyed by the finding's fingerprint.

        A finding is accepted when it involves a statement of a proposal accepted despite its warnings, with
        that proposal's own rationale; every other finding of the commit stays open.
        """
        rationale_of: dict[int, str] = {}
        for proposal in self.accepted:
            if proposal.override_rationale:
                for statement_id in self.written_by.get(proposal.id, ()):
                    rationale_of[statement_id] = proposal.override_rationale
        accepted: dict[str, str] = {}
        for finding in self.findings:
            reasons = dict.fromkeys(rationale_of[i] for i in finding.statement_ids if i in rationale_of)
            if reasons:
                accepted[finding.fingerprint] = "; ".join(reasons)
        return accepted


def default_entity_type(role: str, ontology: Ontology, content: ProposalContent) -> str:
    """Return the type to give a new entity created from an unknown name, from the role it plays."""
    if isinstance(content, RelationshipContent):
        rel = ontology.relation_types[ontology.relation_type(content.relation)]
        allowed = rel.from_types if role == "subject" else rel.to_types
        return allowed[0]
    if role == "location":
        return "Location"
    if role == "era":
        return "Era"
    if isinstance(content, StateChangeContent):
        applies = ontology.states.tags[ontology.state_tag(content.state)].applies_to
        return applies[0]
    return "Person" if role in {"participant", "subject"} else "Concept"


class StateHistory:
    """The standing states of entities as a commit writes new ones: which state each new one follows.

    A state change depends on the state it follows, and an event's participation on the state the participant
    was in, so that retconning that state lists them for review. Known states are loaded per entity once
    (`load` takes many at a time); states written by the same commit are added as they are written.
    """

    def __init__(self, reader: CanonReader) -> None:
        self.reader = reader
        self._states: dict[int, list[tuple[tuple[int, int, int], int, int]]] = {}

    @classmethod
    async def of(cls, reader: CanonReader, proposals: Sequence[Proposal]) -> StateHistory:
        """Return the history of the existing entities whose states these proposals change or rely on."""
        history = cls(reader)
        await history.load(
            [
                ref.entity_id
                for p in proposals
                if isinstance(p.content, StateChangeContent | EventContent)
                for role, ref in references(p.content)
                if role in {"subject", "participant"} and ref.entity_id is not None
            ]
        )
        return history

    async def load(self, entity_ids: Sequence[int]) -> None:
        """Read the standing states of entities not read yet, in one query."""
        missing = [e for e in dict.fromkeys(entity_ids) if e not in self._states]
        if not missing:
            return
        for entity_id in missing:
            self._states[entity_id] = []
        for state in await self.reader.statements(
            subject_ids=missing, predicates=["state"], with_evidence=False
        ):
            if state.kind == StatementKind.STATE and state.provenance.level == CanonLevel.CANON:
                self.add(state.subject_id, statement_sort_key(state), state.id)

    def created(self, entity_id: int) -> None:
        """Record that an entity was just created: it has no states to read."""
        self._states.setdefault(entity_id, [])

    def add(self, entity_id: int, key: tuple[int, int, int], statement_id: int) -> None:
        """Record a state of an entity (a new one: its placeholder id from a deferred writer will do)."""
        entries = self._states.setdefault(entity_id, [])
        entries.append((key, len(entries), statement_id))

    async def before(self, entity_id: int, key: tuple[int, int, int]) -> int | None:
        """Return the id of the entity's latest state at or before a point in story order, if any."""
        await self.load([entity_id])
        earlier = [entry for entry in self._states[entity_id] if entry[0] <= key]
        return max(earlier)[2] if earlier else None


class CanonizationGate:
    """Drafts, decisions and commits; every method works inside the caller's transaction."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology

    # -- validation -----------------------------------------------------------------------------------

    def normalise(self, content: ProposalContent) -> ProposalContent:
        """Return content with ontology names canonical and dates checked, or raise `InvalidInput`."""
        o = self.ontology
        match content:
            case EntityContent():
                return content.model_copy(update={"entity_type": o.entity_type(content.entity_type)})
            case FactContent():
                attribute = "_".join(content.attribute.strip().lower().split())
                return content.model_copy(
                    update={"attribute": attribute, "when": check_date(content.when, "when")}
                )
            case RelationshipContent():
                return content.model_copy(
                    update={
                        "relation": o.relation_type(content.relation),
                        "since": check_date(content.since, "since"),
                        "until": check_date(content.until, "until"),
                    }
                )
            case StateChangeContent():
                via = content.via.strip().lower() if content.via else None
                if via is not None and via not in o.states.via:
                    raise InvalidInput(
                        f"“{content.via}” is not a kind of event that changes states. "
                        f"Allowed: {', '.join(sorted(o.states.via))}."
                    )
                return content.model_copy(
                    update={
                        "state": o.state_tag(content.state),
                        "via": via,
                        "when": check_date(content.when, "when"),
                    }
                )
            case EventContent():
                return content.model_copy(update={"when": check_date(content.when, "when")})
        raise AssertionError(content)  # pragma: no cover

    async def resolve(
        self, reader: CanonReader, content: ProposalContent, pending: dict[str, int]
    ) -> tuple[ProposalContent, list[tuple[str, Ref, str]]]:
        """Resolve every entity reference; return the content and the names that need an entity proposal.

        `pending` maps folded names to entity proposals already waiting in the same scene or batch.
        """
        missing: list[tuple[str, Ref, str]] = []

        async def settle(role: str, ref: Ref) -> Ref:
            if ref.entity_id is not None or ref.proposal_id is not None:
                return ref
            found = await reader.find_exact(ref.name)
            if len(found) == 1:
                return ref.model_copy(update={"entity_id": found[0].id, "name": found[0].name})
            if len(found) > 1:
                listed = ", ".join(f"{e.name} ({e.type} #{e.id})" for e in found[:5])
                raise InvalidInput(
                    f"“{ref.name}” could mean several entities: {listed}. Use the id, like #{found[0].id}."
                )
            if ref.name.startswith("#") and ref.name[1:].isdigit():
                entity = await reader.entity(int(ref.name[1:]))
                return ref.model_copy(update={"entity_id": entity.id, "name": entity.name})
            key = " ".join(ref.name.casefold().split())
            if key in pending:
                return ref.model_copy(update={"proposal_id": pending[key]})
            fuzzy = await reader.fuzzy(ref.name, limit=1, whole=True)
            if fuzzy and fuzzy[0][1] >= 90:
                return ref.model_copy(update={"entity_id": fuzzy[0][0].id, "name": fuzzy[0][0].name})
            missing.append((role, ref, default_entity_type(role, self.ontology, content)))
            return ref

        match content:
            case FactContent() | StateChangeContent():
                content = content.model_copy(update={"subject": await settle("subject", content.subject)})
            case RelationshipContent():
                content = content.model_copy(
                    update={
                        "subject": await settle("subject", content.subject),
                        "object": await settle("object", content.object),
                    }
                )
            case EventContent():
                content = content.model_copy(
                    update={
                        "participants": tuple([await settle("participant", p) for p in content.participants]),
                        "location": await settle("location", content.location) if content.location else None,
                        "era": await settle("era", content.era) if content.era else None,
                    }
                )
        return content, missing

    async def check_types(self, reader: CanonReader, content: ProposalContent) -> None:
        """Raise `InvalidInput` when resolved entities do not fit a relation's or state's rules."""
        if (
            isinstance(content, RelationshipContent)
            and content.subject.entity_id
            and content.object.entity_id
        ):
            ents = await reader.entities([content.subject.entity_id, content.object.entity_id])
            subject, obj = ents.get(content.subject.entity_id), ents.get(content.object.entity_id)
            if subject and obj:
                self.ontology.check_endpoints(content.relation, subject.type, obj.type)
        if isinstance(content, StateChangeContent) and content.subject.entity_id:
            ent = (await reader.entities([content.subject.entity_id])).get(content.subject.entity_id)
            if ent:
                self.ontology.check_state_applies(content.state, ent.type)

    async def check_citations(self, reader: CanonReader, content: ProposalContent) -> None:
        """Raise `NotFound` for a cited fact the proposer cannot see, `Conflict` for a retconned one."""
        cited = citations(content)
        if not cited:
            return
        found = {
            v.statement.id: v.statement
            for v in await reader.views(
                await reader.statements(statement_ids=cited, include_retconned=True, with_evidence=False)
            )
        }
        for statement_id in cited:
            statement = found.get(statement_id)
            if statement is None:
                raise NotFound(f"There is no fact #{statement_id} in this campaign's canon to rely on.")
            if statement.provenance.level == CanonLevel.RETCONNED:
                current = statement.provenance.replaced_by
                named = f" The current fact is #{current}." if current else " Nothing replaced it."
                raise Conflict(f"Fact #{statement_id} was retconned, so nothing can rely on it.{named}")

    # -- drafting -------------------------------------------------------------------------------------

    async def propose(
        self,
        session: AsyncSession,
        reader: CanonReader,
        draft: Draft,
        *,
        scene_id: int | None,
        batch: str | None = None,
        warnings_for: Any = None,
    ) -> list[Proposal]:
        """Store a proposal (and an entity proposal for each unknown name); merge a duplicate into the original.

        Returns the stored proposals, the requested one last. `warnings_for(session, proposal_row)` computes
        the continuity warnings to show on the review card.
        """
        content = self.normalise(draft.content)
        pending = await self._pending_entity_names(session, reader.campaign_id, scene_id, batch)
        content, missing = await self.resolve(reader, content, pending)
        await self.check_types(reader, content)
        await self.check_citations(reader, content)
        created: list[ProposalRow] = []
        for role, ref, entity_type in missing:
            entity_draft = Draft(
                content=EntityContent(name=ref.name, entity_type=entity_type),
                authority=draft.authority,
                evidence=draft.evidence,
                confidence=draft.confidence,
                origin=draft.origin,
                proposer_id=draft.proposer_id,
                proposer_name=draft.proposer_name,
                rationale=f"Named as the {role} of another proposal, and unknown to canon.",
            )
            row = await self._store(
                session, reader.campaign_id, entity_draft, entity_draft.content, scene_id, batch
            )
            created.append(row)
            content = _point_at(content, ref, row.id)
        existing = await self._duplicate(session, reader.campaign_id, scene_id, batch, content)
        if existing is not None:
            log.info("merged a duplicate proposal into #%s", existing.id)
            merged = list(existing.evidence or []) + [e.model_dump(mode="json") for e in draft.evidence]
            existing.evidence = [dict(t) for t in {tuple(sorted(e.items())) for e in map(_freeze, merged)}]
            created.append(existing)
        else:
            created.append(await self._store(session, reader.campaign_id, draft, content, scene_id, batch))
        if warnings_for is not None:
            for row in created:
                row.warnings = [f.model_dump(mode="json") for f in await warnings_for(session, row)]
        await session.flush()
        return [proposal_from_row(r) for r in created]

    async def _store(
        self,
        session: AsyncSession,
        campaign_id: int,
        draft: Draft,
        content: ProposalContent,
        scene_id: int | None,
        batch: str | None,
    ) -> ProposalRow:
        row = ProposalRow(
            campaign_id=campaign_id,
            scene_id=scene_id,
            batch=batch,
            type=content.type,
            content=content.model_dump(mode="json"),
            evidence=[e.model_dump(mode="json") for e in draft.evidence],
            authority=draft.authority.value,
            confidence=draft.confidence,
            origin=draft.origin,
            fingerprint=fingerprint(content),
            status=ProposalStatus.PENDING.value,
            rationale=draft.rationale,
            warnings=[],
            proposer_id=draft.proposer_id,
            proposer_name=draft.proposer_name,
        )
        session.add(row)
        await session.flush()
        return row

    async def _pending_entity_names(
        self, session: AsyncSession, campaign_id: int, scene_id: int | None, batch: str | None
    ) -> dict[str, int]:
        rows = await self._open_rows(session, campaign_id, scene_id, batch)
        return {
            " ".join(str(r.content["name"]).casefold().split()): r.id
            for r in rows
            if r.type == "entity" and r.status != ProposalStatus.REJECTED
        }

    async def _open_rows(
        self,
        session: AsyncSession,
        campaign_id: int,
        scene_id: int | None,
        batch: str | None,
        *,
        lock: bool = False,
    ) -> list[ProposalRow]:
        """Return the pending and accepted proposals of a scene or batch; `lock` row-locks them (commit).

        A commit locks them so that a decision racing it waits, then finds them no longer pending, instead
        of being overwritten (SQLite needs no lock: its writes are serialized).
        """
        query = select(ProposalRow).where(
            ProposalRow.campaign_id == campaign_id,
            ProposalRow.status.in_([ProposalStatus.PENDING, ProposalStatus.ACCEPTED]),
        )
        query = query.where(ProposalRow.scene_id == scene_id) if scene_id is not None else query
        query = query.where(ProposalRow.batch == batch) if batch is not None else query
        query = query.order_by(ProposalRow.id)
        return list((await session.execute(query.with_for_update() if lock else query)).scalars())

    async def _duplicate(
        self,
        session: AsyncSession,
        campaign_id: int,
        scene_id: int | None,
        batch: str | None,
        content: ProposalContent,
    ) -> ProposalRow | None:
        fp = fingerprint(content)
        for row in await self._open_rows(session, campaign_id, scene_id, batch):
            if row.fingerprint == fp:
                return row
        return None

    # -- review ---------------------------------------------------------------------------------------

    async def proposals(
        self,
        session: AsyncSession,
        campaign_id: int,
        *,
        scene_id: int | None = None,
        batch: str | None = None,
        ids: Sequence[int] | None = None,
    ) -> list[Proposal]:
        """Return the proposals of a scene or batch (or by id), oldest first."""
        query = select(ProposalRow).where(ProposalRow.campaign_id == campaign_id)
        if scene_id is not None:
            query = query.where(ProposalRow.scene_id == scene_id)
        if batch is not None:
            query = query.where(ProposalRow.batch == batch)
        if ids is not None:
            query = query.where(ProposalRow.id.in_(list(ids)))
        rows = (await session.execute(query.order_by(ProposalRow.id))).scalars()
        return [proposal_from_row(r) for r in rows]

    async def get(self, session: AsyncSession, proposal_id: int) -> Proposal:
        """Return one proposal or raise `NotFound`."""
        row = await session.get(ProposalRow, proposal_id)
        if row is None:
            raise NotFound(f"There is no proposal #{proposal_id}.")
        return proposal_from_row(row)

    async def decide(
        self,
        session: AsyncSession,
        proposal_id: int,
        *,
        accept: bool,
        decider_id: int | None,
        decider_name: str,
        rationale: str | None = None,
    ) -> Proposal:
        """Accept or reject a pending proposal exactly once; a warned proposal needs a rationale to accept."""
        row = await session.get(ProposalRow, proposal_id)
        if row is None:
            raise NotFound(f"There is no proposal #{proposal_id}.")
        if row.status != ProposalStatus.PENDING:
            who = f" by {row.decided_by_name}" if row.decided_by_name else ""
            raise Conflict(f"Proposal #{proposal_id} was already {row.status}{who}.")
        if accept and row.warnings and not (rationale and rationale.strip()):
            raise InvalidInput(
                f"Proposal #{proposal_id} raises continuity warnings. To accept it anyway, give a rationale."
            )
        status = ProposalStatus.ACCEPTED if accept else ProposalStatus.REJECTED
        values: dict[str, Any] = {
            "status": status.value,
            "decided_by_id": decider_id,
            "decided_by_name": decider_name,
            "decided_at": utc_now(),
        }
        if accept and row.warnings:
            values["override_rationale"] = rationale
        elif rationale:
            values["rationale"] = rationale
        result = await session.execute(
            update(ProposalRow)
            .where(ProposalRow.id == proposal_id, ProposalRow.status == ProposalStatus.PENDING)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        if getattr(result, "rowcount", 1) != 1:
            raise Conflict(f"Proposal #{proposal_id} was decided by someone else a moment ago.")
        await session.refresh(row)
        return proposal_from_row(row)

    async def accept_all(
        self,
        session: AsyncSession,
        campaign_id: int,
        *,
        scene_id: int | None,
        batch: str | None,
        decider_id: int | None,
        decider_name: str,
    ) -> list[Proposal]:
        """Accept every pending proposal without continuity warnings; warned ones stay for a decision."""
        query = (
            update(ProposalRow)
            .where(
                ProposalRow.campaign_id == campaign_id,
                ProposalRow.status == ProposalStatus.PENDING,
                ProposalRow.scene_id == scene_id if scene_id is not None else ProposalRow.batch == batch,
            )
            .values(
                status=ProposalStatus.ACCEPTED.value,
                decided_by_id=decider_id,
                decided_by_name=decider_name,
                decided_at=utc_now(),
            )
            .returning(ProposalRow.id, ProposalRow.warnings)
            .execution_options(synchronize_session=False)
        )
        accepted = (await session.execute(query)).all()
        warned = [pid for pid, warnings in accepted if warnings]
        if warned:  # put warned proposals back: they need a decision with a rationale
            await session.execute(
                update(ProposalRow)
                .where(ProposalRow.id.in_(warned))
                .values(
                    status=ProposalStatus.PENDING.value,
                    decided_by_id=None,
                    decided_by_name=None,
                    decided_at=None,
                )
                .execution_options(synchronize_session=False)
            )
        return await self.proposals(session, campaign_id, ids=[pid for pid, w in accepted if not w])

    # -- commit ---------------------------------------------------------------------------------------

    async def commit(
        self,
        session: AsyncSession,
        *,
        campaign_id: int,
        scene_id: int | None,
        batch: str | None = None,
        story_order: int | None,
        actor_id: int | None,
        actor_name: str,
        kind: ChangesetKind = ChangesetKind.SCENE_COMMIT,
        check: Any = None,
    ) -> CommitResult:
        """Write every accepted proposal (and policy-accepted pending ones) under one changeset.

        Pending proposals that the policy does not accept are rejected with a rationale. `check(session,
        reader, statement_ids)` returns the continuity findings of the new rows, recorded by the caller.
        """
        if scene_id is None and batch is None:
            raise InvalidInput("A commit needs a scene or a batch.")
        rows = await self._open_rows(session, campaign_id, scene_id, batch, lock=True)
        campaign = await get_campaign(session, campaign_id)
        policy = authority_policy(campaign.settings)
        accepted: list[ProposalRow] = []
        rejected: list[ProposalRow] = []
        for row in rows:
            # A fact promoted from a branch always waits for the GM's own accept, whatever its authority.
            auto = (
                row.status == ProposalStatus.PENDING
                and row.origin != "promotion"
                and policy.get(row.authority) == "auto"
                and row.confidence >= AUTO_ACCEPT_MIN_CONFIDENCE
                and not row.warnings
            )
            if row.status == ProposalStatus.ACCEPTED or auto:
                accepted.append(row)
            else:
                rejected.append(row)
        accepted = _with_entity_dependencies(accepted, rejected)
        changeset = await open_changeset(
            session, campaign_id, kind, actor_id=actor_id, actor_name=actor_name, scene_id=scene_id
        )
        reader = await CanonReader.open(session, campaign_id, self.ontology, viewer=Viewer.GM)
        writer = CanonWriter(session, changeset, self.ontology, deferred=True)
        entity_ids: dict[int, int] = {}
        proposals = [proposal_from_row(r) for r in sorted(accepted, key=lambda r: (r.type != "entity", r.id))]
        named = {
            ref.entity_id for p in proposals for _, ref in references(p.content) if ref.entity_id is not None
        }
        types = {e.id: e.type for e in (await reader.entities(named)).values()}
        history = await StateHistory.of(reader, proposals)
        # Entities first, in bulk: other proposals may point at them.
        await self.create_entities(
            writer, proposals, entity_ids, story_order=story_order, types=types, history=history
        )
        placeholders: dict[int, list[int]] = {p.id: [] for p in proposals if p.type == "entity"}
        for proposal in proposals:
            if proposal.type != "entity":
                placeholders[proposal.id] = await self.apply(
                    writer,
                    reader,
                    proposal,
                    entity_ids,
                    story_order=story_order,
                    types=types,
                    history=history,
                )
        written = await writer.flush()
        written_by = {pid: [written.get(p, p) for p in ids] for pid, ids in placeholders.items()}
        statement_ids = [i for ids in written_by.values() for i in ids]
        now = utc_now()
        for row in accepted:
            row.status = ProposalStatus.COMMITTED.value
            row.committed_changeset_id = changeset.id
            if row.decided_at is None:
                row.decided_by_name = "authority policy"
                row.decided_at = now
        for row in rejected:
            if row.status == ProposalStatus.PENDING:
                row.status = ProposalStatus.REJECTED.value
                row.rationale = row.rationale or UNDECIDED_AT_COMMIT
                row.decided_at = now
        await session.flush()
        findings = await check(session, reader, statement_ids) if check is not None else []
        return CommitResult(
            changeset_id=changeset.id,
            accepted=[proposal_from_row(r) for r in accepted],
            rejected=[proposal_from_row(r) for r in rejected],
            entity_ids=entity_ids,
            statement_ids=statement_ids,
            findings=findings,
            written_by=written_by,
        )

    async def simulate(
        self,
        session: AsyncSession,
        reader: CanonReader,
        proposals: Sequence[Proposal],
        *,
        story_order: int | None,
        check: Any,
    ) -> dict[int, list[Finding]]:
        """Return the findings each proposal would raise with all of them written together, writing nothing.

        The proposals are written as a commit would write them, in a savepoint that is rolled back;
        `check(reader, statement_ids)` returns the findings around the new statements. A finding goes to
        every proposal whose statements it involves. A proposal that cannot be written (its entity was
        rejected, a relation's ends do not fit) is left out and raises nothing.
        """
        nested = await session.begin_nested()
        try:
            changeset = await open_changeset(session, reader.campaign_id, ChangesetKind.SCENE_COMMIT)
            writer = CanonWriter(session, changeset, self.ontology, deferred=True)
            entity_ids: dict[int, int] = {}
            history = await StateHistory.of(reader, proposals)
            placeholders: dict[int, list[int]] = {}
            for proposal in sorted(proposals, key=lambda p: (p.type != "entity", p.id)):
                try:
                    placeholders[proposal.id] = await self.apply(
                        writer, reader, proposal, entity_ids, story_order=story_order, history=history
                    )
                except (InvalidInput, Conflict, NotFound) as error:
                    log.info("proposal #%s cannot be simulated: %s", proposal.id, error)
            written = await writer.flush()
            owner = {written.get(p, p): pid for pid, ids in placeholders.items() for p in ids}
            found: dict[int, list[Finding]] = {pid: [] for pid in placeholders}
            for finding in await check(reader, list(owner)) if owner else []:
                for pid in dict.fromkeys(owner[i] for i in finding.statement_ids if i in owner):
                    found[pid].append(finding)
            return found
        finally:
            await nested.rollback()

    async def set_warnings(self, session: AsyncSession, warnings: dict[int, list[Finding]]) -> None:
        """Replace the continuity warnings of pending proposals (decided ones keep what they were decided on)."""
        table = cast(Table, ProposalRow.__table__)
        rows = [
            {"target": pid, "new_warnings": [f.model_dump(mode="json") for f in found]}
            for pid, found in warnings.items()
        ]
        if rows:
            await session.execute(
                update(table)
                .where(table.c.id == bindparam("target"), table.c.status == ProposalStatus.PENDING.value)
                .values(warnings=bindparam("new_warnings")),
                rows,
            )

    async def create_entities(
        self,
        writer: CanonWriter,
        proposals: Sequence[Proposal],
        entity_ids: dict[int, int],
        *,
        story_order: int | None,
        types: dict[int, str],
        history: StateHistory,
    ) -> None:
        """Write accepted entity proposals in bulk; learn their ids (`entity_ids`), types and empty histories."""
        new: list[tuple[Proposal, EntityContent]] = [
            (p, p.content) for p in proposals if isinstance(p.content, EntityContent)
        ]
        created = await writer.create_entities(
            [
                NewEntity(
                    type=content.entity_type,
                    name=content.name,
                    visibility=content.visibility,
                    description=content.description,
                    aliases=content.aliases,
                    validity=Validity(story_from=story_order),
                    authority=proposal.authority,
                    confidence=proposal.confidence,
                    evidence=tuple(_evidence(proposal)),
                )
                for proposal, content in new
            ]
        )
        for (proposal, content), entity_id in zip(new, created, strict=True):
            entity_ids[proposal.id] = entity_id
            types[entity_id] = content.entity_type
            history.created(entity_id)

    async def apply(
        self,
        writer: CanonWriter,
        reader: CanonReader,
        proposal: Proposal,
        entity_ids: dict[int, int],
        *,
        story_order: int | None,
        types: dict[int, str] | None = None,
        history: StateHistory | None = None,
    ) -> list[int]:
        """Write one accepted proposal into the graph; return the ids of the statements written.

        `types` caches entity types for the relation endpoint check (and learns the entities created here);
        `history` the states already known, which new states and participations depend on. Each statement
        written depends on the facts the proposal cites.
        """
        types = {} if types is None else types
        history = StateHistory(reader) if history is None else history
        cited = [("statement", i) for i in citations(proposal.content)]
        evidence = _evidence(proposal)
        authority, confidence = proposal.authority, proposal.confidence
        content = proposal.content

        def ref_id(ref: Ref) -> int:
            if ref.entity_id is not None:
                return ref.entity_id
            if ref.proposal_id is not None and ref.proposal_id in entity_ids:
                return entity_ids[ref.proposal_id]
            raise Conflict(
                f"Proposal #{proposal.id} names “{ref.name}”, whose entity proposal was not accepted."
            )

        def when(text: str | None, *, story: bool = True) -> Validity:
            date = parse_date(text) if text else None
            return Validity(
                world_from=str(date) if date else None,
                world_from_key=world_key(date) if date else None,
                story_from=story_order if story else None,
            )

        written: list[int] = []
        match content:
            case EntityContent():
                await self.create_entities(
                    writer, [proposal], entity_ids, story_order=story_order, types=types, history=history
                )
            case FactContent():
                written.append(
                    await writer.add_statement(
                        kind=StatementKind.ATTRIBUTE,
                        subject_id=ref_id(content.subject),
                        predicate=content.attribute,
                        value=content.value,
                        validity=when(content.when),
                        authority=authority,
                        confidence=confidence,
                        visibility=content.visibility,
                        evidence=evidence,
                        depends_on=cited,
                    )
                )
            case RelationshipContent():
                subject, obj = ref_id(content.subject), ref_id(content.object)
                missing = [e for e in (subject, obj) if e not in types]
                if missing:
                    types.update({e.id: e.type for e in (await reader.entities(missing)).values()})
                if subject in types and obj in types:
                    self.ontology.check_endpoints(content.relation, types[subject], types[obj])
                since = parse_date(content.since) if content.since else None
                until = parse_date(content.until) if content.until else None
                written.append(
                    await writer.add_statement(
                        kind=StatementKind.RELATION,
                        subject_id=subject,
                        predicate=content.relation,
                        object_id=obj,
                        validity=Validity(
                            world_from=str(since) if since else None,
                            world_from_key=world_key(since) if since else None,
                            world_until=str(until) if until else None,
                            world_until_key=world_key(until) if until else None,
                            story_from=story_order,
                        ),
                        authority=authority,
                        confidence=confidence,
                        visibility=content.visibility,
                        evidence=evidence,
                        depends_on=cited,
                    )
                )
            case StateChangeContent():
                subject, validity = ref_id(content.subject), when(content.when)
                key = validity_sort_key(validity, writer.changeset.id)
                previous = await history.before(subject, key)
                state_id = await writer.add_statement(
                    kind=StatementKind.STATE,
                    subject_id=subject,
                    predicate="state",
                    value=content.state,
                    via=content.via,
                    validity=validity,
                    authority=authority,
                    confidence=confidence,
                    visibility=content.visibility,
                    evidence=evidence,
                    depends_on=[*cited, *([("statement", previous)] if previous is not None else [])],
                )
                history.add(subject, key, state_id)
                written.append(state_id)
            case EventContent():
                validity = when(content.when)
                event_id = await writer.create_entity(
                    type="Event",
                    name=content.name,
                    visibility=content.visibility,
                    description=content.description,
                    validity=validity,
                    authority=authority,
                    confidence=confidence,
                    evidence=evidence,
                )
                entity_ids[proposal.id] = event_id
                history.created(event_id)
                # A participant takes part in the state they are in then (alive, or a ghost accepted anyway).
                key = validity_sort_key(validity, writer.changeset.id)
                links: list[tuple[int, str, int, int | None]] = []
                for participant in content.participants:
                    who = ref_id(participant)
                    links.append((who, "PARTICIPATED_IN", event_id, await history.before(who, key)))
                if content.location is not None:
                    links.append((event_id, "OCCURRED_AT", ref_id(content.location), None))
                if content.era is not None:
                    links.append((event_id, "OCCURRED_DURING", ref_id(content.era), None))
                for subject, predicate, obj, state in links:
                    written.append(
                        await writer.add_statement(
                            kind=StatementKind.RELATION,
                            subject_id=subject,
                            predicate=predicate,
                            object_id=obj,
                            validity=validity,
                            authority=authority,
                            confidence=confidence,
                            visibility=content.visibility,
                            evidence=evidence,
                            depends_on=[
                                ("entity", event_id),
                                *cited,
                                *([("statement", state)] if state is not None else []),
                            ],
                        )
                    )
        return written

    async def reject_batch(
        self, session: AsyncSession, campaign_id: int, batch: str, decider_name: str
    ) -> int:
        """Reject every undecided proposal of a batch (a discarded import); return how many."""
        result = await session.execute(
            update(ProposalRow)
            .where(
                ProposalRow.campaign_id == campaign_id,
                ProposalRow.batch == batch,
                ProposalRow.status == ProposalStatus.PENDING,
            )
            .values(status=ProposalStatus.REJECTED.value, decided_by_name=decider_name, decided_at=utc_now())
        )
        return int(getattr(result, "rowcount", 0) or 0)


def _point_at(content: ProposalContent, ref: Ref, proposal_id: int) -> ProposalContent:
    def swap(candidate: Ref | None) -> Ref | None:
        if candidate is not None and candidate is ref:
            return candidate.model_copy(update={"proposal_id": proposal_id})
        return candidate

    match content:
        case FactContent() | StateChangeContent():
            return content.model_copy(update={"subject": swap(content.subject)})
        case RelationshipContent():
            return content.model_copy(
                update={"subject": swap(content.subject), "object": swap(content.object)}
            )
        case EventContent():
            return content.model_copy(
                update={
                    "participants": tuple(swap(p) or p for p in content.participants),
                    "location": swap(content.location),
                    "era": swap(content.era),
                }
            )
    return content


def _freeze(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if v is not None}


def _with_entity_dependencies(accepted: list[ProposalRow], rejected: list[ProposalRow]) -> list[ProposalRow]:
    """Drop accepted proposals whose unknown entity's proposal was rejected (they cannot be written)."""
    rejected_entities = {r.id for r in rejected if r.type == "entity"}
    if not rejected_entities:
        return accepted
    kept: list[ProposalRow] = []
    for row in accepted:
        content = parse_content(row.content)
        if any(ref.proposal_id in rejected_entities for _, ref in references(content)):
            log.info("proposal #%s dropped: it names an entity whose proposal was rejected", row.id)
            rejected.append(row)
            row.status = ProposalStatus.REJECTED.value
            row.rationale = "It names an entity whose own proposal was rejected."
        else:
            kept.append(row)
    return kept


def _evidence(proposal: Proposal) -> list[Evidence]:
    """Return what a committed proposal's rows rest on: the proposal's evidence and the decision."""
    return [
        *proposal.evidence,
        Evidence(kind=EvidenceKind.COMMAND, proposal_id=proposal.id, note=_decision_note(proposal)),
    ]


def _decision_note(proposal: Proposal) -> str:
    who = proposal.decided_by_name or "the authority policy"
    note = f"Proposal #{proposal.id} by {proposal.proposer_name or proposal.origin}, accepted by {who}"
    if proposal.override_rationale:
        note += f" despite warnings: {proposal.override_rationale}"
    return note
