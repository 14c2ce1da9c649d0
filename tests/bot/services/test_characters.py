"""Player characters and their players on a real database: claims and the GM's decisions, one active character
per member, and the bad inputs (a character someone else plays, a place, a GM-only entity, another campaign).

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import pytest

from bot.app import build_canon
from bot.services.characters import CharacterDesk, Member
from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.knowledge import characters as links
from canon.knowledge.characters import LinkStatus
from canon.models import Visibility
from canon.proposals import EntityContent
from canon.storage import Database
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="Gina", is_gm=True)
NOT_GM = Actor(id=2, name="Pat", is_gm=False)
PAT, QUINN = Member(2, "Pat"), Member(3, "Quinn")


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


@pytest.fixture
async def desk(db: Database, campaign: Campaign) -> CharacterDesk:
    canon = build_canon(db, SceneService(db))
    for name, kind, hidden in (
        ("Sable", "PC", False),
        ("Brann", "PC", False),
        ("The Mill", "Location", False),
        ("Vell", "Person", True),
    ):
        visibility = Visibility.GM_ONLY if hidden else Visibility.PUBLIC
        content = EntityContent(name=name, entity_type=kind, visibility=visibility)
        await canon.canon.add_direct(campaign, content, GM, command="/canon add")
    return CharacterDesk(db, canon.access)


async def test_a_claim_waits_for_the_gm_and_the_first_character_is_active(
    desk: CharacterDesk, campaign: Campaign
) -> None:
    claim = await desk.claim(campaign, "sable", PAT)
    assert (claim.character, claim.status, claim.active) == ("Sable", LinkStatus.ASKED, False)
    assert await desk.active(campaign, PAT.id) is None  # a claim plays nothing yet
    with pytest.raises(NotAllowed):
        await desk.decide(campaign, claim.id, approve=True, gm=NOT_GM)
    assert (
        await desk.link(campaign, claim.id)
    ).status == LinkStatus.ASKED  # the refused click changed nothing
    approved = await desk.decide(campaign, claim.id, approve=True, gm=GM)
    assert approved.status == LinkStatus.PLAYS and approved.active and approved.decided_by == "Gina"
    with pytest.raises(Conflict, match="already approved"):
        await desk.decide(campaign, claim.id, approve=False, gm=GM)
    # A second character: played, not active, until the member switches to it.
    second = await desk.assign(campaign, "Brann", PAT, GM)
    assert second.status == LinkStatus.PLAYS and not second.active
    assert (await desk.active(campaign, PAT.id)).character == "Sable"  # type: ignore[union-attr]
    await desk.switch(campaign, "brann", PAT)
    mine = await desk.roster(campaign, member_id=PAT.id)
    assert [(m.character, m.active) for m in mine] == [("Sable", False), ("Brann", True)]


async def test_claiming_a_character_someone_else_plays_is_refused(
    desk: CharacterDesk, campaign: Campaign
) -> None:
    await desk.assign(campaign, "Sable", PAT, GM)
    with pytest.raises(NotAllowed, match="Sable is played by Pat"):
        await desk.claim(campaign, "Sable", QUINN)
    with pytest.raises(Conflict, match="already play Sable"):
        await desk.claim(campaign, "Sable", PAT)
    # The GM may let two players share one character.
    shared = await desk.assign(campaign, "Sable", QUINN, GM)
    assert shared.status == LinkStatus.PLAYS
    # A claim approved after someone else got the character is not approved silently.
    claim = await desk.claim(campaign, "Brann", QUINN)
    await desk.assign(campaign, "Brann", PAT, GM)
    with pytest.raises(Conflict, match="played by Pat now"):
        await desk.decide(campaign, claim.id, approve=True, gm=GM)
    assert (await desk.link(campaign, claim.id)).status == LinkStatus.ASKED


async def test_what_is_not_a_character_or_not_seen_is_refused(
    desk: CharacterDesk, campaign: Campaign
) -> None:
    with pytest.raises(
        InvalidInput,
        match="The Mill is a location, not a character: only a person or a creature can be played",
    ):
        await desk.claim(campaign, "The Mill", PAT)
    # A GM-only person is as unknown to a player as a name nobody wrote.
    with pytest.raises(NotFound) as hidden:
        await desk.claim(campaign, "Vell", PAT)
    with pytest.raises(NotFound) as unknown:
        await desk.claim(campaign, "Zzyx", PAT)
    assert str(hidden.value).replace("Vell", "X") == str(unknown.value).replace("Zzyx", "X")
    with pytest.raises(NotFound, match="do not play a character called “Sable”"):
        await desk.switch(campaign, "Sable", PAT)
    assert await desk.roster(campaign) == []  # nothing half-written


async def test_a_claim_of_another_campaign_is_not_found(
    db: Database, desk: CharacterDesk, campaign: Campaign
) -> None:
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=21))
    claim = await desk.claim(campaign, "Sable", PAT)
    with pytest.raises(NotFound):
        await desk.decide(other, claim.id, approve=True, gm=GM)
    with pytest.raises(NotFound):
        await desk.claim(other, "Sable", PAT)
    assert (await desk.link(campaign, claim.id)).status == LinkStatus.ASKED


async def test_a_released_character_is_no_longer_played(desk: CharacterDesk, campaign: Campaign) -> None:
    await desk.assign(campaign, "Sable", PAT, GM)
    released = await desk.release(campaign, "Sable", PAT, GM)
    assert released.status == LinkStatus.ENDED and await desk.active(campaign, PAT.id) is None
    # Now free: another player may claim it.
    assert (await desk.claim(campaign, "Sable", QUINN)).status == LinkStatus.ASKED


async def test_a_member_who_leaves_plays_nothing_more_in_that_servers_campaigns_alone(
    db: Database, desk: CharacterDesk, campaign: Campaign
) -> None:
    """Pat leaves server 20: Sable ends, the claim on Brann is withdrawn (a GM deciding it is told so); Quinn,
    who shares Sable, keeps her, and so does Pat in a campaign of another server. Leaving again, or leaving
    while playing nothing, changes nothing."""
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=21))
    canon = build_canon(db, SceneService(db))
    await canon.canon.add_direct(
        other, EntityContent(name="Sable", entity_type="PC"), GM, command="/canon add"
    )
    await desk.assign(campaign, "Sable", PAT, GM)
    await desk.assign(campaign, "Sable", QUINN, GM)
    claim = await desk.claim(campaign, "Brann", PAT)
    await desk.assign(other, "Sable", PAT, GM)

    changed = await desk.member_left(20, PAT.id)
    assert sorted((c.character, c.status) for c in changed) == [
        ("Brann", LinkStatus.LEFT),
        ("Sable", LinkStatus.ENDED),
    ]
    assert await desk.active(campaign, PAT.id) is None
    assert [(c.character, c.member_name) for c in await desk.roster(campaign)] == [("Sable", "Quinn")]
    elsewhere = await desk.active(other, PAT.id)
    assert elsewhere is not None and elsewhere.character == "Sable"
    with pytest.raises(Conflict) as late:
        await desk.decide(campaign, claim.id, approve=True, gm=GM)
    assert str(late.value) == "Pat left the server: their claim on Brann was withdrawn."
    assert await desk.member_left(20, PAT.id) == [] and await desk.member_left(20, 99) == []
    # Brann is free again: Quinn may claim it.
    assert (await desk.claim(campaign, "Brann", QUINN)).status == LinkStatus.ASKED


async def test_a_member_reads_through_their_active_character_and_one_playing_none_is_told_how_to_claim(
    db: Database, desk: CharacterDesk, campaign: Campaign
) -> None:
    async def active_of(member: Member) -> int:
        async with db.session() as session:
            return await links.active_character_id(session, campaign.id, member.id)

    with pytest.raises(NotFound, match="You play no character yet: `/character claim` asks the GM"):
        await active_of(PAT)
    sable = await desk.claim(campaign, "sable", PAT)
    with pytest.raises(NotFound):  # a claim plays nothing yet
        await active_of(PAT)
    await desk.decide(campaign, sable.id, approve=True, gm=GM)
    brann = await desk.decide(campaign, (await desk.claim(campaign, "brann", PAT)).id, approve=True, gm=GM)
    assert not brann.active and await active_of(PAT) == sable.entity_id  # the first played stays active
