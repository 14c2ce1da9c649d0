"""The gateway side: one ``GatewaySession`` per websocket the client opens."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import zlib
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .models import shard_of

if TYPE_CHECKING:
    from .emulator import DiscordEmulator

_log = logging.getLogger(__name__)

# Opcodes
DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE = 3
VOICE_STATE = 4
RESUME = 6
RECONNECT = 7
REQUEST_MEMBERS = 8
INVALIDATE_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

# Intents
GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
DIRECT_MESSAGES = 1 << 12
MESSAGE_CONTENT = 1 << 15
PRIVILEGED = {"members": GUILD_MEMBERS, "presences": GUILD_PRESENCES, "message_content": MESSAGE_CONTENT}


class _ZlibStream:
    """One zlib stream per connection, flushed with Z_SYNC_FLUSH after every message."""

    def __init__(self) -> None:
        self._compressor = zlib.compressobj()

    def compress(self, data: bytes) -> bytes:
        return self._compressor.compress(data) + self._compressor.flush(zlib.Z_SYNC_FLUSH)


class _ZstdStream:
    """One zstd stream per connection, each message ending a block (the client asks only if it can read it)."""

    def __init__(self) -> None:
        try:
            import zstandard

            self._compressor: Any = zstandard.ZstdCompressor().compressobj()
            self._flush_mode: Any = zstandard.COMPRESSOBJ_FLUSH_BLOCK
            self._stdlib = False
        except ImportError:
            from compression import zstd

            self._compressor = zstd.ZstdCompressor()
            self._flush_mode = zstd.ZstdCompressor.FLUSH_BLOCK
            self._stdlib = True

    def compress(self, data: bytes) -> bytes:
        block: bytes  # either library's compressor (typed Any: neither need be installed) returns bytes
        if self._stdlib:
            block = self._compressor.compress(data, mode=self._flush_mode)
        else:
            block = self._compressor.compress(data) + self._compressor.flush(self._flush_mode)
        return block


class GatewaySession:
    """A client websocket: its identify data, sequence numbers, compression and sync waiters."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None, number: int) -> None:
        self.ws = ws
        self.number = number
        self.seq = 0
        self.synced_seq = 0
        self.session_id = secrets.token_hex(16)
        self.ready = False
        self.identified = False
        self.intents = 0
        self.shard: tuple[int, int] = (0, 1)
        self.sharded = False
        self._lock = asyncio.Lock()
        self._stream: _ZlibStream | _ZstdStream | None = None
        if compress == "zlib-stream":
            self._stream = _ZlibStream()
        elif compress == "zstd-stream":
            self._stream = _ZstdStream()
        self._sync_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self.finished = asyncio.Event()
        # (event name, guild id or None) of every dispatch, for routing assertions.
        self.events: list[tuple[str, int | None]] = []

    def __repr__(self) -> str:
        return f"<GatewaySession #{self.number} shard={self.shard} ready={self.ready}>"

    @property
    def closed(self) -> bool:
        return self.ws.closed

    def has_intents(self, bits: int) -> bool:
        return self.intents & bits == bits

    def handles_guild(self, guild_id: int | None) -> bool:
        """Whether events of this guild (None: DMs, which go to shard 0) belong to this session."""
        shard_id, shard_count = self.shard
        if guild_id is None:
            return shard_id == 0
        return shard_of(guild_id, shard_count) == shard_id

    async def send(self, payload: dict[str, Any]) -> bool:
        """Send one frame; the lock keeps the compression stream in frame order. False if closed."""
        async with self._lock:
            return await self._send_locked(payload)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH with this connection's next sequence number."""
        async with self._lock:
            self.seq += 1
            guild_id = data.get("guild_id") or (data.get("id") if event == "GUILD_CREATE" else None)
            self.events.append((event, None if guild_id is None else int(guild_id)))
            await self._send_locked({"op": DISPATCH, "t": event, "s": self.seq, "d": data})

    async def _send_locked(self, payload: dict[str, Any]) -> bool:
        if self.ws.closed:
            return False
        raw = json.dumps(payload, separators=(",", ":"))
        try:
            if self._stream is None:
                await self.ws.send_str(raw)
            else:
                await self.ws.send_bytes(self._stream.compress(raw.encode()))
        except (ConnectionError, RuntimeError):
            # The client went away mid-send (a bot being stopped); its events no longer matter.
            self.ready = False
            return False
        return True

    async def sync(self, timeout: float = 10.0) -> None:
        """Wait until the client has parsed every dispatch sent so far.

        The client answers a server HEARTBEAT at once with its last sequence number, and it
        parses a dispatch right after storing that number, so an answer carrying our sequence
        proves the parse (and the handler tasks it scheduled) happened.
        """
        if self.ws.closed:
            return
        target = self.seq
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sync_waiters.append((target, fut))
        if not await self.send({"op": HEARTBEAT, "d": None}):
            return
        try:
            await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            raise AssertionError(
                f"{self!r}: the client did not answer a gateway sync within {timeout}s"
            ) from None
        self.synced_seq = max(self.synced_seq, target)

    def on_client_heartbeat(self, seq: int | None) -> None:
        remaining = []
        for target, fut in self._sync_waiters:
            if fut.done():
                continue
            if seq is not None and seq >= target:
                fut.set_result(None)
            else:
                remaining.append((target, fut))
        self._sync_waiters = remaining

    def release_waiters(self) -> None:
        """Free sync waiters of a closed connection: nothing more will be parsed."""
        for _, fut in self._sync_waiters:
            if not fut.done():
                fut.set_result(None)
        self._sync_waiters.clear()


