"""What Discord refuses, end to end: each test broke on the emulator made as strict as Discord, at worst cases.

The bot has the permissions of the README's invite (no Mention Everyone); Discord's clock for interaction
tokens moves only when a test advances it, here from inside the model's replies, so that reading a file or a
scene takes longer than a token's 15 minutes without the test waiting for it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from bot.client.client import INVITE_PERMISSIONS
from bot.offline.emulator import DiscordEmulator
from bot.offline.emulator.messages import custom_ids
from bot.schema.ops_tables import CommandSyncRow
from canon.models import Visibility
from canon.proposals import EntityContent
from canon.storage import utc_now
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, running, scene_report, sql_run_below, tavern
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import GM, settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/voice/test_extraction.py")

#: Discord's time one model call takes here: a dozen calls outlast an interaction token (15 minutes).
CALL_SECONDS = 100.0


def cards(emu: DiscordEmulator, channel: Any) -> list[dict[str, Any]]:
    """Return the review cards (scene or import batch) posted in a channel, oldest first."""
    return [
        m
        for m in emu.channel_messages(channel)
        if any(i.startswith(("lk:review:", "lk:batch:")) for i in custom_ids(m.get("components", [])))
    ]


@pytest.fixture
async def llm_world(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[tuple[World, VoiceScript]]:
    """A running bot with the LLM stub; each model call moves Discord's clock by `CALL_SECONDS`."""
    script = VoiceScript()
    async with LLMStub(responder=script) as stub, DiscordEmulator(bot_permissions=INVITE_PERMISSIONS) as emu:

        def slow(reply: Any) -> Any:
            def handler(body: dict[str, Any]) -> Any:
                emu.clock.advance(CALL_SECONDS)
                return reply

            return handler

        script.handlers["extraction"] = slow(
            items_reply(
                {
                    "kind": "entity",
                    "name": "Ilsa Marrow",
                    "entity_type": "NPC",
                    "description": "captain",
                    "turns": list(range(1, 70)),  # a transcript's item cites its turns
                }
            )
        )
        script.handlers["npc_talk"] = "Aye, the forge is down by the river."
        settings = settings_for(tmp_path, stub, extraction_piece_tokens=200)
        async with running(tavern(emu, settings, db_target)) as world:
            yield world, script


def long_prose(sections: int) -> str:
    """A world bible of `sections` sections: one piece, one model call, each."""
    body = "Captain Ilsa Marrow held Greywatch against the raiders of the Salt Fleet. " * 12
    return "\n\n".join(f"# Chapter {n}\n\n{body}" for n in range(1, sections + 1))


# -- long work outlives the interaction token ------------------------------------------------------------


async def test_an_import_read_past_fifteen_minutes_posts_its_card_in_the_channel(
    llm_world: tuple[World, VoiceScript],
) -> None:
    world, script = llm_world
    emu, chan, gm = world.emu, world.channel, world.gm
    attachment = emu.make_attachment("chronicle.md", long_prose(12))
    answer = await emu.invoke(chan, gm, "lore import", file=attachment, extract=True)
    calls = len(script.seen["extraction"])
    assert calls >= 10 and emu.clock.now() > 15 * 60  # the token expired while the file was read
    (card,) = cards(emu, chan)
    assert card["id"] in (answer.content or "") and not card["flags"] & 64
    assert f"Read {calls} pieces of prose" in card["content"]
    # The card can be reached again from the channel.
    again = await emu.invoke(chan, gm, "canon review", private=True)
    assert again.ephemeral and any(i.startswith("lk:batch:") for i in custom_ids(again.components))
    # And a button of the channel's card still works, long after the token that made it.
    commit = next(i for i in custom_ids(card["components"]) if i.startswith("lk:batch:") and ":commit:" in i)
    done = await emu.click(card, commit, gm)
    assert done.message is not None and "Canon committed" in str(done.message["embeds"])


