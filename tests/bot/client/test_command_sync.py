"""The synced command tree's hash, remembered once per scope however many processes sync at once."""

from __future__ import annotations

import asyncio

from bot.client.command_sync import store_hash, stored_hash
from canon.storage import Database


async def test_processes_storing_a_scopes_sync_at_once_all_succeed_and_one_hash_stays(db: Database) -> None:
    # Two bots started together both sync and both store: the second insert used to fail (a logged traceback).
    scope = "7:global"
    await asyncio.gather(*(store_hash(db, scope, digest) for digest in ("a" * 64, "b" * 64, "c" * 64)))
    assert await stored_hash(db, scope) in {"a" * 64, "b" * 64, "c" * 64}
    await store_hash(db, scope, "d" * 64)
    assert await stored_hash(db, scope) == "d" * 64
