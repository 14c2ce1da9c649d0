"""npc memory categories metadata private

NPC memories gain categories, metadata (key -> value), a private flag (the GM's alone) and the time of their
last edit. Existing memories carry forward with no category, no metadata, not private, never edited.

Revision ID: 0017
Revises: 0016, 0005
Create Date: 2026-12-03 09:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0017"
# Also after 0005, which made npc_memories on its own line of revisions: this one joins the two lines.
down_revision = ("0016", "0005")
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("npc_memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("categories", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("meta", sa.JSON(), nullable=False, server_default="{}"))
        batch_op.add_column(sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("updated_at", canon.storage.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("npc_memories", schema=None) as batch_op:
        batch_op.drop_column("updated_at")
        batch_op.drop_column("private")
        batch_op.drop_column("meta")
        batch_op.drop_column("categories")
