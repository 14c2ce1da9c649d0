"""content marks

`content_marks`: one row whose generation every transaction that writes what readers are shown moves as it
commits (`canon.shown_writes`); the campaign wiki keeps its pages while it stands still.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04 18:20:00.000000
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    marks = op.create_table(
        "content_marks",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_content_marks")),
    )
    # A random start: a database made afresh (or restored from before the mark) never shows a mark a process
    # serving the wiki saw on the database it replaced.
    op.bulk_insert(marks, [{"id": 1, "generation": secrets.randbits(40)}])


def downgrade() -> None:
    op.drop_table("content_marks")
