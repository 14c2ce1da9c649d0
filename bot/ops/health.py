"""The running bot's heartbeat: a small file the bot rewrites while it runs, read by `lorekeeper doctor --live`.

`doctor` alone checks the configuration and the connections from a process of its own; whether the bot itself
is alive and connected to Discord only the bot knows. So it writes `heartbeat.json` into the data directory
every `INTERVAL` seconds (atomically), and a container's healthcheck asks whether that file is fresh and says
"connected".
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path

from bot.ops.checks import Check
from canon.storage import utc_now
from config.settings import Settings

INTERVAL = 30.0
#: A heartbeat older than this means the bot stopped or its event loop is stuck.
STALE_AFTER = 120.0
FILE_NAME = "heartbeat.json"


def heartbeat_path(settings: Settings) -> Path:
    """Return where the bot of these settings keeps its heartbeat (one file per process of split shards)."""
    if settings.shard_ids is None:
        return settings.data_dir / FILE_NAME
    return settings.data_dir / f"heartbeat-shards-{'-'.join(map(str, settings.shard_ids))}.json"


def write_heartbeat(
    path: Path, *, connected: bool, running: bool = True, now: dt.datetime | None = None
) -> None:
    """Replace the heartbeat file in one step (a reader never sees half a file)."""
    record = {
        "at": (now or utc_now()).isoformat(),
        "pid": os.getpid(),
        "connected": connected,
        "running": running,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".heartbeat-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_heartbeat(settings: Settings, *, now: dt.datetime | None = None) -> Check:
    """Check that the bot is running and connected to Discord, by its heartbeat file."""
    path = heartbeat_path(settings)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        at = dt.datetime.fromisoformat(record["at"])
    except FileNotFoundError:
        return Check(
            "bot process", False, f"no heartbeat at {path}: the bot is not running (`lorekeeper run`)"
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        return Check("bot process", False, f"the heartbeat at {path} cannot be read ({error})")
    age = ((now or utc_now()) - at).total_seconds()
    if not record.get("running", False):
        return Check("bot process", False, f"stopped {age:.0f} s ago (heartbeat {path})")
    if age > STALE_AFTER:
        return Check("bot process", False, f"last heartbeat {age:.0f} s ago: the bot is stuck or was killed")
    if not record.get("connected", False):
        return Check("bot process", False, "running, but not connected to Discord (it keeps retrying)")
    return Check(
        "bot process", True, f"running (pid {record.get('pid')}) and connected, heartbeat {age:.0f} s ago"
    )
