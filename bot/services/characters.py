"""Player characters and their players: claims, the GM's decisions, the active character of each member.

`CharacterDesk` is the one service `/character` calls. A player claims a character by name (a Person or a
Creature of canon that they may see); the claim waits for a GM's decision. A GM may also link a member to a
character directly, take a character back, and decide claims. Each member plays at most one active character
per campaign: the first one they get is active, and `/character switch` picks another.

Knowledge belongs to the character (`canon.knowledge`), never to the member: giving a character to another
player gives them what it knows, and a member who leaves the server takes nothing away: the characters they
played wait, with all they know, for the GM to give them to someone else (`member_left`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from canon.campaigns import Campaign, list_campaigns
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.graph import CanonReader, fold
from canon.graph.naming import HINT_CUTOFF, either
from canon.knowledge import characters as repo
from canon.knowledge.characters import CharacterLink, LinkStatus
from canon.knowledge.tables import PlayerCharacterRow
from canon.models import Entity, Viewer
from canon.storage import Database, utc_now
from canon.wording.proposals import type_words
from memory.scenes import Actor


async def unknown_character(reader: CanonReader, name: str) -> str:
    """Return the answer to a name no character the reader's viewer sees has, with the characters like it."""
    close = await reader.fuzzy(name, limit=10, whole=True)
    near = {
        fold(r.name): r.name
        for r, score in close
        if score >= HINT_CUTOFF and reader.ontology.can_play(r.type)
    }
    hint = f" Did you mean {either(list(near.values())[:3])}?" if near else ""
    return f"No character called “{name.strip()}” in this campaign's canon.{hint}"


@dataclass(frozen=True)
class Member:
    """A Discord member as the desk needs them: their id and the name to show."""

    id: int
    name: str


