"""Attributes against the ontology's declarations at the gate: names normalised, unknown ones warned, values
checked, and a second value of a single-valued attribute warned with both sides' evidence."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from canon.errors import InvalidInput
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import Database
from canon.tables import ProposalRow
from tests.helpers.canon_desk import Desk


@pytest.fixture
async def desk(db: Database) -> Desk:
    desk = await Desk.create(db)
    await desk.add(EntityContent(name="Mara", entity_type="NPC"))
    await desk.add(EntityContent(name="Greyhaven", entity_type="Location"))
    return desk


async def proposal_count(db: Database) -> int:
    async with db.session() as session:
        return await session.scalar(select(func.count()).select_from(ProposalRow)) or 0


async def test_an_alias_is_stored_under_the_declared_name(desk: Desk) -> None:
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="Titles", value="Pirate Queen"), scene=1
    )
    assert isinstance(fact.content, FactContent) and fact.content.attribute == "title"
    assert fact.warnings == ()


async def test_an_unknown_attribute_is_warned_with_the_nearest_names_and_kept_until_the_gm_accepts_it(
    desk: Desk,
) -> None:
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="Hair style!", value="braided"), scene=1
    )
    (warning,) = fact.warnings
    assert warning.kind == "unknown_attribute" and warning.suggestions == ("hair_colour",)
    assert isinstance(fact.content, FactContent) and fact.content.attribute == "hair_style!"
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="hairstyle", value="braided"), scene=1
    )
    (warning,) = fact.warnings
    assert warning.message == (
        "“hairstyle” is a new kind of detail for Mara: nothing in this campaign uses it yet. Did you mean "
        "hair colour? Accepting the proposal adds it."
    )
    # Another spelling of a declared name is that attribute: no question.
    (same,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="haircolor", value="red"), scene=1
    )
    assert isinstance(same.content, FactContent) and same.content.attribute == "hair_colour"
    # The scene's end recomputes the continuity warnings; the note stays, and accepting is the confirmation
    # (no rationale: the note is no continuity finding), so "accept all" takes it too.
    rewarned = {p.id: p for p in await desk.rewarn(1)}
    assert [w.kind for w in rewarned[fact.id].warnings] == ["unknown_attribute"]
    await desk.decide(fact.id, accept=True)
    result = await desk.commit(scene=1)
    assert result.written_by[fact.id]


async def test_the_gms_own_unknown_attribute_is_a_new_attribute_without_a_warning(desk: Desk) -> None:
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="Favourite song", value="The Gull"), scene=1, gm=True
    )
    assert isinstance(fact.content, FactContent) and fact.content.attribute == "favourite_song"
    assert fact.warnings == ()


async def test_a_value_of_the_wrong_type_is_refused_and_nothing_is_stored(desk: Desk, db: Database) -> None:
    before = await proposal_count(db)
    with pytest.raises(
        InvalidInput, match=r"A Location's population is a number, like 500; “lots” is not one\."
    ):
        await desk.propose(
            FactContent(subject=Ref(name="Greyhaven"), attribute="population", value="lots"), scene=1
        )
    with pytest.raises(
        InvalidInput, match=r"“date of birth”: “last spring” is not a word of this campaign.s calendar"
    ):
        await desk.propose(
            FactContent(subject=Ref(name="Mara"), attribute="date of birth", value="last spring"), scene=1
        )
    assert await proposal_count(db) == before
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Greyhaven"), attribute="Population", value="1,200"), scene=1
    )
    assert fact.warnings == ()


async def test_a_second_title_at_the_same_time_is_warned_with_both_sides_evidence(desk: Desk) -> None:
    (bible,) = (
        await desk.add(
            FactContent(subject=Ref(name="Mara"), attribute="titles", value="Harbourmaster of Greyhaven")
        )
    ).statement_ids
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Pirate Queen"), scene=2, turn=4
    )
    (warning,) = fact.warnings
    assert warning.kind == "contradicts_higher_authority"
    assert warning.message == (
        "Mara's title is “Pirate Queen” according to play (scene 2), contradicting “Harbourmaster of "
        "Greyhaven” from the GM (undated); “Harbourmaster of Greyhaven” prevails."
    )
    gm_side, play_side = warning.sides
    assert gm_side.statement_id == bible and gm_side.evidence[0].note == "/canon add by Gina"
    assert play_side.evidence[0].scene_id == 2 and play_side.evidence[0].turn_from == 4


async def test_a_title_that_changes_at_a_date_is_a_change_and_the_card_shows_it(desk: Desk) -> None:
    (old,) = (
        await desk.add(
            FactContent(subject=Ref(name="Mara"), attribute="title", value="Harbourmaster of Greyhaven")
        )
    ).statement_ids
    (fact,) = await desk.propose(
        FactContent(subject=Ref(name="Mara"), attribute="title", value="Pirate Queen", when="3rd_age.340"),
        scene=2,
    )
    assert fact.warnings == ()
    await desk.decide(fact.id, accept=True)
    await desk.commit(scene=2)
    await desk.add(FactContent(subject=Ref(name="Mara"), attribute="nickname", value="the Gull"))
    await desk.add(
        FactContent(subject=Ref(name="Mara"), attribute="epithet", value="Storm-born", when="3rd_age.341")
    )
    card = await desk.card("Mara")
    assert card.changed_at == {old: "3rd_age.year_340"}  # nicknames are many: no change


async def test_a_law_of_the_world_proposed_by_a_player_is_warned_and_by_the_gm_is_not(desk: Desk) -> None:
    (spell,) = await desk.propose(EntityContent(name="Wild magic", entity_type="MagicSystem"), scene=1)
    (warning,) = spell.warnings
    assert warning.kind == "axiom_from_player"
    assert warning.message == (
        "“Wild magic” would be a law of the world (a MagicSystem), which takes the GM's word or an imported "
        "source's, not play's."
    )
    rewarned = {p.id: p for p in await desk.rewarn(1)}
    assert [w.kind for w in rewarned[spell.id].warnings] == ["axiom_from_player"]
    (npc,) = await desk.propose(EntityContent(name="Tam", entity_type="NPC"), scene=1)
    (gm_law,) = await desk.propose(
        EntityContent(name="Old magic", entity_type="MagicSystem"), scene=1, gm=True
    )
    assert npc.warnings == () and gm_law.warnings == ()
