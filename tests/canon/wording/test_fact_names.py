"""Picking a fact by its words: the handle, the whole sentence, or words that fit only one fact."""

from __future__ import annotations

import pytest

from canon.wording.fact_names import fact_handle, handle_in, matching_facts, nearest_facts

NAMED = [
    (12, "Corvan Marrow is dead (since year 352 of the Third Age)"),
    (13, "Corvan Marrow's title is Harbourmaster of Greyhaven"),
    (14, "Ysolde Marrow is alive"),
    (15, "Corvan Marrow is dead"),
]


@pytest.mark.parametrize(
    ("typed", "number"),
    [("fact 12", 12), ("(fact 12)", 12), ("#12", 12), ("12", 12), ("Corvan is dead (fact 13)", 13)],
)
def test_a_handle_names_one_fact(typed: str, number: int) -> None:
    assert handle_in(typed) == number


def test_full_width_digits_are_digits_too() -> None:
    assert handle_in("fact １２") == 12


def test_words_alone_carry_no_handle() -> None:
    assert handle_in("Gullhaven's harbour holds 1200 ships") is None
    assert handle_in("Corvan Marrow is dead") is None


def test_the_handle_it_names_is_its_own() -> None:
    assert fact_handle(53) == "(fact 53)" and handle_in(fact_handle(53)) == 53


def test_a_whole_sentence_picks_that_fact_even_when_another_holds_its_words() -> None:
    assert matching_facts("Corvan Marrow is dead", NAMED) == [15]
    assert matching_facts("corvan  MARROW is dead.", NAMED) == [15]


def test_words_that_fit_one_fact_pick_it() -> None:
    assert matching_facts("harbourmaster", NAMED) == [13]
    assert matching_facts("Ysolde alive", NAMED) == [14]
    assert matching_facts("corv harb", NAMED) == [13]  # the start of each word will do


def test_words_that_fit_several_facts_return_them_all() -> None:
    assert matching_facts("Corvan dead", NAMED) == [12, 15]
    assert sorted(matching_facts("Marrow", NAMED)) == [12, 13, 14, 15]


def test_nothing_fits_and_a_handle_of_an_unknown_or_hidden_fact_finds_nothing() -> None:
    assert matching_facts("Aldric", NAMED) == []
    assert matching_facts("fact 99", NAMED) == []
    assert matching_facts("  ,, ", NAMED) == []


OSWIN = [
    (30, "Oswin Harrow is dead (since the night of the Lantern fire)"),
    (31, "Oswin Harrow is wounded"),
    (32, "Tobin's debt: owes Mirela 40 silver"),
    (33, "Mirela is born in year 310"),
    (34, "Tobin killed the ferryman"),
]


@pytest.mark.parametrize(
    ("typed", "number"),
    [
        ("Oswin's death", 30),
        ("Oswin died", 30),
        ("oswin dies", 30),
        ("the death of Oswin", 30),
        ("Oswin DEAD", 30),
        ("Tobin's debt to Mirela", 32),
        ("Tobin owed Mirela", 32),
        ("Mirela's birth", 33),
        ("Tobin kills", 34),
        ("the murder of the ferryman", 34),
        ("Oswin injured", 31),
    ],
)
def test_any_form_of_a_word_fits_the_fact_that_says_it(typed: str, number: int) -> None:
    assert matching_facts(typed, OSWIN) == [number]


def test_a_form_fits_no_other_root() -> None:
    assert matching_facts("Oswin's birth", OSWIN) == []
    assert matching_facts("Tobin died", OSWIN) == []


def test_words_that_carry_nothing_alone_are_still_looked_for() -> None:
    assert matching_facts("the", OSWIN) == [30, 34]


def test_the_nearest_facts_hold_all_but_one_of_the_words() -> None:
    assert matching_facts("that Oswin died at the Lantern inn", OSWIN) == []
    assert nearest_facts("that Oswin died at the Lantern inn", OSWIN) == [30]
    assert nearest_facts("Oswin at the Kettle", OSWIN) == [30, 31]


def test_nothing_is_near_when_too_few_words_fit() -> None:
    assert nearest_facts("Aldric", OSWIN) == []
    assert nearest_facts("Aldric Vane dead", OSWIN) == []
    assert nearest_facts("fact 30", OSWIN) == []
    assert nearest_facts("", OSWIN) == []


def test_facts_of_the_same_words_are_told_apart_by_their_scene_or_day_and_typed_back_pick_one() -> None:
    import datetime as dt

    from canon.models import (
        Evidence,
        EvidenceKind,
        Provenance,
        Statement,
        StatementKind,
        StatementView,
        Validity,
    )
    from canon.wording import SceneWords, Wording
    from canon.wording.fact_names import told_apart

    def view(sid: int, evidence: tuple[Evidence, ...], day: int) -> StatementView:
        made = Provenance(
            campaign_id=1,
            changeset_id=sid,
            recorded_at=dt.datetime(2026, 3, day, 20, 5, tzinfo=dt.UTC),
            authority="gm",
            confidence=1.0,
        )
        statement = Statement(
            id=sid,
            kind=StatementKind.ATTRIBUTE,
            subject_id=1,
            predicate="oath",
            value="sworn",
            validity=Validity(),
            provenance=made,
            evidence=evidence,
        )
        return StatementView.model_validate(
            {"statement": statement, "subject": {"id": 1, "name": "Mara", "type": "NPC"}}
        )

    quay = (Evidence(kind=EvidenceKind.TURNS, scene_id=5, turn_from=7, turn_to=7),)
    views = [view(1, quay, 2), view(2, (), 3), view(3, (), 4)]
    words = Wording(scenes={5: SceneWords(order=3, title="The Quay")})
    lines = told_apart(views, ["Mara's oath: sworn", "Mara's oath: sworn", "Mara's oath: sworn"], words)
    assert "The Quay" in lines[0] and lines[1] == "Mara's oath: sworn — recorded 3 March 2026, 20:05 UTC"
    assert len(set(lines)) == 3 and not any(handle_in(line) for line in lines)
    named = list(zip([1, 2, 3], lines, strict=True))
    assert matching_facts("oath quay", named) == [1]
    assert matching_facts("oath 4 March", named) == [3]
    assert told_apart(views[:1], ["Mara's oath: sworn"], words) == ["Mara's oath: sworn"]  # alone: as is
