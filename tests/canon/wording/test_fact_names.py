"""Picking a fact by its words: the handle, the whole sentence, or words that fit only one fact."""

from __future__ import annotations

import pytest

from canon.wording.fact_names import fact_handle, handle_in, matching_facts

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
