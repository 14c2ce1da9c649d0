"""book glossaries

`knowledge_book_glossaries`: the plain words a set of readable sources define their terms by, made at import
(and by the first question that reads another set), so that a question reads them rather than every passage
(`memory.knowledge.retrieval.book_terms`). A cache: dropping its rows loses nothing.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-06 11:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowledge_book_glossaries",
        sa.Column("readable", sa.String(length=64), nullable=False),
        sa.Column("asked_in", sa.BigInteger(), nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("made_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("readable", name=op.f("pk_knowledge_book_glossaries")),
    )
    with op.batch_alter_table("knowledge_book_glossaries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_knowledge_book_glossaries_asked_in"), ["asked_in"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("knowledge_book_glossaries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_knowledge_book_glossaries_asked_in"))
    op.drop_table("knowledge_book_glossaries")
