"""Proposal content from flat command options: turn ranges, name lists, and clear errors."""

from __future__ import annotations

import pytest

from canon import forms
from canon.errors import InvalidInput
from canon.models import Visibility
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    RelationshipContent,
    StateChangeContent,
    citations,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("12-15", (12, 15)), ("12", (12, 12)), (" #3 – 4 ", (3, 4)), ("7..9", (7, 9)), ("", None), (None, None)],
)
def test_turn_ranges(text: str | None, expected: tuple[int, int] | None) -> None:
    assert forms.parse_turns(text) == expected


@pytest.mark.parametrize("text", ["five", "12-", "1-2-3", "-4", "3 to 5"])
def test_a_malformed_turn_range_shows_the_form(text: str) -> None:
    with pytest.raises(InvalidInput, match="12-15"):
        forms.parse_turns(text)


def test_a_backwards_range_is_refused() -> None:
    with pytest.raises(InvalidInput, match="runs backwards"):
        forms.parse_turns("15-12")


def test_names_are_split_trimmed_and_deduplicated() -> None:
    assert forms.split_names(" Aldric,  mara ,, Aldric , Mara ") == ("Aldric", "mara")
    assert forms.split_names(None) == ()


def test_each_builder_makes_its_content() -> None:
    fact = forms.fact_content(subject=" Mara ", attribute="Title", value="Captain", when=" ", gm_only=True)
    assert isinstance(fact, FactContent) and fact.subject.name == "Mara" and fact.when is None
    assert fact.visibility == Visibility.GM_ONLY
    entity = forms.entity_content(name="Grey  Gull", entity_type="Item", aliases="the Gull, Gull")
    assert (
        isinstance(entity, EntityContent)
        and entity.name == "Grey Gull"
        and entity.aliases == ("the Gull", "Gull")
    )
    relation = forms.relationship_content(subject="A", relation="ally of", target="B", since="3rd_age.300")
    assert isinstance(relation, RelationshipContent) and relation.object.name == "B"
    state = forms.state_content(subject="A", state="alive", via="resurrection")
    assert isinstance(state, StateChangeContent) and state.via == "resurrection"
    event = forms.event_content(name="The march", participants="A, B", location=" ", era="3rd Age")
    assert isinstance(event, EventContent) and [p.name for p in event.participants] == ["A", "B"]
    assert event.location is None and event.era is not None and event.era.name == "3rd Age"


def test_a_missing_or_too_long_value_is_a_clear_error() -> None:
    with pytest.raises(InvalidInput, match="The value is empty"):
        forms.fact_content(subject="A", attribute="title", value="  ")
    with pytest.raises(InvalidInput, match="“name” must be at most 200 characters"):
        forms.entity_content(name="x" * 201, entity_type="NPC")


def test_cited_facts_are_parsed_and_a_malformed_one_shows_the_form() -> None:
    assert forms.parse_fact_ids(" #12, 15,, 12 ;7") == (12, 15, 7)
    assert forms.parse_fact_ids(None) == ()
    state = forms.state_content(subject="A", state="dead", relies_on="#3")
    assert isinstance(state, StateChangeContent) and state.relies_on == (3,)
    assert citations(forms.fact_content(subject="A", attribute="title", value="x")) == ()
    for bad in ("twelve", "#", "0", "12-15"):
        with pytest.raises(InvalidInput, match=r"use the facts' words, picked from the suggestions"):
            forms.parse_fact_ids(bad)


def test_the_handles_a_picked_suggestion_sends_are_read() -> None:
    from canon.forms import parse_fact_ids

    assert parse_fact_ids("(fact 12), fact 15; #3, 4, (FACT 9)") == (12, 15, 3, 4, 9)
    for bad in ("one", "fact twelve", "(fact 0)", "12 15"):
        with pytest.raises(InvalidInput, match="the facts' words"):
            parse_fact_ids(bad)
