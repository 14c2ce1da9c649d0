"""What characters learned: the SQL of reveals, and a player's lens (`canon.visibility.Knowing`) built from it.

A reveal is one row per character (or one for the party) and target. Undoing it marks the row undone, with who
and why; the row stays, so "what did Sable know last week" is still answerable. These functions read and write
inside the caller's transaction; the rules (who may reveal what, from when) are `bot.services.knowledge`'s.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import CompoundSelect, and_, bindparam, or_, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession

from canon.knowing import Learned
from canon.knowledge.characters import LinkStatus
from canon.knowledge.tables import KnowledgeRow, PlayerCharacterRow
from canon.storage import utc_now
from canon.tables import StatementRow
from canon.visibility import Knowing

#: What may be revealed.
KINDS = ("entity", "statement", "source")


class Reveal(BaseModel):
    """One reveal as the GM reads it: what, to whom (None: the party), from when, why, and whether undone."""

    model_config = ConfigDict(frozen=True)

    id: int
    target_kind: str
    target_id: int
    character_id: int | None
    world_from: str | None
    story_from: int | None
    scene_id: int | None
    reason: str
    revealed_by: str
    recorded_at: dt.datetime
    undone_at: dt.datetime | None = None
    undone_by: str | None = None
    undo_reason: str | None = None


def reveal_of(row: KnowledgeRow) -> Reveal:
    """Return the domain view of a knowledge row."""
    return Reveal.model_validate(row, from_attributes=True)


#: The kind of a row marking a scene's proposal "known only to those present": no reveal yet, a promise of
#: one, kept (or undone) until the scene's commit turns it into reveals of what the proposal wrote.
PRESENT_MARK = "proposal"

#: What a lens reads of each reveal: the target, from when, when written and undone, a statement's ends.
_LEARNED_COLUMNS = (
    KnowledgeRow.target_kind,
    KnowledgeRow.target_id,
    KnowledgeRow.world_from_key,
    KnowledgeRow.story_from,
    KnowledgeRow.recorded_at,
    KnowledgeRow.undone_at,
    StatementRow.subject_id,
    StatementRow.object_id,
)
_ENDS = and_(KnowledgeRow.target_kind == "statement", StatementRow.id == KnowledgeRow.target_id)


def _learned(rows: Iterable[Sequence[Any]], first: int = 0) -> tuple[Learned, ...]:
    """Return the reveals of lens rows (`_LEARNED_COLUMNS` from column `first` on; a row without a target,
    a character who learned nothing, left out)."""
    found = []
    for row in rows:
        kind, target, world_from, story_from, recorded, undone, subject, obj = row[first : first + 8]
        if kind is None:
            continue
        ends = (subject,) if obj is None else (subject, obj)
        found.append(
            Learned(
                kind, target, world_from, story_from, ends if subject is not None else (), recorded, undone
            )
        )
    return tuple(found)


async def knowing(session: AsyncSession, campaign_id: int, character_ids: Sequence[int]) -> Knowing:
    """Return the lens of these characters: what each (and the party) learned, undone reveals included (an
    as-believed-at view needs them), a statement's ends with it."""
    who = [KnowledgeRow.character_id.is_(None)]
    if character_ids:
        who.append(KnowledgeRow.character_id.in_(list(character_ids)))
    query = (
        select(*_LEARNED_COLUMNS)
        .outerjoin(StatementRow, _ENDS)
        .where(KnowledgeRow.campaign_id == campaign_id, KnowledgeRow.target_kind != PRESENT_MARK, or_(*who))
    )
    return Knowing(characters=tuple(character_ids), learned=_learned((await session.execute(query)).all()))


def _member_lens_query() -> CompoundSelect[*tuple[Any, ...]]:
    """Return the query of a member's lens: their active character's link, with the character's own reveals,
    then the party's. Two halves, not one join on "the character's or nobody's": each half walks the
    (campaign, character) index, where the OR made the database read every reveal of the campaign."""
    link = PlayerCharacterRow
    playing = (
        link.campaign_id == bindparam("campaign_id"),
        link.member_id == bindparam("member_id"),
        link.status == LinkStatus.PLAYS.value,
        link.active.is_(True),
    )
    learned_by = and_(KnowledgeRow.campaign_id == link.campaign_id, KnowledgeRow.target_kind != PRESENT_MARK)
    own = (
        select(link.entity_id, *_LEARNED_COLUMNS)
        .select_from(link)
        .outerjoin(KnowledgeRow, and_(learned_by, KnowledgeRow.character_id == link.entity_id))
        .outerjoin(StatementRow, _ENDS)
        .where(*playing)
    )
    party = (
        select(link.entity_id, *_LEARNED_COLUMNS)
        .select_from(link)
        .join(KnowledgeRow, and_(learned_by, KnowledgeRow.character_id.is_(None)))
        .outerjoin(StatementRow, _ENDS)
        .where(*playing)
    )
    return union_all(own, party)


