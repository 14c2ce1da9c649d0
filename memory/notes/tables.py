"""SQL tables of the GM's notes: a note, and the canon entities it is about.

Rows never leave `memory.notes.service`. A note belongs to one campaign (a branch's notes are its own: a note
written in the parent before a fork is not the branch's, nor the reverse).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class GmNoteRow(Base):
    """One GM note: its text, tags, the scene it is about (if any), and whether it is done."""

    __tablename__ = "gm_notes"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    text: Mapped[str] = mapped_column(Text)
    # The tags one a line, with a line break before the first and after the last ("\nplot\nvyr\n"): a tag
    # is found by LIKE '%\ntag\n%' on every database.
    tags: Mapped[str] = mapped_column(Text, default="")
    scene_id: Mapped[int | None] = mapped_column(ForeignKey("scenes.id"))
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    author_id: Mapped[int | None] = mapped_column(BigInteger)
    author_name: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    done_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_gm_notes_campaign_done", "campaign_id", "done"),)


class GmNoteEntityRow(Base):
    """A canon entity a note is about (the note shows on that entity's card, for the GM)."""

    __tablename__ = "gm_note_entities"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    note_id: Mapped[int] = mapped_column(ForeignKey("gm_notes.id"), index=True)
    entity_id: Mapped[int] = mapped_column(ForeignKey("entities.id"))

    __table_args__ = (Index("ix_gm_note_entities_campaign_entity", "campaign_id", "entity_id"),)
