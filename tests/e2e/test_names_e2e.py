"""Names a player types in /propose: a first name means the one character canon has by it (and the reply says
which), a shared family name is asked about in words, a hidden entity's word stays unknown, and the GM's Edit of
a new entity to a name canon has points the scene's proposals at that entity, never a second one.

The real discord.py client against the emulator, checked in the database.
"""

from __future__ import annotations

from canon.models import Viewer
from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    commit_card,
    embed_text,
    gm_adds,
    latest_scene,
    live,
    pick,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World, sql_run_below

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")


async def the_harrows(world: World) -> None:
    await gm_adds(world, "entity", name="Mirela Harrow", type="Person")
    await gm_adds(world, "entity", name="Oswin Harrow", type="Person")
    await gm_adds(world, "entity", name="Grey Abbess", type="Person", gm_only=True)


async def test_a_first_name_means_the_character_and_the_reply_says_which(world: World) -> None:
    emu, chan, quinn = world.emu, world.channel, world.quinn
    await the_harrows(world)
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, quinn, "Mirela takes an arrow; Oswin drags her clear.")

    mirela = embed_text(
        (await emu.invoke(chan, quinn, "propose state", subject="Mirela", state="wounded")).embeds[0]
    )
    oswin = embed_text(
        (await emu.invoke(chan, quinn, "propose state", subject="oswin", state="wounded")).embeds[0]
    )

    assert "Mirela → Mirela Harrow" in mirela and "not in canon yet" not in mirela
    assert "oswin → Oswin Harrow" in oswin and "not in canon yet" not in oswin
    asked = await emu.invoke(chan, quinn, "propose state", subject="Harrow", state="wounded")
    said = asked.content or ""
    assert asked.ephemeral and "“Harrow” could mean Mirela Harrow (Person) or Oswin Harrow (Person)" in said
    assert "#" not in said and "Grey" not in said
    scene = await latest_scene(world)
    assert [p.type for p in await proposals_of_scene(world, scene.id)] == ["state_change", "state_change"]


async def test_a_players_word_of_a_hidden_name_is_unknown_and_tells_nothing(world: World) -> None:
    emu, chan, quinn = world.emu, world.channel, world.quinn
    await the_harrows(world)
    await emu.invoke(chan, world.gm, "scene start", title="The cloister")
    await emu.send_message(chan, quinn, "Grey watches from the gate.")

    reply = await emu.invoke(chan, quinn, "propose state", subject="Grey", state="wounded")

    text = embed_text(reply.embeds[0])
    assert "“Grey” is not in canon yet, so it is proposed too, as a new Person." in text
    assert "Abbess" not in text and "→" not in text


async def test_the_gms_edit_to_a_name_canon_has_points_at_that_entity(world: World) -> None:
    emu, chan, gm, quinn = world.emu, world.channel, world.gm, world.quinn
    await the_harrows(world)
    await emu.invoke(chan, gm, "scene start", title="The ambush")
    await emu.send_message(chan, quinn, "Osvin is hit.")
    await emu.invoke(chan, quinn, "propose state", subject="Osvin", state="wounded")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    new, wounded = await proposals_of_scene(world, scene.id)

    await pick(world, card, new.id)
    opened = await emu.click(card, f"lk:proposal:{new.id}:edit", gm)
    edited = await emu.submit_modal(opened, gm, {"lk:edit:name": "Oswin Harrow"})

    (said,) = edited.followups
    assert said["content"].startswith("Not added: Oswin Harrow (Person) is already in canon")
    shown = embed_text(live(world, card)["embeds"][0])
    assert "#1 · ❌ rejected\nNew Person: Osvin" in shown
    assert "Oswin Harrow (Person) is already in canon: what named “Osvin” now means that Person" in shown
    new, wounded = await proposals_of_scene(world, scene.id)
    assert new.status == ProposalStatus.REJECTED
    assert (
        wounded.content["subject"]["name"] == "Oswin Harrow"
        and wounded.content["subject"]["proposal_id"] is None
    )
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    await commit_card(world, card, scene.id)
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    oswin = await world.bot.services.queries.card(campaign, "Oswin Harrow", viewer=Viewer.PLAYER)
    assert oswin.state is not None and oswin.state.statement.value == "wounded"
    answer = await emu.invoke(chan, gm, "canon entity", name="Oswin Harrow")
    assert "could mean several" not in (answer.content or "")
