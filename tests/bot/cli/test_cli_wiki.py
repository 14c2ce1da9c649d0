"""`lorekeeper wiki link | serve`: links printed for operators, and the wiki served without Discord by two
processes on one database (a link revoked through one opens nothing on the other). SQLite, then PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget

CAMPAIGN = "Valdorn"
LOREKEEPER = Path(sys.executable).with_name("lorekeeper")
SERVED = re.compile(r"served on (http://\S+) ")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    return runner


def link(cli: CliRunner, *args: str) -> str:
    result = cli.invoke(app, ["wiki", "link", "-c", CAMPAIGN, *args])
    assert result.exit_code == 0, result.output
    return result.output.strip()


def test_wiki_link_prints_a_link_for_the_gm_or_a_player(cli: CliRunner) -> None:
    gm = link(cli, "--as", "gm")
    player = link(cli, "--as", "player", "--user", "42")
    for url in (gm, player):
        assert re.fullmatch(r"http://127\.0\.0\.1:8765/t/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/", url), url
    assert gm != player
    wrong = cli.invoke(app, ["wiki", "link", "-c", CAMPAIGN, "--as", "king"])
    assert wrong.exit_code == 2 and "gm or player" in wrong.output
    unknown = cli.invoke(app, ["wiki", "link", "-c", "Nowhere", "--as", "gm"])
    assert unknown.exit_code == 1


async def serve(env: dict[str, str]) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    process = await asyncio.create_subprocess_exec(
        str(LOREKEEPER), "wiki", "serve", "--port", "0", env=env, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 120)).decode()
    found = SERVED.search(line)
    assert found, line
    try:
        yield process, found.group(1)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
            assert await asyncio.wait_for(process.wait(), 60) == 0


async def test_two_wiki_processes_serve_one_database_and_agree_on_revocations(cli: CliRunner) -> None:
    env = {**os.environ, "LOREKEEPER_EMBEDDING__ENABLED": "false"}
    made = await asyncio.to_thread(link, cli, "--as", "player", "--user", "42")  # the CLI runs its own loop
    token = made.split("/t/", 1)[1].rstrip("/")
    first_serving, second_serving = serve(env), serve(env)
    # Started together, stopped together: each waits seconds for its interpreter, not for the other.
    (_, first), (_, second) = await asyncio.gather(anext(first_serving), anext(second_serving))
    try:
        async with aiohttp.ClientSession() as session:
            for base in (first, second):
                async with session.get(f"{base}/t/{token}") as response:
                    assert response.status == 200
                    assert "Journal" in await response.text()
            revoked = await asyncio.to_thread(
                cli.invoke, app, ["wiki", "revoke", "-c", CAMPAIGN, "--user", "42"]
            )
            assert revoked.exit_code == 0, revoked.output
            for base in (first, second):
                async with session.get(f"{base}/t/{token}") as response:
                    assert response.status == 403
    finally:
        stopped = await asyncio.gather(anext(first_serving), anext(second_serving), return_exceptions=True)
        assert all(isinstance(outcome, StopAsyncIteration) for outcome in stopped), stopped
