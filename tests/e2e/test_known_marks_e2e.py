"""What a player reads of what their character knows beyond public canon, through the real client and the
emulator: never a 🔒 (the GM's mark), only 🗝️ on what the character itself learned, keyed "Your character knows
this; it is not common knowledge"; no mark on an entity the character knows only by name (it would tell that the
entity's other facts are hidden); and the GM's cards keep their locks. The GM looking through a character's eyes
reads the mark keyed with the character's name ("Known to Sable; …")."""

from __future__ import annotations

from tests.e2e.canon_flow import buttons, embed_text, gm_adds
from tests.e2e.conftest import World
from tests.e2e.test_knowledge_e2e import card_of, fact_number

LOCK, KNOWN = "🔒", "🗝️"
KEY = "Your character knows this; it is not common knowledge."


async def test_a_player_reads_their_characters_secrets_as_plain_knowledge(world: World) -> None:
    emu, chan, gm, pat, quinn = world.emu, world.channel, world.gm, world.pat, world.quinn
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    await emu.invoke(chan, gm, "character set", name="Sable", player=pat)
    await emu.invoke(chan, gm, "character set", name="Brann", player=quinn)
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await gm_adds(world, "fact", subject="The Duke", attribute="secret", value="a spy", gm_only=True)
    await gm_adds(world, "fact", subject="The Duke", attribute="debt", value="a fortune", gm_only=True)
    await gm_adds(world, "entity", name="The Vault", type="Location", gm_only=True)
    await gm_adds(world, "entity", name="Mirela", type="Person", gm_only=True)
    await gm_adds(world, "fact", subject="Mirela", attribute="title", value="his handler", gm_only=True)
    await gm_adds(world, "fact", subject="Mirela", attribute="home", value="the docks", gm_only=True)
    for fact in (
        await fact_number(world, "The Duke", "a spy"),
        await fact_number(world, "Mirela", "his handler"),
    ):
        await emu.invoke(chan, gm, "canon reveal", to="Sable", reason="she read his letter", fact=fact)
    await emu.invoke(chan, gm, "canon reveal", to="Sable", reason="she found the map", entity="The Vault")

    duke = await card_of(world, pat, "The Duke")
    assert "a spy" in duke and "a fortune" not in duke and LOCK not in duke, duke
    assert f"{KNOWN} The Duke's secret: a spy" in duke and KEY in duke, duke
    vault = await card_of(world, pat, "The Vault")
    assert LOCK not in vault and vault.startswith(f"The Vault (Location) {KNOWN}"), vault
    mirela = await card_of(world, pat, "Mirela")  # known by name only, through one fact
    assert mirela.startswith("Mirela (Person)\n") and "his handler" in mirela, mirela
    assert "the docks" not in mirela and LOCK not in mirela, mirela
    timeline = embed_text((await emu.invoke(chan, pat, "canon timeline", name="The Duke")).embeds[0])
    assert "a spy" in timeline and LOCK not in timeline and KEY in timeline, timeline
    listed = embed_text((await emu.invoke(chan, pat, "canon list")).embeds[0])
    assert "The Vault" in listed and LOCK not in listed and "GM only" not in listed, listed
    asked = await emu.invoke(chan, pat, "lore ask", question="What is the Duke's secret?")
    (sources,) = [i for i in buttons(asked.message) if i.startswith("lk:lore:src:")]
    opened = await emu.click(asked.message, sources, pat)
    said = embed_text(opened.embeds[0])
    assert "a spy" in said and LOCK not in said and "GM only" not in said, said

    # Brann learned nothing: no secret, and no mark of any kind.
    brann = await card_of(world, quinn, "The Duke")
    assert "a spy" not in brann and LOCK not in brann and KNOWN not in brann, brann
    # The GM's card keeps the locks and their key.
    gms = await card_of(world, gm, "The Duke")
    assert f"{LOCK} The Duke's secret: a spy" in gms and "🔒 = GM only" in gms and KNOWN not in gms, gms
    # The GM looking through Sable's eyes reads whose knowledge it is, by name, never "Your character".
    as_sable = await card_of(world, gm, "The Duke", as_character="sable")
    assert f"{KNOWN} The Duke's secret: a spy" in as_sable and LOCK not in as_sable, as_sable
    assert f"{KNOWN} Known to Sable; it is not common knowledge." in as_sable and KEY not in as_sable, (
        as_sable
    )
