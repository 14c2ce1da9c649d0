"""Sync the slash commands only when they changed: the hash of the serialised tree is kept in the database.

Every process used to sync the whole tree at every start; Discord counts the commands a sync creates against
200 a day per guild, and a sync of an unchanged tree is wasted work. The hash of exactly what a sync would send
(`CommandTree.sync` serialises each command with `to_dict`) is stored per application and scope once Discord
accepted it; a start with the same hash makes no call.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.schema.ops_tables import CommandSyncRow
from canon.storage import Database, utc_now

log = logging.getLogger(__name__)


def scope_key(application_id: int, guild_id: int | None) -> str:
    """Return the key a sync is stored under: the application, and global or the guild."""
    return f"{application_id}:global" if guild_id is None else f"{application_id}:guild:{guild_id}"


def tree_payload(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None
) -> list[dict[str, Any]]:
    """Return what `tree.sync(guild=guild)` sends to Discord."""
    return [command.to_dict(tree) for command in tree.get_commands(guild=guild)]


def tree_hash(payload: list[dict[str, Any]]) -> str:
    """Return a stable hash of a serialised command tree."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


async def stored_hash(db: Database, scope: str) -> str | None:
    """Return the hash of the tree last synced in a scope, if any."""
    async with db.session() as session:
        row = await session.get(CommandSyncRow, scope)
        return None if row is None else row.tree_hash


async def store_hash(db: Database, scope: str, digest: str) -> None:
    """Remember the hash of the tree Discord accepted in a scope."""

    async def work(session: AsyncSession) -> None:
        row = await session.get(CommandSyncRow, scope)
        if row is None:
            session.add(CommandSyncRow(scope=scope, tree_hash=digest, synced_at=utc_now()))
        else:
            row.tree_hash, row.synced_at = digest, utc_now()

    try:
        await db.run(work)
    except (
        IntegrityError
    ):  # another process stored its sync of the scope at the same moment: ours goes over it
        await db.run(work)


async def sync_if_changed(
    tree: app_commands.CommandTree[Any],
    db: Database,
    application_id: int,
    guild: discord.abc.Snowflake | None,
) -> int | None:
    """Sync the tree in a scope unless its hash is the one stored; return how many commands were synced."""
    scope = scope_key(application_id, None if guild is None else guild.id)
    digest = tree_hash(tree_payload(tree, guild))
    if await stored_hash(db, scope) == digest:
        log.info("the slash commands are as last synced (%s): no sync", scope)
        return None
    synced = await tree.sync(guild=guild)
    try:
        await store_hash(db, scope, digest)
    except Exception:  # the next start syncs again: wasteful, not wrong
        log.warning("could not remember the synced command tree", exc_info=True)
    return len(synced)
