"""what-if branches: channel bindings

Revision ID: 0007
Revises: 0003
Create Date: 2026-11-30 07:11:19.267652
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0007"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "channel_bindings",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("campaign_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("bound_by_id", sa.BigInteger(), nullable=True),
        sa.Column("bound_by_name", sa.String(length=100), nullable=True),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_channel_bindings_campaign_id_campaigns")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_channel_bindings")),
        sa.UniqueConstraint("channel_id", name=op.f("uq_channel_bindings_channel_id")),
    )
    with op.batch_alter_table("channel_bindings", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channel_bindings_campaign_id"), ["campaign_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_channel_bindings_guild_id"), ["guild_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("channel_bindings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_channel_bindings_guild_id"))
        batch_op.drop_index(batch_op.f("ix_channel_bindings_campaign_id"))

    op.drop_table("channel_bindings")
