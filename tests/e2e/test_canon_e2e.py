"""The canonization gate end to end: /propose, /endscene's review card, GM buttons, commit, lookups, retcon.

The real discord.py client against the emulator, checked in the database. The world fixture fails a test
when any command, button, modal or listener logged an error, or when anything the bot posted could ping.
"""

from __future__ import annotations

import re

from sqlalchemy import select

from bot.offline.emulator.messages import custom_ids
from canon.models import EvidenceKind, Viewer
from canon.proposals import ProposalStatus
from canon.tables import ConflictRow
from memory.scenes import SceneStatus
from tests.e2e.canon_flow import (
    SQL_RUN_BELOW,
    buttons,
    campaign_of,
    embed_text,
    gm_adds,
    kill_aldric_in_a_first_scene,
    latest_scene,
    live,
    pick,
    plain,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, embed_fields, scene_report


@SQL_RUN_BELOW
async def test_the_canonization_gate_from_proposals_to_commit(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    for name, kind in (("Aldric", "NPC"), ("Mara", "NPC"), ("Brann", "PC")):
        await gm_adds(world, "entity", name=name, type=kind)
    await kill_aldric_in_a_first_scene(world)

    # Scene 2: three proposals, one of which has the dead Aldric give an order.
    await emu.invoke(chan, gm, "scene start", title="The march")
    await emu.send_message(chan, pat, "Brann sharpens his blade.")
    mara_arrives = await emu.send_message(chan, gm, "Mara arrives: she now captains the guard.")
    aldric_orders = await emu.send_message(chan, quinn, "Aldric shouts: march at dawn!")
    await emu.send_message(chan, pat, "Brann swears to stand by Mara.")
    fact = await emu.invoke(
        chan, pat, "propose fact", subject="Mara", attribute="title", value="Captain of the Guard", turns="2"
    )
    assert fact.ephemeral and "Mara is Captain of the Guard" in embed_text(fact.embeds[0])
    ally = await emu.invoke(
        chan, pat, "propose relationship", subject="Brann", relation="ALLY_OF", object="Mara", turns="4"
    )
    assert ally.ephemeral and "Brann is an ally of Mara" in embed_text(ally.embeds[0])
    order = await emu.invoke(
        chan, quinn, "propose event", name="The order to march", participants="Aldric", turns="3"
    )
    assert order.ephemeral and "Continuity warnings" in embed_text(order.embeds[0])
    assert "Aldric takes part in “The order to march” (scene 2) after dying (scene 1)" in embed_text(
        order.embeds[0]
    )

    ended = await emu.invoke(chan, gm, "endscene")
    report = scene_report(emu, chan)
    assert report["embeds"][0]["title"] == "Scene ended: The march"
    scene = await latest_scene(world)
    assert scene.status == SceneStatus.REVIEW
    (_, card) = review_cards(world)
    assert ended.ephemeral and card["id"] in (ended.content or "")  # the GM's answer links to the card
    fact_row, ally_row, order_row = await proposals_of_scene(world, scene.id)
    assert [r.type for r in (fact_row, ally_row, order_row)] == ["fact", "relationship", "event"]
    text = embed_text(card["embeds"][0])
    assert (
        "#3 · ⏳ pending · ⚠️ conflicts with canon — give a reason to accept" in text
    )  # numbered on the card (1, 2, 3), not by id
    assert "⚠️ Aldric takes part in “The order to march” (scene 2) after dying" in text  # the warning
    fields = {f["name"].split(" ")[0]: f["value"] for f in card["embeds"][0]["fields"]}
    link = f"https://discord.com/channels/{world.guild.id}/{chan.id}/{mara_arrives['id']}"
    assert f"from [the scene “The march”]({link}), said by" in fields["#1"]
    assert str(aldric_orders["id"]) in fields["#3"]
    assert set(buttons(card)) == {
        "lk:pick",
        f"lk:proposal:{fact_row.id}:accept",
        f"lk:proposal:{fact_row.id}:reject",
        f"lk:proposal:{fact_row.id}:edit",
        f"lk:proposal:{fact_row.id}:present",
        f"lk:review:{scene.id}:accept_all",
        f"lk:review:{scene.id}:commit",
    }

    refused = await emu.click(card, f"lk:proposal:{fact_row.id}:accept", pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    assert (await proposals_of_scene(world, scene.id))[0].status == ProposalStatus.PENDING
    not_yours = await pick(world, card, order_row.id, pat)  # a player may not even pick
    assert not_yours.ephemeral and "Only the GM" in (not_yours.content or "")

    picked = await pick(world, card, order_row.id)
    assert picked.response_type == 7 and "Accept #3 ⚠️" in str(live(world, card)["components"])
    opened = await emu.click(card, f"lk:proposal:{order_row.id}:accept", gm)
    assert opened.modal is not None and "despite warnings" in opened.modal["title"]
    assert (await proposals_of_scene(world, scene.id))[2].status == ProposalStatus.PENDING

    await world.restart()  # the buttons, and the modal opened before, must still work

    await pick(world, card, fact_row.id)
    accepted = await emu.click(card, f"lk:proposal:{fact_row.id}:accept", gm)
    assert accepted.response_type == 7  # the card itself, edited in place
    assert "#1 · ✅ accepted" in embed_text(accepted.embeds[0])
    assert f"lk:proposal:{fact_row.id}:accept" not in buttons(live(world, card))
    # The next pending proposal is picked: the alliance (#2).
    assert f"lk:proposal:{ally_row.id}:reject" in buttons(live(world, card))
    reasoned = await emu.submit_modal(opened, gm, {"lk:rationale:text": "Aldric's ghost gives the order"})
    assert reasoned.response_type == 7
    assert "Accepted despite the warnings: Aldric's ghost gives the order" in embed_text(reasoned.embeds[0])
    asked = await emu.click(card, f"lk:proposal:{ally_row.id}:reject", gm)
    assert asked.modal is not None and asked.modal["custom_id"] == f"lk:reject:{ally_row.id}"
    assert (await proposals_of_scene(world, scene.id))[1].status == ProposalStatus.PENDING
    rejected = await emu.submit_modal(asked, gm, {"lk:rationale:text": "Brann never trusted Mara"})
    assert "#2 · ❌ rejected" in embed_text(rejected.embeds[0])
    # The GM's reason stays private: the public card does not show it, the GM's private card does.
    assert "Brann never trusted Mara" not in str(live(world, card)["embeds"])
    private = await emu.invoke(chan, gm, "canon review", private=True)
    assert "Why: Brann never trusted Mara" in embed_text(private.embeds[0])

    committed = await emu.click(card, f"lk:review:{scene.id}:commit", gm)
    final = embed_text(committed.embeds[0])
    assert "Canon committed" in final and "2 written to canon, 1 rejected" in final
    assert "1 continuity conflict: accepted with the GM's reason; nothing open." in final
    assert all(b.get("disabled") for b in buttons(live(world, card)).values())
    assert (await latest_scene(world)).status == SceneStatus.COMPLETED

    # The graph holds exactly the accepted facts of scene 2, with evidence pointing at the right turns.
    services = world.bot.services
    campaign = await campaign_of(world)
    async with services.db.session() as session:
        reader = await services.access.reader(session, campaign, Viewer.GM)
        in_scene = [s for s in await reader.statements() if s.validity.story_from == scene.story_order]
        views = {v.sentence(): v.statement for v in await reader.views(in_scene)}
    assert set(views) == {"Mara: title = Captain of the Guard", "Aldric participated in The order to march"}
    title, order_link = (
        views["Mara: title = Captain of the Guard"],
        views["Aldric participated in The order to march"],
    )
    turns = [e for e in title.evidence if e.kind == EvidenceKind.TURNS]
    assert [(e.scene_id, e.turn_from, e.turn_to) for e in turns] == [(scene.id, 2, 2)]
    assert [(e.turn_from, e.turn_to) for e in order_link.evidence if e.kind == EvidenceKind.TURNS] == [(3, 3)]
    assert any(e.proposal_id == fact_row.id and "accepted by Gina" in (e.note or "") for e in title.evidence)
    assert any("despite warnings: Aldric's ghost" in (e.note or "") for e in order_link.evidence)
    brann = await services.queries.card(campaign, "Brann", viewer=Viewer.GM)
    assert brann.relations == ()  # the rejected alliance was not written
    ally_after = (await proposals_of_scene(world, scene.id))[1]
    assert ally_after.status == ProposalStatus.REJECTED and ally_after.rationale == "Brann never trusted Mara"
    (conflict,) = await services.queries.conflicts(campaign)
    assert conflict.kind == "dead_acting" and conflict.rationale == "Aldric's ghost gives the order"

    # As of scene 1 Mara has no title; as of scene 2 she has.
    before = await emu.invoke(chan, pat, "canon asof", name="Mara", scene=1)
    after = await emu.invoke(chan, pat, "canon asof", name="Mara", scene=2)
    assert before.ephemeral and "Facts" not in embed_fields(before.embeds[0])
    assert "Captain of the Guard" in plain(embed_fields(after.embeds[0])["Facts"])
    assert "after scene 1" in embed_text(before.embeds[0])
    aldric_before = await emu.invoke(chan, pat, "canon asof", name="Aldric", scene=0)
    aldric_after = await emu.invoke(chan, pat, "canon entity", name="Aldric", as_of_scene=1)
    assert "State" not in embed_fields(aldric_before.embeds[0])  # nothing known: nothing said
    assert "Aldric is dead" in plain(embed_fields(aldric_after.embeds[0])["State"])


async def test_a_where_box_suggests_places_only(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="The Gilded Eel", type="Location")
    await gm_adds(world, "entity", name="Gilda", type="NPC")
    await gm_adds(world, "event", name="The Gilded Eel opens", location="The Gilded Eel")
    for command in ("propose event", "canon add event"):
        where = await emu.autocomplete(chan, world.gm, command, "location", "Gil")
        assert [c["name"] for c in where] == ["The Gilded Eel (Location)"], (command, where)


@SQL_RUN_BELOW
async def test_autocomplete_and_cards_hide_gm_only_canon_from_players(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="The Hidden King", type="NPC", gm_only=True)
    await gm_adds(world, "entity", name="Hilda", type="NPC")
    await gm_adds(world, "fact", subject="Hilda", attribute="secret", value="a spy of the King", gm_only=True)

    for command, focused in (("canon entity", "name"), ("propose fact", "subject")):
        seen_by_pat = await emu.autocomplete(chan, world.pat, command, focused, "h")
        seen_by_gm = await emu.autocomplete(chan, world.gm, command, focused, "h")
        assert [c["value"] for c in seen_by_pat] == ["Hilda"], command
        assert {c["value"] for c in seen_by_gm} == {"Hilda", "The Hidden King"}, command
    participants = await emu.autocomplete(chan, world.pat, "propose event", "participants", "Brann, Hil")
    assert [c["value"] for c in participants] == ["Brann, Hilda"]
    relations = await emu.autocomplete(chan, world.pat, "propose relationship", "relation", "ally")
    assert (relations[0]["name"], relations[0]["value"]) == ("is an ally of", "ALLY_OF")

    hidden = await emu.invoke(chan, world.pat, "canon entity", name="The Hidden King")
    assert hidden.ephemeral and "Nothing in this campaign's canon is called" in (hidden.content or "")
    player_card = await emu.invoke(chan, world.pat, "canon entity", name="Hilda")
    assert "spy" not in embed_text(player_card.embeds[0]) and "🔒" not in embed_text(player_card.embeds[0])
    gm_card = await emu.invoke(chan, world.gm, "canon entity", name="Hilda")
    assert "🔒 Hilda's secret: a spy of the King" in plain(embed_fields(gm_card.embeds[0])["Facts"])
    king = await emu.invoke(chan, world.gm, "canon entity", name="The Hidden King")
    assert king.ephemeral and king.embeds[0]["title"] == "The Hidden King (NPC) 🔒"
    timeline = await emu.invoke(chan, world.pat, "canon timeline", name="Hilda")
    assert "spy" not in embed_text(timeline.embeds[0])


@SQL_RUN_BELOW
async def test_a_hidden_proposal_stays_hidden_on_the_public_card(world: World) -> None:
    emu, chan = world.emu, world.channel
    await gm_adds(world, "entity", name="The Hidden King", type="NPC", gm_only=True)
    await gm_adds(world, "entity", name="Vell", type="NPC")
    await gm_adds(world, "state", subject="Vell", state="dead", when="3rd_age.year_300", gm_only=True)
    await emu.invoke(chan, world.gm, "scene start", title="Whispers")
    await emu.send_message(chan, world.pat, "Who rules here?")
    await emu.invoke(
        chan, world.gm, "propose fact", subject="The Hidden King", attribute="seat", value="Vell"
    )
    # Vell's death is GM-only: Pat's reply reads as one without warnings (not even that there is one).
    seen = await emu.invoke(
        chan, world.pat, "propose event", name="Vell's feast", when="3rd_age.year_310", participants="Vell"
    )
    told = embed_text(seen.embeds[0])
    assert "dying" not in told and "warning" not in told.casefold() and "only the GM" not in told
    assert not seen.embeds[0].get("fields") and "waits for the GM's review" in told
    ended = await emu.invoke(chan, world.gm, "endscene")
    scene = await latest_scene(world)
    proposals = await proposals_of_scene(world, scene.id)
    (king,) = [p for p in proposals if "Hidden King" in str(p.content)]
    (card,) = review_cards(world)
    public = embed_text(card["embeds"][0])
    assert "seat" not in public and "Hidden King" not in public
    # Pat's own proposal is on it, numbered on the card, without the warning that rests on Vell's secret death.
    assert "Event: Vell's feast, year 310 of the 3rd age, with Vell" in public and "dying" not in public
    assert "takes part" not in public and " · ⚠️" not in public
    # Not even a trace of the GM-only one: no locked line, no count, no buttons, no gap in the numbers.
    assert "GM-only" not in public and "🔒" not in public and "hidden" not in public.casefold()
    assert not any(f"lk:proposal:{king.id}:" in c for c in custom_ids(card["components"]))
    shown = len(proposals) - 1
    assert f"\n{shown} proposal{'' if shown == 1 else 's'}: " in public
    numbers = [int(n) for n in re.findall(r"^#(\d+) · ", public, re.MULTILINE)]
    assert numbers == list(range(1, len(proposals)))
    # The GM who ended the scene got the GM-only one on a private card at once.
    (told,) = [m for m in ended.followup_messages if m.ephemeral]
    assert "1 GM-only proposal is not on the public card" in (told.data.get("content") or "")
    assert "🔒 The Hidden King's seat: Vell" in embed_text(told.data["embeds"][0])
    (options,) = [
        c["options"] for row in told.data["components"] for c in row["components"] if c["type"] == 3
    ]
    assert str(king.id) in [o["value"] for o in options]  # to be picked on the private card
    private = await emu.invoke(chan, world.gm, "canon review", private=True)
    shown = embed_text(private.embeds[0])
    assert private.ephemeral and "🔒 The Hidden King's seat: Vell" in shown
    assert "Vell takes part in “Vell's feast”" in shown and "after dying" in shown
    # A player reads the card privately as the public one: nothing of the GM-only proposal, nor a lock.
    read = await emu.invoke(chan, world.pat, "canon review")
    mine = embed_text(read.embeds[0])
    assert read.ephemeral and "Hidden King" not in mine and "🔒" not in mine and "feast" in mine, mine
    # The GM accepts the feast despite its warning, on the private card; the commit's conflict (Vell's death
    # is GM-only) is never mentioned on the card players read.
    (feast,) = [p for p in proposals if "feast" in str(p.content)]
    await pick(world, told, feast.id)  # type: ignore[arg-type]
    asked = await emu.click(told, f"lk:proposal:{feast.id}:accept", world.gm)
    assert asked.modal is not None
    await emu.submit_modal(asked, world.gm, {"lk:rationale:text": "The feast is in his memory."})
    # The GM-only proposal is still undecided: Commit on the public card commits nothing and tells the GM,
    # privately, which one waits, on a private card with it picked.
    waits = await emu.click(card, f"lk:review:{scene.id}:commit", world.gm)
    assert waits.ephemeral and "Nothing was committed yet" in (waits.content or "")
    assert "The Hidden King's seat: Vell" in (waits.content or "")
    assert f"lk:proposal:{king.id}:accept" in custom_ids(waits.components)
    assert (await latest_scene(world)).status == SceneStatus.REVIEW
    assert "Nothing was committed" not in str(live(world, card))  # the public card says nothing of it
    asked = await emu.click(waits.message, f"lk:proposal:{king.id}:reject", world.gm)
    await emu.submit_modal(asked, world.gm, {})
    committed = await emu.click(card, f"lk:review:{scene.id}:commit", world.gm)
    (note,) = committed.followup_messages
    assert (
        note.ephemeral and "1 continuity conflict touching GM-only canon was recorded" in note.data["content"]
    )
    closed = embed_text(live(world, card)["embeds"][0])
    assert "Canon committed" in closed and "No continuity conflicts." in closed and "feast" in closed
    assert "seat" not in closed
    # Every private card of the scene is closed too: no live control, no "pending" left.
    for private_card in (told, private.message, waits.message):
        now = emu.stored(private_card).view()
        assert "Canon committed" in embed_text(now["embeds"][0]) and "pending" not in embed_text(
            now["embeds"][0]
        )
        assert all(b.get("disabled") for b in buttons(now).values())
    async with world.bot.services.db.session() as session:
        kinds = (await session.execute(select(ConflictRow.kind))).scalars().all()
    assert kinds == ["dead_acting"]  # recorded for the GM all the same
