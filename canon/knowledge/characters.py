"""Player characters and their players: the SQL of the links, and the link as the services read it.

A link is asked for (a player's claim, until a GM decides), played, refused or ended (by the GM, or by its member
leaving the server, which also withdraws their claims). A character may be played
by several members (the GM decides that); a member may play several characters of a campaign, one of them
active (the one their `/lore` and cards see through). The rules of who may claim what are the service's
(`bot.services.characters`); these functions only read and write rows, inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
import enum

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import NotFound
from canon.knowledge.tables import PlayerCharacterRow
from canon.storage import utc_now


class LinkStatus(enum.StrEnum):
    """Where a member's link to a character stands."""

    ASKED = "asked"
    PLAYS = "plays"
    REFUSED = "refused"
    ENDED = "ended"
    #: A claim withdrawn: its member left the server before a GM decided it.
    LEFT = "left"


class CharacterLink(BaseModel):
    """A member's link to a character, named."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    entity_id: int
    character: str
    member_id: int
    member_name: str
    status: LinkStatus
    active: bool
    asked_at: dt.datetime
    decided_by: str | None = None


def link_of(row: PlayerCharacterRow, character: str) -> CharacterLink:
    """Return the domain view of a link row, its character named."""
    return CharacterLink(
        id=row.id,
        campaign_id=row.campaign_id,
        entity_id=row.entity_id,
        character=character,
        member_id=row.member_id,
        member_name=row.member_name,
        status=LinkStatus(row.status),
        active=row.active,
        asked_at=row.asked_at,
        decided_by=row.decided_by,
    )


async def links(
    session: AsyncSession,
    campaign_id: int,
    *,
    member_id: int | None = None,
    entity_id: int | None = None,
    statuses: tuple[LinkStatus, ...] = (LinkStatus.ASKED, LinkStatus.PLAYS),
) -> list[PlayerCharacterRow]:
    """Return a campaign's links in these statuses, of one member or one character if given, oldest first."""
    query = select(PlayerCharacterRow).where(
        PlayerCharacterRow.campaign_id == campaign_id,
        PlayerCharacterRow.status.in_([s.value for s in statuses]),
    )
    if member_id is not None:
        query = query.where(PlayerCharacterRow.member_id == member_id)
    if entity_id is not None:
        query = query.where(PlayerCharacterRow.entity_id == entity_id)
    return list((await session.execute(query.order_by(PlayerCharacterRow.id))).scalars())


async def active_character_id(session: AsyncSession, campaign_id: int, member_id: int) -> int:
    """Return the character a member plays now (their active one), or raise `NotFound` saying how to get one."""
    played = await links(session, campaign_id, member_id=member_id, statuses=(LinkStatus.PLAYS,))
    active = next((r for r in played if r.active), None)
    if active is None:
        raise NotFound("You play no character yet: `/character claim` asks the GM for one.")
    return active.entity_id


async def link_row(session: AsyncSession, campaign_id: int, link_id: int) -> PlayerCharacterRow | None:
    """Return one link of a campaign (None when the campaign has no such link)."""
    row = await session.get(PlayerCharacterRow, link_id, populate_existing=True)
    return row if row is not None and row.campaign_id == campaign_id else None


async def add_link(
    session: AsyncSession,
    campaign_id: int,
    entity_id: int,
    member_id: int,
    member_name: str,
    status: LinkStatus,
    *,
    decided_by: str | None = None,
) -> PlayerCharacterRow:
    """Write a new link; return it."""
    now = utc_now()
    row = PlayerCharacterRow(
        campaign_id=campaign_id,
        entity_id=entity_id,
        member_id=member_id,
        member_name=member_name[:100],
        status=status.value,
        active=False,
        asked_at=now,
        decided_at=now if decided_by is not None else None,
        decided_by=decided_by[:100] if decided_by is not None else None,
    )
    session.add(row)
    await session.flush()
    return row


async def make_active(session: AsyncSession, row: PlayerCharacterRow) -> None:
    """Make a played link its member's active one in the campaign (every other of theirs inactive)."""
    await session.execute(
        update(PlayerCharacterRow)
        .where(
            PlayerCharacterRow.campaign_id == row.campaign_id,
            PlayerCharacterRow.member_id == row.member_id,
            PlayerCharacterRow.id != row.id,
        )
        .values(active=False)
    )
    row.active = True


async def played_ids(session: AsyncSession, campaign_id: int) -> set[int]:
    """Return the entities some member plays in a campaign (the party)."""
    query = select(PlayerCharacterRow.entity_id).where(
        PlayerCharacterRow.campaign_id == campaign_id, PlayerCharacterRow.status == LinkStatus.PLAYS.value
    )
    return set((await session.execute(query)).scalars())
