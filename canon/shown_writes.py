"""The content mark moved by every transaction that writes what readers are shown, in that same transaction.

Pages built from the database (the campaign wiki's) are kept while nothing they read has changed. What they read
is nearly everything: canon (entities, statements, relations, evidence, retcons, reveals and what characters
know), scenes and their recaps, edited or deleted turns, imported sources, notes and conflicts, links and their
revocations. What they never read is the bookkeeping of play: the scheduler's lease and jobs, the language model's
usage, lookups recorded, NPCs' memories, narrations, proposals waiting for review, review cards. And one thing is
read by a single page only: the turns of a scene, shown on that scene's transcript page, which counts them
itself (`canon.write_marks`): a turn logged moves no mark here.

`track(engine)` watches every statement an engine sends: a transaction that writes a table outside `NOT_SHOWN`
(or a statement whose table cannot be told, to be safe) bumps the one row of `content_marks` just before it
commits, inside the same transaction: the mark and the change it stands for are committed together, or neither
is, by whichever process wrote them. No repository calls anything: a writer cannot forget the mark. A
transaction rolled back bumps nothing, nor do writes undone by rolling back to a savepoint (a proposal's
warnings are found by writing it in one and rolling it back).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

#: The table of the mark (one row, `id` 1): its generation moves with every transaction that writes what is shown.
CONTENT_MARKS = "content_marks"
#: Tables whose writes no page reads (bookkeeping, play not yet reviewed, the mark itself).
NOT_SHOWN = frozenset(
    {
        CONTENT_MARKS,
        "ops_leases",
        "apscheduler_jobs",
        "ops_scheduled_sessions",
        "ops_idle_reminders",
        "ops_guild_settings",
        "ops_user_timezones",
        "command_syncs",
        "installation",
        "llm_usage",
        "knowledge_retrievals",
        "knowledge_book_glossaries",
        "knowledge_index_state",
        "narrations",
        "npc_memories",
        "scene_digests",
        "scene_cast",
        "proposals",
        "review_cards",
        "turn_revisions",
    }
)
#: Tables whose new rows move no mark here: a scene's page counts its own turns. Edits and deletions do move it.
COUNTED_ON_THEIR_PAGE = frozenset({"turns"})

BUMP = (
    f"INSERT INTO {CONTENT_MARKS} (id, generation) VALUES (1, 1) "
    f"ON CONFLICT (id) DO UPDATE SET generation = {CONTENT_MARKS}.generation + 1"
)
# A schema older than the mark's table (a migration on its way, a downgrade) has nothing to bump: asked for in
# the transaction itself, as the table may be made or dropped by it.
_SQLITE_HAS_MARKS = f"SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '{CONTENT_MARKS}'"
_PG_BUMP = f"DO $$ BEGIN IF to_regclass('{CONTENT_MARKS}') IS NOT NULL THEN {BUMP}; END IF; END $$"
_PENDING = "lorekeeper.content_written"
#: The savepoints open in the transaction, each with whether what is shown was written before it.
_SAVEPOINTS = "lorekeeper.content_savepoints"

_READS = re.compile(
    r"\s*(SELECT|PRAGMA|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|SET|SHOW|EXPLAIN|VALUES)\b", re.I
)
_WRITE = re.compile(
    r"(INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)"
    r"\s+(?:ONLY\s+)?(?:\"?\w+\"?\.)?\"?(\w+)\"?",
    re.I,
)
_WITH = re.compile(r"\s*WITH\b", re.I)
_CHANGES_ON_CONFLICT = re.compile(r"\bDO\s+UPDATE\b", re.I)
#: What a statement writes: None (nothing), or the table and whether it inserts.
Written = tuple[str, bool] | None
#: A write whose table cannot be told (DDL, an unusual statement): counted as shown.
UNKNOWN: Written = ("", False)


@functools.lru_cache(maxsize=4096)
def written_by(statement: str) -> Written:
    """Return the table a statement writes and whether it inserts, None when it writes nothing, or `UNKNOWN`."""
    if _READS.match(statement):
        return None
    if _WITH.match(statement):  # a common table expression before a read, or before a write
        found = _WRITE.search(statement)
        return None if found is None else _written(found)
    found = _WRITE.match(statement.lstrip())
    return UNKNOWN if found is None else _written(found)


def _written(found: re.Match[str]) -> Written:
    """Return the table a write names, and whether it only adds rows (an upsert or a REPLACE may change one)."""
    verb = " ".join(found.group(1).upper().split())
    adds = verb == "INSERT INTO" and _CHANGES_ON_CONFLICT.search(found.string, found.end()) is None
    return found.group(2).lower(), adds


def moves_mark(written: Written) -> bool:
    """Return whether a statement's write changes what pages show."""
    if written is None:
        return False
    table, inserts = written
    if table in NOT_SHOWN:
        return False
    return not (inserts and table in COUNTED_ON_THEIR_PAGE)


def _begin(connection: Any) -> None:
    connection.info.pop(_PENDING, None)
    connection.info.pop(_SAVEPOINTS, None)


def _rollback_savepoint(connection: Any, name: str, context: Any) -> None:
    # What was written since the savepoint is undone: the transaction shows only what it wrote before it.
    if connection.invalidated:
        return
    marks = connection.info.get(_SAVEPOINTS) or []
    while marks:
        saved, pending = marks[-1]
        if saved == name:  # the savepoint stays, as in SQL; those opened after it are gone
            if pending is None:
                connection.info.pop(_PENDING, None)
            else:
                connection.info[_PENDING] = pending
            return
        marks.pop()


def _release_savepoint(connection: Any, name: str, context: Any) -> None:
    if connection.invalidated:
        return
    marks = connection.info.get(_SAVEPOINTS) or []
    while marks and marks.pop()[0] != name:
        pass


def _statement(
    connection: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
) -> None:
    if moves_mark(written_by(statement)):  # a read costs one lookup of its (cached) text
        connection.info[_PENDING] = True
    elif statement.startswith("SAVEPOINT "):  # its name is told only here (the event comes before it has one)
        savepoint = statement.split()[1]
        connection.info.setdefault(_SAVEPOINTS, []).append((savepoint, connection.info.get(_PENDING)))


def _commit(connection: Any) -> None:
    connection.info.pop(_SAVEPOINTS, None)
    if connection.info.pop(_PENDING, None) is None:
        return
    # The driver's own cursor: inside the transaction being committed, outside SQLAlchemy's bookkeeping of it.
    cursor = connection.connection.cursor()
    try:
        if connection.dialect.name != "sqlite":
            cursor.execute(_PG_BUMP)
            return
        cursor.execute(_SQLITE_HAS_MARKS)
        if cursor.fetchone()[0]:
            cursor.execute(BUMP)
    finally:
        cursor.close()


def _rollback(connection: Any) -> None:
    # A connection the server dropped is rolled back as it is invalidated: its `info` cannot be read then
    # (SQLAlchemy raises), and goes with the driver's connection it belonged to.
    if not connection.invalidated:
        connection.info.pop(_PENDING, None)
        connection.info.pop(_SAVEPOINTS, None)


def track(engine: AsyncEngine) -> None:
    """Make every transaction of `engine` that writes what is shown bump the content mark as it commits."""
    sync = engine.sync_engine
    if event.contains(sync, "commit", _commit):
        return
    event.listen(sync, "begin", _begin)
    event.listen(sync, "before_cursor_execute", _statement)
    event.listen(sync, "commit", _commit)
    event.listen(sync, "rollback", _rollback)
    event.listen(sync, "rollback_savepoint", _rollback_savepoint)
    event.listen(sync, "release_savepoint", _release_savepoint)
