"""SQL tables of who knows what: player characters and their players, what characters learned, what they believe.

Rows never leave `canon.knowledge`'s repositories. A player character is a canon entity (a Person, usually)
linked to the Discord members who play it; knowledge and beliefs belong to the character, never to the member,
so a character handed to another player keeps what it knows, and a member who leaves takes nothing with them.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class PlayerCharacterRow(Base):
    """A member's link to a character: asked for (a claim), played, refused or ended; one active per member."""

    __tablename__ = "player_characters"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    entity_id: Mapped[int] = mapped_column(ForeignKey("entities.id"))
    member_id: Mapped[int] = mapped_column(BigInteger)
    member_name: Mapped[str] = mapped_column(String(100))
    # asked (a claim awaiting the GM), plays, refused, ended (the GM took the character back)
    status: Mapped[str] = mapped_column(String(10))
    active: Mapped[bool] = mapped_column(Boolean, default=False)
    asked_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    decided_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    decided_by: Mapped[str | None] = mapped_column(String(100))

    __table_args__ = (
        Index("ix_player_characters_member", "campaign_id", "member_id"),
        Index("ix_player_characters_entity", "campaign_id", "entity_id"),
    )


class KnowledgeRow(Base):
    """A character (or the whole party) knows a fact, relation, entity or source from an in-world point on.

    `target_kind` is entity, statement or source; `character_id` NULL means the party (every player character).
    `world_from_key` (the calendar's sortable key) and `story_from` (a scene's order) say from when it is known;
    both NULL means always. Undoing a reveal marks the row undone: it stays, with who undid it and why.
    """

    __tablename__ = "character_knowledge"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    target_kind: Mapped[str] = mapped_column(String(10))
    target_id: Mapped[int] = mapped_column(BigInteger)
    character_id: Mapped[int | None] = mapped_column(ForeignKey("entities.id"))
    world_from: Mapped[str | None] = mapped_column(String(60))
    world_from_key: Mapped[int | None] = mapped_column(BigInteger)
    story_from: Mapped[int | None] = mapped_column(Integer)
    scene_id: Mapped[int | None] = mapped_column(ForeignKey("scenes.id"))
    reason: Mapped[str] = mapped_column(Text, default="")
    revealed_by: Mapped[str] = mapped_column(String(100))
    recorded_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    undone_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    undone_by: Mapped[str | None] = mapped_column(String(100))
    undo_reason: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        Index("ix_character_knowledge_character", "campaign_id", "character_id"),
        Index("ix_character_knowledge_target", "campaign_id", "target_kind", "target_id"),
    )


class BeliefRow(Base):
    """What a character believes that canon may not hold (a rumour, a lie): never canon, never checked.

    `status` is held, confirmed (the GM made it canon) or exposed (the character learned it is false).
    """

    __tablename__ = "character_beliefs"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    character_id: Mapped[int] = mapped_column(ForeignKey("entities.id"))
    about_id: Mapped[int | None] = mapped_column(ForeignKey("entities.id"))
    text: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(Text, default="")
    scene_id: Mapped[int | None] = mapped_column(ForeignKey("scenes.id"))
    status: Mapped[str] = mapped_column(String(10), default="held")
    recorded_by: Mapped[str] = mapped_column(String(100))
    recorded_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
    decided_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_character_beliefs_character", "campaign_id", "character_id"),)
