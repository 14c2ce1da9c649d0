"""Continuity that keeps up with play, end to end: attributes read against the ontology's declarations.

The real discord.py client against the emulator; the world fixture fails a test when anything logged an error
or could ping.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from canon.models import Viewer
from canon.tables import ConflictRow
from memory.scenes import scene_turns
from tests.e2e.canon_flow import (
    buttons,
    campaign_of,
    embed_text,
    latest_scene,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")

FAMILY = """\
lineage: house_tidewright
name: House Tidewright
members:
  - id: mara_tidewright
    name: Mara Tidewright
    titles: [Harbourmaster of Greyhaven]
"""


async def import_yaml(world: World, name: str, data: str) -> Any:
    attachment = world.emu.make_attachment(name, data)
    return await world.emu.invoke(world.channel, world.gm, "lore import", file=attachment)


@SQL_RUN_BELOW
async def test_a_title_from_play_against_the_world_bible_is_warned_with_both_sides_evidence(
    world: World,
) -> None:
    emu, chan = world.emu, world.channel
    await import_yaml(world, "family.yaml", FAMILY)
    await emu.invoke(chan, world.gm, "scene start", title="The harbour")
    await emu.send_message(chan, world.pat, "Mara raises the black flag over the harbour.")

    for attribute in ("title", "titles"):
        reply = await emu.invoke(
            chan,
            world.pat,
            "propose fact",
            subject="Mara Tidewright",
            attribute=attribute,
            value="Pirate Queen",
        )
        text = embed_text(reply.embeds[0])
        assert reply.ephemeral and "Mara Tidewright is Pirate Queen" in text, text
        assert "Continuity warnings" in text, text
        assert (
            "Mara Tidewright's title is “Pirate Queen” according to play (scene 1), contradicting "
            "“Harbourmaster of Greyhaven” from an imported source (undated)" in text
        ), text
        assert "Mara Tidewright is Harbourmaster of Greyhaven: from the lore files\n" in text, text
        assert (
            "Mara Tidewright is Pirate Queen (scene 1): from [the scene “The harbour”](" in text
            and ", said by Pat\n" in text
        ), text
        assert "accepted by" not in text, text  # the proposal is not accepted: only checked as if it were


async def add_fact(world: World, subject: str, attribute: str, value: str) -> int:
    """Write a fact as the GM; return its id."""
    reply = await world.emu.invoke(
        world.channel, world.gm, "canon add fact", subject=subject, attribute=attribute, value=value
    )
    assert embed_text(reply.embeds[0]).startswith("Written to canon"), embed_text(reply.embeds[0])
    choices = await world.emu.autocomplete(world.channel, world.gm, "retcon", "fact", f"{subject} {value}")
    (fact_id,) = (int(c["value"].removeprefix("fact ")) for c in choices if c["name"].endswith(value))
    return fact_id


async def open_conflicts(world: World) -> list[ConflictRow]:
    async with world.bot.services.db.session() as session:
        query = select(ConflictRow).where(ConflictRow.status == "open").order_by(ConflictRow.id)
        return list((await session.execute(query)).scalars())


@SQL_RUN_BELOW
async def test_conflicts_are_resolved_by_a_retcon_or_dismissed_and_only_the_gm_closes_them(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    for name in ("Mara", "Brann"):
        await emu.invoke(chan, gm, "canon add entity", name=name, type="NPC")
    await add_fact(world, "Mara", "eye colour", "grey")
    green = await add_fact(world, "Mara", "eyes", "green")  # the same attribute: a second value
    await add_fact(world, "Brann", "title", "Thane")
    await add_fact(world, "Brann", "titles", "Reeve")
    retconned, dismissed = await open_conflicts(world)

    listed = await emu.invoke(chan, gm, "canon conflicts")
    text = embed_text(listed.embeds[0])
    assert listed.ephemeral and "2 open, newest first; page 1 of 1." in text, text
    assert "Mara has two values of eye colour: “grey”" in text and "Brann has two values of title" in text
    assert f"lk:conflict:{retconned.id}:resolve:open:0" in buttons(listed.message)
    # The buttons say which conflict in words, never by a number.
    labels = [b["label"] for b in buttons(listed.message).values()]
    assert any(label.startswith("Resolve: Mara has two values of eye colour") for label in labels), labels
    assert any(label.startswith("Dismiss: Brann has two values of title") for label in labels), labels
    assert not any(re.search(r"\d", label) for label in labels) and "(conflict" not in text, labels

    # A player's click on a GM control is refused, and changes nothing.
    refused = await emu.click(listed.message, f"lk:conflict:{dismissed.id}:dismiss:open:0", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    assert len(await open_conflicts(world)) == 2

    # The GM dismisses one, with a reason (an empty one is refused by the modal: it is required).
    opened = await emu.click(listed.message, f"lk:conflict:{dismissed.id}:dismiss:open:0", gm)
    assert opened.modal is not None and opened.modal["title"] == "Dismiss the conflict"
    (box,) = [row["component"] for row in opened.modal["components"]]
    assert box["placeholder"] == "Type why it is no problem (the same facts never raise it again)"  # a hint
    await world.restart()  # the modal opened before a restart still works
    player_submits = await emu.submit_modal(opened, pat, {"lk:conflictwhy:text": "not a problem"})
    assert player_submits.ephemeral and "Only the GM" in (player_submits.content or "")
    closed = await emu.submit_modal(opened, gm, {"lk:conflictwhy:text": "Brann is both, by two lords"})
    assert closed.response_type == 7
    assert "1 open, newest first" in embed_text(closed.embeds[0])
    assert "Brann has two values of title" not in embed_text(closed.embeds[0])

    # A retcon of one side resolves the conflict it answers: it leaves the open list.
    retcon = await emu.invoke(chan, gm, "retcon", fact=f"fact {green}", rationale="Her eyes were always grey")
    assert "Resolves 1 open conflict: Mara has two values of eye colour" in embed_text(retcon.embeds[0])
    assert await open_conflicts(world) == []
    empty = await emu.invoke(chan, gm, "canon conflicts")
    assert "No open conflicts." in embed_text(empty.embeds[0])

    # Closed ones are listed on asking, with how they were closed; a dismissed one is never raised again.
    history = embed_text((await emu.invoke(chan, gm, "canon conflicts", show="closed")).embeds[0])
    assert "Resolved by a retcon by Gina: Her eyes were always grey" in history, history
    assert "Dismissed by Gina: Brann is both, by two lords" in history, history
    check = await emu.invoke(chan, gm, "canon check")
    assert "No continuity problems found." in embed_text(check.embeds[0]), embed_text(check.embeds[0])
    assert await open_conflicts(world) == []


@SQL_RUN_BELOW
async def test_conflicts_page_and_a_player_cannot_list_them(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    for n in range(7):
        await emu.invoke(chan, gm, "canon add entity", name=f"Twin {n}", type="NPC")
        await add_fact(world, f"Twin {n}", "title", "Heir")
        await add_fact(world, f"Twin {n}", "title", "Spare")
    refused = await emu.invoke(chan, world.pat, "canon conflicts")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")

    first = await emu.invoke(chan, gm, "canon conflicts")
    assert "7 open, newest first; page 1 of 2." in embed_text(first.embeds[0])
    assert len(first.embeds[0]["fields"]) == 5
    assert buttons(first.message)["lk:conflicts:open:0:prev"].get("disabled")
    refused_page = await emu.click(first.message, "lk:conflicts:open:0:next", world.pat)
    assert refused_page.ephemeral and "Only the GM" in (refused_page.content or "")
    second = await emu.click(first.message, "lk:conflicts:open:0:next", gm)
    assert second.response_type == 7 and "page 2 of 2." in embed_text(second.embeds[0])
    assert len(second.embeds[0]["fields"]) == 2
    assert "Twin 0" in embed_text(second.embeds[0])  # the oldest, last


async def commit_latest_scene(world: World) -> None:
    """End the channel's scene and commit its review as the GM."""
    await world.emu.invoke(world.channel, world.gm, "endscene")
    scene = await latest_scene(world)
    card = review_cards(world)[-1]
    await world.emu.click(card, f"lk:review:{scene.id}:accept_all", world.gm)
    committed = await world.emu.click(card, f"lk:review:{scene.id}:commit", world.gm)
    text = embed_text(committed.embeds[0])
    assert " written to canon, 0 rejected." in text, text


