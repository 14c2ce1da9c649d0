"""The review card's rough edges a new GM met: Commit asks before it drops undecided proposals, Edit accepts
the correction (unless it now conflicts with canon), marks say what they mean, the instructions follow the
campaign's policy in words, counts are English, and a proposal cites its proposer's own latest turn.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    buttons,
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

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")

ASKED = (  # each by its words, and what the commit does with it: the GM need not scroll back to the card
    "2 proposals are still undecided. Commit now drops #1 New Person: Court Jester, and writes "
    "#2 New Location: Old Mill. Anything left undecided: yours (the GM's) is kept, the players' is dropped. "
    "Press Commit again to go ahead, or decide them on the card first."
)
INSTRUCTIONS = (
    "Pick a proposal, then **Accept**, **Reject** or **Edit** it. Press **Commit** to write the accepted ones. "
    "Anything left undecided: yours (the GM's) is kept, the players' is dropped."
)


@SQL_RUN_BELOW
async def test_commit_asks_before_it_drops_what_nobody_decided(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles by the old mill.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, gm, "propose entity", name="Old Mill", type="Location")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    assert INSTRUCTIONS in embed_text(card["embeds"][0])

    refused = await emu.click(card, f"lk:review:{scene.id}:commit", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    asked = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    assert asked.ephemeral and asked.content == ASKED
    confirm = f"lk:review:{scene.id}:confirm"
    assert buttons({"components": asked.components})[confirm]["label"] == "Commit"
    assert (await latest_scene(world)).status == "review"  # nothing committed, nothing decided
    assert {p.status for p in await proposals_of_scene(world, scene.id)} == {ProposalStatus.PENDING}

    stolen = await emu.click(asked.message, confirm, pat)
    assert stolen.ephemeral and "Only the GM" in (stolen.content or "")
    assert (await latest_scene(world)).status == "review"
    await world.restart()  # the second press still commits after a restart: the button has its own id
    await emu.click(asked.message, confirm, gm)
    assert (await latest_scene(world)).status == "completed"
    jester, mill = await proposals_of_scene(world, scene.id)
    assert jester.status == ProposalStatus.REJECTED and mill.status == ProposalStatus.COMMITTED
    public = embed_text(live(world, card)["embeds"][0])
    assert "1 written to canon, 0 rejected, 1 left undecided (not written)" in public
    assert all(c.get("disabled") for c in buttons(live(world, card)).values())


@SQL_RUN_BELOW
async def test_nothing_undecided_commits_at_once_and_a_changed_policy_is_said_in_words(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    await world.bot.services.admin.set_policy(campaign, "player", "auto")
    await emu.invoke(chan, gm, "scene start", title="Market day")
    await emu.send_message(chan, pat, "A jester juggles.")
    await emu.invoke(chan, pat, "propose entity", name="Court Jester", type="Person")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    assert (
        "Anything left undecided: yours (the GM's) and the players' are kept. (This campaign set its own rule.)"
        in embed_text(card["embeds"][0])
    )
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)  # nothing would be dropped
    assert not committed.ephemeral and "1 written to canon" in embed_text(committed.embeds[0])


@sql_run_below("tests/canon/graph/test_reader.py", "tests/bot/archive/test_export_import.py")
async def test_edit_accepts_the_correction_unless_it_conflicts_with_canon(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    for name, kind in (("Aldric", "NPC"), ("Mara", "NPC")):
        await gm_adds(world, "entity", name=name, type=kind)
    await kill_aldric_in_a_first_scene(world)
    await emu.invoke(chan, gm, "scene start", title="The march")
    await emu.send_message(chan, quinn, "Aldric shouts: march at dawn!")
    await emu.send_message(chan, pat, "Mara keeps the docks now.")
    await emu.invoke(chan, quinn, "propose event", name="The order to march", participants="Aldric")
    await emu.invoke(chan, pat, "propose fact", subject="Mara", attribute="captaincy", value="Docks")
    await emu.invoke(chan, gm, "endscene")
    card = review_cards(world)[-1]
    scene = await latest_scene(world)
    order, fact = await proposals_of_scene(world, scene.id)
    text = embed_text(card["embeds"][0])
    # A conflict and a new kind of detail look different, and say what they are.
    assert "#1 · ⏳ pending · ⚠️ conflicts with canon — give a reason to accept" in text
    assert "#2 · ⏳ pending · ℹ️ new kind of detail" in text
    assert "⚠️ 1" not in text and "2 proposals: 2 pending" in text

    # A player cannot edit; the GM's edit that still conflicts leaves it pending and says what to do.
    refused = await emu.click(card, f"lk:proposal:{order.id}:edit", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "") and refused.modal is None
    opened = await emu.click(card, f"lk:proposal:{order.id}:edit", gm)
    stolen = await emu.submit_modal(opened, pat, {"lk:edit:name": "The last order"})
    assert stolen.ephemeral and "Only the GM" in (stolen.content or "")
    edited = await emu.submit_modal(opened, gm, {"lk:edit:name": "The last order"})
    (said,) = edited.followups
    assert (
        said["content"].startswith("Corrected: ") and "give a reason to accept it anyway" in said["content"]
    )
    order, _ = await proposals_of_scene(world, scene.id)
    assert order.status == ProposalStatus.PENDING and order.content["name"] == "The last order"

    # The new kind of detail corrected: accepted at once, and the reply says so.
    await pick(world, card, fact.id)
    opened = await emu.click(card, f"lk:proposal:{fact.id}:edit", gm)
    edited = await emu.submit_modal(opened, gm, {"lk:edit:attribute_pick": ["title"]})
    (said,) = edited.followups
    assert said["content"] == "Corrected and accepted: Mara is Docks."
    _, fact = await proposals_of_scene(world, scene.id)
    assert fact.status == ProposalStatus.ACCEPTED and fact.decided_by_name == "Gina"


@SQL_RUN_BELOW
async def test_a_proposal_without_turns_cites_its_proposers_own_latest_turn(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    await emu.invoke(chan, gm, "scene start", title="Gossip")
    await emu.send_message(chan, pat, "I saw a lantern in the tower.")  # turn 1
    await emu.send_message(chan, gm, "The wind howls.")  # turn 2
    await emu.invoke(chan, pat, "propose entity", name="Lantern Tower", type="Location")
    await emu.invoke(
        chan, quinn, "propose entity", name="Howling Wind", type="Location"
    )  # no turn of Quinn's
    scene = await latest_scene(world)
    tower, wind = await proposals_of_scene(world, scene.id)
    cited = [(e["turn_from"], e["turn_to"]) for p in (tower, wind) for e in p.evidence]
    assert cited == [(1, 1), (2, 2)]
