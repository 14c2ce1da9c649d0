"""The GM's notes: add, search, list and mark done, in one campaign; never shown to players.

A note holds text (up to 2,000 characters), tags (lowercase, up to ten), the canon entities it is about and the
scene it is about, and a done flag. Notes are searched by words of their text (every word must appear, in any
case), by tag and by entity; open notes first, newest first. The service owns its transactions; the SQL is
the repository functions' below. Nothing here decides who may read a note: every caller is a GM's command
(the cogs check it), and an entity card shows notes only in its GM view.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import InvalidInput, NotFound
from canon.storage import Database, utc_now
from memory.notes.tables import GmNoteEntityRow, GmNoteRow

MAX_TEXT = 2000
MAX_TAGS = 10
MAX_TAG = 40
PAGE = 10


class GmNote(BaseModel):
    """One GM note, as the GM reads it."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    text: str
    tags: tuple[str, ...] = ()
    entity_ids: tuple[int, ...] = ()
    scene_id: int | None = None
    done: bool = False
    author_name: str
    created_at: dt.datetime
    done_at: dt.datetime | None = None


class GmNotePage(BaseModel):
    """One page of a search: the notes, how many match in all, and which page this is."""

    model_config = ConfigDict(frozen=True)

    notes: tuple[GmNote, ...]
    total: int
    page: int
    pages: int


def clean_text(text: str) -> str:
    """Return a note's text trimmed, or raise `InvalidInput` for an empty or too long one."""
    clean = text.strip()
    if not clean:
        raise InvalidInput("A note needs some text.")
    if len(clean) > MAX_TEXT:
        raise InvalidInput(f"A note holds at most {MAX_TEXT:,} characters; this one has {len(clean):,}.")
    return clean


def clean_tags(text: str | None) -> tuple[str, ...]:
    """Return the tags of `a, b` (lowercase, blanks and repeats dropped), or raise `InvalidInput`."""
    found: dict[str, None] = {}
    for part in (text or "").split(","):
        tag = " ".join(part.split()).casefold().lstrip("#")
        if not tag:
            continue
        if len(tag) > MAX_TAG:
            raise InvalidInput(f"A tag is at most {MAX_TAG} characters: “{tag[:MAX_TAG]}…” is longer.")
        found[tag] = None
    if len(found) > MAX_TAGS:
        raise InvalidInput(f"A note has at most {MAX_TAGS} tags; this one has {len(found)}.")
    return tuple(found)


