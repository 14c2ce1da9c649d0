"""A local Chroma server for tests (`chroma run` from the venv), started in a temporary folder on a free port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMA_CLI = Path(sys.executable).with_name("chroma")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ChromaServer:
    """`chroma run --path PATH --port PORT` in a subprocess; `stop()` and `start()` again keep the data."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def heartbeat_url(self) -> str:
        return f"http://{self.host}:{self.port}/api/v2/heartbeat"

    def alive(self) -> bool:
        try:
            with urllib.request.urlopen(self.heartbeat_url, timeout=1) as response:  # noqa: S310 - loopback
                return bool(response.status == 200)
        except OSError:
            return False

    def start(self, timeout: float = 60) -> None:
        cli = CHROMA_CLI if CHROMA_CLI.exists() else shutil.which("chroma")
        if cli is None:
            pytest.skip(
                "the `chroma` command is not installed (it comes with chromadb): no Chroma server tests"
            )
        log = (self.path.parent / f"chroma-{self.port}.log").open("ab")
        self.proc = subprocess.Popen(
            [str(cli), "run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
        deadline = time.monotonic() + timeout
        while not self.alive():
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}; see {log.name}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the Chroma server did not answer its heartbeat within {timeout}s")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
