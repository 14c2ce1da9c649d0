"""Writing accepted proposals into the graph under one changeset: entities first, then the statements that
name them, each with its evidence and the decision that admitted it."""

from __future__ import annotations

from collections.abc import Sequence

from canon.calendar import parse_date
from canon.continuity import world_key
from canon.errors import Conflict
from canon.graph import CanonReader, CanonWriter, NewEntity, statement_sort_key, validity_sort_key
from canon.models import CanonLevel, Evidence, EvidenceKind, StatementKind, Validity
from canon.ontology import Ontology
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    Proposal,
    Ref,
    RelationshipContent,
    StateChangeContent,
    citations,
    references,
)


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


class ProposalWriter:
    """Writes accepted proposals with one `CanonWriter` (deferred: statements get placeholder ids until flush).

    It learns as it writes: the ids of the entities created (by the proposal that created them, for the
    proposals that name them), their types (for the relation endpoint check), and the states written (which
    new states and participations depend on). Each statement written depends on the facts its proposal cites.
    """

    def __init__(
        self,
        ontology: Ontology,
        writer: CanonWriter,
        reader: CanonReader,
        *,
        story_order: int | None,
        types: dict[int, str] | None = None,
        history: StateHistory | None = None,
    ) -> None:
        self.ontology = ontology
        self.writer = writer
        self.reader = reader
        self.story_order = story_order
        self.types = {} if types is None else types
        self.history = StateHistory(reader) if history is None else history
        #: The entity each entity (or event) proposal created, by proposal id.
        self.entity_ids: dict[int, int] = {}

    async def create_entities(self, proposals: Sequence[Proposal]) -> None:
        """Write accepted entity proposals in bulk; learn their ids, types and empty histories."""
        new: list[tuple[Proposal, EntityContent]] = [
            (p, p.content) for p in proposals if isinstance(p.content, EntityContent)
        ]
        created = await self.writer.create_entities(
            [
                NewEntity(
                    type=content.entity_type,
                    name=content.name,
                    visibility=content.visibility,
                    description=content.description,
                    aliases=content.aliases,
                    validity=Validity(story_from=self.story_order),
                    authority=proposal.authority,
                    confidence=proposal.confidence,
                    evidence=tuple(evidence_of(proposal)),
                )
                for proposal, content in new
            ]
        )
        for (proposal, content), entity_id in zip(new, created, strict=True):
            self.entity_ids[proposal.id] = entity_id
            self.types[entity_id] = content.entity_type
            self.history.created(entity_id)

    async def apply(self, proposal: Proposal) -> list[int]:
        """Write one accepted proposal into the graph; return the ids of the statements written."""
        match proposal.content:
            case EntityContent():
                await self.create_entities([proposal])
                return []
            case FactContent() as content:
                return [await self._fact(proposal, content)]
            case RelationshipContent() as content:
                return [await self._relation(proposal, content)]
            case StateChangeContent() as content:
                return [await self._state(proposal, content)]
            case EventContent() as content:
                return await self._event(proposal, content)
        return []  # pragma: no cover - every kind of content is matched above

    def _entity(self, proposal: Proposal, ref: Ref) -> int:
        """Return the entity a reference names: resolved already, or created by an accepted entity proposal."""
        if ref.entity_id is not None:
            return ref.entity_id
        if ref.proposal_id is not None and ref.proposal_id in self.entity_ids:
            return self.entity_ids[ref.proposal_id]
        raise Conflict(
            f"A proposal names “{ref.name}”, whose entity proposal was not accepted: accept that one too, or reject this one."
        )

    def _when(self, text: str | None) -> Validity:
        """Return the validity of a statement dated `text` (or undated), from the scene being committed."""
        date = parse_date(text) if text else None
        return Validity(
            world_from=str(date) if date else None,
            world_from_key=world_key(date) if date else None,
            story_from=self.story_order,
        )

    async def _fact(self, proposal: Proposal, content: FactContent) -> int:
        return await self.writer.add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=self._entity(proposal, content.subject),
            predicate=content.attribute,
            value=content.value,
            validity=self._when(content.when),
            authority=proposal.authority,
            confidence=proposal.confidence,
            visibility=content.visibility,
            evidence=evidence_of(proposal),
            depends_on=_cited(proposal),
        )

    async def _relation(self, proposal: Proposal, content: RelationshipContent) -> int:
        subject, obj = self._entity(proposal, content.subject), self._entity(proposal, content.object)
        types = self.types
        missing = [e for e in (subject, obj) if e not in types]
        if missing:
            types.update({e.id: e.type for e in (await self.reader.entities(missing)).values()})
        if subject in types and obj in types:
            self.ontology.check_endpoints(content.relation, types[subject], types[obj])
        since = parse_date(content.since) if content.since else None
        until = parse_date(content.until) if content.until else None
        return await self.writer.add_statement(
            kind=StatementKind.RELATION,
            subject_id=subject,
            predicate=content.relation,
            object_id=obj,
            validity=Validity(
                world_from=str(since) if since else None,
                world_from_key=world_key(since) if since else None,
                world_until=str(until) if until else None,
                world_until_key=world_key(until) if until else None,
                story_from=self.story_order,
            ),
            authority=proposal.authority,
            confidence=proposal.confidence,
            visibility=content.visibility,
            evidence=evidence_of(proposal),
            depends_on=_cited(proposal),
        )

    async def _state(self, proposal: Proposal, content: StateChangeContent) -> int:
        subject, validity = self._entity(proposal, content.subject), self._when(content.when)
        key = validity_sort_key(validity, self.writer.changeset.id)
        previous = await self.history.before(subject, key)
        state_id = await self.writer.add_statement(
            kind=StatementKind.STATE,
            subject_id=subject,
            predicate="state",
            value=content.state,
            via=content.via,
            validity=validity,
            authority=proposal.authority,
            confidence=proposal.confidence,
            visibility=content.visibility,
            evidence=evidence_of(proposal),
            depends_on=[*_cited(proposal), *([("statement", previous)] if previous is not None else [])],
        )
        self.history.add(subject, key, state_id)
        return state_id

    async def _event(self, proposal: Proposal, content: EventContent) -> list[int]:
        validity, evidence = self._when(content.when), evidence_of(proposal)
        event_id = await self.writer.create_entity(
            type="Event",
            name=content.name,
            visibility=content.visibility,
            description=content.description,
            validity=validity,
            authority=proposal.authority,
            confidence=proposal.confidence,
            evidence=evidence,
        )
        self.entity_ids[proposal.id] = event_id
        self.history.created(event_id)
        # A participant takes part in the state they are in then (alive, or a ghost accepted anyway).
        key = validity_sort_key(validity, self.writer.changeset.id)
        links: list[tuple[int, str, int, int | None]] = []
        for participant in content.participants:
            who = self._entity(proposal, participant)
            links.append((who, "PARTICIPATED_IN", event_id, await self.history.before(who, key)))
        if content.location is not None:
            links.append((event_id, "OCCURRED_AT", self._entity(proposal, content.location), None))
        if content.era is not None:
            links.append((event_id, "OCCURRED_DURING", self._entity(proposal, content.era), None))
        written: list[int] = []
        for subject, predicate, obj, state in links:
            written.append(
                await self.writer.add_statement(
                    kind=StatementKind.RELATION,
                    subject_id=subject,
                    predicate=predicate,
                    object_id=obj,
                    validity=validity,
                    authority=proposal.authority,
                    confidence=proposal.confidence,
                    visibility=content.visibility,
                    evidence=evidence,
                    depends_on=[
                        ("entity", event_id),
                        *_cited(proposal),
                        *([("statement", state)] if state is not None else []),
                    ],
                )
            )
        return written


def _cited(proposal: Proposal) -> list[tuple[str, int]]:
    """Return the facts a proposal cites, as dependencies of what it writes."""
    return [("statement", i) for i in citations(proposal.content)]


def evidence_of(proposal: Proposal) -> list[Evidence]:
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