async def test_a_hidden_file_is_read_where_players_never_look(llm_world: tuple[World, VoiceScript]) -> None:
    world, _ = llm_world
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    attachment = emu.make_attachment("secrets.md", long_prose(2))
    answer = await emu.invoke(chan, gm, "lore import", file=attachment, extract=True, hidden=True)
    assert emu.channel_messages(chan) == []  # nothing in the players' channel, not even a progress line
    (private,) = answer.followups
    assert private["flags"] & 64 and "🔒" in str(private["embeds"])
    again = await emu.invoke(chan, gm, "canon review", private=True)
    assert again.ephemeral and "🔒" in str(again.embeds)
    refused = await emu.invoke(chan, pat, "canon review")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")

    # With a GM channel, the reading and the whole card go there.
    gm_room = emu.add_text_channel(world.guild, "gm-room")
    await world.restart()
    await emu.invoke(chan, gm, "server gm-channel", channel=gm_room)
    await emu.invoke(
        chan, gm, "lore import", file=emu.make_attachment("more.md", long_prose(1)), extract=True, hidden=True
    )
    assert emu.channel_messages(chan) == []
    (card,) = cards(emu, gm_room)
    assert "🔒" in str(card["embeds"])  # the GM channel shows GM-only proposals


@SQL_RUN_BELOW
async def test_endscene_reading_past_fifteen_minutes_posts_its_report_and_card(
    llm_world: tuple[World, VoiceScript],
) -> None:
    world, script = llm_world
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="The long siege")
    for n in range(60):
        text = f"Turn {n}: Captain Ilsa Marrow orders the archers to the walls of Greywatch once more, and waits."
        await emu.send_message(chan, pat if n % 2 else gm, text, settle=False)
    await emu.settle()
    answer = await emu.invoke(chan, gm, "endscene")
    assert len(script.seen["extraction"]) >= 10 and emu.clock.now() > 15 * 60
    report = scene_report(emu, chan)
    assert report["embeds"][0]["title"] == "Scene ended: The long siege"
    assert report["id"] in (answer.content or "")
    (card,) = cards(emu, chan)
    assert "Ilsa Marrow" in str(card["embeds"])


# -- webhook usernames, deleted webhooks, and the line that says who asked -----------------------------


async def npc(world: World, name: str) -> None:
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    content = EntityContent(
        name=name, entity_type="NPC", description="keeps the inn", visibility=Visibility.PUBLIC
    )
    await services.canon.add_direct(campaign, content, GM, command="/canon add")


@pytest.mark.parametrize("name", ["Clyde the Innkeeper", "Discordia", "Everyone"])
@SQL_RUN_BELOW
async def test_an_npc_whose_name_discord_refuses_still_answers(
    llm_world: tuple[World, VoiceScript], name: str
) -> None:
    world, _ = llm_world
    emu, chan, pat = world.emu, world.channel, world.pat
    await npc(world, name)
    asked = await emu.invoke(chan, pat, "npc talk", npc=name, message="Where is the forge?")
    assert asked.ephemeral and "answered" in (asked.content or "")
    spoken, echo = emu.channel_messages(chan)  # the answer first, then who asked
    assert spoken.get("webhook_id") and "forge is down by the river" in spoken["content"]
    assert spoken["author"]["username"].casefold() != name.casefold()  # adapted to Discord's rules
    assert len(spoken["author"]["username"]) == len(name)  # yet it reads the same
    assert echo["content"].startswith("↑ **") and "Where is the forge?" in echo["content"]


@SQL_RUN_BELOW
async def test_a_deleted_npc_webhook_is_made_again(llm_world: tuple[World, VoiceScript]) -> None:
    world, _ = llm_world
    emu, chan, pat = world.emu, world.channel, world.pat
    await npc(world, "Brann")
    await emu.invoke(chan, pat, "npc talk", npc="Brann", message="Hello?")
    (hook,) = list(emu.webhooks.values())
    del emu.webhooks[hook.id]  # a moderator deletes the "Lorekeeper NPCs" webhook
    again = await emu.invoke(chan, pat, "npc talk", npc="Brann", message="Still there?")
    assert "answered" in (again.content or "")
    spoken = [m for m in emu.channel_messages(chan) if m.get("webhook_id")]
    echoes = [m for m in emu.channel_messages(chan) if m["content"].startswith("↑")]
    assert len(spoken) == 2 and len(echoes) == 2  # no line left without its answer
    (new_hook,) = list(emu.webhooks.values())
    assert new_hook.id != hook.id


# -- role pings ------------------------------------------------------------------------------------------


async def test_a_players_role_discord_would_not_notify_is_explained_to_the_gm(world: World) -> None:
    emu = world.emu
    shy = emu.add_role(world.guild, "Shy party")  # new roles are not mentionable
    party = emu.add_role(world.guild, "Party", mentionable=True)
    world.pingable_roles.update({shy.id, party.id})
    await world.restart()
    told = await emu.invoke(world.channel, world.gm, "session schedule", when="in 2 days", players=shy)
    assert "⚠️ Discord will not notify" in (told.content or "")
    assert "Allow anyone to @mention this role" in (told.content or "")
    fine = await emu.invoke(world.channel, world.gm, "session schedule", when="in 3 days", players=party)
    assert "⚠️" not in (fine.content or "")


