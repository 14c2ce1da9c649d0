"""Personal wiki links: signed, expiring, bound to one person and one campaign, revocable.

A link's token carries the campaign, the person, whether it is the GM's, the generations of the person's links
and of the campaign's when it was made, and when it expires, signed with HMAC-SHA256 under a key kept in the
settings or, by default, made once and kept in the database. A token is checked on every request: its signature,
its expiry, and its generations against the database's current ones (a revoke moves them, so a link revoked on
one process opens nothing on any other).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema.wiki_tables import EVERYONE, WikiGenerationRow, WikiKeyRow
from canon.campaigns import list_campaigns
from canon.storage import Database, utc_now
from config.settings import WikiSettings

__all__ = ["LinkRefused", "WikiLinks", "WikiPass", "read_token", "sign_token"]

_VERSION = "1"
_SIGNATURE_BYTES = 20


class LinkRefused(Exception):
    """A link that opens nothing: why, in words for the person holding it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


NOT_A_LINK = "This is not a working wiki link. Ask for your own with /wiki in the campaign's server."
EXPIRED = "This wiki link has expired. Ask for a new one with /wiki in the campaign's server."
REVOKED = "This wiki link was revoked. Ask for a new one with /wiki in the campaign's server."


@dataclass(frozen=True, slots=True)
class WikiPass:
    """What a valid token grants: one person's view of one campaign, until `expires` (Unix seconds)."""

    campaign_id: int
    user_id: int
    gm: bool
    user_generation: int
    campaign_generation: int
    expires: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(payload: str, key: bytes) -> bytes:
    return hmac.new(key, payload.encode("ascii"), hashlib.sha256).digest()[:_SIGNATURE_BYTES]


def sign_token(grant: WikiPass, key: bytes) -> str:
    """Return the token of a grant, signed with `key` (URL-safe: letters, digits, `-`, `_` and one `.`)."""
    fields = (
        _VERSION,
        grant.campaign_id,
        grant.user_id,
        "g" if grant.gm else "p",
        grant.user_generation,
        grant.campaign_generation,
        grant.expires,
    )
    payload = _b64(".".join(str(f) for f in fields).encode("ascii"))
    return f"{payload}.{_b64(_signature(payload, key))}"


def read_token(token: str, key: bytes, *, now: float | None = None) -> WikiPass:
    """Return the grant of a token signed with `key`, or raise `LinkRefused` (tampered, malformed, expired)."""
    if len(token) > 200 or token.count(".") != 1:
        raise LinkRefused(NOT_A_LINK)
    payload, signature = token.split(".")
    try:
        given = _unb64(signature)
        fields = _unb64(payload).decode("ascii").split(".")
    except (binascii.Error, ValueError):
        raise LinkRefused(NOT_A_LINK) from None
    if not hmac.compare_digest(given, _signature(payload, key)):
        raise LinkRefused(NOT_A_LINK)
    if len(fields) != 7 or fields[0] != _VERSION or fields[3] not in ("g", "p"):
        raise LinkRefused(NOT_A_LINK)
    try:
        campaign_id, user_id, user_gen, campaign_gen, expires = (int(fields[i]) for i in (1, 2, 4, 5, 6))
    except ValueError:
        raise LinkRefused(NOT_A_LINK) from None
    if expires <= (time.time() if now is None else now):
        raise LinkRefused(EXPIRED)
    return WikiPass(campaign_id, user_id, fields[3] == "g", user_gen, campaign_gen, expires)


def _gm_row(user_id: int) -> int:
    """The generation row of a person's GM links only (Discord ids are positive: its negative)."""
    return -user_id


async def _generations(session: AsyncSession, campaign_id: int, user_id: int, *, gm: bool) -> tuple[int, int]:
    """Return the generations a link checks: the person's (for a GM's link, plus that of their GM links: each
    only grows, so a bump of either moves the sum) and the campaign's."""
    rows = (
        await session.execute(
            select(WikiGenerationRow.user_id, WikiGenerationRow.generation).where(
                WikiGenerationRow.campaign_id == campaign_id,
                WikiGenerationRow.user_id.in_([user_id, _gm_row(user_id), EVERYONE]),
            )
        )
    ).all()
    found = {r.user_id: r.generation for r in rows}
    own = found.get(user_id, 0) + (found.get(_gm_row(user_id), 0) if gm else 0)
    return own, found.get(EVERYONE, 0)


