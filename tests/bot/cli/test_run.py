"""`lorekeeper run` when it cannot start: a token Discord rejects, a machine that cannot reach Discord.

The command runs in this process (typer's CliRunner) against the Discord emulator, which refuses any token but
its own, on a thread of its own (the command runs its own event loop), or against a port nothing listens on.
Each prints one short screen saying what to do, no traceback, and stops before the database is made.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.offline.emulator import DiscordEmulator, point_client_at
from tests.helpers.chroma_server import free_port

#: Shaped like a bot token (an id, a timestamp, a signature), which the emulator does not know.
WRONG_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.not-the-emulators-token"
ONE_SCREEN = 24


@contextlib.contextmanager
def emulator_on_a_thread() -> Iterator[DiscordEmulator]:
    """Run a Discord emulator on its own event loop and thread, for a command that runs its own loop."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    emu = DiscordEmulator()
    try:
        asyncio.run_coroutine_threadsafe(emu.__aenter__(), loop).result(timeout=30)
        try:
            yield emu
        finally:
            asyncio.run_coroutine_threadsafe(emu.__aexit__(None, None, None), loop).result(timeout=30)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """Put the root logger back as it was: `lorekeeper run` configures logging for its process."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, saved in levels.items():
            logging.getLogger(name).setLevel(saved)


def run(workdir: Path) -> tuple[int, str]:
    """Run `lorekeeper run` with only a token and a data directory set; return its exit code and stderr."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("LOREKEEPER_")}
    env = {**unset, "LOREKEEPER_DISCORD_TOKEN": WRONG_TOKEN, "LOREKEEPER_DATA_DIR": str(workdir / "data")}
    with contextlib.chdir(workdir):
        result = CliRunner().invoke(app, ["run"], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback, where the console script would have printed one
    return result.exit_code, result.stderr + result.stdout


def assert_one_screen(screen: str) -> None:
    assert "Traceback" not in screen and 'File "' not in screen, screen
    assert len(screen.strip().splitlines()) <= ONE_SCREEN, screen


def test_a_token_discord_rejects_is_one_screen(tmp_path: Path, logging_restored: None) -> None:
    with emulator_on_a_thread():
        code, screen = run(tmp_path)
    assert code == 2
    assert_one_screen(screen)
    assert "Discord refused the token in LOREKEEPER_DISCORD_TOKEN" in screen
    assert "Reset Token" in screen and WRONG_TOKEN not in screen
    assert not (tmp_path / "data" / "lorekeeper.sqlite3").exists(), "it stopped before the migrations"


def test_no_network_is_one_screen(tmp_path: Path, logging_restored: None) -> None:
    undo = point_client_at(f"http://127.0.0.1:{free_port()}")  # nothing listens there: connection refused
    try:
        code, screen = run(tmp_path)
    finally:
        undo()
    assert code == 1
    assert_one_screen(screen)
    assert "Lorekeeper could not reach Discord" in screen and "internet connection" in screen
    assert WRONG_TOKEN not in screen
    assert not (tmp_path / "data" / "lorekeeper.sqlite3").exists(), "it stopped before the migrations"
