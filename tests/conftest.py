"""Shared fixtures: a migrated database on a real SQLite file and, when configured, on PostgreSQL.

A test about SQLite itself (its files, backups, WAL, pragmas), or an expensive one whose SQL another test already
runs on both databases, says so with `@pytest.mark.sqlite_only(reason=...)`: on `db_target` it then runs on
SQLite only. A flow through Discord or the command line whose every PostgreSQL statement another test runs there
says so with `sql_run_below(...)`.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import typer
import typer.testing
from sqlalchemy import event
from sqlalchemy.engine import Engine
from typer.main import get_command

from canon.storage import Database, is_sqlite
from config.settings import Settings
from tests.helpers.db_templates import TEMPLATES
from tests.helpers.paths import SHARED
from tests.helpers.s3_server import s3_server  # noqa: F401 - the session-wide S3 server fixture
from tests.helpers.tesseract import remembering_tesseract

# pytest keeps each test module's rewritten asserts in __pycache__ and reads them back next run, but writes
# nothing where bytecode caches are turned off (PYTHONDONTWRITEBYTECODE): then each worker rewrote every module
# on every run, half of its collection. The caches are ignored by git, and scripts/setup writes them anyway.
sys.dont_write_bytecode = False

POSTGRES_URL = os.environ.get("LOREKEEPER_TEST_POSTGRES_URL")
SRD = SHARED / "corpora" / "srd"


@event.listens_for(Engine, "do_connect")
def _commit_without_waiting_for_the_disk(
    dialect: Any, _record: Any, _args: Any, params: dict[str, Any]
) -> None:
    """Every PostgreSQL connection a test process opens commits without waiting for the server's disk.

    A commit is seen by every other connection at once either way; only a crash of the server itself could lose
    the last ones, which no test does (a test kills the bot, never the server). SQLite runs with the same
    durability (WAL, `synchronous=NORMAL`: no flush per commit). Waiting for the flush cost each of the suite's
    tens of thousands of PostgreSQL commits milliseconds of a worker's time, longer on a busy disk.
    """
    if dialect.name != "postgresql":
        return
    if dialect.driver == "asyncpg":
        params["server_settings"] = {**(params.get("server_settings") or {}), "synchronous_commit": "off"}
    else:  # psycopg (the job store): libpq's options
        params["options"] = f"{params.get('options', '')} -c synchronous_commit=off".strip()


_built: dict[int, tuple[object, Any]] = {}


def _command_built_once(app: typer.Typer) -> Any:
    """The command line's click command, built from the Typer app once per process (typer's `CliRunner` built it
    anew, from every function's signature, for each of the suite's ~1,000 in-process invocations: 70 ms each).

    The app is not changed after its import; if one were (a command or group added), it is built again.
    """
    shape = (len(app.registered_commands), len(app.registered_groups), app.registered_callback)
    built = _built.get(id(app))
    if built is None or built[0] != shape:
        built = _built[id(app)] = (shape, get_command(app))
    return built[1]


typer.testing._get_command = _command_built_once  # type: ignore[attr-defined,assignment]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): about SQLite itself (files, WAL, pragmas), or its SQL is run on both elsewhere;"
        " never run on PostgreSQL",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None and not marker.kwargs.get("reason"):
            raise pytest.UsageError(f"{item.nodeid}: sqlite_only needs a reason= (why SQLite only)")


def sql_run_below(*tests: str) -> pytest.MarkDecorator:
    """`sqlite_only` for a flow through Discord or the command line whose SQL is not its own: each statement it
    runs on PostgreSQL is run there by a test that stays on both (the most of them by `tests`, named in the
    reason). A flow with PostgreSQL's own behaviour (writers side by side, races, two processes, locks,
    migrations) or a statement no other test runs there stays on both.

    Checked by recording each test's PostgreSQL statements (`tests/helpers/sql_record.py`): while it records,
    the flow runs on both and is known by the fixture `_sql_run_below`.
    """
    if os.environ.get("LOREKEEPER_SQL_RECORD"):
        return pytest.mark.usefixtures("_sql_run_below")
    return pytest.mark.sqlite_only(
        reason=f"each statement it runs on PostgreSQL is run there by tests kept on both, the most by "
        f"{' and '.join(tests)}"
    )


@pytest.fixture
def _sql_run_below() -> None:
    """Name a flow marked `sql_run_below` while `tests/helpers/sql_record.py` records (see there)."""


def require_shared(path: Path) -> Path:
    """Return a path under ../shared, or skip the test with a clear message when it is absent."""
    if not path.exists():
        pytest.skip(
            f"shared material not found at {path} (tests read ../shared in place; it is not in the repo)"
        )
    return path


@pytest.fixture(scope="session", autouse=True)
def _worker_processes_stopped() -> Iterator[None]:
    """Keep the worker process (`canon.offload`) from one bot of the session to the next (each would start it
    again and load the model in it), and stop it at the end, before the interpreter's teardown."""
    from canon import offload

    offload.keep_workers()
    yield
    offload.keep_workers(False)
    offload.shutdown()


