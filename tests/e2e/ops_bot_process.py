"""Run `lorekeeper run`'s own code (signal handlers, graceful shutdown) against a local Discord emulator.

python -m tests.e2e.ops_bot_process URL [RECONCILE_SECONDS]     Prints `recv <id>` when a message reaches the bot,
`ack <id>` when its turn is committed, `lease 1` or `lease 0` each time it stood for the scheduler's lease (held it
or not), `reconciled` after each reconciliation of sessions with their jobs. Settings come from the environment, as in production. RECONCILE_SECONDS,
when given, is how often the scheduler reconciles sessions with their jobs (the product's minute is a long wait
for a test of a session scheduled through the process not running the jobs).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from bot.cli import run as cli
from bot.offline.emulator import point_client_at
from bot.ops.logs import install
from config.settings import load_settings


async def main(base_url: str, reconcile_seconds: float | None = None) -> int:
    point_client_at(base_url)
    if reconcile_seconds is not None:
        from bot.ops import scheduler

        scheduler.RECONCILE_SECONDS = reconcile_seconds  # type: ignore[assignment]
    settings = load_settings()
    install(settings.log_level)
    out = sys.stdout
    told_lease_and_reconciliations(out)
    real_create = cli.__dict__.get("create_bot")
    from bot.client import client

    original = client.create_bot

    def create_bot(services: Any, **options: Any) -> client.Lorekeeper:
        bot = original(services, **options)
        bot._connection.guild_ready_timeout = 0.05

        async def on_message(message: Any) -> None:
            if message.author.bot:  # the bot's own replies are never turns
                return
            out.write(f"recv {message.id}\n")
            out.flush()

        bot.add_listener(on_message)
        services.turns.observers.append(
            lambda ids: (out.write("".join(f"ack {i}\n" for i in ids)), out.flush())
        )
        return bot

    client.create_bot = create_bot  # type: ignore[assignment]
    assert real_create is None
    return await cli.run_bot(settings)


def told_lease_and_reconciliations(out: Any) -> None:
    """Print each answer of the scheduler's lease and each reconciliation: a test waits for them, not for time."""
    from bot.ops.lease import Lease
    from bot.ops.scheduler import JobScheduler

    acquire, reconcile = Lease.acquire, JobScheduler.reconcile

    async def told_acquire(self: Lease) -> bool:
        held = await acquire(self)
        out.write(f"lease {int(held)}\n")
        out.flush()
        return held

    async def told_reconcile(self: JobScheduler, *args: Any, **kwargs: Any) -> Any:
        done = await reconcile(self, *args, **kwargs)
        out.write("reconciled\n")
        out.flush()
        return done

    Lease.acquire = told_acquire  # type: ignore[method-assign]
    JobScheduler.reconcile = told_reconcile  # type: ignore[method-assign]


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else None)))
