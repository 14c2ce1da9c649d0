"""A cold `lorekeeper lore` builds only what a question needs, once the database is at the newest migration."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

from bot.cli.main import app
from bot.lore_reader import open_lore_reader
from bot.schema.current import newest_revision, schema_current
from canon.storage import Database
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.helpers.paths import REPO


def test_the_newest_revision_is_the_last_migration_s() -> None:
    files = sorted((REPO / "bot" / "migrations" / "versions").glob("[0-9]*.py"))
    assert newest_revision() == files[-1].name.split("_", 1)[0]


def test_a_database_not_at_the_newest_migration_takes_the_full_path(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    # No schema yet: the reader declines, so the caller builds every service (which migrates).
    fresh = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'fresh.sqlite3'}")
    assert asyncio.run(open_lore_reader(fresh)) is None
    created = CliRunner().invoke(app, ["campaign", "create", "Reach"])
    assert created.exit_code == 0, created.output

    async def ask() -> None:
        reader = await open_lore_reader(Settings())
        assert reader is not None
        try:
            campaign = await reader.campaigns.by_name("Reach")
            answer = await reader.answers.ask(campaign.id, "Who rules the Reach?", record=False)
            assert answer.reply is not None and not answer.reply.known
        finally:
            await reader.close()
        # An older revision (a database from before an upgrade) is not current either.
        db = Database.from_url(cli_env.database_url)
        try:
            assert await schema_current(db)
            async with db.engine.begin() as conn:
                await conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
            assert not await schema_current(db)
        finally:
            await db.dispose()

    asyncio.run(ask())


def test_a_lore_question_does_not_load_the_whole_application(cli_env: DatabaseTarget) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    probe = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "sys.argv = ['lorekeeper', 'lore', 'who rules the reach', '--campaign', 'Reach']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('openai', 'alembic', 'apscheduler', 'discord', 'bot.voice.service',\n"
        "    'bot.services.branches', 'canon.continuity', 'confusable_homoglyphs', 'ruamel', 'bot.app',\n"
        "    'memory.knowledge.service', 'memory.knowledge.importer', 'memory.scene_tables', 'bot.schema.ops_tables')\n"
        "    if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
        "print('POSTGRESQL DIALECT', 'sqlalchemy.dialects.postgresql' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr
    # On SQLite, no table a question reads names PostgreSQL's options (which would load its dialect).
    assert f"POSTGRESQL DIALECT {not cli_env.is_sqlite}" in done.stdout, done.stdout
    assert "Nothing the table knows" in done.stdout


def test_a_lore_question_does_not_look_for_pydantic_plugins_and_other_commands_do(
    cli_env: DatabaseTarget,
) -> None:
    # Looking for plugins reads every installed package's entry points; a question has no use for them.
    assert CliRunner().invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    probe = (
        "import os, sys\n"
        "from bot.cli.main import main\n"
        "sys.argv = ['lorekeeper', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "from pydantic.plugin import _loader\n"
        "print('PLUGINS LOOKED FOR', _loader._plugins is not None, os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
    )

    def looked_for(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True, cwd=REPO
        )
        return done.stdout

    asked = looked_for("lore", "who rules the reach", "--campaign", "Reach")
    assert "PLUGINS LOOKED FOR False __all__" in asked and "Nothing the table knows" in asked, asked
    assert "PLUGINS LOOKED FOR True None" in looked_for("campaign", "list")


def test_the_lore_reader_loads_no_model_index_or_whole_application_until_a_question_needs_them() -> None:
    # Building the reader is cheap: the vector index and the embedding model load on a question's first vector
    # search, and nothing of the whole application (`bot.app`) or of importing knowledge comes with it.
    probe = (
        "import sys\n"
        "import bot.cli.main, bot.cli.lore, bot.lore_reader\n"
        "heavy = [m for m in ('discord', 'chromadb', 'chromadb_rust_bindings', 'onnxruntime', 'tokenizers',\n"
        "    'apscheduler', 'alembic', 'openai', 'bot.app', 'memory.knowledge.service') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr


def test_a_lore_question_reads_the_vector_index_without_importing_chromadb(
    cli_env: DatabaseTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "true")
    world = tmp_path / "world.md"
    world.write_text("# The Reach\n\n## Stormcrow\n\n- **Hit Points** 22 (4d8 + 4)\n", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    done = runner.invoke(app, ["ingest", str(world), "--campaign", "Reach"])
    assert done.exit_code == 0, done.output
    probe = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "sys.argv = ['lorekeeper', 'lore', 'stormcrow hp', '--campaign', 'Reach']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('chromadb', 'httpx', 'opentelemetry', 'grpc', 'jsonschema') if m in sys.modules]\n"
        "print('HEAVY', heavy, 'chromadb_rust_bindings' in sys.modules)\n"
        "import os\n"
        "print('BLAS THREADS', os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    asked = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert "HEAVY [] True" in asked.stdout, asked.stdout + asked.stderr
    # numpy pools the embedding element-wise: OpenBLAS starts no thread per core for it.
    assert "BLAS THREADS 1" in asked.stdout, asked.stdout
    assert "22 (4d8 + 4)" in asked.stdout


def test_a_lore_question_asked_in_process_leaves_the_garbage_collector_as_it_was(
    cli_env: DatabaseTarget,
) -> None:
    # Only the console script's process, which ends with the question, keeps the collector off and freezes its
    # objects for a quick exit; a caller that goes on (a test, a script) finds it on and nothing frozen.
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    frozen = gc.get_freeze_count()
    done = runner.invoke(app, ["lore", "who rules the reach", "--campaign", "Reach"])
    assert done.exit_code == 0, done.output
    assert gc.isenabled() and gc.get_freeze_count() <= frozen  # nothing new frozen (frozen objects may die)


def test_questions_from_a_file_turn_the_collector_paused_by_main_back_on(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    from bot.cli.common import command_is_whole_process

    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    questions = tmp_path / "questions.txt"
    questions.write_text("who rules the reach\nwhere is the reach\n", encoding="utf-8")
    frozen = gc.get_freeze_count()  # a bot started earlier in this process froze its heap once: not ours
    command_is_whole_process(pause_collector=True)  # as `main` does for `lore`
    try:
        assert not gc.isenabled()
        done = runner.invoke(app, ["lore", "--queries", str(questions), "--campaign", "Reach", "--json"])
        collecting = gc.isenabled()
    finally:
        command_is_whole_process(False)
        gc.enable()
    assert done.exit_code == 0, done.output
    assert len(done.output.splitlines()) == 2 and collecting and gc.get_freeze_count() <= frozen


async def test_whether_the_schema_is_current_is_read_while_a_writer_holds_the_database(
    sqlite_db: Database,
) -> None:
    # The bot writing meanwhile (SQLite's write lock held) does not hold up a cold `lorekeeper lore`.
    async with sqlite_db.engine.connect() as writer:
        await writer.execute(text("SELECT 1"))  # BEGIN IMMEDIATE: the write lock, held until the block ends
        assert await asyncio.wait_for(schema_current(sqlite_db), timeout=5)
