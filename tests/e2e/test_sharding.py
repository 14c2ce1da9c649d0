"""Lorekeeper as an `AutoShardedBot` with two shards: commands and turn logging work on both."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from bot.client import Lorekeeper, ShardedLorekeeper, create_bot
from bot.services import build_services
from config.settings import Settings
from memory.models import SceneRow, TurnRow
from tests.conftest import DatabaseTarget
from tests.emulator import DiscordEmulator


async def test_two_shards_serve_their_own_guilds(db_target: DatabaseTarget, tmp_path: Path) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", shard_count=2)  # type: ignore[call-arg]
    async with DiscordEmulator() as emu:
        worlds = []
        for shard in (0, 1):
            guild = emu.add_guild(f"Realm {shard}", shard=(shard, 2))
            gm = emu.add_member(guild, f"GM {shard}", roles=[emu.add_role(guild, "GM")])
            player = emu.add_member(guild, f"Player {shard}")
            worlds.append((guild, gm, player, emu.add_text_channel(guild, "scene")))
        services = await build_services(settings, db=db_target.open())
        bot = create_bot(services)
        assert isinstance(bot, ShardedLorekeeper) and isinstance(bot, Lorekeeper)
        await emu.start_bot(bot)
        try:
            assert bot.shard_count == 2
            assert sorted(tuple(i["shard"]) for i in emu.identify_log) == [(0, 2), (1, 2)]
            for shard, (guild, gm, player, chan) in enumerate(worlds):
                assert bot.get_guild(guild.id).shard_id == shard  # type: ignore[union-attr]
                started = await emu.invoke(chan, gm, "scene start", title=f"On shard {shard}")
                assert not started.ephemeral, started.content
                await emu.send_message(chan, player, f"Hello from shard {shard}")
                status = await emu.invoke(chan, player, "scene status")
                assert status.ephemeral and "1" in str(status.embeds[0])
            for guild, *_ in worlds:  # each server's own latencies, whichever shard it is on
                assert services.metrics.summary(guild.id)["scene start"]["count"] == 1
        finally:
            await emu.stop_bot(bot)
        emu.errors.assert_no_errors()
    db = db_target.open()
    try:
        async with db.session() as session:
            turns = (await session.execute(select(TurnRow.text, SceneRow.guild_id).join(SceneRow))).all()
    finally:
        await db.dispose()
    assert sorted(t[0] for t in turns) == ["Hello from shard 0", "Hello from shard 1"]
    assert {t[1] for t in turns} == {g.id for g, *_ in worlds}


async def test_two_processes_split_the_shards_and_one_runs_the_jobs(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    async with DiscordEmulator() as emu:
        worlds = []
        for shard in (0, 1):
            guild = emu.add_guild(f"Realm {shard}", shard=(shard, 2))
            gm = emu.add_member(guild, f"GM {shard}", roles=[emu.add_role(guild, "GM")])
            worlds.append((guild, gm, emu.add_text_channel(guild, "scene")))
        bots, all_services = [], []
        for shard in (0, 1):  # two bot processes' worth: each its own client, services and connections
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None, data_dir=tmp_path / f"data{shard}", shard_count=2, shard_ids=[shard]
            )
            services = await build_services(settings, db=db_target.open())
            bot = create_bot(services)
            await emu.start_bot(bot)
            bots.append(bot)
            all_services.append(services)
        try:
            assert sorted(tuple(i["shard"]) for i in emu.identify_log) == [(0, 2), (1, 2)]
            assert [s.scheduler is not None for s in all_services] == [True, False]
            for shard, (guild, gm, chan) in enumerate(worlds):
                assert [b.get_guild(guild.id) is not None for b in bots] == [shard == 0, shard == 1]
                started = await emu.invoke(chan, gm, "scene start", title=f"On shard {shard}")
                assert not started.ephemeral, started.content
                assert all_services[shard].metrics.summary(guild.id)["scene start"]["count"] == 1
                assert "scene start" not in all_services[1 - shard].metrics.summary(guild.id)
        finally:
            for bot in bots:
                await emu.stop_bot(bot)
        emu.errors.assert_no_errors()


def test_one_process_without_shard_count_is_a_plain_bot(settings: Settings) -> None:
    class Stub:
        pass

    services = Stub()
    services.settings = settings  # type: ignore[attr-defined]
    bot = create_bot(services)  # type: ignore[arg-type]
    assert type(bot) is Lorekeeper
