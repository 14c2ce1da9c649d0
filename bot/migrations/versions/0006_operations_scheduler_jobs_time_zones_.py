"""operations: scheduler jobs, time zones, scheduled sessions

Revision ID: 0006
Revises: 0003
Create Date: 2026-11-30 05:39:02.031837
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import canon.storage

revision = "0006"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "apscheduler_jobs",
        sa.Column("id", sa.Unicode(length=191), nullable=False),
        sa.Column("next_run_time", sa.Float(precision=25), nullable=True),
        sa.Column("job_state", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_apscheduler_jobs")),
    )
    with op.batch_alter_table("apscheduler_jobs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_apscheduler_jobs_next_run_time"), ["next_run_time"], unique=False
        )

    op.create_table(
        "ops_guild_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=True),
        sa.Column("gm_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("idle_minutes", sa.Integer(), nullable=True),
        sa.Column("updated_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_ops_guild_settings")),
    )
    op.create_table(
        "ops_scheduled_sessions",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("starts_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("repeat", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_by_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("reminded_for", canon.storage.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ops_scheduled_sessions")),
    )
    with op.batch_alter_table("ops_scheduled_sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ops_scheduled_sessions_guild_id"), ["guild_id"], unique=False)

    op.create_table(
        "ops_user_timezones",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("updated_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_ops_user_timezones")),
    )
    op.create_table(
        "ops_idle_reminders",
        sa.Column(
            "scene_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("activity_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.Column("reminded_at", canon.storage.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["scene_id"], ["scenes.id"], name=op.f("fk_ops_idle_reminders_scene_id_scenes")
        ),
        sa.PrimaryKeyConstraint("scene_id", name=op.f("pk_ops_idle_reminders")),
    )


def downgrade() -> None:
    op.drop_table("ops_idle_reminders")
    op.drop_table("ops_user_timezones")
    with op.batch_alter_table("ops_scheduled_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ops_scheduled_sessions_guild_id"))

    op.drop_table("ops_scheduled_sessions")
    op.drop_table("ops_guild_settings")
    with op.batch_alter_table("apscheduler_jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_apscheduler_jobs_next_run_time"))

    op.drop_table("apscheduler_jobs")
