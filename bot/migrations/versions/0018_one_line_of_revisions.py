"""one line of revisions

The history had grown three heads (0007 what-if branches, 0009 branch settings, 0017 NPC memory fields), so
`db upgrade` reported three revisions. This revision changes nothing in the schema: it only joins the three
lines, so every later migration has one parent and a database is at exactly one revision.

Revision ID: 0018
Revises: 0007, 0009, 0017
Create Date: 2026-12-04 09:40:00.000000
"""

from __future__ import annotations

revision = "0018"
down_revision = ("0007", "0009", "0017")
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
