"""The canonization gate end to end: /propose, /endscene's review card, GM buttons, commit, lookups, retcon.

The real discord.py client against the emulator, checked in the database. The world fixture fails a test
when any command, button, modal or listener logged an error, or when anything the bot posted could ping.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from sqlalchemy import func, select

from bot.offline.emulator.models import custom_ids
from canon.campaigns import Campaign, ChangesetRow
from canon.models import EvidenceKind, StatementKind, Viewer
from canon.proposals import ProposalStatus
from canon.tables import ConflictRow, ProposalRow, StatementRow
from memory.scene_tables import SceneRow
from memory.scenes import SceneStatus
from tests.e2e.conftest import World, embed_fields, scene_report, sql_run_below
from tests.e2e.jargon import jargon_in

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/archive/test_export_import.py", "tests/bot/services/test_canon_service.py"
)


def plain(text: str | None) -> str:
    """Return Discord text with markdown escapes removed (the bot escapes what users typed)."""
    return re.sub(r"\\(.)", r"\1", text or "")


def embed_text(embed: dict[str, Any]) -> str:
    """Return everything an embed says, as one unescaped string."""
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for field in embed.get("fields", []):
        parts += [field["name"], field["value"]]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return plain("\n".join(parts))


def review_cards(world: World) -> list[dict[str, Any]]:
    """Return the review cards posted in the scene channel, oldest first (as they are now)."""
    return [
        m
        for m in world.emu.channel_messages(world.channel)
        if any(i.startswith("lk:review:") for i in custom_ids(m.get("components", [])))
    ]


def live(world: World, message: dict[str, Any]) -> dict[str, Any]:
    """Return a message as it is now."""
    return world.emu.stored(message).view()


async def pick(world: World, card: dict[str, Any], proposal_id: int, user: Any = None) -> Any:
    """Pick a proposal in a review card's select (as the GM unless told), so that its controls show."""
    return await world.emu.click(card, "lk:pick", user or world.gm, values=[str(proposal_id)])


async def commit_card(world: World, card: dict[str, Any], scene_id: int) -> Any:
    """Press Commit on a review card as the GM, and Commit again when it asks first about undecided
    proposals it would drop; return the answer that committed (the card itself: `live(world, card)`)."""
    first = await world.emu.click(card, f"lk:review:{scene_id}:commit", world.gm)
    confirm = f"lk:review:{scene_id}:confirm"
    if first.ephemeral and confirm in buttons({"components": first.components}):
        assert "still undecided" in (first.content or "")
        return await world.emu.click(first.message, confirm, world.gm)
    return first


def buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return a message's controls by custom id."""
    found: dict[str, dict[str, Any]] = {}
    for row in message.get("components", []):
        for component in row.get("components", []):
            found[component["custom_id"]] = component
    return found


async def campaign_of(world: World) -> Campaign:
    return await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)


async def proposals_of_scene(world: World, scene_id: int) -> list[ProposalRow]:
    async with world.bot.services.db.session() as session:
        query = select(ProposalRow).where(ProposalRow.scene_id == scene_id).order_by(ProposalRow.id)
        return list((await session.execute(query)).scalars())


async def latest_scene(world: World) -> SceneRow:
    async with world.bot.services.db.session() as session:
        scene = await session.scalar(select(SceneRow).order_by(SceneRow.id.desc()).limit(1))
        assert scene is not None
        return scene


async def canon_counts(world: World) -> tuple[int, int, int]:
    """Return how many statements, changesets and conflicts the database holds."""
    async with world.bot.services.db.session() as session:
        return (
            await session.scalar(select(func.count()).select_from(StatementRow)) or 0,
            await session.scalar(select(func.count()).select_from(ChangesetRow)) or 0,
            await session.scalar(select(func.count()).select_from(ConflictRow)) or 0,
        )


async def gm_adds(world: World, kind: str, **options: Any) -> dict[str, Any]:
    reply = await world.emu.invoke(world.channel, world.gm, f"canon add {kind}", **options)
    assert reply.ephemeral and reply.embeds, reply.content
    assert reply.embeds[0]["title"] == "Written to canon", embed_text(reply.embeds[0])
    return reply.embeds[0]


async def kill_aldric_in_a_first_scene(world: World) -> None:
    """Scene 1: Aldric falls; the GM's own proposal is accepted by the default policy at commit."""
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.gm, "An arrow finds Aldric. He falls.")
    proposed = await emu.invoke(chan, world.gm, "propose state", subject="Aldric", state="dead")
    assert proposed.ephemeral and "Aldric dies" in embed_text(proposed.embeds[0])
    await emu.invoke(chan, world.gm, "endscene")
    (card,) = review_cards(world)
    committed = await emu.click(card, f"lk:review:{(await latest_scene(world)).id}:commit", world.gm)
    assert "1 written to canon" in embed_text(committed.embeds[0])


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
    refused = await emu.invoke(chan, world.pat, "canon review")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
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
