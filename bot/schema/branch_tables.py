"""SQL table of what-if branches that has no place in the canon graph: which campaign a channel plays in.

A Discord channel, or a category (then every channel inside it that has no binding of its own), is bound to
the campaign or branch its scenes, proposals, canon lookups, NPC talk and `/lore` answers belong to. A channel
bound to nothing plays in the server's root campaign. Bindings are Discord bookkeeping, not story: deleting a
branch deletes its bindings.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from canon.storage import Base, BigIntPK, UTCDateTime, utc_now


class ChannelBindingRow(Base):
    """A channel or category bound to a campaign (usually a branch) of its server."""

    __tablename__ = "channel_bindings"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger, index=True)
    #: The channel's id, or the category's.
    channel_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    #: "channel" or "category".
    kind: Mapped[str] = mapped_column(String(10))
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    bound_by_id: Mapped[int | None] = mapped_column(BigInteger)
    bound_by_name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utc_now)
