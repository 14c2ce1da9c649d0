"""chunk places

`knowledge_chunks.place`: where a chunk's text is in the book it came from: "p. 112" (or "pp. 112–113") for a
PDF's page, "ch. 3" for an EPUB's chapter; NULL for Markdown, text, DOCX and HTML sources, whose places are their
sections (the heading path). Citations read "Basic Rules, p. 112 (Combat › Cover)".

Added in place (no table rebuild): the full-text triggers on `knowledge_chunks` stay as they are.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04 13:15:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("knowledge_chunks", sa.Column("place", sa.String(length=40), nullable=True))


def downgrade() -> None:
    op.drop_column("knowledge_chunks", "place")