async def handle_gateway(emu: DiscordEmulator, request: web.Request) -> web.WebSocketResponse:
    """Serve one gateway connection: HELLO, IDENTIFY/RESUME, heartbeats, member requests."""
    ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
    await ws.prepare(request)
    compress = request.query.get("compress")
    session = GatewaySession(ws, compress, number=len(emu.gateway_log) + 1)
    emu.gateway_log.append({"query": dict(request.query), "session": session})
    emu.sessions.append(session)
    try:
        await session.send({"op": HELLO, "d": {"heartbeat_interval": emu.heartbeat_interval_ms}})
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            op = frame.get("op")
            data = frame.get("d")
            if op == HEARTBEAT:
                session.on_client_heartbeat(data)
                await session.send({"op": HEARTBEAT_ACK})
            elif op == IDENTIFY:
                await _identify(emu, session, data)
            elif op == RESUME:
                await _resume(emu, session, data)
            elif op == REQUEST_MEMBERS:
                await _request_members(emu, session, data)
            elif op in (PRESENCE, VOICE_STATE):
                continue
            else:
                _log.debug("Ignoring gateway opcode %s", op)
    finally:
        session.ready = False
        session.release_waiters()
        if session.identified:
            emu.resumable.append(session)
        if session in emu.sessions:
            emu.sessions.remove(session)
        session.finished.set()
    return ws


async def _identify(emu: DiscordEmulator, session: GatewaySession, data: dict[str, Any]) -> None:
    if data.get("token") != emu.token:
        await session.ws.close(code=4004, message=b"Authentication failed.")
        return
    intents = int(data.get("intents", 0))
    for name, bit in PRIVILEGED.items():
        if intents & bit and name not in emu.privileged_intents:
            await session.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
    shard = data.get("shard")
    if shard is not None:
        shard_id, shard_count = int(shard[0]), int(shard[1])
        if not 0 <= shard_id < shard_count:
            await session.ws.close(code=4010, message=b"Invalid shard.")
            return
        session.shard = (shard_id, shard_count)
        session.sharded = True
    session.intents = intents
    session.identified = True
    emu.identify_log.append(data)
    guilds = [g for g in emu.guilds.values() if emu.bot_user.id in g.members and session.handles_guild(g.id)]
    ready: dict[str, Any] = {
        "v": 10,
        "user": {**emu.bot_user.payload(), "verified": True, "mfa_enabled": False, "email": None},
        "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
        "session_id": session.session_id,
        "session_type": "normal",
        "resume_gateway_url": emu.gateway_url,
        "application": {"id": str(emu.application_id), "flags": 0},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "geo_ordered_rtc_regions": [],
        "_trace": ["lorekeeper-emulator"],
    }
    if session.sharded:
        ready["shard"] = list(session.shard)
    await session.dispatch("READY", ready)
    for guild in guilds:
        await session.dispatch("GUILD_CREATE", emu.guild_create_payload(guild, session))
    session.ready = True


async def _resume(emu: DiscordEmulator, session: GatewaySession, data: dict[str, Any]) -> None:
    if data.get("token") != emu.token:
        await session.ws.close(code=4004, message=b"Authentication failed.")
        return
    old = next((s for s in emu.resumable if s.session_id == data.get("session_id")), None)
    if old is None:
        await session.send({"op": INVALIDATE_SESSION, "d": False})
        return
    session.session_id = old.session_id
    session.intents = old.intents
    session.shard = old.shard
    session.sharded = old.sharded
    session.seq = int(data.get("seq") or 0)
    session.identified = True
    await session.dispatch("RESUMED", {"_trace": ["lorekeeper-emulator"]})
    session.ready = True


async def _request_members(emu: DiscordEmulator, session: GatewaySession, data: dict[str, Any]) -> None:
    guild_ids = data.get("guild_id")
    if not isinstance(guild_ids, list):
        guild_ids = [guild_ids]
    for raw_id in guild_ids:
        guild = emu.guilds.get(int(raw_id))
        if guild is None:
            continue
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(u) for u in user_ids}
            members = [m for m in members if m.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.name.lower().startswith(query.lower())]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)
