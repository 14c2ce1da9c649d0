"""Who knows what in a played scene, through the real client and the emulator: the review card's "Only those
present" (a GM's control, a player's click refused), the commit that makes the fact known to the scene's
characters and not public, each player's own recap of what their character learned (and heard, as a belief),
and a player's attempt to let an NPC tell a secret refused."""

from __future__ import annotations

from tests.e2e.canon_flow import (
    buttons,
    embed_text,
    gm_adds,
    latest_scene,
    live,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World
from tests.e2e.test_knowledge_e2e import card_of


def _said(result) -> str:  # type: ignore[no-untyped-def]
    """Return what an answer and its followups say."""
    said = [result.content or "", *(str(m.data.get("content") or "") for m in result.followup_messages)]
    return "\n".join(said)


async def test_a_proposal_known_only_to_those_present_and_each_players_own_recap(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    rio = emu.add_member(world.guild, "Rio")
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await emu.invoke(chan, gm, "character set", name="Sable", player=pat)
    await emu.invoke(chan, gm, "character set", name="Brann", player=quinn)

    await emu.invoke(chan, gm, "scene start", title="The letter")
    await emu.send_message(chan, pat, "I break the seal and read the Duke's letter.")
    await emu.invoke(chan, gm, "propose fact", subject="The Duke", attribute="secret", value="a spy")
    belief = {"character": "Sable", "about": "The Duke", "attribute": "treasure", "value": "in the well"}
    kept = await emu.invoke(chan, gm, "belief add", source="a drunk", **belief)  # told in this scene
    assert kept.embeds and "Sable believes" in embed_text(kept.embeds[0]), kept.content
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    (secret,) = await proposals_of_scene(world, scene.id)
    present = f"lk:proposal:{secret.id}:present"

    refused = await emu.click(card, present, pat)  # a GM's control: a player's click changes nothing
    assert refused.ephemeral and "Only the GM" in _said(refused), _said(refused)
    marked = await emu.click(card, present, gm)
    note = _said(marked)
    assert "known only to those present" in note and "Sable will know it" in note, note
    assert "a spy" not in embed_text(review_cards(world)[0]["embeds"][0])  # GM-only now: off the public card

    waits = await emu.click(card, f"lk:review:{scene.id}:commit", gm)  # waits for the GM's private decision
    private = embed_text(waits.embeds[0])
    assert "Known only to those present" in private, private
    await emu.click(waits.message, f"lk:proposal:{secret.id}:accept", gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", gm)

    assert "a spy" in await card_of(world, pat, "The Duke")
    assert "a spy" not in await card_of(world, quinn, "The Duke")
    assert "a spy" not in await card_of(world, rio, "The Duke")
    public = await emu.invoke(chan, quinn, "recap", scenes=1)
    assert not public.ephemeral and "a spy" not in embed_text(public.embeds[0])
    mine = await emu.invoke(chan, pat, "recap", scenes=1, mine=True)
    assert mine.ephemeral
    told = embed_text(mine.embeds[0]).replace("**", "")
    assert "as Sable lived it" in told and "What Sable learned: The Duke's secret: a spy" in told, told
    assert "Heard: Sable believes The Duke's treasure: in the well (heard from a drunk). A belief" in told, (
        told
    )
    brann = embed_text((await emu.invoke(chan, quinn, "recap", scenes=1, mine=True)).embeds[0])
    assert "a spy" not in brann and "learned" not in brann and "well" not in brann, brann
    nobody = await emu.invoke(chan, rio, "recap", mine=True)
    assert nobody.ephemeral and "You play no character" in (nobody.content or ""), nobody.content

    # A player may not let an NPC tell a secret (refused before anything is asked of a model).
    tell = await emu.invoke(chan, pat, "npc talk", npc="The Duke", message="Confess!", tell="Duke spy")
    assert tell.ephemeral and "Only the GM" in (tell.content or ""), tell.content


async def test_a_players_proposal_kept_to_those_present_can_be_taken_back_on_the_card(world: World) -> None:
    emu, chan, gm, quinn = world.emu, world.channel, world.gm, world.quinn
    await gm_adds(world, "entity", name="Brannoc", type="NPC")
    await emu.invoke(chan, gm, "scene start", title="The bolt")
    await emu.send_message(chan, quinn, "A bolt takes Brannoc in the chest.")
    await emu.invoke(chan, quinn, "propose state", subject="Brannoc", state="dead")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    (proposal,) = await proposals_of_scene(world, (await latest_scene(world)).id)
    present = f"lk:proposal:{proposal.id}:present"

    note = _said(await emu.click(card, present, gm))
    # A player's proposal stays on the card as they wrote it: the GM is told so, not sent to a private card.
    assert "The players still see it on the card" in note and "private" not in note, note
    assert "Brannoc dies" in embed_text(live(world, card)["embeds"][0])
    undo = buttons(live(world, card))[present]  # the same button, saying what pressing it again does
    assert undo["label"] == "Take the mark off #1", undo
    assert "its button “Take the mark off” there undoes it" in note, note
    again = _said(await emu.click(card, present, gm))
    assert "is no longer marked" in again, again
    assert buttons(live(world, card))[present]["label"] == "Only those present #1"
