"""What a players' review card shows is decided by `canon.visibility` from the real proposals and canon, not from
a set a test hands the card: a GM-only entity a scene only *proposed* stays off it, and so does a continuity
warning resting on a statement whose far end is GM-only."""

from __future__ import annotations

import pytest

from bot.app import CanonServices, build_canon
from canon import campaigns
from canon.campaigns import Campaign
from canon.models import Visibility
from canon.proposals import EntityContent, Ref, RelationshipContent, StateChangeContent
from canon.storage import Database
from cogs import review_embeds
from memory.scene_service import SceneService
from tests.bot.services.test_canon_service import CHANNEL, GM, PAT, play_scene
from tests.e2e.canon_flow import embed_text


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Shattered Isles", guild_id=10))


@pytest.fixture
async def service(db: Database) -> CanonServices:
    return build_canon(db, SceneService(db))


def public_card(review) -> str:  # type: ignore[no-untyped-def]
    return embed_text(review_embeds.review_embed(review, 0, reveal=False).to_dict())


async def test_a_proposal_naming_a_gm_only_proposed_entity_stays_off_the_players_card(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    await service.canon.add_direct(
        campaign, EntityContent(name="Brann", entity_type="NPC"), GM, command="/canon add"
    )
    await play_scene(db, service, campaign, ["Brann bows to a stranger.", "The stranger smiles."])
    (duke,) = await service.proposals.propose(
        campaign,
        CHANNEL,
        EntityContent(name="The Pale Duke", entity_type="NPC", visibility=Visibility.GM_ONLY),
        GM,
    )
    # A public proposal naming the duke, who exists only as the GM-only proposal above.
    (serves,) = await service.proposals.propose(
        campaign,
        CHANNEL,
        RelationshipContent(subject=Ref(name="Brann"), relation="ally of", object=Ref(name="The Pale Duke")),
        GM,
    )
    assert serves.content.object.proposal_id == duke.id and serves.content.visibility == Visibility.PUBLIC
    await service.proposals.propose(
        campaign, CHANNEL, StateChangeContent(subject=Ref(name="Brann"), state="wounded"), PAT
    )
    _, review = await service.canon.end_scene(CHANNEL)
    assert review.secret == {duke.id, serves.id}
    shown = public_card(review)
    assert "Pale Duke" not in shown and "Brann becomes wounded" in shown, shown
    assert "Pale Duke" in embed_text(review_embeds.review_embed(review, 0, reveal=True).to_dict())


async def test_a_warning_resting_on_a_statement_whose_object_is_gm_only_stays_off_the_players_card(
    db: Database, service: CanonServices, campaign: Campaign
) -> None:
    """Brann's stay in a secret vault is public by its own flag; its object, the vault, is GM-only."""
    for content in (
        EntityContent(name="Brann", entity_type="NPC"),
        EntityContent(name="Greyhaven", entity_type="Location"),
        EntityContent(name="the Drowned Vault", entity_type="Location", visibility=Visibility.GM_ONLY),
        RelationshipContent(
            subject=Ref(name="Brann"),
            relation="located in",
            object=Ref(name="the Drowned Vault"),
            since="3rd_age.year_300",
            until="3rd_age.year_310",
        ),
    ):
        await service.canon.add_direct(campaign, content, GM, command="/canon add")
    await play_scene(db, service, campaign, ["Brann spent the year 305 in Greyhaven."])
    (stay,) = await service.proposals.propose(
        campaign,
        CHANNEL,
        RelationshipContent(
            subject=Ref(name="Brann"),
            relation="located in",
            object=Ref(name="Greyhaven"),
            since="3rd_age.year_305",
            until="3rd_age.year_306",
        ),
        PAT,
    )
    _, review = await service.canon.end_scene(CHANNEL)
    (proposal,) = review.proposals
    assert any("Drowned Vault" in str(w) for w in proposal.warnings), proposal.warnings
    assert review.secret == set() and review.secret_warnings == {stay.id}
    shown = public_card(review)
    assert "Brann is in Greyhaven" in shown and "Drowned Vault" not in shown and "⚠️" not in shown, shown
    assert "Drowned Vault" in embed_text(review_embeds.review_embed(review, 0, reveal=True).to_dict())
