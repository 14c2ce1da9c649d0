"""branches start with their parent's settings

A branch forked before this revision was given only its fork cut-offs (`settings["fork"]`), so it played with
the base ontology and the default authority policy while inheriting canon written with its parent's extension
(a Starship it could show but not write, a relation it refused). This copies into every such branch each
setting of its parent that it lacks (the parent's as it is now: the settings were never versioned, and an
ontology extension only adds, so the parent's current one holds every name of the canon the branch inherits).
A key the branch set itself is kept. Nothing to undo on downgrade: the copies are ordinary settings.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 09:00:00.000000
"""

from __future__ import annotations

import copy
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_FORK = "fork"

_campaigns = sa.table(
    "campaigns",
    sa.column("id", sa.BigInteger()),
    sa.column("parent_id", sa.BigInteger()),
    sa.column("settings", sa.JSON()),
)


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.select(_campaigns.c.id, _campaigns.c.parent_id, _campaigns.c.settings)).all()
    parent_of = {row.id: row.parent_id for row in rows}
    settings: dict[int, dict[str, Any]] = {row.id: dict(row.settings or {}) for row in rows}
    done: set[int] = set()

    def fill(campaign_id: int) -> dict[str, Any]:
        # Parents first, so a branch of a branch receives what its own parent just received.
        parent = parent_of.get(campaign_id)
        if campaign_id in done or parent is None or parent not in settings:
            done.add(campaign_id)
            return settings[campaign_id]
        done.add(campaign_id)
        inherited = fill(parent)
        own = settings[campaign_id]
        missing = {k: copy.deepcopy(v) for k, v in inherited.items() if k != _FORK and k not in own}
        if missing:
            own.update(missing)
            bind.execute(
                sa.update(_campaigns).where(_campaigns.c.id == campaign_id).values(settings=dict(own))
            )
        return own

    for campaign_id in sorted(settings):
        fill(campaign_id)


def downgrade() -> None:
    pass
