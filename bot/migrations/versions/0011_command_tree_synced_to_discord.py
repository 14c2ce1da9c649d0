"""command tree synced to discord

The hash of the slash-command tree last synced to Discord, per application and scope (global or one guild):
a start whose tree is unchanged makes no sync call (Discord allows 200 command creations a day per guild).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 10:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "command_syncs",
        sa.Column("scope", sa.String(length=80), nullable=False),
        sa.Column("tree_hash", sa.String(length=64), nullable=False),
        sa.Column("synced_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", name=op.f("pk_command_syncs")),
    )


def downgrade() -> None:
    op.drop_table("command_syncs")
