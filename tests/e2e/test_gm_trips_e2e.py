"""What a GM new to the bot tripped on in an evening of play, each now said as a GM and players expect: the
GM's private answer to /endscene, undecided proposals on the closed card, Accept all's skipped proposals, the
forms' hints, evidence in words, and facts and conflicts by their sentences.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

import re
from typing import Any

from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    commit_card,
    embed_text,
    gm_adds,
    kill_aldric_in_a_first_scene,
    latest_scene,
    live,
    pick,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_calendar_words_e2e import CALENDAR
from tests.e2e.test_continuity_e2e import FAMILY, import_yaml

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")

LABEL = 18  # a form's Label, around one field


@SQL_RUN_BELOW
async def test_endscene_tells_the_gm_what_to_review_in_a_sentence_with_a_labelled_link(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles by the old mill.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, pat, "propose entity", name="Old Mill", type="Location")
    ended = await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    link = f"https://discord.com/channels/{world.guild.id}/{chan.id}/{card['id']}"
    assert (
        ended.ephemeral
        and ended.content == f"Review the 2 proposals of “Market day”: [open the review]({link})."
    ), ended.content
    assert not ended.content.startswith("http") and "@" not in ended.content

    # Nothing proposed: the answer says so, and links the scene's report by its words.
    await commit_card(world, card, (await latest_scene(world)).id)
    await emu.invoke(chan, gm, "scene start", title="Quiet night")
    quiet = await emu.invoke(chan, gm, "endscene")
    assert quiet.content is not None and quiet.content.startswith(
        "“Quiet night” has ended with nothing proposed: [see its report](https://discord.com/channels/"
    ), quiet.content


@SQL_RUN_BELOW
async def test_the_closed_card_never_calls_what_nobody_decided_rejected(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles by the old mill.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, quinn, "propose entity", name="Bard", type="Person")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    _, bard = await proposals_of_scene(world, scene.id)
    await pick(world, card, bard.id)
    asked = await emu.click(card, f"lk:proposal:{bard.id}:reject", gm)
    await emu.submit_modal(asked, gm, {})
    await commit_card(world, card, scene.id)  # the jester is left undecided: the players' are dropped
    public = live(world, card)["embeds"][0]
    text = embed_text(public)
    assert "Committed by Gina: 0 written to canon, 1 rejected, 1 left undecided (not written)." in text, text
    fields = {f["name"]: f["value"] for f in public["fields"]}
    assert fields["Rejected"] == "#2 New Person: Bard", fields
    assert fields["Left undecided, so not written"] == "#1 New Person: Court Jester", fields


def form_fields(modal: dict[str, Any]) -> list[dict[str, Any]]:
    """Return a form's labels, each with its field under `component`."""
    return [row for row in modal["components"] if row.get("type") == LABEL]


async def a_conflicting_scene(world: World) -> tuple[dict[str, Any], int, list[Any]]:
    """Aldric dies in scene 1; in scene 2 Quinn has him order a march, and Pat names a tavern. Return the review
    card of scene 2, its scene's id and its proposals (the order, the tavern)."""
    emu, chan, gm = world.emu, world.channel, world.gm
    await gm_adds(world, "entity", name="Aldric", type="NPC")
    await kill_aldric_in_a_first_scene(world)
    await emu.invoke(chan, gm, "scene start", title="The march")
    await emu.send_message(chan, world.quinn, "Aldric shouts: march at dawn!")
    await emu.send_message(chan, world.pat, "We drink at the Grey Lantern.")
    await emu.invoke(chan, world.quinn, "propose event", name="The order to march", participants="Aldric")
    await emu.invoke(chan, world.pat, "propose entity", name="Grey Lantern", type="Location")
    await emu.invoke(chan, gm, "endscene")
    scene = await latest_scene(world)
    return review_cards(world)[-1], scene.id, await proposals_of_scene(world, scene.id)


