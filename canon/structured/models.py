"""What each imported YAML file produced in a campaign's canon, so that re-importing it applies only the difference.

One row per (campaign, file name). Not canon itself (canon rows are never changed; this bookkeeping is): the
file's content hash, the last changeset that wrote for it, and two maps:

- `entries`: entry id (the YAML id, the entity's `key`) -> {"e": entity id, "f": entity fingerprint,
  "t": entity type, "l": line}
- `statements`: slot -> [statement id, fingerprint], where a slot names one fact of the file independently
  of its value (`attr|aldric|alignment`, `state|aldric|dead`, `rel|PARENT_OF|cael_vyr|aldric`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class StructuredFileRow(Base):
    """One YAML file imported into a campaign and what it produced."""

    __tablename__ = "structured_files"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    file: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(20))
    content_hash: Mapped[str] = mapped_column(String(64))
    changeset_id: Mapped[int] = mapped_column(BigInteger)
    entries: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    statements: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (UniqueConstraint("campaign_id", "file"),)
