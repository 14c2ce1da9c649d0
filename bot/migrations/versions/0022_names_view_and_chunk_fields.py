"""names view and chunk fields

`knowledge_chunks.fields`: the fields a chunk holds (stat-block lines, bold-led entries, `Label: value` lines,
definition lists, table cells), read once at import (`memory.knowledge.fields.read_fields`) and used when a
question asks one; NULL for chunks imported before, which are read when asked until a reindex fills them.

`knowledge_index_state.building_until` / `building_through`: a campaign's vectors gaining a view they lack (the
names view, `memory.embed_text`), built in the background a batch at a time: chunks up to `building_until` need
it, those up to `building_through` have it. Both NULL when nothing is being built. The vectors already there
serve searches meanwhile.

Columns are added in place (no table rebuild): the full-text triggers on `knowledge_chunks` stay as they are.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04 13:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("knowledge_chunks", sa.Column("fields", sa.JSON(), nullable=True))
    op.add_column("knowledge_index_state", sa.Column("building_until", sa.BigInteger(), nullable=True))
    op.add_column("knowledge_index_state", sa.Column("building_through", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("knowledge_index_state", schema=None) as batch_op:
        batch_op.drop_column("building_through")
        batch_op.drop_column("building_until")
    op.drop_column("knowledge_chunks", "fields")