@SQL_RUN_BELOW
async def test_the_reason_forms_hint_and_never_look_filled_in(world: World) -> None:
    card, _, (order, lantern) = await a_conflicting_scene(world)
    await pick(world, card, order.id)
    asked = await world.emu.click(card, f"lk:proposal:{order.id}:accept", world.gm)
    (why,) = form_fields(asked.modal)
    # The warning is said above the box; the box's grey text is a hint of what to type, not the warning.
    assert (
        why["description"]
        == "The warning: Aldric takes part in “The order to march” (scene 2) after dying (scene 1)."
    ), why
    # The reason is shown on the public card: the hint says so before the GM writes a secret into it.
    assert (
        why["component"]["placeholder"]
        == "Type what makes it true anyway (the whole table reads it on the card)"
    )
    assert not why["component"].get("value")

    await pick(world, card, lantern.id)
    refusing = await world.emu.click(card, f"lk:proposal:{lantern.id}:reject", world.gm)
    reason, shown = form_fields(refusing.modal)
    assert reason["component"]["placeholder"] == "Type a reason, or leave this empty"
    # The select's grey text names no choice (it would read as one already picked); none is preselected.
    assert shown["component"]["placeholder"] == "Pick who may read it"
    assert shown["description"] == "Left unpicked, only GMs read it."
    assert not any(o.get("default") for o in shown["component"]["options"])


async def test_accept_all_says_which_proposal_it_left_and_why(world: World) -> None:
    card, scene_id, (order, lantern) = await a_conflicting_scene(world)
    everything = await world.emu.click(card, f"lk:review:{scene_id}:accept_all", world.gm)
    (told,) = everything.followups
    assert told["flags"] & 64, told  # only the GM reads it
    assert told["content"] == (
        "Accept all did not accept #1 (Event: The order to march, with Aldric) because it conflicts with canon: "
        "Aldric takes part in “The order to march” (scene 2) after dying (scene 1); decide it on its own: pick "
        "it, then Accept with your reason, or Reject."
    ), told["content"]
    order, lantern = await proposals_of_scene(world, scene_id)
    assert (order.status, lantern.status) == (ProposalStatus.PENDING, ProposalStatus.ACCEPTED)


@SQL_RUN_BELOW
async def test_players_read_evidence_as_a_person_says_it_and_the_gm_also_reads_the_file(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await import_yaml(world, "family.yaml", FAMILY)
    await emu.invoke(chan, gm, "calendar set", text=CALENDAR)
    await emu.invoke(
        chan, gm, "scene start", title="The march", location="the Lantern", date="3 Frostmoot, 363 TA"
    )
    await emu.send_message(chan, world.quinn, "Mara raises the black flag.")
    await emu.send_message(chan, pat, "Mara raises the black flag over the harbour.")
    await emu.send_message(chan, pat, "All hail the Pirate Queen!")
    await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Mara Tidewright",
        attribute="title",
        value="Pirate Queen",
        turns="1-3",
    )
    await emu.invoke(chan, gm, "endscene")
    card = embed_text(review_cards(world)[-1]["embeds"][0])
    assert (
        "Evidence: from [the scene at the Lantern on 3 Frostmoot, year 363 of the Third Age]"
        "(https://discord.com/channels/" in card
    ), card
    assert ", said by Quinn and Pat\n" in card, card
    assert not re.search(r"\bturns? \d|\bturns? \[", card), card  # no turn number reaches a player
    # The GM, who fixes the file, also reads where in it the fact comes from.
    gm_card = embed_text((await emu.invoke(chan, gm, "canon entity", name="Mara Tidewright")).embeds[0])
    assert "Harbourmaster of Greyhaven — from family.yaml, line 4" in gm_card, gm_card
    pat_card = embed_text((await emu.invoke(chan, pat, "canon entity", name="Mara Tidewright")).embeds[0])
    assert "Mara Tidewright is Harbourmaster of Greyhaven — from the lore files" in pat_card
    assert ".yaml" not in pat_card


