"""Run `lorekeeper run`'s own code (signal handlers, graceful shutdown) against a local Discord emulator.

python -m tests.e2e.ops_bot_process URL     Prints `recv <id>` when a message reaches the bot, `ack <id>` when its
turn is committed. Settings come from the environment, as in production.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from bot.cli import run as cli
from bot.offline.emulator import point_client_at
from bot.ops.logs import install
from config.settings import load_settings


async def main(base_url: str) -> int:
    point_client_at(base_url)
    settings = load_settings()
    install(settings.log_level)
    out = sys.stdout
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


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