#: Built once: a lens is read for every player command, and building the query cost more than running it.
_MEMBER_LENS = _member_lens_query()


async def member_knowing(session: AsyncSession, campaign_id: int, member_id: int) -> Knowing | None:
    """Return the lens of a member's active character in one query (None when they play none): the
    character's and the party's reveals, each statement's ends with it."""
    rows = (await session.execute(_MEMBER_LENS, {"campaign_id": campaign_id, "member_id": member_id})).all()
    if not rows:
        return None
    return Knowing(characters=(rows[0][0],), learned=_learned(rows, first=1))


async def add_reveals(
    session: AsyncSession,
    campaign_id: int,
    kind: str,
    target_id: int,
    character_ids: Iterable[int | None],
    *,
    world_from: str | None,
    world_from_key: int | None,
    story_from: int | None,
    scene_id: int | None,
    reason: str,
    revealed_by: str,
) -> list[KnowledgeRow]:
    """Write one reveal row per character (None: the party); return them."""
    now = utc_now()
    rows = [
        KnowledgeRow(
            campaign_id=campaign_id,
            target_kind=kind,
            target_id=target_id,
            character_id=character,
            world_from=world_from,
            world_from_key=world_from_key,
            story_from=story_from,
            scene_id=scene_id,
            reason=reason,
            revealed_by=revealed_by[:100],
            recorded_at=now,
        )
        for character in character_ids
    ]
    session.add_all(rows)
    await session.flush()
    return rows


async def undo_reveal(
    session: AsyncSession, campaign_id: int, reveal_id: int, *, by: str, reason: str
) -> bool:
    """Mark a standing reveal undone; return False when it is not standing (undone already, or not this
    campaign's). One UPDATE: of two GMs undoing at once, exactly one succeeds."""
    result = await session.execute(
        update(KnowledgeRow)
        .where(
            KnowledgeRow.id == reveal_id,
            KnowledgeRow.campaign_id == campaign_id,
            KnowledgeRow.undone_at.is_(None),
        )
        .values(undone_at=utc_now(), undone_by=by[:100], undo_reason=reason)
    )
    return bool(getattr(result, "rowcount", 0))


async def reveal_row(session: AsyncSession, campaign_id: int, reveal_id: int) -> KnowledgeRow | None:
    """Return one reveal of a campaign, or None."""
    row = await session.get(KnowledgeRow, reveal_id, populate_existing=True)
    return row if row is not None and row.campaign_id == campaign_id else None


async def reveals(
    session: AsyncSession,
    campaign_id: int,
    *,
    character_ids: Sequence[int] | None = None,
    standing: bool = True,
) -> list[Reveal]:
    """Return a campaign's reveals (of these characters and the party, if given), oldest first."""
    query = select(KnowledgeRow).where(KnowledgeRow.campaign_id == campaign_id)
    if character_ids is not None:
        query = query.where(
            or_(KnowledgeRow.character_id.is_(None), KnowledgeRow.character_id.in_(list(character_ids)))
        )
    if standing:
        query = query.where(KnowledgeRow.undone_at.is_(None))
    query = query.where(KnowledgeRow.target_kind != PRESENT_MARK)
    return [reveal_of(r) for r in (await session.execute(query.order_by(KnowledgeRow.id))).scalars()]


async def present_marks(session: AsyncSession, campaign_id: int, proposal_ids: Iterable[int]) -> set[int]:
    """Return which of these proposals are marked "known only to those present" (standing marks)."""
    ids = list(proposal_ids)
    if not ids:
        return set()
    query = select(KnowledgeRow.target_id).where(
        KnowledgeRow.campaign_id == campaign_id,
        KnowledgeRow.target_kind == PRESENT_MARK,
        KnowledgeRow.target_id.in_(ids),
        KnowledgeRow.undone_at.is_(None),
    )
    return set((await session.execute(query)).scalars())


async def unmark_present(session: AsyncSession, campaign_id: int, proposal_id: int, *, by: str) -> bool:
    """Undo a proposal's standing mark; return False when it had none."""
    result = await session.execute(
        update(KnowledgeRow)
        .where(
            KnowledgeRow.campaign_id == campaign_id,
            KnowledgeRow.target_kind == PRESENT_MARK,
            KnowledgeRow.target_id == proposal_id,
            KnowledgeRow.undone_at.is_(None),
        )
        .values(undone_at=utc_now(), undone_by=by[:100], undo_reason="unmarked on the review card")
    )
    return bool(getattr(result, "rowcount", 0))