@SQL_RUN_BELOW
async def test_the_gm_picks_and_reads_facts_by_their_sentences_never_by_number(world: World) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    await gm_adds(world, "entity", name="Bridge of Sighs", type="Location")
    await gm_adds(world, "fact", subject="Bridge of Sighs", attribute="material", value="stone")
    (choice,) = await emu.autocomplete(chan, gm, "retcon", "fact", "bridge")
    assert choice["name"] == "Bridge of Sighs' material: stone", choice  # what the GM reads
    retcon = await emu.invoke(chan, gm, "retcon", fact=choice["value"], rationale="wood", new_value="wood")
    text = embed_text(retcon.embeds[0])
    assert (
        "~~Bridge of Sighs' material: stone~~ is retconned." in text
        and "Replaced by: Bridge of Sighs' material: wood" in text
    )
    assert not re.search(r"\(fact \d+\)|#\d", text), text
    # What the GM read, typed back, is understood.
    again = await emu.invoke(
        chan, gm, "retcon", fact="Bridge of Sighs' material: wood", rationale="iron", new_value="iron"
    )
    assert "Replaced by: Bridge of Sighs' material: iron" in embed_text(again.embeds[0]), again.content


@SQL_RUN_BELOW
async def test_what_a_fact_depends_on_is_said_as_it_came_about_and_by_its_words(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    await gm_adds(world, "entity", name="Aldric", type="NPC")
    await gm_adds(world, "entity", name="Mara", type="NPC")
    await kill_aldric_in_a_first_scene(world)
    (dead,) = await emu.autocomplete(chan, gm, "retcon", "fact", "aldric dead")
    await emu.invoke(chan, gm, "scene start", title="The return")
    await emu.send_message(chan, quinn, "Aldric rises from the grave.")
    await emu.invoke(chan, quinn, "propose state", subject="Aldric", state="alive", via="resurrection")
    await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Widow", relies_on=dead["value"]
    )
    await emu.invoke(chan, gm, "endscene")
    private = embed_text((await emu.invoke(chan, gm, "canon review", private=True)).embeds[0])
    assert "Mara is Widow (relies on “Aldric is dead (from scene 1)”)" in private, private  # by its words
    card = review_cards(world)[-1]
    # Players read it too, the fact being one they may read (a GM-only one would be "earlier canon").
    assert "Mara is Widow (relies on “Aldric is dead (from scene 1)”)" in embed_text(card["embeds"][0])
    scene = await latest_scene(world)
    for proposal in await proposals_of_scene(world, scene.id):
        await pick(world, card, proposal.id)
        await emu.click(card, f"lk:proposal:{proposal.id}:accept", gm)
    await commit_card(world, card, scene.id)
    await emu.invoke(chan, gm, "retcon", fact=dead["value"], rationale="He only fainted")
    check = embed_text((await emu.invoke(chan, gm, "canon check")).embeds[0])
    # The resurrection follows the death in Aldric's story (the gate linked them; nobody cited it) ...
    assert (
        "“Aldric is alive, through a resurrection” follows “Aldric is dead” in Aldric's story, and "
        "“Aldric is dead” was retconned." in check
    ), check
    # ... while Pat's proposal said it relies on the death.
    assert "“Mara is Widow” relies on “Aldric is dead”, which was retconned." in check, check
    assert "Aldric is alive, through a resurrection” relies on" not in check
    # Each side's evidence names its scene, with the turns as the GM's handle after the words.
    assert "— from [the scene “The return”](https://discord.com/channels/" in check, check
    conflicts = embed_text((await emu.invoke(chan, gm, "canon conflicts")).embeds[0])
    assert "said by Gina (turn 1)" in conflicts and "from a scene" not in conflicts, conflicts


@SQL_RUN_BELOW
async def test_relying_on_a_retconned_fact_is_refused_naming_it_and_what_replaced_it(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Bridge of Sighs", type="Location")
    await gm_adds(world, "fact", subject="Bridge of Sighs", attribute="material", value="stone")
    (stone,) = await emu.autocomplete(chan, gm, "retcon", "fact", "bridge")
    await emu.invoke(chan, gm, "retcon", fact=stone["value"], rationale="wood", new_value="wood")
    await emu.invoke(chan, gm, "scene start", title="The crossing")
    await emu.send_message(chan, pat, "The planks creak.")
    refused = await emu.invoke(
        chan,
        pat,
        "propose fact",
        subject="Bridge of Sighs",
        attribute="sound",
        value="creaks",
        relies_on=stone["value"],
    )
    assert refused.ephemeral and refused.content == (
        "“Bridge of Sighs' material: stone” was retconned, so nothing can rely on it. What replaced it: "
        "“Bridge of Sighs' material: wood”."
    ), refused.content
