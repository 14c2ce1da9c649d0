"""Whether anything readers are shown was written since: a mark read before a read, compared later.

`WriteMarks.mark()` returns the generation of `content_marks`, which every transaction that writes what pages
show moves as it commits, by any connection of any process (`canon.shown_writes`): canon, scenes and recaps,
edited turns, sources, notes, links. The bookkeeping of play moves nothing (the scheduler's lease, a turn logged,
the language model's usage). `mark(scene=(campaign_id, number))` adds the number of turns the campaign's scene of
that number holds: its transcript page shows them, and a turn logged moves that page's mark only.

Equal marks read at two moments mean nothing shown was committed in between, so whatever was read from the
database after the first mark still holds at the second (the mark is read before the page, so a write that
lands while the page is built leaves it kept under a mark that is already old). A cache keyed by it is never
stale, only sometimes rebuilt for nothing. A mark that cannot be read (an in-memory database, a locked file, a
lost connection, a schema before the mark's table) is None: nothing read then may be kept under it.

On SQLite the mark is read through a connection of its own that never writes (a few microseconds, in the event
loop's own thread); on PostgreSQL through the reading engine.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable
from typing import Any

from sqlalchemy import BigInteger, Integer, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Mapped, mapped_column

from canon.shown_writes import CONTENT_MARKS
from canon.storage import Base, Database

#: How long the SQLite mark waits for a lock before it gives up (no mark: nothing is kept).
SQLITE_MARK_TIMEOUT_S = 0.05
_GENERATION = f"SELECT generation FROM {CONTENT_MARKS} WHERE id = 1"
_SCENE_TURNS = (
    "SELECT count(*) FROM turns WHERE scene_id IN "
    "(SELECT id FROM scenes WHERE campaign_id = :campaign AND story_order = :number)"
)


class ContentMarkRow(Base):
    """The content mark: one row (`id` 1) whose generation moves with each commit of what readers are shown."""

    __tablename__ = CONTENT_MARKS

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    generation: Mapped[int] = mapped_column(BigInteger, default=0)


#: A scene by its campaign's id and its number in the story.
SceneNumber = tuple[int, int]


class WriteMarks:
    """The database's content mark (see the module's doc), for one `Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._connection: sqlite3.Connection | None = None
        self._path = _sqlite_file(db)

    async def mark(self, scene: SceneNumber | None = None) -> Hashable | None:
        """Return the content mark now (read it before the reads it vouches for): with `scene`, the mark of that
        scene's transcript; None when it cannot be read (keep nothing then)."""
        if self.db.is_sqlite:
            return self._sqlite_mark(scene)
        sql = _query(scene)
        try:
            async with self.db.read_engine.connect() as connection:
                row = (await connection.execute(text(sql), _params(scene))).one()
        except Exception:  # no mark: the caller reads afresh and keeps nothing
            return None
        return _value(row)

    def _sqlite_mark(self, scene: SceneNumber | None) -> Hashable | None:
        if self._path is None:
            return None
        try:
            if self._connection is None:
                self._connection = sqlite3.connect(
                    self._path,
                    timeout=SQLITE_MARK_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
            row = self._connection.execute(_query(scene), _params(scene)).fetchone()
        except sqlite3.Error:
            self.close()
            return None
        return _value(row)

    def close(self) -> None:
        """Close the SQLite connection (the next mark opens another)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _query(scene: SceneNumber | None) -> str:
    if scene is None:
        return f"SELECT ({_GENERATION})"
    return f"SELECT ({_GENERATION}), ({_SCENE_TURNS})"


def _params(scene: SceneNumber | None) -> dict[str, int]:
    return {} if scene is None else {"campaign": scene[0], "number": scene[1]}


def _value(row: Any) -> Hashable:
    generation = int(row[0] or 0)  # no row yet: nothing shown was ever written since the schema was made
    return generation if len(row) == 1 else (generation, int(row[1]))


def _sqlite_file(db: Database) -> str | None:
    """Return the SQLite database file a mark connection opens, or None (not SQLite, or in memory)."""
    if not db.is_sqlite:
        return None
    url = make_url(str(db.read_engine.url))
    database = url.database or ""
    if url.query.get("uri") or not database or database == ":memory:" or "mode=memory" in database:
        return None
    return database
