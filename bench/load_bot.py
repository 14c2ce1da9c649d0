"""The bot for `bench/load.py`: Lorekeeper against a local Discord emulator, printing `ack <id> <time>` per turn.

python -m bench.load_bot http://127.0.0.1:PORT     (settings from the environment; logs at WARNING on stderr)
"""

from __future__ import annotations

import asyncio
import sys
import time

from bot.app import build_services
from bot.client.client import create_bot
from bot.offline.emulator import point_client_at
from bot.ops.logs import install
from config.settings import load_settings


async def main(base_url: str) -> None:
    point_client_at(base_url)
    settings = load_settings()
    install("WARNING")
    services = await build_services(settings)
    out = sys.stdout

    def acknowledge(message_ids: list[int]) -> None:
        now = time.time()
        out.write("".join(f"ack {m} {now:.6f}\n" for m in message_ids))
        out.flush()

    services.turns.observers.append(acknowledge)
    bot = create_bot(services)
    bot._connection.guild_ready_timeout = 0.05
    async with bot:
        await bot.start("test-token")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