@pytest.fixture(scope="session", autouse=True)
def _tesseract_remembers_what_it_read(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Put `tests.helpers.tesseract.remembering_tesseract` first on PATH for this process and the programs it starts
    (where Tesseract is installed): a picture already read in this run is answered as it was read."""
    real = shutil.which("tesseract")
    if real is None:
        yield
        return
    own = tmp_path_factory.getbasetemp()
    run = own.parent if os.environ.get("PYTEST_XDIST_WORKER") else own  # shared by the run's workers
    folder = own / "tesseract"
    remembering_tesseract(folder, run / "tesseract-read", real)
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{folder}{os.pathsep}{path}"
    try:
        yield
    finally:
        os.environ["PATH"] = path


@pytest.fixture(autouse=True)
def _embedded_indexes_back_in_process() -> Iterator[None]:
    """Put the embedded index's switch back after a test that turned it on, and stop the children it started.

    `lorekeeper run` turns it on for the rest of its process (`memory.chroma_apart.keep_apart`); left on, every
    later test of the worker opening an embedded Chroma index started a child process for it (seconds each,
    never stopped), and the next test closing them all waited for every one.
    """
    from memory import chroma_apart

    yield
    if chroma_apart.kept_apart():
        chroma_apart.keep_apart(False)
        chroma_apart.close_all()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for a test: data in tmp_path, no token, no LLM, embedded defaults."""
    return Settings(_env_file=None, data_dir=tmp_path / "data", gm_role="GM")  # type: ignore[call-arg]


@dataclass(frozen=True)
class DatabaseTarget:
    """Where a test database lives; `open()` returns a new `Database` on it (a restarted bot opens its own)."""

    url: str
    search_path: str | None = None

    @property
    def is_sqlite(self) -> bool:
        return is_sqlite(self.url)

    @property
    def database_url(self) -> str:
        """The URL as the app's settings take it (LOREKEEPER_DATABASE_URL): it names the schema, if any."""
        if self.search_path is None:
            return self.url
        return f"{self.url}{'&' if '?' in self.url else '?'}search_path={quote(self.search_path)}"

    def open(self) -> Database:
        return Database.from_url(self.url, search_path=self.search_path)


async def make_target(kind: str, tmp_path: Path, *, migrate: bool = True) -> DatabaseTarget:
    """Create an empty database of a kind, migrated unless told not; for PostgreSQL, in a fresh schema.

    A migrated database is a copy of what the migrations made once in this process (`tests/helpers/db_templates.py`).
    """
    if kind == "sqlite":
        path = tmp_path / "lorekeeper-test.sqlite3"
        if migrate:
            await TEMPLATES.copy_sqlite(path)
        return DatabaseTarget(f"sqlite+aiosqlite:///{path}")
    if not POSTGRES_URL:
        pytest.skip(
            "PostgreSQL tests need LOREKEEPER_TEST_POSTGRES_URL (.ci/run sets it when 127.0.0.1:5432 answers)"
        )
    return DatabaseTarget(POSTGRES_URL, await TEMPLATES.create_postgres(POSTGRES_URL, migrated=migrate))


async def drop_target(target: DatabaseTarget) -> None:
    """Drop a test database's PostgreSQL schema (SQLite files go with tmp_path)."""
    if target.search_path and POSTGRES_URL:
        await TEMPLATES.drop_postgres(POSTGRES_URL, target.search_path)


def pytest_sessionfinish(session: pytest.Session) -> None:
    asyncio.run(TEMPLATES.drop_all())
    worlds = sys.modules.get("tests.helpers.valdorn")  # imported by the tests that use it (it loads the bot)
    if worlds is not None:
        worlds.VALDORN.remove()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


async def _target(
    request: pytest.FixtureRequest, tmp_path: Path, *, migrate: bool
) -> AsyncIterator[DatabaseTarget]:
    sqlite_only = request.node.get_closest_marker("sqlite_only")
    if sqlite_only is not None and request.param != "sqlite":
        pytest.skip(f"SQLite only: {sqlite_only.kwargs['reason']}")
    target = await make_target(request.param, tmp_path, migrate=migrate)
    try:
        yield target
    finally:
        await drop_target(target)


@pytest.fixture(params=BACKENDS)
async def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DatabaseTarget]:
    """A migrated, empty database: a SQLite file, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set."""
    async for target in _target(request, tmp_path, migrate=True):
        yield target


@pytest.fixture(params=BACKENDS)
async def empty_db_target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DatabaseTarget]:
    """Like `db_target`, but with no tables yet (nothing migrated): for the migrations themselves."""
    async for target in _target(request, tmp_path, migrate=False):
        yield target


@pytest.fixture
async def db(db_target: DatabaseTarget) -> AsyncIterator[Database]:
    """An open `Database` on the test database (SQLite, then PostgreSQL when configured)."""
    opened = db_target.open()
    try:
        yield opened
    finally:
        await opened.dispose()


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated, empty SQLite database file (for tests about SQLite itself)."""
    opened = (await make_target("sqlite", tmp_path)).open()
    try:
        yield opened
    finally:
        await opened.dispose()
