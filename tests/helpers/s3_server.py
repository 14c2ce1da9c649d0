"""A real S3-compatible server for tests: moto's `moto_server` (an HTTP S3 server, installed from the test extras),
started once per test process on a free port of 127.0.0.1. Each test gets a bucket of its own."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.chroma_server import free_port

MOTO_SERVER = Path(sys.executable).with_name("moto_server")
ACCESS_KEY = "lorekeeper-test"
SECRET_KEY = "lorekeeper-test-secret"


class S3Server:
    """`moto_server -H 127.0.0.1 -p PORT` in a subprocess."""

    def __init__(self, log: Path) -> None:
        self.port = free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1) as response:  # noqa: S310
                return bool(response.status == 200)
        except OSError:
            return False

    def start(self, timeout: float = 60) -> None:
        cli = MOTO_SERVER if MOTO_SERVER.exists() else shutil.which("moto_server")
        if cli is None:
            pytest.skip("moto_server is not installed (`./scripts/setup` installs it): no S3 vault tests")
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [str(cli), "-H", "127.0.0.1", "-p", str(self.port)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + timeout
        while not self.alive():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.skip(f"the S3 test server (moto_server) did not start; see {self.log}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def new_bucket() -> str:
    """Return a bucket name no other test uses."""
    return f"lk-test-{uuid.uuid4().hex[:20]}"


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """One S3 server for the whole test process (skips, saying why, where it cannot start)."""
    server = S3Server(tmp_path_factory.mktemp("s3") / "moto.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()