async def test_a_dated_scene_dates_its_facts_on_the_timeline_and_the_next_scene_goes_on(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "canon add entity", name="Greyhaven", type="Location")
    await emu.invoke(chan, gm, "canon add entity", name="Mara", type="NPC")
    refused = await emu.invoke(chan, gm, "scene start", title="Arrival", date="3rd_age.300.13.1")
    assert refused.ephemeral and "month 13 is not a month of the calendar" in (refused.content or "")
    started = await emu.invoke(
        chan, gm, "scene start", title="Arrival", location="greyhaven", date="3rd_age.300.3.17"
    )
    assert "In-world date\nday 17 of month 3, year 300 of the 3rd age" in embed_text(
        started.message["embeds"][0]
    )
    first = await latest_scene(world)
    async with world.bot.services.db.session() as session:
        reader = await world.bot.services.access.reader(session, await campaign_of(world), Viewer.GM)
        (greyhaven,) = await reader.find_exact("Greyhaven")
    assert first.location_id == greyhaven.id and first.world_key == 3000317

    await emu.send_message(chan, pat, "Mara takes the harbourmaster's keys.")
    await emu.invoke(chan, pat, "propose fact", subject="Mara", attribute="title", value="Harbourmaster")
    await commit_latest_scene(world)

    # The next scene goes on from the same date; the GM moves it on three days.
    await emu.invoke(chan, gm, "scene start", title="The storm")
    assert (await latest_scene(world)).world_date == "3rd_age.year_300.month_3.day_17"
    player_time = await emu.invoke(chan, pat, "scene time", when="+3 days")
    assert player_time.ephemeral and "Only the GM" in (player_time.content or "")
    bad = await emu.invoke(chan, gm, "scene time", when="+3 eons")
    assert bad.ephemeral and "That is not a step of time; write one like +3 days" in (bad.content or "")
    moved = await emu.invoke(chan, gm, "scene time", when="+3 days")
    assert "is now day 20 of month 3, year 300 of the 3rd age" in (moved.message["content"] or "")
    await emu.send_message(chan, pat, "A spar breaks; Mara is hurt.")
    await emu.invoke(chan, pat, "propose state", subject="Mara", state="wounded")
    await emu.invoke(chan, pat, "propose state", subject="Mara", state="alive", when="3rd_age.300.3.30")
    promoted = await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Harbour-lord"
    )
    assert "Continuity warnings" not in embed_text(promoted.embeds[0])  # a dated change, not a conflict
    await commit_latest_scene(world)
    now = embed_text((await emu.invoke(chan, pat, "canon entity", name="Mara")).embeds[0])
    assert (
        "Mara is Harbourmaster" in now and "changed on day 20 of month 3, year 300 of the 3rd age" in now
    ), now

    timeline = embed_text((await emu.invoke(chan, gm, "canon timeline", name="Mara")).embeds[0])
    titled = timeline.index("Mara is Harbourmaster")
    wounded = timeline.index("Mara is wounded")
    assert titled < wounded < timeline.index("Mara is alive"), timeline
    assert "day 17 of month 3, year 300 of the 3rd age" in timeline[titled:wounded], timeline
    assert "day 20 of month 3, year 300 of the 3rd age" in timeline[wounded:], timeline
    # As of a day between the scenes, Mara holds her title and is not yet wounded.
    card = embed_text(
        (await emu.invoke(chan, pat, "canon entity", name="Mara", as_of_date="3rd_age.300.3.18")).embeds[0]
    )
    assert "Harbourmaster" in card and "wounded" not in card, card


