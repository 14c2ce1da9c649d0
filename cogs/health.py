"""The heartbeat loop: tells `lorekeeper doctor --live` (the container's healthcheck) that the bot is alive."""

from __future__ import annotations

import asyncio
import logging
import math

from discord.ext import commands, tasks

from bot.client.client import Lorekeeper
from bot.ops.health import INTERVAL, heartbeat_path, write_heartbeat

log = logging.getLogger(__name__)


class Health(commands.Cog):
    """Rewrite the heartbeat file every `INTERVAL` seconds; mark it stopped when the bot shuts down."""

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.path = heartbeat_path(bot.services.settings)
        self.beat.start()

    async def cog_unload(self) -> None:
        """Stop the loop and leave a heartbeat that says the bot stopped."""
        self.beat.cancel()
        await self._write(running=False)

    def connected(self) -> bool:
        """Return whether the gateway is up: ready, not closed, and heartbeats acknowledged."""
        bot = self.bot
        return bot.is_ready() and not bot.is_closed() and math.isfinite(bot.latency)

    async def _write(self, *, running: bool = True) -> None:
        try:
            await asyncio.to_thread(
                write_heartbeat, self.path, connected=running and self.connected(), running=running
            )
        except OSError:
            log.warning("the heartbeat file %s cannot be written", self.path, exc_info=True)

    @tasks.loop(seconds=INTERVAL)
    async def beat(self) -> None:
        """Write the heartbeat."""
        await self._write()

    @beat.before_loop
    async def _after_ready(self) -> None:
        await self.bot.wait_until_ready()


async def setup(bot: Lorekeeper) -> None:
    """Add the heartbeat."""
    await bot.add_cog(Health(bot))
