"""structured lore: yaml file records kept by version

A file's record gets a new row per changeset that writes for it (never updated in place), so that a branch
still reads the version it inherited after its parent re-imports the file: the unique key (campaign, file)
becomes (campaign, file, changeset). Existing rows are each a file's first version, as they stand.

Revision ID: 0008
Revises: 0004
Create Date: 2026-12-01 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("structured_files", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_structured_files_campaign_id_file"), type_="unique")
        batch_op.create_unique_constraint(
            batch_op.f("uq_structured_files_campaign_id_file_changeset_id"),
            ["campaign_id", "file", "changeset_id"],
        )


def downgrade() -> None:
    # One row per (campaign, file) again: each file keeps its latest version, the one re-ingest compares with.
    op.execute(
        sa.text(
            "DELETE FROM structured_files WHERE EXISTS (SELECT 1 FROM structured_files AS newer "
            "WHERE newer.campaign_id = structured_files.campaign_id AND newer.file = structured_files.file "
            "AND newer.changeset_id > structured_files.changeset_id)"
        )
    )
    with op.batch_alter_table("structured_files", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_structured_files_campaign_id_file_changeset_id"), type_="unique"
        )
        batch_op.create_unique_constraint(
            batch_op.f("uq_structured_files_campaign_id_file"), ["campaign_id", "file"]
        )
