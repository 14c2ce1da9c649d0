"""The processes `bench/load.py` runs beside itself: the bot (`bench.load_bot`) and, if asked, a Chroma server.

The bot's stderr is read record by record (a log line and the traceback under it), so an error is reported
whole: its type, where it was raised and why, not only its first line.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from bot.offline.emulator import DiscordEmulator

ROOT = Path(__file__).resolve().parents[1]
#: The start of a log record (`bot.ops.logs.FORMAT`): its time, then its level.
RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (\w+)")
#: The last line of a traceback: the exception's type (dotted) and message.
RAISED = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Timeout|Exit|Interrupt|Warning)\w*)(?::|$)")


class BotProcess:
    """`bench.load_bot` in a subprocess; collects commit acks and every error record, traceback and all."""

    def __init__(self, emu: DiscordEmulator, env: dict[str, str]) -> None:
        self.emu, self.env = emu, env
        self.acks: dict[int, float] = {}
        self.errors: list[str] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.load_bot",
            self.emu.base_url,
            cwd=ROOT,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=2**20,
        )
        self.tasks = [asyncio.create_task(self._out()), asyncio.create_task(self._err())]

    async def _out(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for raw in self.proc.stdout:
            parts = raw.split()
            if len(parts) == 3 and parts[0] == b"ack":
                self.acks[int(parts[1])] = float(parts[2])

    async def _err(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        record: list[str] = []
        level = ""

        def flush() -> None:
            if record and (
                level in ("ERROR", "CRITICAL") or any(line.startswith("Traceback") for line in record)
            ):
                self.errors.append("\n".join(record))

        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            started = RECORD.match(line)
            if started is not None:
                flush()
                record, level = [line], started.group(1)
            else:
                record.append(line)  # a traceback line, or output outside the log (kept with what precedes)
        flush()

    def cpu_seconds(self) -> float | None:
        """Return the CPU time (user + system) the bot process has used so far (Linux)."""
        if self.proc is None:
            return None
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            await asyncio.wait_for(self.proc.wait(), 60)
        for task in self.tasks:
            await task


def error_types(errors: list[str]) -> dict[str, int]:
    """Count error records by the exception they end with (or their message, when they carry none)."""
    counted: Counter[str] = Counter()
    for error in errors:
        lines = [line for line in error.splitlines() if line.strip()]
        raised = next((m.group(1) for line in reversed(lines) if (m := RAISED.match(line.strip()))), None)
        counted[raised or lines[0].split(": ", 1)[-1][:80]] += 1
    return dict(counted.most_common())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ChromaServer:
    """`chroma run` from the installed chromadb, on this machine, its data in a temporary folder."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.folder = tempfile.mkdtemp(prefix="lk-bench-chroma-")
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ChromaServer:
        chroma = Path(sys.executable).with_name("chroma")
        self.proc = subprocess.Popen(
            [str(chroma), "run", "--path", self.folder, "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/v2/heartbeat", timeout=1):
                    return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("the Chroma server did not start within 120 s")

    def __exit__(self, *_: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(30)

    def settings(self) -> dict[str, Any]:
        """What the JSON line says of the server: where it ran and which chromadb it was."""
        import chromadb

        return {
            "host": "127.0.0.1",
            "port": self.port,
            "chromadb": chromadb.__version__,
            "same_machine": True,
        }

    def env(self) -> dict[str, str]:
        return {"LOREKEEPER_CHROMA__HOST": "127.0.0.1", "LOREKEEPER_CHROMA__PORT": str(self.port)}
