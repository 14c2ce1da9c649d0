"""The running bot's heartbeat, read by `lorekeeper doctor --live` (the container's healthcheck)."""

from __future__ import annotations

from bot.ops.health import check_heartbeat, heartbeat_path
from tests.e2e.conftest import World


async def test_the_running_bot_keeps_a_heartbeat_and_marks_it_stopped(world: World) -> None:
    settings = world.settings
    await world.emu.wait_for(lambda: heartbeat_path(settings).exists(), timeout=30, what="a heartbeat")
    running = check_heartbeat(settings)
    assert running.ok and "connected" in running.detail, running.detail
    await world.stop()  # a graceful shutdown leaves a heartbeat that says so
    stopped = check_heartbeat(settings)
    assert not stopped.ok and "stopped" in stopped.detail, stopped.detail
