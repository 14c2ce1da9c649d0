"""`/lore` end to end: the real discord.py client against the emulator, a real database, real Chroma and the real
embedding model (and, for `extract`, the real openai client against the local LLM stub).

A hidden source never reaches a player by any command (ask, sources, source, autocomplete, "Why these?") while
the GM sees it marked; a disabled source is never retrieved; a deleted one leaves old answers' text in place;
a broken YAML file is answered with its error lines; imported prose read into proposals waits on a batch card
that only the GM can decide and commit.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.offline.emulator import DiscordEmulator
from bot.offline.emulator.messages import custom_ids
from canon.models import Viewer
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, embed_fields, running, sql_run_below, tavern
from tests.helpers.chroma_server import ChromaServer
from tests.helpers.llm_stub import LLMStub
from tests.helpers.voice_fixtures import settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/voice/test_extraction.py")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "yaml"
WORLD = """# Westhaven

## The Crown

King Aldric rules Westhaven from the Gull Throne, high above the harbour.

## The Abbey

The monks of the Old Abbey keep the Ledger of Tides and ring the bell at dusk.
"""
SECRET_WORDS = "feeds on the novices"
SECRETS = f"""# Narrator notes

## The Abbot

The abbot of the Old Abbey is a vampire who {SECRET_WORDS} in the crypt below the bell tower.
"""
MOOD = """# Harbour mood

## Fog

Fog rolls over the harbour at dusk; gulls cry and the Old Abbey bell tolls like a warning.
"""
GOOD_YAML = """creatures:
  - id: pale_worm
    name: The Pale Worm
    description: A blind wyrm under the ice.
  - id: frost_hound
    name: Frost Hound
"""


def everything(message: dict[str, Any] | None) -> str:
    """Return all the text of a message: content, embeds' titles, descriptions, fields and footers."""
    if message is None:
        return ""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds", []):
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields", [])]
        parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts)


def why_id(message: dict[str, Any] | None, kind: str = "why") -> str:
    assert message is not None
    (button,) = [c for c in custom_ids(message.get("components", [])) if c.startswith(f"lk:lore:{kind}:")]
    return button


async def with_sources(world: World, asked: Any, user: Any) -> str:
    """Return all the text of an answer and of its Sources, opened by `user`."""
    opened = await world.emu.click(asked.message, why_id(asked.message, "src"), user)
    assert opened.ephemeral
    return everything(asked.message) + "\n" + everything(opened.message)


async def import_file(world: World, name: str, data: str, **options: Any) -> Any:
    attachment = world.emu.make_attachment(name, data)
    return await world.emu.invoke(world.channel, world.gm, "lore import", file=attachment, **options)


