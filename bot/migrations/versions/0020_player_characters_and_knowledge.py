"""player characters and knowledge

Who plays which character (claims, the one active character of each member), what characters know of GM-only
canon from an in-world date or a scene on (reveals, kept when undone), and what they believe that canon may not
hold. Nothing existing changes: the tables start empty, so every campaign reads as before.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04 09:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "player_characters",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("entity_id", ID, nullable=False),
        sa.Column("member_id", sa.BigInteger(), nullable=False),
        sa.Column("member_name", sa.String(length=100), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("asked_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("decided_at", canon.storage.UTCDateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_player_characters_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(
            ["entity_id"], ["entities.id"], name=op.f("fk_player_characters_entity_id_entities")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_characters")),
    )
    with op.batch_alter_table("player_characters", schema=None) as batch_op:
        batch_op.create_index("ix_player_characters_member", ["campaign_id", "member_id"], unique=False)
        batch_op.create_index("ix_player_characters_entity", ["campaign_id", "entity_id"], unique=False)
    op.create_table(
        "character_knowledge",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("target_kind", sa.String(length=10), nullable=False),
        sa.Column("target_id", sa.BigInteger(), nullable=False),
        sa.Column("character_id", ID, nullable=True),
        sa.Column("world_from", sa.String(length=60), nullable=True),
        sa.Column("world_from_key", sa.BigInteger(), nullable=True),
        sa.Column("story_from", sa.Integer(), nullable=True),
        sa.Column("scene_id", ID, nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("revealed_by", sa.String(length=100), nullable=False),
        sa.Column("recorded_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("undone_at", canon.storage.UTCDateTime(timezone=True), nullable=True),
        sa.Column("undone_by", sa.String(length=100), nullable=True),
        sa.Column("undo_reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_character_knowledge_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(
            ["character_id"], ["entities.id"], name=op.f("fk_character_knowledge_character_id_entities")
        ),
        sa.ForeignKeyConstraint(
            ["scene_id"], ["scenes.id"], name=op.f("fk_character_knowledge_scene_id_scenes")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_character_knowledge")),
    )
    with op.batch_alter_table("character_knowledge", schema=None) as batch_op:
        batch_op.create_index(
            "ix_character_knowledge_character", ["campaign_id", "character_id"], unique=False
        )
        batch_op.create_index(
            "ix_character_knowledge_target", ["campaign_id", "target_kind", "target_id"], unique=False
        )
    op.create_table(
        "character_beliefs",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("character_id", ID, nullable=False),
        sa.Column("about_id", ID, nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("scene_id", ID, nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("recorded_by", sa.String(length=100), nullable=False),
        sa.Column("recorded_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("decided_at", canon.storage.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_character_beliefs_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(
            ["character_id"], ["entities.id"], name=op.f("fk_character_beliefs_character_id_entities")
        ),
        sa.ForeignKeyConstraint(
            ["about_id"], ["entities.id"], name=op.f("fk_character_beliefs_about_id_entities")
        ),
        sa.ForeignKeyConstraint(
            ["scene_id"], ["scenes.id"], name=op.f("fk_character_beliefs_scene_id_scenes")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_character_beliefs")),
    )
    with op.batch_alter_table("character_beliefs", schema=None) as batch_op:
        batch_op.create_index("ix_character_beliefs_character", ["campaign_id", "character_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("character_beliefs", schema=None) as batch_op:
        batch_op.drop_index("ix_character_beliefs_character")
    op.drop_table("character_beliefs")
    with op.batch_alter_table("character_knowledge", schema=None) as batch_op:
        batch_op.drop_index("ix_character_knowledge_target")
        batch_op.drop_index("ix_character_knowledge_character")
    op.drop_table("character_knowledge")
    with op.batch_alter_table("player_characters", schema=None) as batch_op:
        batch_op.drop_index("ix_player_characters_entity")
        batch_op.drop_index("ix_player_characters_member")
    op.drop_table("player_characters")