async def _bump(session: AsyncSession, campaign_id: int, user_id: int) -> None:
    moved = await session.execute(
        update(WikiGenerationRow)
        .where(WikiGenerationRow.campaign_id == campaign_id, WikiGenerationRow.user_id == user_id)
        .values(generation=WikiGenerationRow.generation + 1, revoked_at=utc_now())
    )
    if getattr(moved, "rowcount", 0) == 0:
        session.add(WikiGenerationRow(campaign_id=campaign_id, user_id=user_id, generation=1))


class WikiLinks:
    """Make, check and revoke personal wiki links (the key and the generations live in the database)."""

    def __init__(self, db: Database, settings: WikiSettings) -> None:
        self.db = db
        self.settings = settings
        self._key: bytes | None = None
        #: Where this process serves the wiki (set by the server when no base URL is configured).
        self.served_at: str | None = None

    async def key(self) -> bytes:
        """Return the signing key: the configured secret, else the database's (made on first use)."""
        if self._key is not None:
            return self._key
        if self.settings.secret is not None:
            self._key = self.settings.secret.get_secret_value().encode("utf-8")
            return self._key

        async def read(session: AsyncSession) -> str | None:
            return (await session.execute(select(WikiKeyRow.secret))).scalar_one_or_none()

        async def make(session: AsyncSession) -> None:
            session.add(WikiKeyRow(singleton=1, secret=secrets.token_urlsafe(48)))

        secret = await self.db.run(read)
        if secret is None:
            with contextlib.suppress(IntegrityError):  # another process made it first: theirs counts
                await self.db.run(make)
            secret = await self.db.run(read)
        assert secret is not None
        self._key = secret.encode("utf-8")
        return self._key

    async def issue(self, campaign_id: int, user_id: int, *, gm: bool, now: float | None = None) -> str:
        """Return a fresh token for a person's view of a campaign (a GM's shows everything)."""
        async with self.db.session() as session:
            user_gen, campaign_gen = await _generations(session, campaign_id, user_id, gm=gm)
        expires = int((time.time() if now is None else now) + self.settings.link_days * 86_400)
        grant = WikiPass(campaign_id, user_id, gm, user_gen, campaign_gen, expires)
        return sign_token(grant, await self.key())

    def url(self, token: str) -> str:
        """Return the address a token opens: the wiki's home page for its holder."""
        base = self.settings.base_url or self.served_at or self.settings.public_url()
        return f"{base}/t/{token}/"

    async def check(self, token: str, session: AsyncSession | None = None) -> WikiPass:
        """Return the grant of a token that still works, or raise `LinkRefused` (read in `session`, the request's
        own, when given)."""
        grant = read_token(token, await self.key())
        async with contextlib.AsyncExitStack() as stack:
            if session is None:
                session = await stack.enter_async_context(self.db.session())
            user_gen, campaign_gen = await _generations(
                session, grant.campaign_id, grant.user_id, gm=grant.gm
            )
        if (grant.user_generation, grant.campaign_generation) != (user_gen, campaign_gen):
            raise LinkRefused(REVOKED)
        return grant

    async def revoke(self, campaign_id: int, user_id: int) -> None:
        """Make every link a person has to a campaign's wiki open nothing (new ones work)."""
        await self.db.run(lambda session: _bump(session, campaign_id, user_id))

    async def member_left(self, guild_id: int, user_id: int) -> None:
        """A member left the server (or was removed): every link they have to its campaigns opens nothing."""

        async def work(session: AsyncSession) -> None:
            for campaign in await list_campaigns(session, guild_id=guild_id):
                await _bump(session, campaign.id, user_id)

        await self.db.run(work)

    async def gm_role_lost(self, guild_id: int, user_id: int) -> None:
        """A member stopped being a GM of the server: their GM links to its campaigns open nothing (their
        player links still work)."""

        async def work(session: AsyncSession) -> None:
            for campaign in await list_campaigns(session, guild_id=guild_id):
                await _bump(session, campaign.id, _gm_row(user_id))

        await self.db.run(work)

    async def revoke_everyone(self, campaign_id: int) -> None:
        """Make every link anyone has to a campaign's wiki open nothing (new ones work)."""
        await self.db.run(lambda session: _bump(session, campaign_id, EVERYONE))
