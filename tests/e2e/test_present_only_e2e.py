"""A player keeps their own proposal to those present (`/propose … present_only:true`), through the real client
and the emulator: nothing anyone in the channel reads tells it (no line, count or number on the public card, nor
the name of someone it proposes), the GM decides it on a private card, and once committed the characters of the
players who spoke in the scene know it, and nobody else."""

from __future__ import annotations

from tests.e2e.canon_flow import embed_text, gm_adds, latest_scene, public_text, review_cards
from tests.e2e.conftest import World
from tests.e2e.test_knowledge_e2e import card_of


async def test_a_players_proposal_kept_to_those_present_from_the_start(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    rio = emu.add_member(world.guild, "Rio")
    for name, player in (("Sable", pat), ("Brann", quinn), ("Cade", rio)):
        await gm_adds(world, "entity", name=name, type="PC")
        await emu.invoke(chan, gm, "character set", name=name, player=player)
    await gm_adds(world, "entity", name="The Duke", type="NPC")

    await emu.invoke(chan, gm, "scene start", title="The letter")
    await emu.send_message(chan, pat, "I break the seal and read the Duke's letter to Brann.")
    await emu.send_message(chan, quinn, "I keep watch at the door.")
    kept = await emu.invoke(
        chan, pat, "propose fact", subject="The Duke", attribute="secret", value="a spy", present_only=True
    )
    told = embed_text(kept.embeds[0])
    assert kept.ephemeral and "a spy" in told and "Kept to those present" in told, told  # the proposer's own
    await emu.invoke(
        chan, pat, "propose fact", subject="Mirela", attribute="title", value="his handler", present_only=True
    )
    await emu.invoke(chan, quinn, "propose fact", subject="The Duke", attribute="title", value="Duke of Vell")
    ended = await emu.invoke(chan, gm, "endscene")

    (card,) = review_cards(world)
    public = embed_text(card["embeds"][0])
    assert "1 proposal:" in public and "#1" in public and "#2" not in public, public
    shown = public_text(world)
    for secret in ("spy", "Mirela", "handler"):
        assert secret not in shown, (secret, shown)
    # The GM decides them on the private card that came with the answer to /endscene.
    (private,) = [m for m in ended.followup_messages if m.data.get("embeds")]
    said = embed_text(private.data["embeds"][0])
    assert private.ephemeral and "a spy" in said and "Known only to those present" in said, said
    scene = await latest_scene(world)
    await emu.click(private.data, f"lk:review:{scene.id}:accept_all", gm)
    await emu.click(card, f"lk:review:{scene.id}:accept_all", gm)
    await emu.click(card, f"lk:review:{scene.id}:commit", gm)

    assert "a spy" in await card_of(world, pat, "The Duke")  # Sable and Brann were there
    assert "a spy" in await card_of(world, quinn, "The Duke")
    assert "a spy" not in await card_of(world, rio, "The Duke")  # Cade's player never spoke in the scene
    assert "Duke of Vell" in await card_of(world, rio, "The Duke")
    recap = await emu.invoke(chan, rio, "recap", scenes=1)
    assert not recap.ephemeral
    shown = public_text(world)
    for secret in ("spy", "Mirela", "handler"):
        assert secret not in shown, (secret, shown)


async def test_every_player_present_reads_it_before_the_commit_and_nobody_else(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    rio = emu.add_member(world.guild, "Rio")
    for name, player in (("Sable", pat), ("Brann", quinn), ("Cade", rio)):
        await gm_adds(world, "entity", name=name, type="PC")
        await emu.invoke(chan, gm, "character set", name=name, player=player)
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await emu.invoke(chan, gm, "scene start", title="The letter")
    await emu.send_message(chan, pat, "I break the seal and read the Duke's letter to Brann.")
    await emu.send_message(chan, quinn, "I keep watch at the door.")
    await emu.invoke(
        chan, pat, "propose fact", subject="The Duke", attribute="secret", value="a spy", present_only=True
    )
    await emu.invoke(chan, quinn, "propose fact", subject="The Duke", attribute="title", value="Duke of Vell")
    await emu.invoke(chan, gm, "endscene")

    def read(reply: object) -> str:
        assert getattr(reply, "ephemeral", False), reply
        return "\n".join(embed_text(e) for e in getattr(reply, "embeds", []))

    # Pat proposed it and Quinn spoke in the scene: both read it, privately, before the commit.
    for player in (pat, quinn):
        said = read(await emu.invoke(chan, player, "canon review"))
        assert "a spy" in said and "Duke of Vell" in said, said
        assert "Known only to those present" in said and "🔒" not in said, said
    # Rio never spoke in the scene: the card reads as the public one, with no line, count or number for it.
    absent = read(await emu.invoke(chan, rio, "canon review"))
    assert "spy" not in absent and "Duke of Vell" in absent and "1 proposal:" in absent, absent
    gms = read(await emu.invoke(chan, gm, "canon review", private=True))
    assert "a spy" in gms and "Duke of Vell" in gms, gms
