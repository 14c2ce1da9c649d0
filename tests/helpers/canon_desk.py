"""A campaign's canon worked through the real gate and graph on a real database, one transaction a step.

`Desk` does what the services do, without them: the GM adds canon directly (a batch proposed, accepted and
committed at once), a player or the GM proposes in a scene (with the continuity warnings of its review card),
the GM decides and commits the scene. A scene here is only its number, which is also its place in the story:
proposals point at scenes by id, and the gate needs no scene row.
"""

from __future__ import annotations

import itertools

from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon.campaigns import Campaign, ChangesetKind
from canon.checks import RecordedConflict, recorded_conflicts
from canon.gate import CanonizationGate, CommitResult, CommitTarget, Draft
from canon.graph import CanonReader, CanonWriter
from canon.models import NOW, AsOf, Authority, EntityCard, Evidence, EvidenceKind, StatementView, Viewer
from canon.ontology import base_ontology
from canon.proposals import Proposal, ProposalContent
from canon.storage import Database

GM_ID, GM_NAME = 1, "Gina"
PLAYER_ID, PLAYER_NAME = 2, "Pat"


class Desk:
    """One campaign's canon through `CanonizationGate` and `CanonReader`, each step in its own transaction."""

    def __init__(self, db: Database, campaign: Campaign) -> None:
        self.db = db
        self.campaign = campaign
        self.gate = CanonizationGate(base_ontology())
        self._batches = itertools.count(1)

    @classmethod
    async def create(cls, db: Database, name: str = "Shattered Isles") -> Desk:
        """Return a desk on a new campaign."""
        return cls(db, await db.run(lambda s: campaigns.create_campaign(s, name, guild_id=10)))

    async def reader(self, session: AsyncSession, viewer: Viewer = Viewer.GM) -> CanonReader:
        """Return a reader of the campaign for a viewer."""
        return await CanonReader.open(session, self.campaign.id, self.gate.ontology, viewer=viewer)

    async def add(self, content: ProposalContent) -> CommitResult:
        """Write canon directly as the GM: proposed, accepted and committed in one transaction."""
        batch = f"direct:{next(self._batches)}"

        async def work(session: AsyncSession) -> CommitResult:
            draft = Draft(
                content=content,
                authority=Authority.GM,
                evidence=[Evidence(kind=EvidenceKind.COMMAND, note=f"/canon add by {GM_NAME}")],
                origin="gm_direct",
                proposer_id=GM_ID,
                proposer_name=GM_NAME,
            )
            reader = await self.reader(session)
            for proposal in await self.gate.propose(session, reader, draft, scene_id=None, batch=batch):
                await self.gate.decide(
                    session, proposal.id, accept=True, decider_id=GM_ID, decider_name=GM_NAME
                )
            target = CommitTarget.of_batch(self.campaign.id, batch, ChangesetKind.GM_DIRECT)
            return await self.gate.commit(session, target, actor_id=GM_ID, actor_name=GM_NAME)

        return await self.db.run(work, attempts=1)

    async def propose(
        self, content: ProposalContent, *, scene: int, gm: bool = False, turn: int = 1
    ) -> list[Proposal]:
        """Propose in a scene as the GM or a player, with the warnings a review card shows."""
        viewer = Viewer.GM if gm else Viewer.PLAYER

        async def work(session: AsyncSession) -> list[Proposal]:
            draft = Draft(
                content=content,
                authority=Authority.GM if gm else Authority.PLAYER,
                evidence=[Evidence(kind=EvidenceKind.TURNS, scene_id=scene, turn_from=turn, turn_to=turn)],
                proposer_id=GM_ID if gm else PLAYER_ID,
                proposer_name=GM_NAME if gm else PLAYER_NAME,
            )
            reader = await self.reader(session, viewer)
            return await self.gate.propose(
                session, reader, draft, scene_id=scene, story_order=scene, warn=True
            )

        return await self.db.run(work)

    async def submit(self, drafts: list[Draft], *, batch: str) -> None:
        """Store proposals made by the system in a batch, as the extraction does."""

        async def work(session: AsyncSession) -> None:
            reader = await self.reader(session)
            for draft in drafts:
                await self.gate.propose(session, reader, draft, scene_id=None, batch=batch, warn=True)

        await self.db.run(work)

    async def decide(
        self, proposal_id: int, *, accept: bool, rationale: str | None = None, name: str = GM_NAME
    ) -> Proposal:
        """Record a GM's decision on one proposal."""
        return await self.db.run(
            lambda s: self.gate.decide(
                s, proposal_id, accept=accept, decider_id=GM_ID, decider_name=name, rationale=rationale
            ),
            attempts=1,
        )

    async def revise(self, proposal_id: int, content: ProposalContent, *, scene: int) -> Proposal:
        """Correct a pending proposal as the GM's Edit does (before the Edit's acceptance)."""

        async def work(session: AsyncSession) -> Proposal:
            reader = await self.reader(session)
            return await self.gate.revise(
                session,
                reader,
                proposal_id,
                content,
                story_order=scene,
                decider_id=GM_ID,
                decider_name=GM_NAME,
            )

        return await self.db.run(work, attempts=1)

    async def accept_all(self, scene: int) -> list[Proposal]:
        """Accept every pending proposal of a scene without warnings."""
        return await self.db.run(
            lambda s: self.gate.accept_all(
                s, self.campaign.id, scene_id=scene, batch=None, decider_id=GM_ID, decider_name=GM_NAME
            ),
            attempts=1,
        )

    async def rewarn(self, scene: int) -> list[Proposal]:
        """Recompute the warnings of a scene's proposals together (the scene's end); return them."""

        async def work(session: AsyncSession) -> list[Proposal]:
            reader = await self.reader(session)
            await self.gate.rewarn(session, reader, scene_id=scene, story_order=scene)
            return await self.gate.proposals(session, self.campaign.id, scene_id=scene)

        return await self.db.run(work)

    async def commit(self, *, scene: int | None = None, batch: str | None = None) -> CommitResult:
        """Commit a scene's (or a batch's) accepted proposals as the GM."""
        if scene is not None:
            target = CommitTarget.of_scene(self.campaign.id, scene, scene)
        else:
            assert batch is not None
            target = CommitTarget.of_batch(self.campaign.id, batch, ChangesetKind.SOURCE_IMPORT)
        return await self.db.run(
            lambda s: self.gate.commit(s, target, actor_id=GM_ID, actor_name=GM_NAME), attempts=1
        )

    async def card(self, name: str, *, viewer: Viewer = Viewer.GM, as_of: AsOf = NOW) -> EntityCard:
        """Return an entity's card by name as of a point, for a viewer."""
        async with self.db.session() as session:
            reader = await self.reader(session, viewer)
            return await reader.card(await reader.resolve(name, as_of), as_of)

    async def retcon(self, statement_id: int, *, rationale: str) -> None:
        """Retcon a fact as the GM, with no replacement."""

        async def work(session: AsyncSession) -> None:
            reader = await self.reader(session)
            changeset = await campaigns.open_changeset(
                session, self.campaign.id, ChangesetKind.RETCON, actor_name=GM_NAME, rationale=rationale
            )
            writer = CanonWriter(session, changeset, reader.ontology)
            await writer.retcon(reader, "statement", statement_id, replacement_id=None, rationale=rationale)

        await self.db.run(work, attempts=1)

    async def dependents(self, statement_id: int) -> list[StatementView]:
        """Return the standing statements that rely on a statement."""
        async with self.db.session() as session:
            return await (await self.reader(session)).dependents("statement", statement_id)

    async def conflicts(self) -> list[RecordedConflict]:
        """Return the conflicts recorded for the campaign, newest first."""
        async with self.db.session() as session:
            return await recorded_conflicts(session, self.campaign.id)
