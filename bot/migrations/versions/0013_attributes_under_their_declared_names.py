"""attributes under their declared names

The ontology now declares each type's attributes, with other spellings as aliases (`titles` is a Person's
`title`). Existing attribute facts are renamed to the declared name of their subject's type, so that two
spellings of one attribute are read together; an attribute no type declares is kept as it is, and each campaign
that has some gets one open conflict listing them, as a note to the GM (declare them, or dismiss the note).

Downgrade removes those notes; the renamed facts keep their declared names, which older code reads as free
attribute names.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 09:00:00.000000
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

import canon.storage
from canon.ontology import base_ontology

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

NOTE_KIND = "unknown_attribute"


def upgrade() -> None:
    connection = op.get_bind()
    ontology = base_ontology()
    used = connection.execute(
        sa.text(
            "SELECT s.campaign_id, e.type, s.predicate, COUNT(*) FROM statements s "
            "JOIN entities e ON e.id = s.subject_id WHERE s.kind = 'attribute' "
            "GROUP BY s.campaign_id, e.type, s.predicate"
        )
    ).all()
    unknown: dict[int, dict[str, int]] = defaultdict(dict)
    for campaign_id, type_name, predicate, count in used:
        if type_name in ontology.entity_types:
            name, spec = ontology.attribute(type_name, predicate)
        else:  # a type of the campaign's own ontology: its attributes are its own
            name, spec = predicate, None
        if name != predicate and spec is not None:
            connection.execute(
                sa.text(
                    "UPDATE statements SET predicate = :name WHERE kind = 'attribute' AND predicate = :old "
                    "AND campaign_id = :campaign AND subject_id IN (SELECT id FROM entities WHERE type = :type)"
                ),
                {"name": name, "old": predicate, "campaign": campaign_id, "type": type_name},
            )
        elif spec is None:
            words = predicate.replace("_", " ")
            unknown[campaign_id][words] = unknown[campaign_id].get(words, 0) + count
    now = dt.datetime.now(dt.UTC)
    conflicts = sa.table(
        "conflicts",
        sa.column("campaign_id", sa.BigInteger),
        sa.column("kind", sa.String),
        sa.column("fingerprint", sa.String),
        sa.column("message", sa.Text),
        sa.column("details", sa.JSON),
        sa.column("status", sa.String),
        sa.column("first_seen_at", canon.storage.UTCDateTime(timezone=True)),
        sa.column("last_seen_at", canon.storage.UTCDateTime(timezone=True)),
    )
    for campaign_id, names in sorted(unknown.items()):
        listed = ", ".join(
            f"{name} ({count} fact{'s' if count != 1 else ''})" for name, count in sorted(names.items())
        )
        message = (
            f"Attributes the ontology does not declare, kept as they were: {listed}. Facts under them are read "
            "as before; declaring them (or another spelling) lets continuity check them."
        )
        fingerprint = hashlib.sha256(f"{NOTE_KIND}|{json.dumps(sorted(names))}".encode()).hexdigest()
        details = {"kind": NOTE_KIND, "message": message, "sides": [], "entity_ids": [], "statement_ids": []}
        op.bulk_insert(
            conflicts,
            [
                {
                    "campaign_id": campaign_id,
                    "kind": NOTE_KIND,
                    "fingerprint": fingerprint,
                    "message": message,
                    "details": details,
                    "status": "open",
                    "first_seen_at": now,
                    "last_seen_at": now,
                }
            ],
        )


def downgrade() -> None:
    op.execute(sa.text(f"DELETE FROM conflicts WHERE kind = '{NOTE_KIND}'"))
