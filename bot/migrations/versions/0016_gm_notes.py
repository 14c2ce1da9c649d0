"""gm notes

The GM's notes (text, tags, the scene they are about, a done flag) and the canon entities each is about.
Nothing existing changes: the tables start empty.

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-03 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0016"
down_revision = "0014"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "gm_notes",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tags", sa.Text(), nullable=False),
        sa.Column("scene_id", ID, nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.Column("author_id", sa.BigInteger(), nullable=True),
        sa.Column("author_name", sa.String(length=100), nullable=False),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("done_at", canon.storage.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_gm_notes_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(["scene_id"], ["scenes.id"], name=op.f("fk_gm_notes_scene_id_scenes")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_gm_notes")),
    )
    with op.batch_alter_table("gm_notes", schema=None) as batch_op:
        batch_op.create_index("ix_gm_notes_campaign_done", ["campaign_id", "done"], unique=False)
    op.create_table(
        "gm_note_entities",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("note_id", ID, nullable=False),
        sa.Column("entity_id", ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_gm_note_entities_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(
            ["note_id"], ["gm_notes.id"], name=op.f("fk_gm_note_entities_note_id_gm_notes")
        ),
        sa.ForeignKeyConstraint(
            ["entity_id"], ["entities.id"], name=op.f("fk_gm_note_entities_entity_id_entities")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_gm_note_entities")),
    )
    with op.batch_alter_table("gm_note_entities", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_gm_note_entities_note_id"), ["note_id"], unique=False)
        batch_op.create_index(
            "ix_gm_note_entities_campaign_entity", ["campaign_id", "entity_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("gm_note_entities", schema=None) as batch_op:
        batch_op.drop_index("ix_gm_note_entities_campaign_entity")
        batch_op.drop_index(batch_op.f("ix_gm_note_entities_note_id"))
    op.drop_table("gm_note_entities")
    with op.batch_alter_table("gm_notes", schema=None) as batch_op:
        batch_op.drop_index("ix_gm_notes_campaign_done")
    op.drop_table("gm_notes")
