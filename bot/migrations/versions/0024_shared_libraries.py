"""shared libraries

A shared library holds Reference sources imported once for the whole installation (or one Discord server) and
attached read-only to many campaigns. Its sources belong to a holder campaign of its own (status `library`), so
their chunks, full-text rows and vectors exist once; `knowledge_library_attachments` says which campaign reads
which of them. Nothing existing changes: both tables start empty.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-04 13:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "knowledge_libraries",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_knowledge_libraries_campaign_id_campaigns")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_libraries")),
        sa.UniqueConstraint("campaign_id", name=op.f("uq_knowledge_libraries_campaign_id")),
        sa.UniqueConstraint("guild_id", name=op.f("uq_knowledge_libraries_guild_id")),
    )
    op.create_table(
        "knowledge_library_attachments",
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("source_id", ID, nullable=False),
        sa.Column("attached_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("attached_by", sa.String(length=100), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_knowledge_library_attachments_campaign_id_campaigns"),
        ),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["knowledge_sources.id"],
            name=op.f("fk_knowledge_library_attachments_source_id_knowledge_sources"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_library_attachments")),
        sa.UniqueConstraint(
            "campaign_id", "source_id", name=op.f("uq_knowledge_library_attachments_campaign_id_source_id")
        ),
    )
    with op.batch_alter_table("knowledge_library_attachments", schema=None) as batch_op:
        batch_op.create_index("ix_knowledge_library_attachments_source", ["source_id"], unique=False)


def downgrade() -> None:
    op.drop_table("knowledge_library_attachments")
    op.drop_table("knowledge_libraries")
