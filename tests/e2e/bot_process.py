"""Run Lorekeeper in a process of its own against a local Discord emulator: `python -m tests.e2e.bot_process URL`.

Settings come from the environment as in production; only Discord's address is pointed at the emulator.
"""

from __future__ import annotations

import asyncio
import sys

from bot.app import build_services
from bot.client.client import Lorekeeper
from bot.offline.emulator import point_client_at
from bot.ops.logs import install
from config.settings import load_settings


async def main(base_url: str) -> None:
    point_client_at(base_url)
    settings = load_settings()
    install(settings.log_level)
    services = await build_services(settings)
    bot = Lorekeeper(services)
    bot._connection.guild_ready_timeout = 0.05
    async with bot:
        await bot.start("test-token")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
