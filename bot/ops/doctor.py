"""`lorekeeper doctor`: check the configuration and every connection, and say plainly what is wrong."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import tempfile
import urllib.error
import urllib.request
from dataclasses import replace
from typing import Any

from bot.ops.checks import Check
from canon.wording.counts import counted
from config.settings import Settings

TIMEOUT = 5.0


def check_token(settings: Settings, *, required: bool = True) -> Check:
    """Check that a Discord token is set and shaped like one (three dot-separated parts, an id first).

    Not `required`, a missing token is a note: a GM who only uses the command line needs none.
    """
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        if not required:
            return Check(
                "discord token",
                True,
                "LOREKEEPER_DISCORD_TOKEN is not set: only `lorekeeper run` needs it (it explains how to get one)",
                warning=True,
            )
        return Check(
            "discord token", False, "LOREKEEPER_DISCORD_TOKEN is not set; `lorekeeper run` explains how"
        )
    token = settings.discord_token.get_secret_value().strip()
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        return Check(
            "discord token", False, "LOREKEEPER_DISCORD_TOKEN does not look like a bot token (three parts)"
        )
    try:
        first = base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        first = ""
    if not first.isdigit():
        return Check(
            "discord token", False, "LOREKEEPER_DISCORD_TOKEN's first part is not a bot id: copy it again"
        )
    return Check("discord token", True, f"present, for application {first}")


def check_data_dir(settings: Settings) -> Check:
    """Check that the data directory exists (or can be made) and is writable."""
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=settings.data_dir, prefix=".doctor-"):
            pass
    except OSError as error:
        return Check(
            "data directory",
            False,
            f"{settings.data_dir} is not writable ({error.strerror or error}): give the bot's user write "
            "access to it, or free space on its disk",
        )
    return Check("data directory", True, f"{settings.data_dir.resolve()} is writable")


async def check_database(settings: Settings) -> Check:
    """Check that the database answers and is at the newest migration."""
    from bot.schema import database
    from canon.storage import Database

    db = Database.from_url(settings.resolved_database_url)
    try:
        try:
            current = await asyncio.wait_for(database.current_revisions(db), 15)
        except Exception as error:
            return Check("database", False, f"{db.url} does not answer: {type(error).__name__}: {error}")
        heads = database.head_revisions()
        if current != heads:
            if current - database.known_revisions():
                return Check(
                    "database",
                    False,
                    f"{db.url} is at {sorted(current)}, newer than this Lorekeeper ({sorted(heads)})",
                )
            missing = "no schema yet" if not current else f"at {', '.join(sorted(current))}"
            return Check(
                "database",
                False,
                f"{db.url} is not migrated ({missing}); run `lorekeeper db upgrade` (the bot does it at start)",
            )
        problem = await _write_problem(db)
        if problem is not None:
            return Check("database", False, f"{db.url} answers but cannot be written: {problem}")
        return Check(
            "database", True, f"{db.url} answers and takes writes, at revision {', '.join(sorted(current))}"
        )
    finally:
        await db.dispose()


#: What the host can do about each storage fault (`canon.storage_faults.storage_fault`).
WRITE_ADVICE = {
    "the disk is full": "free space on the disk that holds it",
    "the database is read-only": (
        "give the bot's user write access to the database file and its folder (PostgreSQL: a role that may "
        "write, not in a read-only transaction or on a standby)"
    ),
    "the disk could not be read or written": "check the disk that holds it",
}


async def _write_problem(db: Any) -> str | None:
    """Return what keeps the database from taking a write, in plain words with a next step (None: it can)."""
    try:
        fault = await asyncio.wait_for(db.write_fault(), 15)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    if fault is None:
        return None
    return f"{fault}; {WRITE_ADVICE.get(fault, 'check that the database accepts writes')}"


def check_scheduler_driver(settings: Settings) -> Check:
    """Check that the job store's synchronous driver is installed (PostgreSQL needs psycopg)."""
    if not settings.ops.scheduler_enabled:
        return Check("scheduler", True, "switched off (ops.scheduler_enabled = false)", warning=True)
    if settings.resolved_database_url.startswith("sqlite"):
        return Check("scheduler", True, "jobs kept in the SQLite database")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return Check("scheduler", False, "PostgreSQL job store needs psycopg: pip install 'psycopg[binary]'")
    return Check("scheduler", True, "jobs kept in PostgreSQL (psycopg)")


async def check_scheduler_owner(settings: Settings) -> Check:
    """Say which process runs the scheduled jobs (the holder of the scheduler's lease), or that none does."""
    from bot.ops.lease import holder_of
    from canon.storage import Database, utc_now

    if not settings.ops.scheduler_enabled:
        return Check("scheduler owner", True, "no process runs scheduled jobs (switched off)", warning=True)
    db = Database.from_url(settings.resolved_database_url)
    try:
        holder = await asyncio.wait_for(holder_of(db), 15)
    except Exception as error:  # no schema yet, or no database: the database check says which
        return Check("scheduler owner", True, f"not checked ({type(error).__name__})", warning=True)
    finally:
        await db.dispose()
    if holder is None:
        return Check(
            "scheduler owner",
            True,
            "no process runs the scheduled jobs now (no bot is running); the first bot to start takes them",
            warning=True,
        )
    since = int((utc_now() - holder.acquired_at).total_seconds())
    return Check("scheduler owner", True, f"{holder.owner} runs the scheduled jobs (for {since} s)")


