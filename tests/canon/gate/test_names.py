"""Names in proposals: a short name means the one entity the proposer sees by it, several are asked about in
words, a hidden entity is never matched for a player, and a new entity renamed to one canon has is that one."""

from __future__ import annotations

import pytest

from canon.errors import InvalidInput
from canon.models import Viewer, Visibility
from canon.proposals import EntityContent, Ref, RelationshipContent, StateChangeContent, renamed
from canon.storage import Database
from tests.helpers.canon_desk import Desk


@pytest.fixture
async def desk(db: Database) -> Desk:
    desk = await Desk.create(db)
    await desk.add(EntityContent(name="Mirela Harrow", entity_type="Person"))
    await desk.add(EntityContent(name="Oswin Harrow", entity_type="Person"))
    await desk.add(EntityContent(name="Grey Abbess", entity_type="Person", visibility=Visibility.GM_ONLY))
    return desk


async def names_in_canon(desk: Desk, name: str) -> list[str]:
    async with desk.db.session() as session:
        reader = await desk.reader(session)
        return [e.name for e in await reader.find_exact(name)]


@pytest.mark.parametrize("typed", ["Mirela", "mirela", "Mirela Harrow", "MIRELA  harrow"])
async def test_a_first_name_or_full_name_means_the_one_entity_that_has_it(desk: Desk, typed: str) -> None:
    content = StateChangeContent(subject=Ref(name=typed), state="wounded")
    proposals = await desk.propose(content, scene=1)

    (stored,) = proposals  # no new-entity proposal beside it
    assert isinstance(stored.content, StateChangeContent)
    assert stored.content.subject.name == "Mirela Harrow" and stored.content.subject.entity_id is not None
    said = renamed(content, stored.content)
    assert said == ([] if typed.casefold().split() == ["mirela", "harrow"] else [(typed, "Mirela Harrow")])


async def test_a_family_name_shared_by_two_is_asked_about_in_words_never_ids(desk: Desk) -> None:
    with pytest.raises(InvalidInput) as raised:
        await desk.propose(StateChangeContent(subject=Ref(name="Harrow"), state="wounded"), scene=1)
    message = str(raised.value)
    assert "“Harrow” could mean" in message
    assert "Mirela Harrow (Person)" in message and "Oswin Harrow (Person)" in message
    assert "#" not in message and "Grey" not in message


async def test_two_of_one_name_and_type_are_told_apart_by_their_place(desk: Desk) -> None:
    await desk.add(EntityContent(name="Eastmarch", entity_type="Location"))
    await desk.add(
        EntityContent(name="Oswin Harrow ", entity_type="Person")
    )  # a second one, as a bad commit made
    async with desk.db.session() as session:
        reader = await desk.reader(session)
        twins = await reader.find_exact("Oswin Harrow")
    await desk.add(
        RelationshipContent(
            subject=Ref(name="Oswin", entity_id=twins[0].id),
            relation="LOCATED_IN",
            object=Ref(name="Eastmarch"),
        )
    )
    with pytest.raises(InvalidInput) as raised:
        await desk.card("Oswin Harrow")
    message = str(raised.value)
    assert "Oswin Harrow (Person, Eastmarch)" in message and "#" not in message
    # What the question says is read back, and the handle still works quietly.
    assert (await desk.card("Oswin Harrow (Person, Eastmarch)")).entity.id == twins[0].id
    assert (await desk.card(f"#{twins[1].id}")).entity.id == twins[1].id


async def test_a_player_never_matches_a_hidden_entity_by_a_word_of_its_name(desk: Desk) -> None:
    proposals = await desk.propose(StateChangeContent(subject=Ref(name="Grey"), state="wounded"), scene=1)

    new, stored = proposals
    assert isinstance(new.content, EntityContent) and new.content.name == "Grey"
    assert isinstance(stored.content, StateChangeContent)
    assert stored.content.subject.entity_id is None and stored.content.subject.proposal_id == new.id
    # The GM, who sees it, has the word mean it.
    (gm_said,) = await desk.propose(
        StateChangeContent(subject=Ref(name="Grey"), state="wounded"), scene=2, gm=True
    )
    assert isinstance(gm_said.content, StateChangeContent) and gm_said.content.subject.name == "Grey Abbess"


