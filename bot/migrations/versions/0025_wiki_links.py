"""wiki links

`wiki_keys`: the one key the campaign wiki's personal links are signed with (made on first use, not here, so a
copied empty schema gets its own). `wiki_generations`: per campaign and person (person 0: everyone), the
generation of their links; revoking moves it, and older links open nothing.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-04 13:10:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "wiki_keys",
        sa.Column("singleton", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("singleton", name=op.f("pk_wiki_keys")),
    )
    op.create_table(
        "wiki_generations",
        sa.Column("campaign_id", ID, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("revoked_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaigns.id"], name=op.f("fk_wiki_generations_campaign_id_campaigns")
        ),
        sa.PrimaryKeyConstraint("campaign_id", "user_id", name=op.f("pk_wiki_generations")),
    )


def downgrade() -> None:
    op.drop_table("wiki_generations")
    op.drop_table("wiki_keys")
