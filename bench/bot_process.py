"""Run Lorekeeper against a local Discord emulator, printing `ack <message id> <unix time>` after each commit.

python -m bench.bot_process http://127.0.0.1:PORT
"""

from __future__ import annotations

import asyncio
import sys
import time

from bot.app import build_services
from bot.client.client import Lorekeeper
from bot.offline.emulator import point_client_at
from config.settings import load_settings


async def main(base_url: str) -> None:
    point_client_at(base_url)
    services = await build_services(load_settings())
    out = sys.stdout

    def acknowledge(message_ids: list[int]) -> None:
        now = time.time()
        out.write("".join(f"ack {m} {now:.6f}\n" for m in message_ids))
        out.flush()

    services.turns.observers.append(acknowledge)
    bot = Lorekeeper(services)
    bot._connection.guild_ready_timeout = 0.05
    async with bot:
        await bot.start("test-token")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
