"""What characters believe that canon may not hold: rumours and lies, kept apart from canon.

`BeliefDesk` is the one service `/belief` calls. The GM records that a character believes an entity's attribute
has a value, with where they heard it and the channel's scene. A belief is never canon: no card shows it as a
fact, continuity never reads it (it lives in a table of its own), and a player reads it marked as a belief
("Sable believes…"). The GM may confirm it (it becomes GM-only canon, and the character knows it) or expose it
(the character learns it is false: "Sable believed…, and it is false").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.canon_service import CanonService
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.knowledge import beliefs as store
from canon.knowledge import characters as links
from canon.knowledge import learned
from canon.knowledge.beliefs import Belief, BeliefStatus
from canon.knowledge.characters import LinkStatus
from canon.models import Entity, Viewer
from canon.proposals import FactContent, Ref
from canon.storage import Database
from canon.visibility import visibility_of
from memory.scene_service import SceneService
from memory.scenes import Actor


@dataclass(frozen=True)
class BeliefShown:
    """A belief in words, as its reader may see it."""

    belief: Belief
    sentence: str


class BeliefDesk:
    """Record, list, confirm and expose what characters believe."""

    def __init__(self, db: Database, access: CanonAccess, canon: CanonService, scenes: SceneService) -> None:
        self.db = db
        self.access = access
        self.canon = canon
        self.scenes = scenes

    async def believe(
        self,
        campaign: Campaign,
        gm: Actor,
        *,
        character: str,
        about: str,
        attribute: str,
        value: str,
        source: str,
        channel_id: int | None = None,
    ) -> BeliefShown:
        """Record that a player character believes `about`'s `attribute` is `value` (GM)."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM records what a character believes.")
        attribute, value = " ".join(attribute.split()), " ".join(value.split())
        if not attribute or ":" in attribute or len(attribute) > 60:
            raise InvalidInput(
                "Name what the belief is about in a few words without a colon, like “treasure”."
            )
        if not value or len(value) > 500:
            raise InvalidInput("Say what they believe in at most 500 characters.")
        scene_id = None
        if channel_id is not None:
            try:
                scene_id = (await self.scenes.current_scene(channel_id)).id
            except NotFound:
                scene_id = None

        async def work(session: AsyncSession) -> int:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            who = await reader.resolve(character)
            if not await links.links(
                session, campaign.id, entity_id=who.id, statuses=(LinkStatus.PLAYS, LinkStatus.ENDED)
            ):
                raise NotFound(f"Nobody plays {who.name}: only player characters hold beliefs here.")
            subject = await reader.resolve(about)
            added = await store.add_belief(
                session,
                campaign.id,
                who.id,
                subject.id,
                f"{attribute}: {value}",
                source=source.strip(),
                scene_id=scene_id,
                recorded_by=gm.name,
            )
            return added.id

        added = await self.db.run(work)
        (shown,) = [b for b in await self.shown(campaign, gm) if b.belief.id == added]
        return shown

    async def expose(self, campaign: Campaign, gm: Actor, belief_id: int) -> BeliefShown:
        """Mark a held belief false (GM): the character learned it is not so."""
        await self._decide(campaign, gm, belief_id, BeliefStatus.EXPOSED)
        (shown,) = [b for b in await self.shown(campaign, gm) if b.belief.id == belief_id]
        return shown

    async def confirm(self, campaign: Campaign, gm: Actor, belief_id: int) -> BeliefShown:
        """Make a held belief canon (GM): a GM-only fact that the believing character knows from now on."""
        belief = await self._decide(campaign, gm, belief_id, BeliefStatus.CONFIRMED)
        try:
            async with self.db.session() as session:
                reader = await self.access.reader(session, campaign, Viewer.GM)
                about = await reader.entity(belief.about_id or 0)
            content = FactContent(
                subject=Ref(name=about.name, entity_id=about.id),
                attribute=belief.attribute,
                value=belief.value,
                visibility=visibility_of(True),
            )
            # The belief's detail was named when it was kept: confirming it writes what the table heard.
            result = await self.canon.add_direct(
                campaign, content, gm, command="/belief confirm", new_detail=True
            )

            async def reveal(session: AsyncSession) -> None:
                for statement_id in result.statement_ids[:1]:
                    await learned.add_reveals(
                        session,
                        campaign.id,
                        "statement",
                        statement_id,
                        [belief.character_id],
                        world_from=None,
                        world_from_key=None,
                        story_from=None,
                        scene_id=belief.scene_id,
                        reason=f"they believed it ({belief.source or 'a rumour'}); the GM confirmed it",
                        revealed_by=gm.name,
                    )

            await self.db.run(reveal)
        except Exception:
            await self.db.run(lambda s: store.decide(s, campaign.id, belief_id, BeliefStatus.HELD))
            raise
        (shown,) = [b for b in await self.shown(campaign, gm) if b.belief.id == belief_id]
        return shown

    async def _decide(self, campaign: Campaign, gm: Actor, belief_id: int, status: BeliefStatus) -> Belief:
        if not gm.is_gm:
            raise NotAllowed("Only the GM confirms or exposes a belief.")

        async def work(session: AsyncSession) -> Belief:
            found = await store.belief(session, campaign.id, belief_id)
            if found is None:
                raise NotFound(f"There is no belief {belief_id} in this campaign; `/belief list` shows them.")
            if not await store.decide(session, campaign.id, belief_id, status):
                raise Conflict(f"Belief {belief_id} was {found.status.value} already: nothing changed.")
            return found

        return await self.db.run(work)

    async def shown(
        self, campaign: Campaign, asker: Actor, *, character: str | None = None
    ) -> list[BeliefShown]:
        """Return beliefs in words: the GM's of everyone (or one character); a player's of their active one."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            ids: list[int] | None = None
            if not asker.is_gm:
                ids = [await links.active_character_id(session, campaign.id, asker.id or 0)]
            elif character is not None:
                ids = [(await reader.resolve(character)).id]
            found = await store.beliefs(session, campaign.id, character_ids=ids)
            named = await reader.entities(
                {b.character_id for b in found} | {b.about_id for b in found if b.about_id is not None},
                include_retconned=True,
                with_aliases=False,
            )
        return [BeliefShown(b, belief_sentence(b, named)) for b in found]


def belief_sentence(belief: Belief, names: Mapping[int, Entity]) -> str:
    """Return a belief as a player reads it: "Sable believes The Duke's treasure: in the well (heard …)"."""
    character, subject = names.get(belief.character_id), names.get(belief.about_id or 0)
    who = character.name if character is not None else "A character"
    about = subject.name if subject is not None else "something"
    what = f"{about}'s {belief.attribute}: {belief.value}"
    heard = f" (heard from {belief.source})" if belief.source else ""
    if belief.status == BeliefStatus.EXPOSED:
        return f"{who} believed {what}{heard}, and it is false."
    if belief.status == BeliefStatus.CONFIRMED:
        return f"{who} believed {what}{heard}, and it is true: it is canon now."
    return f"{who} believes {what}{heard}. A belief, not canon."
