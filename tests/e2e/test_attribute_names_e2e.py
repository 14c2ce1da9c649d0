"""Attribute names as the GM types them, through the real client and the emulator: a synonym is read without
asking ("born in", "birthyear"), a name close to declared ones is asked about and never picked for the GM (in
`/canon add fact`, nothing is written until they say which; in the review card's Edit, the proposal stays
undecided), and a name close to nothing is a new kind of detail. Players may not use either control."""

from __future__ import annotations

from canon.proposals import ProposalStatus
from tests.e2e.canon_flow import (
    canon_counts,
    embed_text,
    gm_adds,
    latest_scene,
    proposals_of_scene,
    review_cards,
)
from tests.e2e.conftest import World


async def test_the_gm_is_asked_which_attribute_they_meant_never_picked_for(world: World) -> None:
    emu, chan, gm, pat = world.emu, world.channel, world.gm, world.pat
    await gm_adds(world, "entity", name="Aldric", type="NPC")
    before = await canon_counts(world)
    fact = {"subject": "Aldric", "attribute": "birthplace", "value": "Harrowgate"}

    refused = await emu.invoke(chan, pat, "canon add fact", **fact, new_detail=True)  # a GM's command
    assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    asked = await emu.invoke(chan, gm, "canon add fact", **fact)
    assert asked.ephemeral and not asked.embeds, asked.embeds
    assert asked.content == (
        "“birthplace” is not a detail this campaign keeps for Aldric. Did you mean born? Write it again with "
        "that name, or, to keep “birthplace” as a new kind of detail, add it again with new_detail: True."
    ), asked.content
    assert await canon_counts(world) == before  # nothing written while the GM is asked
    kept = await gm_adds(world, "fact", **fact, new_detail=True)
    assert "Harrowgate" in embed_text(kept)
    born = await gm_adds(world, "fact", subject="Aldric", attribute="born in", value="1190")  # a synonym
    assert "Aldric's born: 1190" in embed_text(born), embed_text(born)
    secret = await gm_adds(
        world, "fact", subject="Aldric", attribute="secret", value="a spy"
    )  # close to none
    assert "a spy" in embed_text(secret)

    # The review card's Edit: a name close to declared ones leaves the proposal undecided, and says which.
    await emu.invoke(chan, gm, "scene start", title="The gate")
    await emu.send_message(chan, pat, "Aldric keeps the gate now.")
    await emu.invoke(chan, pat, "propose fact", subject="Aldric", attribute="captaincy", value="the gate")
    await emu.invoke(chan, gm, "endscene")
    (card,) = review_cards(world)
    (proposal,) = await proposals_of_scene(world, (await latest_scene(world)).id)
    edit = f"lk:proposal:{proposal.id}:edit"
    stolen = await emu.click(card, edit, pat)
    assert stolen.ephemeral and "Only the GM" in (stolen.content or "") and stolen.modal is None
    opened = await emu.click(card, edit, gm)
    edited = await emu.submit_modal(opened, gm, {"lk:edit:attribute": "job title"})
    (said,) = edited.followups
    assert "“job title” is new to the campaign; did you mean title or occupation?" in said["content"], said
    assert "still undecided" in said["content"], said
    (proposal,) = await proposals_of_scene(world, proposal.scene_id)
    assert proposal.status == ProposalStatus.PENDING and proposal.decided_by_name is None
    text = embed_text(review_cards(world)[0]["embeds"][0])
    assert "Did you mean title or occupation?" in text, text
    opened = await emu.click(card, edit, gm)
    edited = await emu.submit_modal(opened, gm, {"lk:edit:attribute": "titles"})  # an alias: no question
    (said,) = edited.followups
    assert said["content"].startswith("Corrected and accepted"), said
