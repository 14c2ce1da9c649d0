"""Alembic environment: runs on a connection handed over by `bot.schema.database` (never from an ini file)."""

from __future__ import annotations

from alembic import context

from bot.schema.database import include_name, metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `lorekeeper db upgrade` (bot.schema.database.upgrade)")

context.configure(
    connection=connection,
    target_metadata=metadata(),
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
    include_name=include_name,
)
with context.begin_transaction():
    context.run_migrations()
