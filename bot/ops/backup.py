"""Online backups of the SQLite database with SQLite's backup API, retention, and a verified restore.

A live SQLite file in WAL mode is never copied as a file: the newest pages may still be in the `-wal` file, and
a copy taken mid-checkpoint is torn. `sqlite3.Connection.backup` reads a consistent snapshot through SQLite
itself while the bot keeps writing (WAL readers do not block the writer).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import sqlite3
from pathlib import Path

from config.settings import Settings

PREFIX = "lorekeeper-"
SUFFIX = ".sqlite3"
LOCK_FILE = "lorekeeper.lock"
REQUIRED_TABLES = {"alembic_version", "campaigns", "scenes", "turns"}


class BackupError(Exception):
    """A backup or restore was refused or failed; `str()` says why, for a person."""


def backup_dir(settings: Settings) -> Path:
    """Return the folder backups go to (created)."""
    folder = settings.ops.backup_dir or settings.data_dir / "backups"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sqlite_path(settings: Settings) -> Path | None:
    """Return the SQLite file of the configured database, or None when it is PostgreSQL."""
    url = settings.resolved_database_url
    if not url.startswith("sqlite"):
        return None
    return Path(url.split(":///", 1)[1])


def copy_database(source: Path, target: Path) -> None:
    """Copy a SQLite database through the backup API (consistent even while another process writes)."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    try:
        dst = sqlite3.connect(target, timeout=30)
        try:
            with dst:
                src.backup(dst)  # all pages in one step: a WAL reader's snapshot, never restarted by writes
            check = dst.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise BackupError(f"the copy at {target} failed its integrity check: {check}")
        finally:
            dst.close()
    finally:
        src.close()


def backup_to(database: Path, folder: Path, *, now: dt.datetime | None = None) -> Path:
    """Write a timestamped backup of `database` into `folder` and return its path."""
    if not database.exists():
        raise BackupError(f"there is no database at {database}")
    moment = (now or dt.datetime.now(dt.UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    target = folder / f"{PREFIX}{moment}{SUFFIX}"
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    copy_database(database, partial)
    partial.replace(target)  # a backup is either complete under its name or absent
    return target


def backup_file(database: Path, target: Path) -> Path:
    """Write a backup of `database` to exactly `target` (refusing to overwrite the database itself)."""
    if target.resolve() == database.resolve():
        raise BackupError("the backup file cannot be the database itself")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    copy_database(database, partial)
    partial.replace(target)
    return target


def backups(folder: Path) -> list[Path]:
    """Return the backups in a folder, oldest first."""
    return sorted(folder.glob(f"{PREFIX}*{SUFFIX}"))


def prune(folder: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` backups; return the removed ones."""
    existing = backups(folder)
    removed = existing[: max(0, len(existing) - keep)]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def inspect_backup(path: Path) -> set[str]:
    """Return the migration revisions of a Lorekeeper database file, or raise `BackupError` saying what it is not."""
    from bot.schema.database import head_revisions, known_revisions

    if not path.is_file():
        raise BackupError(f"{path} does not exist")
    with path.open("rb") as file:
        if file.read(16) != b"SQLite format 3\x00":
            raise BackupError(f"{path} is not a SQLite database")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            missing = REQUIRED_TABLES - tables
            if missing:
                raise BackupError(
                    f"{path} is a SQLite database but not Lorekeeper's (no {', '.join(sorted(missing))} table)"
                )
            revisions = {r[0] for r in conn.execute("SELECT version_num FROM alembic_version")}
            check = conn.execute("PRAGMA quick_check").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} cannot be read as a database: {error}") from None
    if check is None or check[0] != "ok":
        raise BackupError(f"{path} is damaged: {check}")
    unknown = revisions - known_revisions()
    if not revisions or unknown:
        raise BackupError(
            f"{path} is at revision {', '.join(sorted(revisions)) or 'none'}, which this version of Lorekeeper "
            f"does not know (it knows up to {', '.join(sorted(head_revisions()))}); use a matching version"
        )
    return revisions


class RunLock:
    """An exclusive lock on `data_dir/lorekeeper.lock`: held by the running bot, and by a restore while it runs.

    A kernel lock (`flock`), not a pid file: under Docker the bot and a `lorekeeper restore` started in another
    container are both PID 1, and a pid file left by a crash names whichever process has that number now. The
    lock goes with the process that holds it, however that ends, and every container sharing the data
    volume sees it.
    """

    def __init__(self, data_dir: Path) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.path = data_dir / LOCK_FILE
        self._file = self.path.open("a+")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise BackupError(
                f"the bot (or a restore) is running on {data_dir}: it holds {self.path}; stop it first"
            ) from None

    def release(self) -> None:
        """Let go of the lock (closing the file releases it)."""
        if not self._file.closed:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def restore(settings: Settings, source: Path, *, force: bool = False) -> tuple[set[str], Path | None]:
    """Replace the SQLite database with a verified backup; return its revisions and where the old one went.

    Refuses while a bot runs on this data directory, and refuses to overwrite an existing database without
    `force` (the old one is then kept as a backup first).
    """
    database = sqlite_path(settings)
    if database is None:
        raise BackupError("restore works on the SQLite database only; for PostgreSQL use pg_restore")
    with RunLock(settings.data_dir):  # refused while a bot runs; and no bot starts until it is done
        return _restore(settings, database, source, force=force)


def _restore(
    settings: Settings, database: Path, source: Path, *, force: bool
) -> tuple[set[str], Path | None]:
    revisions = inspect_backup(source)
    if source.resolve() == database.resolve():
        raise BackupError("that file is the database itself")
    saved: Path | None = None
    shown_before = _content_generation(database) if database.exists() else 0
    if database.exists():
        if not force:
            raise BackupError(
                f"a database already exists at {database}; pass --force to replace it "
                "(it is kept as a backup first)"
            )
        saved = backup_to(database, backup_dir(settings))
    database.parent.mkdir(parents=True, exist_ok=True)
    # Through the backup API, so a stale -wal beside the old file can never be replayed onto the new one.
    dst = sqlite3.connect(database, timeout=30)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            with dst:
                src.backup(dst)
        finally:
            src.close()
        _move_content_mark_past(dst, shown_before)
        dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        dst.close()
    return revisions, saved


def _content_generation(database: Path) -> int:
    """Return the database's content mark (`canon.write_marks`), 0 when it has none (no such table yet)."""
    try:
        connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            row = connection.execute("SELECT generation FROM content_marks WHERE id = 1").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return 0
    return int(row[0]) if row else 0


def _move_content_mark_past(connection: sqlite3.Connection, generation: int) -> None:
    """Set the restored database's content mark past both its own and the replaced one's: a wiki process still
    serving keeps no page of the old database under a mark the restored one could show again."""
    found = connection.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'content_marks'"
    ).fetchone()[0]
    if found:  # a backup from before the mark: its migration makes one
        with connection:
            connection.execute(
                "UPDATE content_marks SET generation = max(generation, ?) + 1 WHERE id = 1", (generation,)
            )
