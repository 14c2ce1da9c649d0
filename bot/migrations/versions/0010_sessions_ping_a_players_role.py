"""sessions ping a players' role

A scheduled session may name the role of its players (`/session schedule ... players:@Role`): its reminder
mentions that role, and only it. Sessions scheduled before this revision have none and ping nobody, as before.

Revision ID: 0010
Revises: 0006
Create Date: 2026-12-01 20:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ops_scheduled_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ping_role_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ops_scheduled_sessions", schema=None) as batch_op:
        batch_op.drop_column("ping_role_id")
