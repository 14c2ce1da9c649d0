"""SQL tables of the campaign wiki's links: the key they are signed with, and the counters that revoke them.

A link carries the generation of its person's links in its campaign and the campaign's own generation (everyone's
links) when it was made; `/wiki revoke` moves the first, a GM's revoke for everyone the second, and a link whose
numbers are not the current ones opens nothing. Kept in the database so that every process serving the wiki
agrees at once.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, UTCDateTime, utc_now

#: The person id of a campaign's own generation (every person's links at once).
EVERYONE = 0


class WikiKeyRow(Base):
    """The one key wiki links are signed with (made once, when the first link is made)."""

    __tablename__ = "wiki_keys"

    #: Always 1: the table holds one row.
    singleton: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    secret: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)


class WikiGenerationRow(Base):
    """The generation of one person's wiki links in a campaign (person `EVERYONE`: the whole campaign's; the
    negative of a person's id: their GM links only)."""

    __tablename__ = "wiki_generations"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    generation: Mapped[int] = mapped_column(Integer, default=0)
    revoked_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