def _get(url: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "lorekeeper-doctor"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - the host's own URL
        return int(response.status), response.read(4096)


async def check_chroma(settings: Settings) -> Check:
    """Check the vector index: the Chroma server's heartbeat, or the embedded index's folder."""
    if not settings.embedding.enabled:
        return Check("vector index", True, "semantic search switched off (words only)", warning=True)
    if settings.chroma.host:
        url = f"http://{settings.chroma.host}:{settings.chroma.port}/api/v2/heartbeat"
        try:
            status, _ = await asyncio.to_thread(_get, url)
        except (OSError, urllib.error.URLError) as error:
            return Check(
                "vector index",
                False,
                f"the Chroma server at {settings.chroma.host}:{settings.chroma.port} does not answer ({error}); "
                "/lore falls back to words only until it is back",
            )
        if status != 200:
            return Check("vector index", False, f"the Chroma server answered HTTP {status} at {url}")
        return Check("vector index", True, f"Chroma server at {settings.chroma.host}:{settings.chroma.port}")
    folder = settings.data_dir / "chroma"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as error:
        return Check("vector index", False, f"the embedded index folder {folder} is not writable: {error}")
    return Check("vector index", True, f"embedded Chroma in {folder}")


async def check_vault(settings: Settings) -> Check:
    """Check that the originals' store answers and takes a write (a folder, or an S3-compatible bucket)."""
    from canon.errors import GameError
    from memory.vault import digest_of
    from memory.vault_setup import vault_from_settings

    vault = vault_from_settings(settings.vault, settings.data_dir)
    probe = b"lorekeeper doctor probe\n"
    digest = digest_of(probe)
    try:
        created = await asyncio.wait_for(asyncio.to_thread(vault.put, digest, probe), 30)
        if created:
            await asyncio.to_thread(vault.delete, digest)
    except GameError as error:
        return Check("vault", False, error.message)
    except (OSError, TimeoutError) as error:
        return Check("vault", False, f"{vault.describe()} does not answer: {error}")
    return Check("vault", True, f"the originals of imported files are kept in {vault.describe()}")


def check_embedding_model(settings: Settings) -> Check:
    """Check that the offline embedding model's files are installed."""
    if not settings.embedding.enabled:
        return Check("embedding model", True, "switched off", warning=True)
    from memory.embedding import EmbeddingUnavailable, locate_model_files

    try:
        files = locate_model_files()
    except EmbeddingUnavailable as error:
        return Check("embedding model", False, str(error))
    return Check("embedding model", True, f"{files.model.name} and {files.tokenizer.name} installed")


async def check_llm(settings: Settings) -> Check:
    """Check that the configured LLM endpoint answers (`GET /models`)."""
    if not settings.llm.configured:
        return Check("llm", True, "no LLM configured: narration and NPC voices are off", warning=True)
    base = str(settings.llm.base_url).rstrip("/")
    key = settings.llm.api_key.get_secret_value()

    def probe() -> int:
        request = urllib.request.Request(  # noqa: S310
            f"{base}/models", headers={"Authorization": f"Bearer {key}", "User-Agent": "lorekeeper-doctor"}
        )
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310
            json.loads(response.read(1 << 20) or b"{}")
            return int(response.status)

    try:
        status = await asyncio.to_thread(probe)
    except urllib.error.HTTPError as error:
        if error.code in (401, 403):
            return Check(
                "llm", False, f"{base} refused the key (HTTP {error.code}); check LOREKEEPER_LLM__API_KEY"
            )
        return Check("llm", False, f"{base}/models answered HTTP {error.code}")
    except (OSError, urllib.error.URLError, ValueError) as error:
        return Check("llm", False, f"the LLM endpoint {base} does not answer ({error})")
    return Check("llm", True, f"{base} answers (HTTP {status}), model {settings.llm.model}")


async def run_checks(settings: Settings, *, live: bool = False) -> list[Check]:
    """Run every check; `live` also requires the bot to be running and connected (a container's healthcheck).

    Without `live`, a bot that is not running and a missing token are only notes: the doctor is also run
    before the first start, and by a GM who only uses the command line.
    """
    from bot.ops.health import check_heartbeat

    checks = [
        check_token(settings, required=live),
        check_data_dir(settings),
        check_scheduler_driver(settings),
    ]
    checks.append(await check_database(settings))
    checks.append(await check_scheduler_owner(settings))
    chroma = await check_chroma(settings)
    checks.append(chroma)
    if chroma.ok and not chroma.warning:
        from bot.ops.collections import check_collections

        checks.append(await check_collections(settings))
    if settings.embedding.enabled:
        from bot.ops.search_index import check_search_index

        checks.append(await check_search_index(settings))
    checks.append(await check_vault(settings))
    checks.append(check_embedding_model(settings))
    checks.append(await check_llm(settings))
    running = check_heartbeat(settings)
    checks.append(running if live or running.ok else replace(running, ok=True, warning=True))
    return checks


#: Checks whose failure is a setting to fix (exit code 2, as for every command), not a problem found (1).
SETTING_CHECKS = frozenset({"discord token"})


def exit_code(checks: list[Check]) -> int:
    """Return the doctor's exit code: 0 all in order, 2 a setting to fix, 1 any other problem found."""
    failed = [c for c in checks if not c.ok]
    if not failed:
        return 0
    return 2 if any(c.name in SETTING_CHECKS for c in failed) else 1


def render(checks: list[Check]) -> str:
    """Return the checks as lines for a person, the problems last."""
    lines = []
    for check in sorted(checks, key=lambda c: (not c.ok, c.warning)):
        mark = "ok  " if check.ok and not check.warning else ("note" if check.ok else "FAIL")
        lines.append(f"{mark}  {check.name}: {check.detail}")
    failed = [c for c in checks if not c.ok]
    lines.append("")
    lines.append(
        "Everything Lorekeeper needs is in order."
        if not failed
        else f"{counted(len(failed), 'problem')}: {', '.join(c.name for c in failed)}."
    )
    return "\n".join(lines)