# -- /session list at its worst ------------------------------------------------------------------------------


async def test_session_list_shows_fifty_long_sessions_in_pages(world: World) -> None:
    emu = world.emu
    party = emu.add_role(world.guild, "Party", mentionable=True)
    await world.restart()
    ops = world.bot.services.ops
    for n in range(1, 51):
        title = f"Chapter {n}: the road to the Sunken Keep, " + "and the long way round " * 8
        await ops.schedule_session(
            guild_id=world.guild.id,
            channel_id=world.channel.id,
            user_id=world.gm.id,
            when=f"in {n + 1} days",
            repeat="weekly",
            title=title[:200],
            ping_role_id=party.id,
            now=utc_now(),
        )
    seen: list[int] = []
    page = 1
    while True:
        listed = await emu.invoke(world.channel, world.pat, "session list", page=page)
        text = listed.content or ""
        assert listed.ephemeral and len(text) <= 2000
        seen += [int(n) for n in re.findall(r"^(\d+)\. ", text, re.MULTILINE)]
        if f"page:{page + 1}" not in text:
            break
        page += 1
    assert page > 1 and seen == list(range(1, 51))


# -- the transcript at its worst, and autocomplete of long names ------------------------------------------


@SQL_RUN_BELOW
async def test_a_long_transcript_comes_in_files_within_discords_size(world: World) -> None:
    emu, chan = world.emu, world.channel
    emu.attachment_size_limit = 48 * 1024  # a small limit stands for the 10 MiB of a months-long scene
    await world.restart()
    await emu.invoke(chan, world.gm, "scene start", title="The endless road")
    line = "We walk on, and on, past the milestones and the inns, and the rain does not stop. " * 18
    for n in range(450):
        await emu.send_message(chan, world.pat, f"{n}: {line}", settle=False)
    await emu.settle()
    got = await emu.invoke(chan, world.quinn, "scene transcript")
    messages = [got.original_message, *got.followups]
    files = {name: data for m in messages if m is not None for name, data in m["files"].items()}
    assert len(files) > 10 and len(got.followups) >= 1  # more than one message: 10 files a message
    assert all(len(data) <= emu.attachment_size_limit for data in files.values())
    text = b"".join(
        files[name] for name in sorted(files, key=lambda n: int(n.split("-part-")[1].split("-")[0]))
    )
    assert text.decode().count("We walk on") == 450 * 18
    assert f"in {len(files)} files" in (got.original_message or {}).get("content", "")


@SQL_RUN_BELOW
async def test_picking_a_long_name_from_autocomplete_finds_it(world: World) -> None:
    emu, chan = world.emu, world.channel
    name = "Aldric " + "the Unbowed, Warden of the Northern Marches and Keeper of the Old Oaths, " * 2
    name = name.strip()[:200]
    assert len(name) > 100
    await emu.invoke(chan, world.gm, "canon add entity", name=name, type="NPC")
    (choice,) = await emu.autocomplete(chan, world.pat, "canon entity", "name", "Aldric")
    assert len(choice["value"]) <= 100 and choice["name"].startswith("Aldric the Unbowed")
    shown = await emu.invoke(chan, world.pat, "canon entity", name=choice["value"])
    assert name in str(shown.embeds)


# -- the command tree is synced only when it changed -----------------------------------------------------------


@SQL_RUN_BELOW
async def test_a_restart_with_an_unchanged_command_tree_makes_no_sync_call(world: World) -> None:
    emu = world.emu
    syncs = emu.requests_to("PUT", rf"/applications/{emu.application_id}/commands$")
    assert len(syncs) == 1  # the first start
    await world.restart()
    await world.restart()
    assert len(emu.requests_to("PUT", rf"/applications/{emu.application_id}/commands$")) == 1
    # A changed tree (here: what was last synced is not what this bot has) is synced again, once.
    await world.bot.services.db.run(lambda s: s.execute(update(CommandSyncRow).values(tree_hash="changed")))
    await world.restart()
    await world.restart()
    assert len(emu.requests_to("PUT", rf"/applications/{emu.application_id}/commands$")) == 2
