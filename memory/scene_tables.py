"""SQL tables of the narrative store: scenes, turns and the history of edited turns.

Rows never leave the `memory` repositories; the rest of the program sees the pydantic models in
`memory.scenes`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class SceneRow(Base):
    """A scene: the canonization boundary, played in one channel."""

    __tablename__ = "scenes"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    title: Mapped[str] = mapped_column(String(200))
    location: Mapped[str | None] = mapped_column(String(200))
    # The story's clock: where the scene starts on the campaign calendar (canonical date text and its world
    # key), and the place it is set in when its location names one of canon's entities.
    world_date: Mapped[str | None] = mapped_column(String(120))
    world_key: Mapped[int | None] = mapped_column(BigInteger)
    location_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(20), default="active")
    story_order: Mapped[int]
    started_by_id: Mapped[int | None] = mapped_column(BigInteger)
    started_by_name: Mapped[str | None] = mapped_column(String(100))
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    ended_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    narrator_mode: Mapped[bool] = mapped_column(Boolean, default=False)
    summary: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        # One scene at a time per channel: a second /scene start, even from a racing process, fails here.
        Index(
            "uq_scenes_active_channel",
            "channel_id",
            unique=True,
            sqlite_where=text("status <> 'completed'"),
            postgresql_where=text("status <> 'completed'"),
        ),
        UniqueConstraint("campaign_id", "story_order"),
    )


class TurnRow(Base):
    """One message of a scene, kept verbatim; an edit keeps the old text in `turn_revisions`."""

    __tablename__ = "turns"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    scene_id: Mapped[int] = mapped_column(ForeignKey("scenes.id"))
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    number: Mapped[int]
    discord_message_id: Mapped[int | None] = mapped_column(BigInteger, unique=True)
    author_id: Mapped[int | None] = mapped_column(BigInteger)
    author_name: Mapped[str] = mapped_column(String(100))
    speaker: Mapped[str] = mapped_column(String(20))
    text: Mapped[str] = mapped_column(Text)
    attachments: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    embeds: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    edited_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("scene_id", "number"),)


class TurnRevisionRow(Base):
    """The text a turn had before one of its edits."""

    __tablename__ = "turn_revisions"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    replaced_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