@SQL_RUN_BELOW
async def test_a_checkpoint_commits_the_accepted_so_far_and_they_leave_the_end_of_scene_card(
    world: World,
) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "canon add entity", name="Mara", type="NPC")
    refused = await emu.invoke(chan, gm, "canon checkpoint")
    assert refused.ephemeral and "no scene in this channel" in (refused.content or "").lower()
    await emu.invoke(chan, gm, "scene start", title="The long watch")
    empty = await emu.invoke(chan, gm, "canon checkpoint")
    assert empty.ephemeral and "Nothing has been proposed in this scene" in (empty.content or "")
    await emu.send_message(chan, pat, "Mara climbs the tower.")
    await emu.invoke(chan, pat, "propose fact", subject="Mara", attribute="title", value="Watch captain")
    await emu.invoke(chan, pat, "propose state", subject="Mara", state="wounded")
    scene = await latest_scene(world)

    player = await emu.invoke(chan, pat, "canon checkpoint")
    assert player.ephemeral and "Only the GM" in (player.content or "")
    await emu.invoke(chan, gm, "canon checkpoint")
    (card,) = review_cards(world)
    assert "The scene goes on: the rest stay on the card for /endscene." in embed_text(card["embeds"][0])
    title, wounded = [p.id for p in await proposals_of_scene(world, scene.id)]
    refused_click = await emu.click(card, f"lk:review:{scene.id}:commit", pat)
    assert refused_click.ephemeral and "Only the GM" in (refused_click.content or "")
    await emu.click(card, f"lk:proposal:{title}:accept", gm)
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    text = embed_text(committed.embeds[0])
    assert "1 written to canon, 0 rejected." in text and "Mara is Watch captain" in text, text
    assert "The scene goes on: proposals still undecided, and new ones, wait for /endscene." in text, text

    # The scene goes on: its turns are still logged, the undecided proposal still waits, a new one joins it.
    assert (await latest_scene(world)).status == "active"
    await emu.send_message(chan, pat, "Mara binds her arm.")
    await emu.invoke(chan, pat, "propose fact", subject="Mara", attribute="occupation", value="Sentry")
    statuses = {p.id: p.status for p in await proposals_of_scene(world, scene.id)}
    assert statuses[title] == "committed" and statuses[wounded] == "pending"

    await emu.invoke(chan, gm, "endscene")
    ended = await emu.invoke(chan, gm, "canon checkpoint")
    assert ended.ephemeral and "This scene has ended" in (ended.content or "")
    final = review_cards(world)[-1]
    final_text = embed_text(final["embeds"][0])
    assert "Mara is wounded" in final_text or "Mara becomes wounded" in final_text, final_text
    assert "Sentry" in final_text and "Watch captain" not in final_text, final_text
    # The same numbers as before the checkpoint: the wounded proposal is still #2, the new one #3.
    assert "#2 · ⏳ pending" in final_text and "#3 · ⏳ pending" in final_text and "#1 ·" not in final_text
    await emu.click(final, f"lk:review:{scene.id}:accept_all", gm)
    done = embed_text((await emu.click(final, f"lk:review:{scene.id}:commit", gm)).embeds[0])
    assert "2 written to canon, 0 rejected." in done and "Watch captain" not in done, done
    assert (await latest_scene(world)).status == "completed"
    card_text = embed_text((await emu.invoke(chan, gm, "canon entity", name="Mara")).embeds[0])
    assert card_text.count("Watch captain") == 1, card_text
    # The scene's recap holds everything committed during it, its checkpoint's fact too.
    from tests.e2e.test_recap_e2e import recaps_posted

    recap = embed_text(recaps_posted(world)[-1]["embeds"][0]).replace("**", "")
    assert "Mara is Watch captain" in recap and "Sentry" in recap, recap


