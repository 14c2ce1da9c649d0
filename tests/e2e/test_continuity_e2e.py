"""Continuity that keeps up with play, end to end: attributes read against the ontology's declarations.

The real discord.py client against the emulator; the world fixture fails a test when anything logged an error
or could ping.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from canon.models import ConflictRow
from tests.e2e.conftest import World
from tests.e2e.test_canon_e2e import buttons, embed_text

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
        assert reply.ephemeral and "Mara Tidewright: title = Pirate Queen" in text, text
        assert "Continuity warnings" in text, text
        assert (
            "Mara Tidewright's title is “Pirate Queen” according to play (scene 1), contradicting "
            "“Harbourmaster of Greyhaven” from an imported source (undated)" in text
        ), text
        assert "Mara Tidewright: title = Harbourmaster of Greyhaven: family.yaml, line 4" in text, text
        assert "Mara Tidewright: title = Pirate Queen (scene 1): scene #" in text and ", turn 1\n" in text, (
            text
        )
        assert "accepted by" not in text, text  # the proposal is not accepted: only checked as if it were


async def add_fact(world: World, subject: str, attribute: str, value: str) -> int:
    """Write a fact as the GM; return its id."""
    reply = await world.emu.invoke(
        world.channel, world.gm, "canon add fact", subject=subject, attribute=attribute, value=value
    )
    (fact_id,) = (int(n) for n in re.findall(r"fact #(\d+)", embed_text(reply.embeds[0])))
    return fact_id


async def open_conflicts(world: World) -> list[ConflictRow]:
    async with world.bot.services.db.session() as session:
        query = select(ConflictRow).where(ConflictRow.status == "open").order_by(ConflictRow.id)
        return list((await session.execute(query)).scalars())


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

    # A player's click on a GM control is refused, and changes nothing.
    refused = await emu.click(listed.message, f"lk:conflict:{dismissed.id}:dismiss:open:0", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    assert len(await open_conflicts(world)) == 2

    # The GM dismisses one, with a reason (an empty one is refused by the modal: it is required).
    opened = await emu.click(listed.message, f"lk:conflict:{dismissed.id}:dismiss:open:0", gm)
    assert opened.modal is not None and opened.modal["title"] == f"Dismiss conflict #{dismissed.id}"
    await world.restart()  # the modal opened before a restart still works
    player_submits = await emu.submit_modal(opened, pat, {"lk:conflictwhy:text": "not a problem"})
    assert player_submits.ephemeral and "Only the GM" in (player_submits.content or "")
    closed = await emu.submit_modal(opened, gm, {"lk:conflictwhy:text": "Brann is both, by two lords"})
    assert closed.response_type == 7
    assert "1 open, newest first" in embed_text(closed.embeds[0])
    assert f"#{dismissed.id}" not in embed_text(closed.embeds[0])

    # A retcon of one side resolves the conflict it answers: it leaves the open list.
    retcon = await emu.invoke(chan, gm, "retcon", fact=green, rationale="Her eyes were always grey")
    assert f"Resolves 1 open conflict(s): #{retconned.id}" in embed_text(retcon.embeds[0])
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