@SQL_RUN_BELOW
async def test_lore_keeps_hidden_sources_from_players_and_obeys_disable_and_delete(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat

    # Players cannot import.
    refused = await emu.invoke(chan, pat, "lore import", file=emu.make_attachment("world.md", WORLD))
    assert refused.ephemeral and "Only the GM" in (refused.content or "")

    imported = await import_file(world, "world.md", WORLD, tags="setting, crown")
    assert imported.ephemeral
    text = everything(imported.message)
    assert "Imported: world.md" in text and "Reference" in text and "setting, crown" in text
    progress = [
        r
        for r in emu.requests
        if r.method == "PATCH"
        and imported.token in r.path
        and "Importing" in str((r.json or {}).get("content"))
    ]
    assert progress, "the deferred answer was not edited with the import's progress"
    await import_file(world, "secrets.md", SECRETS, hidden=True, **{"class": "canon"})
    await import_file(world, "mood.md", MOOD, **{"class": "inspiration"})
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    ids = {s.filename: s.id for s in await services.knowledge.list_sources(campaign.id)}

    # A player's answer: the passages, Inspiration marked as such, and never the hidden source.
    question = "what happens in the Old Abbey crypt and who is the abbot?"
    asked = await emu.invoke(chan, pat, "lore ask", question=question, limit=6)
    assert asked.ephemeral
    shown = await with_sources(world, asked, pat)
    assert "Old Abbey" in shown and SECRET_WORDS not in shown and "Narrator notes" not in shown
    assert "Inspiration — not established fact" in shown
    # The GM's: the hidden source too, marked.
    gm_asked = await emu.invoke(chan, gm, "lore ask", question=question, limit=6)
    gm_shown = await with_sources(world, gm_asked, gm)
    assert SECRET_WORDS in gm_shown and "🔒 hidden (GM only)" in gm_shown

    # Posted for the table, even the GM's answer is a player's.
    shared = await emu.invoke(chan, gm, "lore ask", question=question, limit=6, public=True)
    assert not shared.ephemeral and SECRET_WORDS not in await with_sources(world, shared, pat)
    # GM-only canon about an entity named in the question: the GM's answer only, marked.
    await emu.invoke(
        chan, gm, "canon add entity", name="Abbot Vell", type="NPC", description="drinks blood", gm_only=True
    )
    player_canon = await emu.invoke(chan, pat, "lore ask", question="Who is Abbot Vell?")
    assert "drinks blood" not in await with_sources(world, player_canon, pat)
    gm_canon = await emu.invoke(chan, gm, "lore ask", question="Who is Abbot Vell?")
    assert "Canon: Abbot Vell (NPC) 🔒 GM only" in await with_sources(world, gm_canon, gm)
    assert "Lore: Who is Abbot Vell?\nAbbot Vell: drinks blood. [1]" in everything(gm_canon.message)

    # "Why these?" is the GM's: a player's answer has no such button, a player's click on the GM's is refused,
    # and a GM's answer is not a player's to open.
    assert not [c for c in custom_ids(asked.message["components"]) if c.startswith("lk:lore:why:")]
    denied_why = await emu.click(gm_asked.message, why_id(gm_asked.message), pat)
    assert denied_why.ephemeral and "for the GM" in (denied_why.content or "")
    stolen = await emu.click(gm_asked.message, why_id(gm_asked.message, "src"), pat)
    assert stolen.ephemeral and "Only the one who asked" in (stolen.content or "")
    gm_why = await emu.click(gm_asked.message, why_id(gm_asked.message), gm)
    assert "🔒" in everything(gm_why.message) and SECRET_WORDS in everything(gm_why.message)

    # The inspector and its autocomplete are the GM's.
    for command, options in (("lore sources", {}), ("lore source", {"source": ids["secrets.md"]})):
        denied = await emu.invoke(chan, pat, command, **options)
        assert denied.ephemeral and "Only the GM" in (denied.content or "")
    assert await emu.autocomplete(chan, pat, "lore source", "source", "") == []
    offered = await emu.autocomplete(chan, gm, "lore source", "source", "")
    assert any("hidden" in c["name"] and c["value"] == ids["secrets.md"] for c in offered)
    listed = await emu.invoke(chan, gm, "lore sources")
    assert "Narrator notes" in everything(listed.message) and "🔒 hidden" in everything(listed.message)
    detail = await emu.invoke(chan, gm, "lore source", source=ids["world.md"])
    assert "Versions (1)" in everything(detail.message) and "×" not in everything(detail.message)
    assert re.fullmatch(r"in \d+ answers? · last .+", embed_fields(detail.embeds[0])["Use"]), detail.embeds[0]

    # A disabled source is never retrieved, for anyone; enabling brings it back. Only the GM may do either.
    async def refused(command: str, source: int) -> None:
        denied = await emu.invoke(chan, pat, command, source=source)
        assert denied.ephemeral and "Only the GM" in (denied.content or ""), command

    await refused("lore disable", ids["world.md"])
    assert (await services.knowledge.get_source(campaign.id, ids["world.md"])).source.enabled
    await emu.invoke(chan, gm, "lore disable", source=ids["world.md"])
    for user in (pat, gm):
        answer = await emu.invoke(chan, user, "lore ask", question="who rules from the Gull Throne?")
        assert "King Aldric" not in everything(answer.message)
    await refused("lore enable", ids["world.md"])
    assert not (await services.knowledge.get_source(campaign.id, ids["world.md"])).source.enabled
    await emu.invoke(chan, gm, "lore enable", source=ids["world.md"])
    back = await emu.invoke(chan, pat, "lore ask", question="who rules from the Gull Throne?")
    assert "King Aldric" in everything(back.message)

    # /lore set: the class and the flags; a player's `set` is refused.
    changed = await emu.invoke(chan, gm, "lore set", source=ids["mood.md"], field="class", value="reference")
    assert "Reference" in everything(changed.message)
    denied = await emu.invoke(chan, pat, "lore set", source=ids["secrets.md"], field="hidden", value="false")
    assert "Only the GM" in (denied.content or "")
    assert (await services.knowledge.get_source(campaign.id, ids["secrets.md"])).source.hidden

    # Delete: refused to a player (nothing goes); the GM's removes the source, old answers keep their text.
    kept = await services.knowledge.get_source(campaign.id, ids["secrets.md"])
    await refused("lore delete", ids["secrets.md"])
    still = await services.knowledge.get_source(campaign.id, ids["secrets.md"])
    assert still.source.chunk_count == kept.source.chunk_count > 0 and len(still.chunks) == len(kept.chunks)
    deleted = await emu.invoke(chan, gm, "lore delete", source=ids["secrets.md"])
    assert "Deleted" in everything(deleted.message)
    after = await services.knowledge.ask(campaign.id, question, viewer=Viewer.GM, record=False)
    assert all(r.filename != "secrets.md" for r in after.results)
    # ...and the button still answers after a restart (a DynamicItem rebuilt from its custom id).
    await world.restart()
    again = await emu.click(gm_asked.message, why_id(gm_asked.message), gm)
    assert SECRET_WORDS in everything(again.message)


@SQL_RUN_BELOW
async def test_a_yaml_import_answers_with_its_counts_or_its_error_lines(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    broken = (FIXTURES / "broken_multiple_problems.yaml").read_text()
    failed = await import_file(world, "family.yaml", broken)
    text = everything(failed.message)
    assert "Not imported: family.yaml" in text and "nothing was written" in text.lower()
    assert "family.yaml: line 8" in text, text  # the duplicated id, with its line

    good = await import_file(world, "bestiary.yaml", GOOD_YAML)
    text = everything(good.message)
    assert "Imported: bestiary.yaml" in text and "In all: " in text and "Creature" not in text
    assert "Imported 2 creatures and 1 fact from bestiary.yaml." in text, text
    assert "Players can now ask about them with /lore ask." in text
    assert "changeset" not in text and "adopted" not in text
    card = await emu.invoke(chan, gm, "canon entity", name="Frost Hound")
    assert "Frost Hound" in everything(card.message)
    refused = await import_file(world, "bestiary.yaml", GOOD_YAML, extract=True)
    assert "extract" in (refused.content or "") and refused.ephemeral


@pytest.fixture
async def chroma_world(
    db_target: DatabaseTarget, tmp_path: Path
) -> AsyncIterator[tuple[World, ChromaServer]]:
    """A running bot whose vectors live in a Chroma server (which a test may stop)."""
    server = ChromaServer(tmp_path / "chroma-server")
    server.start()
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        gm_role="GM",
        chroma={"host": server.host, "port": server.port},
    )
    try:
        async with DiscordEmulator() as emu, running(tavern(emu, settings, db_target)) as world:
            yield world, server
    finally:
        server.stop()


@SQL_RUN_BELOW
async def test_with_the_vector_server_down_the_answer_comes_by_words_and_says_so(
    chroma_world: tuple[World, ChromaServer],
) -> None:
    world, server = chroma_world
    emu, chan, pat = world.emu, world.channel, world.pat
    imported = await import_file(world, "world.md", WORLD)
    assert "found by meaning and by words" in everything(imported.message)

    # Down before the campaign's vectors were ever searched: none are held, the words alone answer, and say so.
    server.stop()
    asked = await emu.invoke(chan, pat, "lore ask", question="who rules from the Gull Throne?")
    shown = everything(asked.message)
    assert "King Aldric" in shown  # the words alone still find it
    (description,) = [e.get("description") or "" for e in asked.embeds]
    assert "⚠️ semantic search unavailable" in description and "words only" in description
    (sources,) = [
        e.get("description") or ""
        for e in (await emu.click(asked.message, why_id(asked.message, "src"), pat)).embeds
    ]
    assert "words only" in sources

    # Back: searched by meaning again, its vectors now held by the bot, which serve while the server is away.
    server.start()
    healthy = await emu.invoke(chan, pat, "lore ask", question="who rules from the Gull Throne?")
    assert "King Aldric" in everything(healthy.message) and "⚠️" not in everything(healthy.message)
    server.stop()
    held = await emu.invoke(chan, pat, "lore ask", question="who rules from the Gull Throne?")
    assert "King Aldric" in everything(held.message) and "⚠️" not in everything(held.message)


PROSE = """# The Fall of Greywatch

Captain Ilsa Marrow held Greywatch for nine days against the raiders of the Salt Fleet.
"""


@pytest.fixture
async def llm_world(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[tuple[World, VoiceScript]]:
    """A running bot whose LLM is the local stub, scripted to read two entities out of prose."""
    script = VoiceScript(
        extraction=items_reply(
            {"kind": "entity", "name": "Ilsa Marrow", "entity_type": "NPC", "description": "captain"},
            {"kind": "entity", "name": "Greywatch", "entity_type": "Location"},
        )
    )
    async with LLMStub(responder=script) as stub, DiscordEmulator() as emu:
        settings = settings_for(tmp_path, stub)
        async with running(tavern(emu, settings, db_target)) as world:
            yield world, script


async def test_extracted_prose_waits_on_a_batch_card_only_the_gm_decides(
    llm_world: tuple[World, VoiceScript],
) -> None:
    world, script = llm_world
    emu, gm, pat = world.emu, world.gm, world.pat
    result = await import_file(world, "chronicle.md", PROSE, extract=True)
    assert result.ephemeral and "Reading its prose into proposals: https://" in (result.content or "")
    assert len(script.seen["extraction"]) == 1
    # No GM channel: the card is a message of this channel, as players see it (nothing here is GM-only).
    (card,) = [m for m in emu.channel_messages(world.channel) if "lk:batch:" in str(m["components"])]
    assert "2 proposals" in card["content"] and not card["flags"] & 64
    assert card["id"] in (result.content or "")
    ids = custom_ids(card["components"])
    batch_ids = [i for i in ids if i.startswith("lk:batch:")]
    assert {i.split(":")[3] for i in batch_ids} == {"accept_all", "commit"}
    assert all(len(i) <= 100 for i in ids)
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)

    # Nothing is canon yet; a player's clicks are refused and change nothing.
    accept_one = next(i for i in ids if i.startswith("lk:proposal:") and i.endswith(":accept"))
    commit = next(i for i in batch_ids if ":commit:" in i)
    for custom_id in (accept_one, commit):
        refused = await emu.click(card, custom_id, pat)
        assert refused.ephemeral and "Only the GM" in (refused.content or "")
    review = await services.reviews.review(None, campaign_id=campaign.id, batch=batch_ids[0].split(":", 4)[4])
    assert {p.status.value for p in review.proposals} == {"pending"}

    # The GM accepts one, rejects the other, and commits: only the accepted one becomes canon.
    accepted = await emu.click(card, accept_one, gm)
    reject_other = next(
        i
        for i in custom_ids(accepted.message["components"])
        if i.startswith("lk:proposal:") and i.endswith(":reject")
    )
    asked = await emu.click(accepted.message, reject_other, gm)
    assert asked.modal is not None  # a rejection asks for the GM's reason first
    await emu.submit_modal(asked, gm, {"lk:rationale:text": "Greywatch belongs to another book"})
    committed = await emu.click(emu.stored(card).view(), commit, gm)
    text = everything(committed.message)
    assert "Canon committed" in text and "1 written to canon, 1 rejected" in text, text
    names = {json.dumps(p.content.model_dump(mode="json")) for p in review.proposals}
    assert len(names) == 2
    accepted_id = int(accept_one.split(":")[2])
    accepted_name = next(p.content.name for p in review.proposals if p.id == accepted_id)  # type: ignore[union-attr]
    card_answer = await emu.invoke(world.channel, gm, "canon entity", name=accepted_name)
    assert accepted_name in everything(card_answer.message)
    rejected_name = next(p.content.name for p in review.proposals if p.id != accepted_id)  # type: ignore[union-attr]
    missing = await emu.invoke(world.channel, gm, "canon entity", name=rejected_name)
    assert (
        f"is called “{rejected_name}”" in (missing.content or "")
        or "not found" in everything(missing.message).lower()
    )
    # The closed card's buttons are disabled; the batch cannot be committed twice.
    closed = emu.stored(card).view()
    assert all(c.get("disabled") for row in closed["components"] for c in row["components"])


async def test_an_answer_with_nothing_behind_it_offers_no_empty_sources_but_a_next_step(world: World) -> None:
    emu, chan, pat = world.emu, world.channel, world.pat
    empty = await emu.invoke(chan, pat, "lore ask", question="Who rules from the Gull Throne?")
    shown = everything(empty.message)
    assert "try other words, or ask the GM" in shown, shown
    assert not [c for c in custom_ids(empty.message.get("components", [])) if c.startswith("lk:lore:src:")]
    await import_file(world, "world.md", WORLD)
    found = await emu.invoke(chan, pat, "lore ask", question="Who rules from the Gull Throne?")
    assert "King Aldric" in await with_sources(world, found, pat)  # a Sources button to open, as before
    assert "ask the GM" not in everything(found.message)
