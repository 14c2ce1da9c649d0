"""The installation table: the one row naming this database's installation (`bot.ops.installation`).

A table of its own, beside the operations tables (`bot.schema.ops_tables`): a cold `lorekeeper lore` reads it to
name its vector collections, and mapping the operations tables would only slow that process down.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, UTCDateTime, utc_now


class InstallationRow(Base):
    """The one row naming this database's installation (`bot.ops.installation`): Chroma collections carry it."""

    __tablename__ = "installation"

    #: Always 1: the table holds one row.
    singleton: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    installation_id: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
