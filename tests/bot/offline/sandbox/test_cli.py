"""`lorekeeper sandbox` as a person runs it: its options, its warning, and its refusals before it starts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from bot.ops.backup import RunLock

LOREKEEPER = Path(sys.executable).with_name("lorekeeper")


def sandbox(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LOREKEEPER_")}
    return subprocess.run(
        [str(LOREKEEPER), "sandbox", *args],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_help_names_every_option(tmp_path: Path) -> None:
    shown = sandbox(tmp_path, "--help")
    assert shown.returncode == 0
    for option in ("--sample", "--host", "--port", "--data-dir", "127.0.0.1", "8080", "data/sandbox"):
        assert option in shown.stdout


def test_a_sandbox_already_running_on_the_folder_is_not_started_twice_and_the_warning_comes_first(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    with RunLock(data):
        done = sandbox(tmp_path, "--host", "0.0.0.0", "--data-dir", str(data))  # noqa: S104 (under test)
    assert done.returncode == 1
    assert done.stderr.startswith("Warning: the sandbox listens on 0.0.0.0, not only on this machine.")
    assert f"Not starting: the bot (or a restore) is running on {data}" in done.stderr
    assert not (data / "discord.json").exists()


def test_a_port_in_use_is_refused_with_a_sentence(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = sandbox(tmp_path, "--port", str(port), "--data-dir", str(tmp_path / "data"))
    assert done.returncode == 1
    assert f"Not starting: the sandbox cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Warning" not in done.stderr  # this machine only: nothing to warn about
