"""What happened at an event the question names: its day and place, its description and outcome."""

from __future__ import annotations

from memory.knowledge.models import CanonFact, Relation
from memory.knowledge.retrieval.answer_happenings import happening_answer


def _card(name: str, kind: str, facts: list[str], number: int = 1) -> CanonFact:
    return CanonFact(
        entity_id=number,
        entity_name=name,
        entity_type=kind,
        matched=name,
        match_score=1.0,
        hidden=False,
        description=None,
        facts=facts,
    )


_SIEGE = _card(
    "Siege of Tallowmere",
    "Event",
    [
        "Siege of Tallowmere's description: The Ferrow pirates tried to burn the grain barges of Tallowmere.",
        "Siege of Tallowmere's outcome: the pirates were driven off and Captain Odrin Pell was slain",
        "Siege of Tallowmere took place at Tallowmere on 3 Frostwane, year 40 of the Long Peace",
    ],
)


def test_an_event_named_whole_is_told_with_its_day_description_and_outcome() -> None:
    found = happening_answer("what went on at the siege of tallowmere?", [_SIEGE])
    assert found is not None
    text, number = found
    assert number == 1
    assert text.startswith("The Siege of Tallowmere took place at Tallowmere on 3 Frostwane")
    assert "tried to burn the grain barges" in text
    assert "Captain Odrin Pell was slain" in text


def test_a_place_named_lists_its_events_not_one_told() -> None:
    place = _card(
        "Tallowmere",
        "Location",
        ["Siege of Tallowmere took place at Tallowmere on 3 Frostwane, year 40 of the Long Peace"],
        number=2,
    )
    found = happening_answer("What happened at Tallowmere?", [_SIEGE, place])
    assert found is not None
    assert "tried to burn" not in found[0]


def test_an_event_card_saying_nothing_of_what_it_was_tells_nothing_here() -> None:
    bare = _card("Siege of Tallowmere", "Event", [])
    assert happening_answer("What happened at the Siege of Tallowmere?", [bare]) is None


def _tied(card: CanonFact, *relations: tuple[str, str, str]) -> CanonFact:
    tied = [Relation(subject=s, predicate=p, object=o) for s, p, o in relations]
    return card.model_copy(update={"relations": tied})


_TOWN = _tied(
    _card(
        "Brackwell",
        "Location",
        [
            "Waking of the Fenserpent took place at Brackwell on 9 Reedfall, year 88 of the Long Peace",
            "The Toll Revolt took place at Brackwell in year 80 of the Long Peace",
        ],
        number=1,
    ),
    ("Waking of the Fenserpent", "OCCURRED_AT", "Brackwell"),
    ("The Toll Revolt", "OCCURRED_AT", "Brackwell"),
)
_BEAST = _tied(
    _card(
        "The Fenserpent",
        "Creature",
        ["The Fenserpent took part in the Waking of the Fenserpent on 9 Reedfall, year 88 of the Long Peace"],
        number=2,
    ),
    ("The Fenserpent", "PARTICIPATED_IN", "Waking of the Fenserpent"),
)


def test_an_event_found_by_the_one_taking_part_and_its_place_answers_when() -> None:
    found = happening_answer("when did the fenserpent turn up in brackwell", [_TOWN, _BEAST])
    assert found is not None
    text, number = found
    assert number == 1
    assert text.startswith("The Waking of the Fenserpent took place at Brackwell on 9 Reedfall, year 88")
    assert "Toll Revolt" not in text


def test_an_event_whose_name_the_question_does_not_hold_is_not_said() -> None:
    rebel = _tied(
        _card("Ida Crane", "Person", ["Ida Crane took part in the Toll Revolt in year 80"], number=2),
        ("Ida Crane", "PARTICIPATED_IN", "The Toll Revolt"),
    )
    assert happening_answer("when did Ida Crane come to Brackwell?", [_TOWN, rebel]) is None


def test_the_era_of_an_event_named_is_read_from_its_day() -> None:
    found = happening_answer("what age did the siege of tallowmere happen in", [_SIEGE])
    assert found is not None
    assert found[0] == (
        "In the Long Peace: the Siege of Tallowmere took place at Tallowmere on 3 Frostwane, year 40 of the"
        " Long Peace. [1]"
    )


def test_the_era_of_an_event_without_a_year_is_not_said() -> None:
    undated = _card("Siege of Tallowmere", "Event", ["Siege of Tallowmere took place at Tallowmere"])
    assert happening_answer("which era was the siege of tallowmere in?", [undated]) is None
