"""World prep end to end: the real discord.py client against the emulator, a real database.

A characters file and a factions file imported with a family tree in one `/lore import` (they refer to each
other), a campaign with plain years and no eras, and a replacement asked first: a GM-only button a player's
click cannot press, saying what it will retcon, and nothing written until the GM presses it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.offline.emulator.messages import custom_ids
from tests.e2e.conftest import World, sql_run_below, tavern

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/archive/test_export_import.py", "tests/bot/services/test_dialogue_import.py"
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "yaml"


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


def attach(world: World, name: str, text: str | None = None) -> Any:
    data = text if text is not None else (FIXTURES / name).read_text(encoding="utf-8")
    return world.emu.make_attachment(name, data)


TREE = """lineage: house_vyr_line
name: The Vyr Line
members:
  - id: aldric_vyr
    name: Aldric Vyr
    born: 1300
    spouse_of: [elara_vyr]
  - id: elara_vyr
    name: Elara Vyr
    born: 1304
  - id: corvin_vyr
    name: Corvin Vyr
    born: 1330
    parents: [aldric_vyr, elara_vyr]
"""
ROSTER = """characters:
  - id: varek_the_red
    name: Varek the Red
    faction: crimson_pact
    titles: [Warlord of the Pact]
    status: imprisoned
    gm_only: [status]
    gm_notes: Held in the lowest cell; the Pact believes him dead.
  - id: sister_ilse
    name: Sister Ilse
    aliases: [The Grey Sister]
    faction: sisterhood_of_silver
  - id: the_whisper
    name: The Whisper
    faction: crimson_pact
    visibility: gm_only
"""
FACTIONS = """factions:
  - id: house_vyr
    name: House Vyr
    leader: aldric_vyr
    members: [aldric_vyr, elara_vyr, corvin_vyr]
    allies: [sisterhood_of_silver]
    rivals: [crimson_pact]
  - id: crimson_pact
    name: The Crimson Pact
    leader: varek_the_red
    members: [varek_the_red, the_whisper]
    goals: [Take the pass]
    gm_only: [goals]
  - id: sisterhood_of_silver
    name: Sisterhood of Silver
    leader: sister_ilse
    allies: [house_vyr]
"""


async def test_a_roster_and_factions_import_together_with_a_family_tree_and_players_see_no_gm_field(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    # Each refers to the others (a faction's leader is in the tree, a character's faction in the factions
    # file): one by one, the first is refused with its lines; together, they import.
    alone = await emu.invoke(chan, gm, "lore import", file=attach(world, "characters.yaml", ROSTER))
    assert "characters.yaml: line 4" in everything(alone.message).replace("\\", "")
    together = await emu.invoke(
        chan,
        gm,
        "lore import",
        file=attach(world, "characters.yaml", ROSTER),
        file2=attach(world, "factions.yaml", FACTIONS),
        file3=attach(world, "family_tree.yaml", TREE),
    )
    text = everything(together.message)
    assert "Imported: characters.yaml, factions.yaml, family_tree.yaml" in text, text
    # The Whisper's membership, said by the roster and the factions file, is one statement (hidden: he is).
    assert "Imported 3 factions, 1 lineage, 6 people and 25 facts from characters.yaml" in text, text
    assert "Imported 3 factions, 1 lineage, 6 people and 25 facts" in text, text  # 3 NPCs and 3 persons
    # A player reads Varek's card: his title, never his status (GM-only) nor the GM's notes.
    card = await emu.invoke(chan, pat, "canon entity", name="Varek the Red")
    shown = everything(card.message)
    assert "Varek the Red" in shown and "Warlord of the Pact" in shown and "Crimson Pact" in shown
    assert "imprisoned" not in shown and "lowest cell" not in shown
    gm_card = await emu.invoke(chan, gm, "canon entity", name="Varek the Red")
    assert "imprisoned" in everything(gm_card.message)
    pact = everything((await emu.invoke(chan, pat, "canon entity", name="The Crimson Pact")).message)
    assert "Varek the Red" in pact and "Whisper" not in pact and "Take the pass" not in pact
    vyr = everything((await emu.invoke(chan, pat, "canon entity", name="House Vyr")).message)
    assert "Aldric Vyr" in vyr and "Sisterhood of Silver" in vyr
    # An alias finds the character; a hidden character is nobody to a player.
    alias = await emu.invoke(chan, pat, "canon entity", name="The Grey Sister")
    assert "Sister Ilse" in everything(alias.message)
    hidden = await emu.invoke(chan, pat, "canon entity", name="The Whisper")
    assert "is called “The Whisper”" in everything(hidden.message) + (hidden.content or "")
    assert "spy" not in (hidden.content or "") and "gm_only" not in (hidden.content or "")


PLAIN_TREE = """lineage: house_mott
members:
  - id: abel_mott
    name: Abel Mott
    born: 1102
    died: 1170.4.2
  - id: old_mott
    name: Old Mott
    born: 1141
    parents: [abel_mott]