@SQL_RUN_BELOW
async def test_another_bots_roll_is_a_turn_in_the_transcript_and_resolves_a_proposal(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    avrae = emu.add_member(world.guild, "Avrae", bot=True)
    await emu.invoke(chan, gm, "canon add entity", name="Brann", type="PC")
    await emu.invoke(chan, gm, "scene start", title="The duel")
    await emu.send_message(chan, pat, "Brann swings at the sellsword.")
    roll = {
        "title": "Brann makes an attack roll!",
        "description": "1d20 (17) + 5 = `22`",
        "fields": [{"name": "Meta", "value": "**To Hit**: 22, hits AC 15"}],
        "footer": {"text": "Avrae"},
    }
    await emu.send_message(chan, avrae, "", embeds=[roll])
    await emu.send_message(chan, pat, "The blade bites.")

    scene = await latest_scene(world)
    async with world.bot.services.db.session() as session:
        turns = await scene_turns(session, scene.id)
    assert [(t.number, t.speaker.value) for t in turns] == [(1, "player"), (2, "roll"), (3, "player")]
    assert turns[1].author_name == "Avrae"
    assert (
        turns[1].text
        == "Brann makes an attack roll!\n1d20 (17) + 5 = `22`\nMeta: **To Hit**: 22, hits AC 15\nAvrae"
    )

    transcript = await emu.invoke(chan, pat, "scene transcript")
    (file,) = transcript.files.values()
    assert "**2. Avrae (roll)**" in file.decode() and "1d20 (17) + 5 = `22`" in file.decode()

    not_a_roll = await emu.invoke(chan, pat, "propose state", subject="Brann", state="wounded", resolution=3)
    assert not_a_roll.ephemeral and "Turn 3 is not a dice roll of this scene" in (not_a_roll.content or "")
    assert "turn 2 (Avrae)" in (not_a_roll.content or "")
    proposed = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Brann",
        attribute="title",
        value="Duelist",
        turns="1-3",
        resolution=2,
    )
    assert "Brann is Duelist" in embed_text(proposed.embeds[0])
    (fact,) = [p for p in await proposals_of_scene(world, scene.id)]
    resolved = [{k: v for k, v in e.items() if v is not None} for e in fact.evidence if e.get("note")]
    assert resolved == [
        {
            "kind": "turns",
            "scene_id": scene.id,
            "turn_from": 2,
            "turn_to": 2,
            "note": "resolved by Avrae's roll: Brann makes an attack roll! 1d20 (17) + 5 = `22` Meta: **To Hit**: "
            "22, hits AC 15 Avrae",
        }
    ]
    await emu.invoke(chan, gm, "endscene")
    card = embed_text(review_cards(world)[-1]["embeds"][0])
    assert "resolved by Avrae's roll: Brann makes an attack roll!" in card, card