class GmNoteService:
    """Keep a campaign's GM notes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self,
        campaign_id: int,
        text: str,
        *,
        author_id: int | None,
        author_name: str,
        tags: str | Sequence[str] | None = None,
        entity_ids: Sequence[int] = (),
        scene_id: int | None = None,
    ) -> GmNote:
        """Keep a new note; return it."""
        clean = clean_text(text)
        tag_list = clean_tags(tags if isinstance(tags, str) or tags is None else ", ".join(tags))
        linked = tuple(dict.fromkeys(entity_ids))

        async def work(session: AsyncSession) -> GmNote:
            row = GmNoteRow(
                campaign_id=campaign_id,
                text=clean,
                tags=_tags_text(tag_list),
                scene_id=scene_id,
                done=False,
                author_id=author_id,
                author_name=author_name[:100],
                created_at=utc_now(),
            )
            session.add(row)
            await session.flush()
            session.add_all(
                GmNoteEntityRow(campaign_id=campaign_id, note_id=row.id, entity_id=e) for e in linked
            )
            return _note(row, linked)

        return await self.db.run(work)

    async def mark_done(self, campaign_id: int, note_id: int, *, done: bool = True) -> GmNote:
        """Mark a note done (or open again); `NotFound` when the campaign has no such note."""

        async def work(session: AsyncSession) -> GmNote:
            row = await session.get(GmNoteRow, note_id)
            if row is None or row.campaign_id != campaign_id:
                raise NotFound(f"There is no note #{note_id} in this campaign; `/note list` shows them.")
            row.done = done
            row.done_at = utc_now() if done else None
            links = await _links(session, [row.id])
            return _note(row, links.get(row.id, ()))

        return await self.db.run(work)

    async def search(
        self,
        campaign_id: int,
        *,
        words: str | None = None,
        tag: str | None = None,
        entity_id: int | None = None,
        include_done: bool = False,
        page: int = 1,
        per_page: int = PAGE,
    ) -> GmNotePage:
        """Return one page of the campaign's notes matching every criterion given (open first, newest first)."""
        if page < 1:
            raise InvalidInput("Pages start at 1.")
        conditions = _conditions(campaign_id, words, tag, entity_id, include_done)
        async with self.db.session() as session:
            total = int(
                await session.scalar(select(func.count()).select_from(GmNoteRow).where(*conditions)) or 0
            )
            query = (
                select(GmNoteRow)
                .where(*conditions)
                .order_by(GmNoteRow.done, GmNoteRow.created_at.desc(), GmNoteRow.id.desc())
                .offset((page - 1) * per_page)
                .limit(per_page)
            )
            rows = list((await session.execute(query)).scalars())
            links = await _links(session, [r.id for r in rows])
        pages = max(1, -(-total // per_page))
        return GmNotePage(
            notes=tuple(_note(r, links.get(r.id, ())) for r in rows), total=total, page=page, pages=pages
        )

    async def about(self, campaign_id: int, entity_id: int, *, include_done: bool = False) -> list[GmNote]:
        """Return the notes about one entity (for its card's GM view), open first, newest first."""
        found = await self.search(
            campaign_id, entity_id=entity_id, include_done=include_done, per_page=MAX_ON_CARD
        )
        return list(found.notes)


#: The most notes one entity card shows (the rest: `/note list entity:...`).
MAX_ON_CARD = 5


def _conditions(
    campaign_id: int, words: str | None, tag: str | None, entity_id: int | None, include_done: bool
) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [GmNoteRow.campaign_id == campaign_id]
    if not include_done:
        conditions.append(GmNoteRow.done.is_(False))
    for word in (words or "").split():
        conditions.append(func.lower(GmNoteRow.text).like(f"%{_escape(word.casefold())}%", escape="\\"))
    for wanted in clean_tags(tag):
        conditions.append(GmNoteRow.tags.like(f"%\n{_escape(wanted)}\n%", escape="\\"))
    if entity_id is not None:
        linked = select(GmNoteEntityRow.note_id).where(
            and_(GmNoteEntityRow.campaign_id == campaign_id, GmNoteEntityRow.entity_id == entity_id)
        )
        conditions.append(GmNoteRow.id.in_(linked))
    return conditions


def _escape(text: str) -> str:
    """Return text for a LIKE pattern with `\\` as its escape: its wildcards taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _tags_text(tags: Sequence[str]) -> str:
    return "\n" + "".join(f"{t}\n" for t in tags) if tags else ""


async def _links(session: AsyncSession, note_ids: Sequence[int]) -> dict[int, tuple[int, ...]]:
    if not note_ids:
        return {}
    query = (
        select(GmNoteEntityRow.note_id, GmNoteEntityRow.entity_id)
        .where(GmNoteEntityRow.note_id.in_(list(note_ids)))
        .order_by(GmNoteEntityRow.id)
    )
    found: dict[int, list[int]] = {}
    for note_id, entity_id in (await session.execute(query)).all():
        found.setdefault(int(note_id), []).append(int(entity_id))
    return {k: tuple(v) for k, v in found.items()}


def _note(row: GmNoteRow, entity_ids: Sequence[int]) -> GmNote:
    return GmNote(
        id=row.id,
        campaign_id=row.campaign_id,
        text=row.text,
        tags=tuple(t for t in (row.tags or "").split("\n") if t),
        entity_ids=tuple(entity_ids),
        scene_id=row.scene_id,
        done=bool(row.done),
        author_name=row.author_name,
        created_at=row.created_at,
        done_at=row.done_at,
    )