async def test_a_name_matching_nothing_is_proposed_as_a_new_entity(desk: Desk) -> None:
    new, _ = await desk.propose(StateChangeContent(subject=Ref(name="Brann"), state="wounded"), scene=1)
    assert isinstance(new.content, EntityContent) and new.content.name == "Brann"


async def test_a_part_of_a_word_is_not_a_word(desk: Desk) -> None:
    new, _ = await desk.propose(StateChangeContent(subject=Ref(name="Harr"), state="wounded"), scene=1)
    assert isinstance(new.content, EntityContent) and new.content.name == "Harr"


async def test_a_new_entity_renamed_to_one_canon_has_points_its_namers_at_that_entity(desk: Desk) -> None:
    new, wounded = await desk.propose(StateChangeContent(subject=Ref(name="Osvin"), state="wounded"), scene=1)

    merged = await desk.revise(new.id, EntityContent(name="oswin harrow", entity_type="Person"), scene=1)

    assert merged.status == "rejected"
    assert merged.rationale and "Oswin Harrow (Person) is already in canon" in merged.rationale
    assert "“Osvin”" in merged.rationale
    await desk.accept_all(1)
    await desk.commit(scene=1)
    assert await names_in_canon(desk, "Oswin Harrow") == ["Oswin Harrow"]
    card = await desk.card("Oswin Harrow")
    assert card.state is not None and card.state.statement.value == "wounded"
    assert wounded.id != merged.id


async def test_a_new_entity_renamed_to_a_new_name_stays_new(desk: Desk) -> None:
    new, _ = await desk.propose(StateChangeContent(subject=Ref(name="Osvin"), state="wounded"), scene=1)
    kept = await desk.revise(new.id, EntityContent(name="Osvin Tarr", entity_type="Person"), scene=1)
    assert kept.status == "pending" and isinstance(kept.content, EntityContent)
    assert kept.content.name == "Osvin Tarr"


async def test_the_players_reader_does_not_resolve_a_hidden_name_by_its_word(desk: Desk) -> None:
    with pytest.raises(Exception) as raised:
        await desk.card("Grey", viewer=Viewer.PLAYER)
    assert "Abbess" not in str(raised.value)


async def test_a_new_entity_renamed_to_a_hidden_one_says_so_to_the_gm_alone(desk: Desk) -> None:
    new, _ = await desk.propose(StateChangeContent(subject=Ref(name="Grey"), state="wounded"), scene=1)

    merged = await desk.revise(new.id, EntityContent(name="Grey Abbess", entity_type="Person"), scene=1)

    assert merged.status == "rejected" and merged.rationale and "Grey Abbess" in merged.rationale
    assert not merged.rationale_public


async def test_a_new_entity_renamed_to_a_name_two_share_is_asked_about(desk: Desk) -> None:
    await desk.add(EntityContent(name="Oswin Harrow", entity_type="Location"))
    new, _ = await desk.propose(StateChangeContent(subject=Ref(name="Osvin"), state="wounded"), scene=1)
    with pytest.raises(
        InvalidInput, match=r"could mean Oswin Harrow \(Person\) or Oswin Harrow \(Location\)"
    ):
        await desk.revise(new.id, EntityContent(name="Oswin Harrow", entity_type="Person"), scene=1)


async def test_twins_nothing_tells_apart_are_told_apart_by_the_order_they_were_added(desk: Desk) -> None:
    await desk.add(
        EntityContent(name="Oswin Harrow ", entity_type="Person")
    )  # a second one, as a bad commit made
    with pytest.raises(InvalidInput) as raised:
        await desk.card("Oswin Harrow")
    message = str(raised.value)
    assert "Oswin Harrow (Person, added first) or Oswin Harrow (Person, added second)" in message
    assert "#" not in message
    first = await desk.card("Oswin Harrow (Person, added first)")
    second = await desk.card("oswin harrow (person, added second)")
    assert first.entity.id < second.entity.id
