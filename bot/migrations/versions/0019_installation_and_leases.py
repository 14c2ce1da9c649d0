"""installation and leases

`installation`: one row naming this database's installation (a random id made on first use, not here, so a
copied empty schema gets its own). Chroma collections carry it in their names, so two databases sharing one
Chroma server never write into each other's collections.

`ops_leases`: a named lease (the scheduler's) held by one process until it expires; every process renews or
takes it through the database, so any number of processes run exactly one scheduler.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04 09:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "installation",
        sa.Column("singleton", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("installation_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("singleton", name=op.f("pk_installation")),
    )
    op.create_table(
        "ops_leases",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=False),
        sa.Column("acquired_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_ops_leases")),
    )


def downgrade() -> None:
    op.drop_table("ops_leases")
    op.drop_table("installation")
