"""No message is lost: a shutdown under load, the bot down or disconnected, the disk full.

The real discord.py client against the emulator, on SQLite and PostgreSQL. Messages posted while the bot
could not receive them are read back from the channel's history at start and on reconnect (RESUMED),
once each and in order.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from memory.models import TurnRow
from tests.e2e.conftest import World
from tests.emulator.models import StoredMessage


async def stored_turns(world: World, scene_channel: int | None = None) -> list[tuple[int, int | None, str]]:
    """Return (number, message id, text) of every stored turn, in turn order."""
    db = world.target.open()
    try:
        async with db.session() as session:
            query = select(TurnRow.number, TurnRow.discord_message_id, TurnRow.text).order_by(
                TurnRow.scene_id, TurnRow.number
            )
            return [tuple(row) for row in (await session.execute(query)).all()]  # type: ignore[misc]
    finally:
        await db.dispose()


def post_unseen(world: World, author: Any, content: str) -> dict[str, Any]:
    """Post a message in the scene channel that no gateway delivers (the bot was away when it came)."""
    emu = world.emu
    user = author.user if hasattr(author, "user") else author
    data = emu.message_payload(world.channel, author=user.payload(), member=author, content=content)
    stored = StoredMessage(data, world.channel, emu.blobs, from_bot=False)
    emu.messages[stored.id] = stored
    return stored.view()


async def test_a_shutdown_stops_receiving_before_it_unloads_the_turn_logger(world: World) -> None:
    emu, chan, bot = world.emu, world.channel, world.bot
    await emu.invoke(chan, world.gm, "scene start", title="Last orders")
    await emu.send_message(chan, world.pat, "One more round.")
    received: list[int] = []

    async def count(message: Any) -> None:
        if not message.author.bot:
            received.append(message.id)

    bot.add_listener(count, "on_message")
    unload = bot.unload_extension
    late: list[dict[str, Any]] = []

    async def unload_and_post(name: str, *, package: str | None = None) -> None:
        await unload(name, package=package)
        if name == "cogs.turns":  # the turn logger is gone: a message received now would be lost
            late.append(await emu.send_message(chan, world.pat, "Closing time?", settle=False))
            if not bot.is_closed():
                await emu.wait_for(lambda: int(late[0]["id"]) in received, timeout=10, what="late message")

    bot.unload_extension = unload_and_post  # type: ignore[method-assign]
    await world.stop()
    assert late, "the turn logger was unloaded"
    stored = {message_id for _, message_id, _ in await stored_turns(world)}
    assert set(received) <= stored, "a message the bot received during its shutdown was not stored"
