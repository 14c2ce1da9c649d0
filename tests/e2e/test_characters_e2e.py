"""Player characters through the real client and the emulator: a claim, a player's click on its GM buttons
refused, the GM's approval, the roster and switching, the GM's own links, and a player leaving the server."""

from __future__ import annotations

import pytest

from bot.offline.emulator.messages import custom_ids
from bot.wiki.tokens import LinkRefused
from tests.e2e.canon_flow import embed_text, gm_adds
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_branches_e2e import everything
from tests.e2e.test_knowledge_e2e import card_of

pytestmark = sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/archive/test_export_import.py")


async def test_a_claim_is_approved_by_the_gm_and_a_players_click_is_refused(world: World) -> None:
    emu, chan = world.emu, world.channel
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    claim = await emu.invoke(chan, world.pat, "character claim", name="Sable")
    assert not claim.ephemeral  # the GM sees it in the channel
    card = embed_text(claim.embeds[0])
    assert "Pat asks to play Sable. A GM approves or refuses it" in card, card
    ids = custom_ids(claim.components)
    approve = next(i for i in ids if i.endswith(":approve"))
    refuse = next(i for i in ids if i.endswith(":refuse"))
    for button in (approve, refuse):
        refused = await emu.click(claim.message, button, world.quinn)
        assert refused.ephemeral and "Only the GM" in (refused.content or ""), refused.content
    # Pat may not approve their own claim either.
    own = await emu.click(claim.message, approve, world.pat)
    assert own.ephemeral and "Only the GM" in (own.content or "")
    roster = await emu.invoke(chan, world.pat, "character list")
    assert "Sable: Pat asked to play it (waiting for a GM)" in embed_text(roster.embeds[0])

    approved = await emu.click(claim.message, approve, world.gm)
    shown = everything(approved.message)
    assert "Pat plays Sable now (approved by Gina)" in shown, shown
    assert not custom_ids(approved.message["components"])  # decided: no buttons left
    taken = await emu.invoke(chan, world.quinn, "character claim", name="Sable")
    assert taken.ephemeral and "Sable is played by Pat" in (taken.content or ""), taken.content

    # The GM gives Brann to Pat too; Pat switches to it.
    given = await emu.invoke(chan, world.gm, "character set", name="Brann", player=world.pat)
    assert "Pat plays Brann now." in (given.content or ""), given.content
    refused = await emu.invoke(chan, world.pat, "character set", name="Brann", player=world.quinn)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    refused = await emu.invoke(chan, world.pat, "character release", name="Sable", player=world.pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    switched = await emu.invoke(chan, world.pat, "character switch", name="Brann")
    assert "You now play Brann" in (switched.content or ""), switched.content
    roster = embed_text((await emu.invoke(chan, world.quinn, "character list")).embeds[0])
    assert "Sable: played by Pat\n" in roster + "\n" and "Brann: played by Pat (active)" in roster, roster


async def test_a_roster_imported_from_discord_links_its_characters_to_the_members_it_names(
    world: World,
) -> None:
    emu, chan, gm = world.emu, world.channel, world.gm
    roster = (
        "characters:\n"
        "  - id: sable\n    name: Sable\n    role: pc\n    player: Pat\n"
        "  - id: brann\n    name: Brann\n    role: pc\n    player: Nobody Here\n"
    )
    bad = await emu.invoke(chan, gm, "lore import", file=emu.make_attachment("roster.yaml", roster))
    said = "\n".join([bad.content or "", *(embed_text(e) for e in bad.embeds)])
    assert "line 9" in said and "no member of this server is called “Nobody Here”" in said, said
    listed = embed_text((await emu.invoke(chan, gm, "character list")).embeds[0])
    assert "Sable" not in listed, listed  # nothing of the import was written
    fixed = roster.replace("player: Nobody Here", f"player: '{world.quinn.id}'")
    await emu.invoke(chan, gm, "lore import", file=emu.make_attachment("roster.yaml", fixed))
    listed = embed_text((await emu.invoke(chan, world.pat, "character list")).embeds[0])
    assert "Sable" in listed and "Pat" in listed and "Brann" in listed and "Quinn" in listed, listed
    assert str(world.quinn.id) not in listed  # a member's id is never shown


async def test_a_player_who_leaves_the_server_takes_nothing_away(world: World) -> None:
    """Pat leaves: Sable, whom Pat played, keeps all she knows (for the GM, and for Rio once Rio plays her);
    Pat's link ends and Pat's waiting claim is withdrawn (the GM's click on it says so); Pat, back, plays
    nothing and reads public canon only."""
    emu, chan, gm = world.emu, world.channel, world.gm
    rio = emu.add_member(world.guild, "Rio")
    for name in ("Sable", "Brann"):
        await gm_adds(world, "entity", name=name, type="PC")
    await gm_adds(world, "entity", name="The Duke", type="NPC")
    await gm_adds(world, "fact", subject="The Duke", attribute="secret", value="a spy", gm_only=True)
    await emu.invoke(chan, gm, "character set", name="Sable", player=world.pat)
    await emu.invoke(chan, gm, "canon reveal", to="Sable", reason="she read his letter", fact="Duke spy")
    claim = await emu.invoke(chan, world.pat, "character claim", name="Brann")
    approve = next(i for i in custom_ids(claim.components) if i.endswith(":approve"))
    assert "a spy" in await card_of(world, world.pat, "The Duke")
    links = world.bot.services.wiki.links
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    wiki_link = await links.issue(campaign.id, world.pat.id, gm=False)

    await emu.remove_member(world.pat)
    with pytest.raises(LinkRefused):  # Pat's wiki link shows the campaign no more
        await links.check(wiki_link)
    roster = embed_text((await emu.invoke(chan, gm, "character list")).embeds[0])
    assert "Pat" not in roster, roster  # neither Sable played by Pat nor Pat's claim on Brann
    known = embed_text((await emu.invoke(chan, gm, "canon known", character="Sable")).embeds[0])
    assert "Sable" in known and "spy" in known, known  # the knowledge stays with the character
    late = await emu.click(claim.message, approve, gm)
    assert late.ephemeral and late.content == "Pat left the server: their claim on Brann was withdrawn."
    assert "Brann: " not in embed_text((await emu.invoke(chan, gm, "character list")).embeds[0])

    # Sable is free: Rio's claim is not refused, and once approved Rio reads what Sable knows.
    asked = await emu.invoke(chan, rio, "character claim", name="Sable")
    assert "Rio asks to play Sable" in embed_text(asked.embeds[0]), embed_text(asked.embeds[0])
    approve_rio = next(i for i in custom_ids(asked.components) if i.endswith(":approve"))
    await emu.click(asked.message, approve_rio, gm)
    assert "a spy" in await card_of(world, rio, "The Duke")
    mine = embed_text((await emu.invoke(chan, rio, "canon known")).embeds[0])
    assert "What Sable knows" in mine and "spy" in mine, mine

    # Pat comes back: a member like any other, who plays nothing until the GM says so.
    back = emu.add_member(world.guild, user=world.pat.user)
    assert "a spy" not in await card_of(world, back, "The Duke")
    answer = await emu.invoke(chan, back, "lore ask", question="What is the Duke's secret?")
    assert "a spy" not in embed_text(answer.embeds[0])
    assert "Sable: played by Rio (active)" in embed_text(
        (await emu.invoke(chan, back, "character list")).embeds[0]
    )


async def test_a_gm_who_loses_the_gm_role_loses_the_gms_wiki_view_only(world: World) -> None:
    """The GM role taken away (GUILD_MEMBER_UPDATE): Gina's GM links open nothing, her player link and Pat's
    still work."""
    emu, gm = world.emu, world.gm
    links = world.bot.services.wiki.links
    campaign = await world.bot.services.campaigns.for_guild(world.guild.id, world.guild.name)
    gm_link = await links.issue(campaign.id, gm.id, gm=True)
    player_link = await links.issue(campaign.id, gm.id, gm=False)
    pats = await links.issue(campaign.id, world.pat.id, gm=False)
    await emu.update_member(world.pat, roles=[])  # nothing changed for Pat: nothing revoked
    await emu.update_member(gm, roles=[world.gm_role])  # still the GM
    assert (await links.check(gm_link)).gm
    await emu.update_member(gm, roles=[])
    with pytest.raises(LinkRefused):
        await links.check(gm_link)
    assert not (await links.check(player_link)).gm
    assert not (await links.check(pats)).gm
