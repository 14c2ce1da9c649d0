"""The GM's side of the canonization gate end to end: one decision for double clicks, paging and the policy, retcons, bad input, unknown names, and the synced commands.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

import asyncio

from canon.models import StatementKind, Viewer
from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    SQL_RUN_BELOW,
    buttons,
    campaign_of,
    canon_counts,
    embed_text,
    gm_adds,
    latest_scene,
    live,
    pick,
    plain,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World
from tests.e2e.jargon import jargon_in


async def test_double_clicks_and_two_gms_make_one_decision(world: World) -> None:
    emu, chan = world.emu, world.channel
    gus = emu.add_member(world.guild, "Gus", roles=[world.gm_role])
    await world.restart()  # new members are announced at connect
    await emu.invoke(chan, world.gm, "scene start", title="Crossroads")
    await emu.send_message(chan, world.pat, "We meet a merchant called Oswin.")
    first = await emu.invoke(chan, world.pat, "propose entity", name="Oswin", type="npc")
    second = await emu.invoke(chan, world.pat, "propose entity", name="Tilda", type="NPC")
    assert first.ephemeral and second.ephemeral
    await emu.invoke(chan, world.gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    oswin, tilda = await proposals_of_scene(world, scene.id)

    asked = await emu.click(card, f"lk:proposal:{oswin.id}:reject", gus)
    assert asked.modal is not None  # Gus is asked why; meanwhile Gina accepts
    both = await asyncio.gather(
        emu.click(card, f"lk:proposal:{oswin.id}:accept", world.gm),
        emu.submit_modal(asked, gus, {"lk:rationale:text": "Not this merchant"}),
    )
    assert sorted(r.response_type for r in both) == [4, 7]  # one edit of the card, one ephemeral refusal
    loser = next(r for r in both if r.response_type == 4)
    assert loser.ephemeral
    assert "already" in (loser.content or "") or "someone else" in (loser.content or "")  # PostgreSQL races
    decided = (await proposals_of_scene(world, scene.id))[0]
    assert decided.status in {ProposalStatus.ACCEPTED, ProposalStatus.REJECTED}
    assert decided.decided_by_name in {"Gina", "Gus"}

    asked_twice = await asyncio.gather(
        emu.click(card, f"lk:proposal:{tilda.id}:reject", world.gm),
        emu.click(card, f"lk:proposal:{tilda.id}:reject", world.gm),
    )
    assert all(r.modal is not None for r in asked_twice)  # asking decides nothing
    assert (await proposals_of_scene(world, scene.id))[1].status == ProposalStatus.PENDING
    double = await asyncio.gather(*(emu.submit_modal(r, world.gm, {}) for r in asked_twice))
    assert sorted(r.response_type for r in double) == [4, 7]
    again = next(r for r in double if r.response_type == 4)
    assert again.ephemeral and "That proposal was" in (again.content or "")
    assert (await proposals_of_scene(world, scene.id))[1].status == ProposalStatus.REJECTED
    assert f"lk:proposal:{tilda.id}:accept" not in buttons(live(world, card))


async def test_a_committed_scene_cannot_be_committed_again(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Harbour")
    await emu.send_message(chan, world.pat, "The ship is called the Grey Gull.")
    await emu.invoke(chan, world.pat, "propose entity", name="Grey Gull", type="Item")
    await emu.invoke(chan, world.gm, "endscene")
    reposted = await emu.invoke(chan, world.gm, "canon review")
    private = await emu.invoke(chan, world.gm, "canon review", private=True)
    first, second = review_cards(world)
    assert (
        reposted.ephemeral
        and "The review card is posted for everyone here: [open the review](" in (reposted.content or "")
        and private.ephemeral
    )
    scene = await latest_scene(world)
    (proposal,) = await proposals_of_scene(world, scene.id)
    await world.restart()  # a private card shown before a restart is not closed by the commit: kept stale
    await emu.click(first, f"lk:proposal:{proposal.id}:accept", world.gm)
    await emu.click(first, f"lk:review:{scene.id}:commit", world.gm)
    assert all(b.get("disabled") for b in buttons(live(world, second)).values())  # every card is closed
    counts = await canon_counts(world)

    stale = await emu.click(private.message, f"lk:review:{scene.id}:commit", world.gm)
    assert stale.ephemeral and "already committed; nothing changed" in (stale.content or "")
    late = await emu.click(private.message, f"lk:proposal:{proposal.id}:accept", world.gm)
    assert late.ephemeral and "already committed" in (late.content or "")
    all_of_them = await emu.click(private.message, f"lk:review:{scene.id}:accept_all", world.gm)
    assert all_of_them.ephemeral and "already committed" in (all_of_them.content or "")
    assert await canon_counts(world) == counts
    again = await emu.invoke(chan, world.gm, "canon review")
    assert again.ephemeral and "no scene" in (again.content or "").lower()


async def test_paging_accept_all_and_the_policy(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The market")
    await emu.send_message(chan, world.pat, "So many stalls.")
    for i in range(11):
        await emu.invoke(chan, world.pat, "propose entity", name=f"Stall {i}", type="Location")
    await emu.invoke(chan, world.gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    rows = await proposals_of_scene(world, scene.id)
    assert len(card["components"]) == 3 and "Page 1/2" in embed_text(card["embeds"][0])
    assert f"lk:proposal:{rows[8].id}:accept" not in buttons(card)
    page_two = await emu.click(card, f"lk:review:{scene.id}:page:1:next", world.gm)
    assert "Page 2/2" in embed_text(page_two.embeds[0])
    assert f"lk:proposal:{rows[8].id}:accept" in buttons(live(world, card))
    await pick(world, card, rows[10].id)
    asked = await emu.click(card, f"lk:proposal:{rows[10].id}:reject", world.gm)
    await emu.submit_modal(asked, world.gm, {})  # the rationale is optional
    everything = await emu.click(card, f"lk:review:{scene.id}:accept_all", world.gm)
    assert "10 accepted · 1 rejected" in embed_text(everything.embeds[0])
    assert buttons(live(world, card))[f"lk:review:{scene.id}:accept_all"].get("disabled")
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", world.gm)
    assert "10 written to canon, 1 rejected" in embed_text(committed.embeds[0])

    player = await emu.invoke(chan, world.pat, "canon policy", authority="player", mode="auto")
    assert player.ephemeral and "Only the GM" in (player.content or "")
    policy = await emu.invoke(chan, world.gm, "canon policy", authority="player", mode="auto")
    assert "**player**: accepted automatically" in (policy.embeds[0]["description"] or "")
    assert (await campaign_of(world)).settings["authority_policy"] == {"player": "auto"}
    await emu.invoke(chan, world.gm, "scene start", title="The market, later")
    await emu.send_message(chan, world.pat, "One more stall.")
    await emu.invoke(chan, world.pat, "propose entity", name="Stall 11", type="Location")
    await emu.invoke(chan, world.gm, "endscene")
    later = await latest_scene(world)
    await emu.click(review_cards(world)[-1], f"lk:review:{later.id}:commit", world.gm)  # no decision needed
    card_11 = await world.bot.services.queries.card(
        await campaign_of(world), "Stall 11", viewer=Viewer.PLAYER
    )
    assert card_11.entity.provenance.authority == "player"


@SQL_RUN_BELOW
async def test_retcon_twice_names_the_current_fact(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Bridge of Sighs", type="Location")
    added = await gm_adds(world, "fact", subject="Bridge of Sighs", attribute="material", value="stone")
    assert "Bridge of Sighs' material: stone" in embed_text(added) and not jargon_in(embed_text(added))
    card = await world.bot.services.queries.card(
        await campaign_of(world), "Bridge of Sighs", viewer=Viewer.GM
    )
    (fact_id,) = (v.statement.id for v in card.facts if v.statement.value == "stone")
    player = await emu.invoke(chan, world.pat, "retcon", fact="Bridge stone", rationale="I prefer wood")
    assert player.ephemeral and "Only the GM" in (player.content or "")
    # The GM picks the fact by its words: the suggestions say them (the choice sends back its handle).
    (choice,) = await emu.autocomplete(chan, world.gm, "retcon", "fact", "bridge sto")
    assert choice == {"name": "Bridge of Sighs' material: stone", "value": f"fact {fact_id}"}, choice
    retcon = await emu.invoke(
        chan, world.gm, "retcon", fact=choice["value"], rationale="It was always wood", new_value="wood"
    )
    text = embed_text(retcon.embeds[0])
    assert retcon.ephemeral and text.startswith(
        "Retcon\n~~Bridge of Sighs' material: stone~~ is retconned.\nWhy: It was always wood\n"
        "Replaced by: Bridge of Sighs' material: wood\n"
    ), text
    assert "(fact" not in text
    # The words the GM read, typed back, are understood: the old fact is named with what replaced it.
    twice = await emu.invoke(
        chan, world.gm, "retcon", fact="Bridge of Sighs' material: stone", rationale="again"
    )
    already = (
        "“Bridge of Sighs' material: stone” was already retconned. What replaced it: "
        "“Bridge of Sighs' material: wood”."
    )
    assert twice.ephemeral and plain(twice.content) == already, twice.content
    by_handle = await emu.invoke(chan, world.gm, "retcon", fact=f"fact {fact_id}", rationale="again")
    assert by_handle.ephemeral and plain(by_handle.content) == already, by_handle.content
    timeline = await emu.invoke(chan, world.gm, "canon timeline", name="Bridge of Sighs")
    told = plain(timeline.embeds[0]["description"])
    assert (
        "~~Bridge of Sighs' material: stone~~ retconned, replaced by Bridge of Sighs' material: wood" in told
    )
    assert not jargon_in(told), told


@SQL_RUN_BELOW
async def test_retcon_by_words_that_fit_several_facts_asks_which(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="Bridge of Sighs", type="Location")
    await gm_adds(world, "fact", subject="Bridge of Sighs", attribute="material", value="stone")
    await gm_adds(world, "fact", subject="Bridge of Sighs", attribute="builder", value="the stone guild")
    several = await emu.invoke(chan, world.gm, "retcon", fact="bridge stone", rationale="why")
    text = plain(several.content)
    assert several.ephemeral and "“bridge stone” fits 2 facts; say which one" in text, text
    assert (
        "• Bridge of Sighs' material: stone" in text and "• Bridge of Sighs' builder: the stone guild" in text
    )
    assert "(fact" not in text
    none = await emu.invoke(chan, world.gm, "retcon", fact="the moon is cheese", rationale="why")
    assert none.ephemeral and "No fact of canon says “the moon is cheese”" in plain(none.content)
    timeline = await emu.invoke(chan, world.gm, "canon timeline", name="Bridge of Sighs")
    assert "retconned" not in plain(timeline.embeds[0]["description"])  # nothing was guessed


@SQL_RUN_BELOW
async def test_bad_input_gets_clear_errors_and_stores_nothing(world: World) -> None:
    emu, chan = world.emu, world.channel
    outside = await emu.invoke(chan, world.pat, "propose fact", subject="Mara", attribute="title", value="x")
    assert outside.ephemeral and "There is no scene in this channel" in (outside.content or "")
    await emu.invoke(chan, world.gm, "scene start", title="Errors")
    await emu.send_message(chan, world.pat, "...")
    relation = await emu.invoke(
        chan, world.pat, "propose relationship", subject="A", relation="LOVES", object="B"
    )
    assert relation.ephemeral and "“LOVES” is not a relation this campaign knows" in (relation.content or "")
    protected = await emu.invoke(
        chan, world.pat, "propose relationship", subject="A", relation="protected by", object="B"
    )
    assert protected.ephemeral and plain(protected.content) == (
        "“protected by” is not a relation this campaign knows. Did you mean “is an ally of”, “came before” or "
        "“took part in”?"
    )
    entity_type = await emu.invoke(chan, world.gm, "canon add entity", name="X", type="Spaceship")
    assert entity_type.ephemeral and "Allowed types:" in (entity_type.content or "")
    assert "NPC" in (entity_type.content or "")
    state = await emu.invoke(chan, world.pat, "propose state", subject="A", state="sleepy")
    assert "Allowed states:" in (state.content or "") and "dead" in (state.content or "")
    date = await emu.invoke(
        chan, world.pat, "propose fact", subject="A", attribute="title", value="x", when="3rd_age.year_abc"
    )
    assert (
        date.ephemeral
        and "That is not a date this campaign's calendar knows; write one like “year 412”"
        in (date.content or "")
    )
    turns = await emu.invoke(chan, world.pat, "propose entity", name="X", type="NPC", turns="five")
    assert turns.ephemeral and "12-15" in (turns.content or "")
    out_of_range = await emu.invoke(chan, world.pat, "propose entity", name="X", type="NPC", turns="5-9")
    assert "not a range of them" in (out_of_range.content or "")
    asof = await emu.invoke(chan, world.pat, "canon asof", name="A", date="the third age")
    assert asof.ephemeral and "“third age” is not a word of this campaign's calendar" in (asof.content or "")
    assert await proposals_of_scene(world, (await latest_scene(world)).id) == []
    assert await canon_counts(world) == (0, 0, 0)


@SQL_RUN_BELOW
async def test_unknown_names_become_entity_proposals_and_the_gm_checks_canon(world: World) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="Strangers")
    await emu.send_message(chan, world.pat, "Brann meets Oswin.")
    reply = await emu.invoke(
        chan, world.pat, "propose relationship", subject="Brann", relation="ally of", object="Oswin"
    )
    text = embed_text(reply.embeds[0])
    assert "“Brann” is not in canon yet, so it is proposed too" in text and "“Oswin”" in text
    await emu.invoke(chan, world.gm, "endscene")
    scene = await latest_scene(world)
    assert [r.type for r in await proposals_of_scene(world, scene.id)] == ["entity", "entity", "relationship"]
    (card,) = review_cards(world)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", world.gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", world.gm)
    campaign = await campaign_of(world)
    brann = await world.bot.services.queries.card(campaign, "Brann", viewer=Viewer.PLAYER)
    assert [v.sentence() for v in brann.relations] == ["Brann ally of Oswin"]
    assert brann.relations[0].statement.kind == StatementKind.RELATION

    # Allies and enemies at once: recorded when written, reported by the whole-graph check, listed by
    # /canon conflicts with both sides.
    await gm_adds(world, "relationship", subject="Kara", relation="ALLY_OF", object="Lenn")
    enemies = await gm_adds(world, "relationship", subject="Kara", relation="ENEMY_OF", object="Lenn")
    assert "Recorded as conflicts" in embed_text(enemies)
    refused = await emu.invoke(chan, world.pat, "canon check")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    checked = await emu.invoke(chan, world.gm, "canon check")
    assert checked.ephemeral and "1 problem in the whole canon" in embed_text(checked.embeds[0])
    conflicts = await emu.invoke(chan, world.gm, "canon conflicts")
    listed = embed_text(conflicts.embeds[0])
    assert (
        "Relations that exclude each other" in listed
        and "Kara is an ally of Lenn" in listed
        and "Kara is an enemy of Lenn" in listed
    )


@SQL_RUN_BELOW
async def test_every_canon_command_is_synced(world: World) -> None:
    synced = {c["name"]: c for c in world.emu.global_commands}
    assert {"propose", "canon", "retcon"} <= set(synced)
    assert {o["name"] for o in synced["propose"]["options"]} == {
        "fact",
        "entity",
        "relationship",
        "state",
        "event",
    }
    canon = {o["name"]: o for o in synced["canon"]["options"]}
    assert {"add", "entity", "timeline", "asof", "conflicts", "check", "review", "policy"} <= set(canon)
    assert {o["name"] for o in canon["add"]["options"]} == {
        "fact",
        "entity",
        "relationship",
        "state",
        "event",
    }
    assert not world.bot.extension_failures
