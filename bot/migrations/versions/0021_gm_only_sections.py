"""GM-only sections of a public source

A knowledge chunk lies in a GM-only section (marked in the file, or hidden by the GM after import): the chunk's
`section_hidden`. A source counts its hidden chunks (`hidden_chunks`, so retrieval looks chunks up only for the
few sources that have any) and keeps the GM's choices of sections to hide or reveal (`section_choices`), which a
new version of the file keeps. Nothing existing changes: every chunk starts public, as it was.

The columns are added with plain ALTER TABLE (no table copy): a copy of `knowledge_chunks` on SQLite would drop
its full-text triggers.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04 12:50:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "knowledge_chunks",
        sa.Column("section_hidden", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "knowledge_sources",
        sa.Column("hidden_chunks", sa.Integer(), server_default="0", nullable=False),
    )
    op.add_column(
        "knowledge_sources",
        sa.Column("section_choices", sa.JSON(), server_default="[]", nullable=False),
    )


def downgrade() -> None:
    # SQLite (3.35+) and PostgreSQL both drop a column in place; a batch copy would drop the FTS triggers.
    op.execute("ALTER TABLE knowledge_sources DROP COLUMN section_choices")
    op.execute("ALTER TABLE knowledge_sources DROP COLUMN hidden_chunks")
    op.execute("ALTER TABLE knowledge_chunks DROP COLUMN section_hidden")
