"""What each imported YAML file produced in a campaign's canon, so that re-importing it applies only the difference.

One row per version: every changeset that writes for a file adds a row for it (campaign, file name, that
changeset), and no row is ever updated. A campaign reads its own latest version of a file, else the latest
one its nearest ancestor wrote at or before the fork (`canon.structured.ingest.load_records`), so a parent's
re-import never changes what a branch inherited. Not canon itself (canon rows are never changed; this is
bookkeeping about them): the file's content hash, the changeset that wrote the version, and two maps:

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
    """One version of a YAML file imported into a campaign: what it produced as of `changeset_id`."""

    __tablename__ = "structured_files"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    file: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(20))
    content_hash: Mapped[str] = mapped_column(String(64))
    changeset_id: Mapped[int] = mapped_column(BigInteger)
    entries: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    statements: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # When the version was written (the name is older than versions: no row is updated any more).
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)

    __table_args__ = (UniqueConstraint("campaign_id", "file", "changeset_id"),)