"""
PLAIN_TIMELINE = """events:
  - id: great_flood
    name: The Great Flood
    year: 1150
    participants: [abel_mott]
"""


async def test_a_campaign_with_plain_years_imports_without_any_era(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    done = await emu.invoke(
        chan,
        gm,
        "lore import",
        file=attach(world, "motts.yaml", PLAIN_TREE),
        file2=attach(world, "flood.yaml", PLAIN_TIMELINE),
    )
    text = everything(done.message)
    assert (
        "Imported: motts.yaml, flood.yaml" in text
        and "Imported 1 event, 1 lineage, 2 people and 7 facts" in text
    ), text
    card = await emu.invoke(chan, gm, "canon entity", name="Abel Mott")
    assert "1102" in everything(card.message)


BESTIARY = "creatures:\n  - id: aboleth\n    name: Aboleth\n  - id: kraken\n    name: Kraken\n"
OTHER = "creatures:\n  - id: ghoul\n    name: Ghoul\n"


async def test_replacing_a_file_of_the_same_name_asks_the_gm_first_and_a_player_cannot_confirm(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    first = await emu.invoke(chan, gm, "lore import", file=attach(world, "bestiary.yaml", BESTIARY))
    assert "Imported 2 creatures from bestiary.yaml" in everything(first.message)
    asked = await emu.invoke(chan, gm, "lore import", file=attach(world, "bestiary.yaml", OTHER))
    text = everything(asked.message)
    assert "Replace bestiary.yaml?" in text and "It retcons 2 entries (Aboleth and Kraken)" in text, text
    assert "nothing was written yet" in text
    assert asked.message is not None
    (button,) = [
        c for c in custom_ids(asked.message.get("components", [])) if c.startswith("lk:lore:replace:")
    ]
    still = await emu.invoke(chan, gm, "canon entity", name="Aboleth")
    assert "Aboleth" in everything(still.message) and "No entity" not in everything(still.message)
    refused = await emu.click(asked.message, button, pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    still = await emu.invoke(chan, gm, "canon entity", name="Ghoul")
    assert "No entity" in everything(still.message) or "not" in (still.content or "").lower()
    await emu.click(asked.message, button, gm)
    after = everything(emu.stored(asked.message).view())
    assert "Imported: bestiary.yaml" in after and "2 entities retconned" not in after, after
    ghoul = await emu.invoke(chan, gm, "canon entity", name="Ghoul")
    assert "Ghoul" in everything(ghoul.message)
    gone = await emu.invoke(chan, gm, "canon entity", name="Aboleth")
    assert "is called “Aboleth”" in everything(gone.message) + (gone.content or "")


@SQL_RUN_BELOW
async def test_a_gm_note_shows_on_the_entity_card_for_the_gm_and_never_for_a_player(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "lore import", file=attach(world, "bestiary.yaml", BESTIARY))
    secret = "sleeps under the Drowned Library"
    added = await emu.invoke(
        chan, gm, "note add", text=f"The Aboleth {secret}", tags="plot, lair", about="Aboleth"
    )
    assert (
        added.ephemeral
        and secret in everything(added.message)
        and "about Aboleth" in everything(added.message)
    )
    await emu.invoke(chan, gm, "note add", text="Roll for the kraken's mood", tags="todo")
    # The GM's card shows the note; a player's card of the same entity does not, nor its count.
    gm_card = everything((await emu.invoke(chan, gm, "canon entity", name="Aboleth")).message)
    assert secret in gm_card and "Your notes" in gm_card
    player_card = everything((await emu.invoke(chan, pat, "canon entity", name="Aboleth")).message)
    assert "Aboleth" in player_card and secret not in player_card and "notes" not in player_card.lower()
    # Searchable by words and tags; a player cannot use /note at all.
    found = everything((await emu.invoke(chan, gm, "note list", search="drowned")).message)
    assert secret in found and "kraken" not in found
    todo = everything((await emu.invoke(chan, gm, "note list", tag="todo")).message)
    assert "kraken's mood" in todo and secret not in todo
    for command, options in (
        ("note list", {}),
        ("note add", {"text": "mine now"}),
        ("note done", {"note": 1}),
    ):
        refused = await emu.invoke(chan, pat, command, **options)
        assert refused.ephemeral and secret not in (refused.content or "") + everything(refused.message)
        assert "GM" in (refused.content or "") + everything(refused.message)
    # Done: off the card, still found with include_done.
    number = int(found.split("**#", 1)[1].split("**", 1)[0])
    await emu.invoke(chan, gm, "note done", note=number)
    assert secret not in everything((await emu.invoke(chan, gm, "canon entity", name="Aboleth")).message)
    assert secret in everything((await emu.invoke(chan, gm, "note list", include_done=True)).message)


@SQL_RUN_BELOW
async def test_the_gm_edits_filters_deletes_and_counts_npc_memories_and_a_player_cannot(world: World) -> None:
    from canon.proposals import EntityContent
    from memory.npc_memory import NewMemory, ScopeKind
    from memory.scenes import Actor

    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    services = world.bot.services
    campaign = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    boss = Actor(id=gm.id, name=gm.name, is_gm=True)
    added = await services.canon.add_direct(
        campaign, EntityContent(name="Mira", entity_type="NPC"), boss, command="t"
    )
    mira = next(iter(added.entity_ids.values()))

    def memory(text: str, *categories: str) -> NewMemory:
        return NewMemory(
            npc_id=mira, npc_name="Mira", scope_kind=ScopeKind.NPC, content=text, categories=categories
        )

    stored = await services.voice.memories.add(
        campaign.id,
        [
            memory("Aldric paid for the cellar room with a silver ring.", "debts"),
            memory("A storm sank three fishing boats off the harbour.", "harbour"),
            memory("The baker owes two silver for flour.", "debts", "town"),
        ],
    )
    storm = stored[1].id
    # The GM corrects a memory; it is found by its new text.
    edited = await emu.invoke(
        chan,
        gm,
        "npc memory-edit",
        memory=storm,
        text="A kraken dragged three fishing boats under.",
        categories="harbour, monsters",
    )
    assert "changed" in everything(edited.message) and "kraken" in everything(edited.message)
    found = await emu.invoke(chan, gm, "npc memories", npc="Mira", search="sea monster tentacles")
    text = everything(found.message)
    assert text.index("kraken") < text.index("silver"), text
    filtered = everything((await emu.invoke(chan, gm, "npc memories", npc="Mira", category="debts")).message)
    assert "baker" in filtered and "Aldric" in filtered and "kraken" not in filtered
    # A player may do none of it.
    for command, options in (
        ("npc memory-edit", {"memory": storm, "text": "mine"}),
        ("npc memory-delete", {"npc": "Mira", "category": "debts"}),
        ("npc memory-scopes", {}),
        ("npc memories", {"npc": "Mira", "search": "kraken"}),
    ):
        refused = await emu.invoke(chan, pat, command, **options)
        answer = everything(refused.message) + (refused.content or "")
        assert refused.ephemeral and "kraken" not in answer and "GM" in answer, answer
    unchanged = everything(
        (await emu.invoke(chan, gm, "npc memories", npc="Mira", category="monsters")).message
    )
    assert "kraken" in unchanged and "mine" not in unchanged
    # A filtered delete: Mira's debts with the town category only.
    deleted = await emu.invoke(chan, gm, "npc memory-delete", npc="Mira", category="town")
    assert "Deleted 1 memory" in (deleted.content or "")
    left = everything((await emu.invoke(chan, gm, "npc memories", npc="Mira", category="debts")).message)
    assert "Aldric" in left and "baker" not in left
    # Scope info: counts, per category, and the scopes named.
    scopes = everything((await emu.invoke(chan, gm, "npc memory-scopes", npc="Mira")).message)
    assert "Memories in Mira" in scopes and "2 memories (0 private)" in scopes
    assert "debts 1" in scopes and "harbour 1" in scopes and "monsters 1" in scopes
    assert "the whole campaign: 2" in scopes


DIALOGUE = b"""title: At the Drowned Rat
date: 3rd_age.year_340
location: Thornwall
dialogue:
  - speaker: Mira
    line: The ledger is hidden in the cellar, under the barrels.
  - speaker: Kestrel
    line: Then we go down tonight.
