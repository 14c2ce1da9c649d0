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
    pick,
    proposals_of_scene,
    public_text,
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


async def test_a_players_proposal_kept_to_those_present_leaves_the_public_card_whole(world: World) -> None:
    emu, chan, gm, quinn = world.emu, world.channel, world.gm, world.quinn
    await gm_adds(world, "entity", name="Brannoc", type="NPC")
    await emu.invoke(chan, gm, "scene start", title="The bolt")
    await emu.send_message(chan, quinn, "A bolt takes Brannoc in the chest.")
    await emu.invoke(chan, quinn, "propose fact", subject="Brannoc", attribute="title", value="the ferryman")
    await emu.invoke(chan, quinn, "propose state", subject="Brannoc", state="dead")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    scene = await latest_scene(world)
    _title, dead = sorted(await proposals_of_scene(world, scene.id), key=lambda p: p.id)
    await pick(world, card, dead.id)
    present = f"lk:proposal:{dead.id}:present"

    refused = await emu.click(card, present, quinn)  # a GM's control: the proposer's own click is refused
    assert refused.ephemeral and "Only the GM" in _said(refused), _said(refused)
    marked = await emu.click(card, present, gm)
    note = _said(marked)
    assert "off the public card" in note and "waits on your private card" in note, note
    # Nothing public tells it: no line, no count that counts it, no number past the ones shown.
    shown = public_text(world)
    assert "dies" not in shown and "dead" not in shown, shown
    public = embed_text(live(world, card)["embeds"][0])
    assert "1 proposal:" in public and "#1" in public and "#2" not in public, public
    assert "the ferryman" in public, public  # the player's other proposal stays, as they wrote it
    reposted = await emu.invoke(chan, gm, "canon review")  # a card posted now reads as if it never was
    assert reposted.ephemeral
    again = embed_text(review_cards(world)[-1]["embeds"][0])
    assert "1 proposal:" in again and "dies" not in again and "#2" not in again, again
    # The GM reads it on the private card that came with the answer, numbered after the public ones.
    (private,) = [m for m in marked.followup_messages if m.data.get("embeds")]
    assert private.ephemeral and "Brannoc dies" in embed_text(private.data["embeds"][0])
    undo = buttons(private.data)[present]
    assert undo["label"] == "Take the mark off #2", undo
    again_note = _said(await emu.click(private.data, present, gm))
    assert "is no longer marked" in again_note and "stays GM-only" in again_note, again_note
    assert "dies" not in public_text(world)
