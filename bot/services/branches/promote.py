"""Promotion: a branch fact proposed to its parent through the parent's own review.

Nothing moves until the parent's GM accepts it: the fact (and any entity of the branch it names that the
parent lacks) becomes proposals in a batch of the parent, and `commit_promotion` writes what was accepted.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.branches import repository as repo
from bot.services.branches.common import BranchDeps
from bot.services.branches.models import PROMOTION_BATCH, Promotion
from canon import campaigns
from canon.campaigns import Campaign, CampaignStatus, ChangesetKind
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate import CommitResult, CommitTarget, Draft
from canon.graph import CanonReader
from canon.models import Evidence, EvidenceKind, Statement, StatementKind, StatementView, Viewer
from canon.proposals import (
    EntityContent,
    FactContent,
    ProposalContent,
    ProposalStatus,
    Ref,
    RelationshipContent,
    StateChangeContent,
)
from memory.scenes import Actor


async def _campaigns(session: AsyncSession, branch: Campaign) -> tuple[Campaign, Campaign]:
    """Return the branch and its parent as they stand, refusing what cannot promote or be promoted to."""
    current = await campaigns.get_campaign(session, branch.id)
    if current.parent_id is None:
        raise InvalidInput(f"“{current.name}” is not a branch; there is nothing to promote it to.")
    if current.status != CampaignStatus.ACTIVE:
        raise Conflict(f"“{current.name}” was abandoned; nothing of it reaches another campaign.")
    parent = await campaigns.get_campaign(session, current.parent_id)
    if parent.status != CampaignStatus.ACTIVE:
        raise Conflict(f"“{parent.name}” was abandoned; promote to a campaign still in play.")
    return current, parent


async def _own_fact(
    reader: CanonReader, branch: Campaign, statement_id: int
) -> tuple[Statement, StatementView]:
    """Return one of the branch's own standing facts and its view."""
    found = await reader.statements(statement_ids=[statement_id])
    if not found:
        raise NotFound(f"There is no standing fact #{statement_id} in “{branch.name}”.")
    statement = found[0]
    if statement.provenance.campaign_id != branch.id:
        raise Conflict(
            f"Fact #{statement_id} is inherited, not written in “{branch.name}”: its parent has it already."
        )
    views = await reader.views([statement])
    if not views:
        raise NotFound(f"Fact #{statement_id} names an entity that no longer stands.")
    return statement, views[0]


async def _refs(
    reader: CanonReader, upstream: CanonReader, statement: Statement
) -> tuple[dict[int, Ref], list[ProposalContent]]:
    """Return how the parent names the fact's entities, and the entities it must be proposed first."""
    ids = [statement.subject_id] + ([statement.object_id] if statement.object_id else [])
    known = await upstream.entities(ids)
    own_entities = await reader.entities([i for i in ids if i not in known])
    entities: list[ProposalContent] = []
    refs: dict[int, Ref] = {}
    for entity_id in ids:
        if entity_id in known:
            refs[entity_id] = Ref(name=known[entity_id].name, entity_id=entity_id)
            continue
        entity = own_entities[entity_id]
        refs[entity_id] = Ref(name=entity.name)
        if not await upstream.find_exact(entity.name):  # a same-named entity up there is used instead
            entities.append(
                EntityContent(
                    name=entity.name,
                    entity_type=entity.type,
                    description=entity.description,
                    aliases=entity.aliases,
                    visibility=entity.visibility,
                )
            )
    return refs, entities


def _drafts(
    branch: Campaign, statement: Statement, contents: list[ProposalContent], actor: Actor
) -> list[Draft]:
    evidence = Evidence(
        kind=EvidenceKind.BRANCH,
        note=(
            f"branch “{branch.name}” (campaign #{branch.id}), fact #{statement.id}, changeset "
            f"#{statement.provenance.changeset_id}"
        ),
    )
    return [
        Draft(
            content=item,
            authority=statement.provenance.authority,
            evidence=[evidence],
            confidence=statement.provenance.confidence,
            origin="promotion",
            proposer_id=actor.id,
            proposer_name=actor.name,
            rationale=f"Promoted from the branch “{branch.name}”.",
        )
        for item in contents
    ]