class CharacterDesk:
    """Claims, links and the active character of each member, in one campaign at a time."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def _character(
        self, session: AsyncSession, campaign: Campaign, name: str, viewer: Viewer
    ) -> Entity:
        reader: CanonReader = await self.access.reader(session, campaign, viewer)
        try:
            entity = await reader.resolve(name, type_hint="Person")
        except NotFound:
            raise NotFound(await unknown_character(reader, name)) from None
        if not reader.ontology.can_play(entity.type):
            kind = type_words(entity.type).lower()
            article = "an" if kind[:1] in "aeiou" else "a"
            raise InvalidInput(
                f"{entity.name} is {article} {kind}, not a character: only a person or a creature can be played."
            )
        return entity

    async def _named(
        self, session: AsyncSession, rows: list[PlayerCharacterRow], campaign: Campaign
    ) -> list[CharacterLink]:
        reader = await self.access.reader(session, campaign, Viewer.GM)
        names = await reader.entities({r.entity_id for r in rows}, include_retconned=True, with_aliases=False)
        return [
            repo.link_of(r, names[r.entity_id].name if r.entity_id in names else "a character") for r in rows
        ]

    async def claim(self, campaign: Campaign, name: str, member: Member) -> CharacterLink:
        """Ask to play a character; the claim waits for a GM. Refused when someone else plays it."""

        async def work(session: AsyncSession) -> CharacterLink:
            entity = await self._character(session, campaign, name, Viewer.PLAYER)
            existing = await repo.links(session, campaign.id, entity_id=entity.id)
            for row in existing:
                if row.member_id == member.id:
                    if row.status == LinkStatus.PLAYS:
                        raise Conflict(
                            f"You already play {entity.name}; `/character switch` makes it active."
                        )
                    raise Conflict(f"You already asked to play {entity.name}; a GM has not decided yet.")
            players = [r.member_name for r in existing if r.status == LinkStatus.PLAYS]
            if players:
                raise NotAllowed(
                    f"{entity.name} is played by {', '.join(players)}. Ask the GM if you should share it."
                )
            row = await repo.add_link(
                session, campaign.id, entity.id, member.id, member.name, LinkStatus.ASKED
            )
            return repo.link_of(row, entity.name)

        return await self.db.run(work)

    async def decide(self, campaign: Campaign, link_id: int, *, approve: bool, gm: Actor) -> CharacterLink:
        """Approve or refuse a claim (GM); `Conflict` when it was decided already."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM decides who plays a character.")

        async def work(session: AsyncSession) -> CharacterLink:
            row = await repo.link_row(session, campaign.id, link_id)
            if row is None:
                raise NotFound("That claim is not one of this campaign's; `/character list` shows them.")
            (named,) = await self._named(session, [row], campaign)
            if row.status == LinkStatus.LEFT:
                raise Conflict(
                    f"{row.member_name} left the server: their claim on {named.character} was withdrawn."
                )
            if row.status != LinkStatus.ASKED:
                done = "approved" if row.status in (LinkStatus.PLAYS, LinkStatus.ENDED) else "refused"
                raise Conflict(f"{row.member_name}'s claim on {named.character} was already {done}.")
            if approve:
                others = [
                    r.member_name
                    for r in await repo.links(session, campaign.id, entity_id=row.entity_id)
                    if r.status == LinkStatus.PLAYS
                ]
                if others:
                    raise Conflict(
                        f"{named.character} is played by {', '.join(others)} now; "
                        f"`/character set` adds {row.member_name} as well, if they share it."
                    )
            row.status = (LinkStatus.PLAYS if approve else LinkStatus.REFUSED).value
            row.decided_at, row.decided_by = utc_now(), gm.name[:100]
            if approve:
                await self._activate_if_first(session, row)
            return repo.link_of(row, named.character)

        return await self.db.run(work)

    async def _activate_if_first(self, session: AsyncSession, row: PlayerCharacterRow) -> None:
        played = await repo.links(
            session, row.campaign_id, member_id=row.member_id, statuses=(LinkStatus.PLAYS,)
        )
        if not any(r.active for r in played if r.id != row.id):
            await repo.make_active(session, row)

    async def assign(self, campaign: Campaign, name: str, member: Member, gm: Actor) -> CharacterLink:
        """Link a member to a character (GM): they play it now, beside anyone who already does."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM gives a character to a player.")

        async def work(session: AsyncSession) -> CharacterLink:
            entity = await self._character(session, campaign, name, Viewer.GM)
            rows = await repo.links(session, campaign.id, entity_id=entity.id, member_id=member.id)
            row = next((r for r in rows if r.status == LinkStatus.PLAYS), None)
            if row is None:
                asked = next((r for r in rows if r.status == LinkStatus.ASKED), None)
                if asked is not None:
                    asked.status, asked.decided_at, asked.decided_by = (
                        LinkStatus.PLAYS.value,
                        utc_now(),
                        gm.name,
                    )
                    row = asked
                else:
                    row = await repo.add_link(
                        session,
                        campaign.id,
                        entity.id,
                        member.id,
                        member.name,
                        LinkStatus.PLAYS,
                        decided_by=gm.name,
                    )
            await self._activate_if_first(session, row)
            return repo.link_of(row, entity.name)

        return await self.db.run(work)

    async def release(self, campaign: Campaign, name: str, member: Member, gm: Actor) -> CharacterLink:
        """Take a character back from a member (GM); the character keeps what it knows."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM takes a character back.")

        async def work(session: AsyncSession) -> CharacterLink:
            entity = await self._character(session, campaign, name, Viewer.GM)
            rows = await repo.links(session, campaign.id, entity_id=entity.id, member_id=member.id)
            if not rows:
                raise NotFound(f"{member.name} does not play {entity.name}.")
            for row in rows:
                row.status = (
                    LinkStatus.ENDED if row.status == LinkStatus.PLAYS else LinkStatus.REFUSED
                ).value
                row.active, row.decided_at, row.decided_by = False, utc_now(), gm.name[:100]
            return repo.link_of(rows[0], entity.name)

        return await self.db.run(work)

    async def member_left(self, guild_id: int, member_id: int) -> list[CharacterLink]:
        """A member left the server: in each of its campaigns, the characters they played are no longer theirs
        and their claims are withdrawn. Each character keeps what it knows, for whoever the GM gives it to
        next. Return the links that changed."""

        async def work(session: AsyncSession) -> list[CharacterLink]:
            changed: list[CharacterLink] = []
            for campaign in await list_campaigns(session, guild_id=guild_id):
                rows = await repo.links(session, campaign.id, member_id=member_id)
                for row in rows:
                    played = row.status == LinkStatus.PLAYS
                    row.status = (LinkStatus.ENDED if played else LinkStatus.LEFT).value
                    row.active, row.decided_at, row.decided_by = False, utc_now(), None
                changed += await self._named(session, rows, campaign)
            return changed

        return await self.db.run(work)

    async def switch(self, campaign: Campaign, name: str, member: Member) -> CharacterLink:
        """Make one of the member's characters their active one."""

        async def work(session: AsyncSession) -> CharacterLink:
            played = await repo.links(session, campaign.id, member_id=member.id, statuses=(LinkStatus.PLAYS,))
            named = await self._named(session, played, campaign)
            wanted = " ".join(name.casefold().split())
            found = [(r, n) for r, n in zip(played, named, strict=True) if n.character.casefold() == wanted]
            if not found:
                mine = ", ".join(n.character for n in named)
                hint = (
                    f" You play {mine}."
                    if mine
                    else " You play no character yet: `/character claim` asks for one."
                )
                raise NotFound(f"You do not play a character called “{name.strip()}”.{hint}")
            row, link = found[0]
            await repo.make_active(session, row)
            return link.model_copy(update={"active": True})

        return await self.db.run(work)

    async def roster(self, campaign: Campaign, *, member_id: int | None = None) -> list[CharacterLink]:
        """Return the campaign's characters and claims (or one member's), oldest first."""
        async with self.db.session() as session:
            rows = await repo.links(session, campaign.id, member_id=member_id)
            return await self._named(session, rows, campaign)

    async def active(self, campaign: Campaign, member_id: int) -> CharacterLink | None:
        """Return the member's active character in the campaign, or None when they play none."""
        played = [r for r in await self.roster(campaign, member_id=member_id) if r.status == LinkStatus.PLAYS]
        return next((r for r in played if r.active), None)

    async def link(self, campaign: Campaign, link_id: int) -> CharacterLink:
        """Return one link of the campaign (a claim card reads it again when clicked)."""
        async with self.db.session() as session:
            row = await repo.link_row(session, campaign.id, link_id)
            if row is None:
                raise NotFound("That claim is not one of this campaign's; `/character list` shows them.")
            (named,) = await self._named(session, [row], campaign)
            return named