"""


@SQL_RUN_BELOW
async def test_a_dialogue_file_becomes_a_closed_scene_with_a_review_card_and_npc_memories(
    db_target: Any, tmp_path: Any
) -> None:
    from bot.offline.emulator import DiscordEmulator
    from canon.proposals import EntityContent
    from memory.scenes import Actor
    from tests.e2e.conftest import assert_no_pings
    from tests.helpers.llm_stub import LLMStub
    from tests.helpers.voice_fixtures import settings_for
    from tests.helpers.voice_stub import VoiceScript, items_reply

    script = VoiceScript(
        extraction=items_reply(
            {"kind": "fact", "subject": "Mira", "attribute": "hid", "value": "the ledger", "turns": [2]}
        ),
        npc_memory={
            "memories": [{"text": "I told them where the ledger is.", "importance": 0.8, "turns": [2]}],
            "links": [],
        },
    )
    async with LLMStub(responder=script) as stub, DiscordEmulator() as emu:
        world = tavern(emu, settings_for(tmp_path, stub), db_target)
        guild, gm, pat, chan = world.guild, world.gm, world.pat, world.channel
        await world.start()
        try:
            services = world.bot.services
            campaign = await services.campaigns.for_guild(guild.id, guild.name)
            boss = Actor(id=gm.id, name=gm.name, is_gm=True)
            await services.canon.add_direct(
                campaign, EntityContent(name="Mira", entity_type="NPC"), boss, command="t"
            )
            refused = await emu.invoke(
                chan, pat, "lore import", file=emu.make_attachment("talk.yaml", DIALOGUE)
            )
            assert refused.ephemeral and "GM" in (refused.content or "")
            done = await emu.invoke(chan, gm, "lore import", file=emu.make_attachment("talk.yaml", DIALOGUE))
            text = everything(done.message)
            assert "2 lines are now scene 1, “At the Drowned Rat (year 340 of the 3rd age)”" in text, text
            assert "The NPCs Mira spoke" in text and "the ledger" in text and done.ephemeral
            assert done.message is not None
            commit = next(c for c in custom_ids(done.message.get("components", [])) if ":commit" in c)
            accept = next(c for c in custom_ids(done.message.get("components", [])) if c.endswith(":accept"))
            await emu.click(done.message, accept, gm)
            await emu.click(emu.stored(done.message).view(), commit, gm)
            await services.voice.drain()

            _, memories = await services.voice.npc_memories(campaign, "Mira")
            assert any("ledger" in m.content for m in memories), memories
            listed = everything((await emu.invoke(chan, gm, "npc memories", npc="Mira")).message)
            assert "ledger" in listed
            await emu.settle()
            assert_no_pings(emu)
        finally:
            while world.bots:
                await world.stop()
        emu.errors.assert_no_errors()