async def promote(deps: BranchDeps, branch: Campaign, statement_id: int, actor: Actor) -> Promotion:
    """Propose one of the branch's own facts to its parent, through the parent's normal review."""
    async with deps.db.session() as session:
        current, parent = await _campaigns(session, branch)
        reader = await deps.access.reader(session, current, Viewer.GM)
        statement, view = await _own_fact(reader, current, statement_id)
        upstream = await deps.access.reader(session, parent, Viewer.GM)
        refs, entities = await _refs(reader, upstream, statement)
    content = _content_of(view, refs)
    prefix = PROMOTION_BATCH.format(branch=current.id, statement=statement.id)
    async with deps.db.session() as session:
        earlier = await repo.promotion_attempts(session, parent.id, prefix)
    if any(status in (ProposalStatus.PENDING, ProposalStatus.ACCEPTED) for _, status in earlier):
        raise Conflict(f"Fact #{statement.id} is already waiting for review in “{parent.name}”.")
    # Each attempt is a batch of its own, so its review card shows only its proposals.
    batch = f"{prefix}:{len({b for b, _ in earlier}) + 1}"
    drafts = _drafts(current, statement, [*entities, content], actor)
    stored = await deps.proposals.submit(parent, drafts, scene_id=None, batch=batch)
    if not any(p.content.type == content.type for p in stored):
        raise InvalidInput(
            f"Fact #{statement.id} does not fit “{parent.name}”'s canon; nothing was proposed."
        )
    review = await deps.reviews.review(None, campaign_id=parent.id, batch=batch)
    return Promotion(branch=current, parent=parent, batch=batch, statement=view, proposals=review.proposals)


async def commit_promotion(deps: BranchDeps, proposal_id: int, actor: Actor) -> CommitResult:
    """Write a promotion's accepted proposals into the parent, once the GM decided every one of them."""
    proposal = await deps.reviews.proposal(proposal_id)
    batch = proposal.batch
    if proposal.origin != "promotion" or batch is None:
        raise InvalidInput(f"Proposal #{proposal_id} is not a promotion from a branch.")

    async def work(session: AsyncSession) -> CommitResult:
        parent = await campaigns.get_campaign(session, proposal.campaign_id)
        gate = deps.access.gate_for(parent)
        waiting = [
            p
            for p in await gate.proposals(session, parent.id, batch=batch)
            if p.status == ProposalStatus.PENDING
        ]
        if waiting:
            raise Conflict(
                "Accept or reject every promoted proposal before committing: "
                + ", ".join(f"#{p.id}" for p in waiting)
                + " still wait."
            )
        target = CommitTarget.of_batch(parent.id, batch, ChangesetKind.PROMOTION)
        result = await gate.commit(session, target, actor_id=actor.id, actor_name=actor.name)
        if not result.accepted and not result.rejected:
            raise Conflict("This promotion was already committed.")
        return result

    done: CommitResult = await deps.db.run(work, attempts=1)
    return done


def _content_of(view: StatementView, refs: dict[int, Ref]) -> ProposalContent:
    """Return the proposal content that would write a statement again, elsewhere."""
    s = view.statement
    v = s.validity
    subject = refs[s.subject_id]
    if s.kind == StatementKind.RELATION:
        assert s.object_id is not None
        return RelationshipContent(
            subject=subject,
            relation=s.predicate,
            object=refs[s.object_id],
            since=v.world_from,
            until=v.world_until,
            visibility=s.visibility,
        )
    if s.kind == StatementKind.STATE:
        return StateChangeContent(
            subject=subject, state=s.value or "", via=s.via, when=v.world_from, visibility=s.visibility
        )
    return FactContent(
        subject=subject,
        attribute=s.predicate,
        value=s.value or "",
        when=v.world_from,
        visibility=s.visibility,
    )
