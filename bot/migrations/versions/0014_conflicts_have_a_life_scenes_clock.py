"""conflicts have a life; scenes on the story's clock

A recorded conflict is open until it is resolved (by a retcon, an accepted change, or the GM's rationale) or
dismissed (with a reason; the same facts never raise it again). Each closed one keeps how it was closed, when
and by whom. Existing conflicts keep their status (open, or accepted with the GM's rationale).

A scene has an in-world date (canonical text and world key) and, when its location names an entity, that
entity. Existing scenes get no date and no place entity: their facts stay dated as they were.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 09:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("conflicts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("resolution", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("closed_at", canon.storage.UTCDateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("closed_by", sa.String(length=100), nullable=True))
    with op.batch_alter_table("scenes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("world_date", sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column("world_key", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("location_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("scenes", schema=None) as batch_op:
        batch_op.drop_column("location_id")
        batch_op.drop_column("world_key")
        batch_op.drop_column("world_date")
    # An older version knows open, accepted and resolved: a dismissed conflict reads as resolved there.
    op.execute(sa.text("UPDATE conflicts SET status = 'resolved' WHERE status = 'dismissed'"))
    with op.batch_alter_table("conflicts", schema=None) as batch_op:
        batch_op.drop_column("closed_by")
        batch_op.drop_column("closed_at")
        batch_op.drop_column("resolution")
