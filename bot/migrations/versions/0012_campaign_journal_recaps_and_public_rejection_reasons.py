"""campaign journal: recaps, and public rejection reasons

Each completed scene's recap is kept in the campaign journal (`journal_entries`, one per scene), for
"previously on…" and the campaign's export. A rejected proposal's rationale is private unless the GM chose to
show it (`proposals.rationale_public`); every existing rationale stays private.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 12:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "journal_entries",
        sa.Column("scene_id", _ID, nullable=False),
        sa.Column("campaign_id", _ID, nullable=False),
        sa.Column("story_order", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True),
        sa.Column("method", sa.String(length=20), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("present", sa.JSON(), nullable=False),
        sa.Column("cited", sa.JSON(), nullable=False),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_journal_entries_campaign_id_campaigns")
        ),
        sa.ForeignKeyConstraint(["scene_id"], ["scenes.id"], name=op.f("fk_journal_entries_scene_id_scenes")),
        sa.PrimaryKeyConstraint("scene_id", name=op.f("pk_journal_entries")),
    )
    with op.batch_alter_table("journal_entries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_journal_entries_campaign_id"), ["campaign_id"], unique=False)
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        # Existing rationales become private: a GM who wants one shown can say so on a new decision.
        batch_op.add_column(
            sa.Column("rationale_public", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.drop_column("rationale_public")
    with op.batch_alter_table("journal_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_journal_entries_campaign_id"))
    op.drop_table("journal_entries")
