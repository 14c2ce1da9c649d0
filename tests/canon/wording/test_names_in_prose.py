"""Names inside a sentence: "the" before an event named by a common noun, a leading "The" in lower case, a
title after "is" with its article where English wants one."""

from __future__ import annotations

import pytest

from canon.wording import in_prose, names_in_prose, opening, relation_sentence, title_phrase
from canon.wording.relations import fact_sentence, takes_the


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Battle of Gull Rock", True),
        ("Sinking of the Tallow Barge", True),
        ("Treaty of Glassmere", True),
        ("Tamsin's Investiture", False),  # a possessive is a name of its own
        ("The Great Surge", False),  # an article of its own
        ("Saltwater Riot", False),  # no "of": left as the GM wrote it
        ("Harrowfest", False),
        ("feast of lanterns", False),  # not capitalised: no name
        ("Rise of", False),
    ],
)
def test_an_event_name_takes_the_when_a_common_noun_leads_it_before_of(name: str, expected: bool) -> None:
    assert takes_the(name) is expected


def test_a_name_inside_a_sentence() -> None:
    assert in_prose("The Lantern Guild") == "the Lantern Guild"
    assert in_prose("Battle of Cindershoal", "Event") == "the Battle of Cindershoal"
    assert in_prose("Battle of Cindershoal") == "Battle of Cindershoal"  # only an event's name
    assert in_prose("Nim the Pale", "Event") == "Nim the Pale"
    assert in_prose("Thessaly") == "Thessaly"
    assert in_prose("The") == "The"
    assert in_prose(in_prose("The Choir's Bargain", "Event"), "Event") == "the Choir's Bargain"


def test_a_relation_says_its_object_as_prose_and_its_subject_as_written() -> None:
    assert (
        relation_sentence("MEMBER_OF", "Ilin Sarr", "The Lantern Guild")
        == "Ilin Sarr is a member of the Lantern Guild"
    )
    assert (
        relation_sentence("LEADS", "The Lantern Guild", "The Harbour")
        == "The Lantern Guild leads the Harbour"
    )
    assert relation_sentence("PARTICIPATED_IN", "Harrak Voss", "Battle of Cindershoal") == (
        "Harrak Voss took part in the Battle of Cindershoal"
    )
    assert relation_sentence("PARTICIPATED_IN", "Tamsin Vaske", "Tamsin's Investiture") == (
        "Tamsin Vaske took part in Tamsin's Investiture"
    )
    assert relation_sentence(
        "OCCURRED_AT", "Battle of Cindershoal", "Cindershoal", target_kind="Location"
    ) == ("Battle of Cindershoal took place at Cindershoal")


def test_names_listed_in_a_sentence() -> None:
    names = ["The Ember Crown", "Osric Dray", "The Ash Brotherhood"]
    assert names_in_prose(names) == "the Ember Crown, Osric Dray and the Ash Brotherhood"
    assert names_in_prose(names, opens=True) == "The Ember Crown, Osric Dray and the Ash Brotherhood"
    assert names_in_prose(["Wreck of the Sable"], "Event") == "the Wreck of the Sable"
    assert names_in_prose([]) == ""


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Ember Queen", "the Ember Queen"),
        ("Harbourmaster", "the Harbourmaster"),
        ("Lady of Saltmarch", "Lady of Saltmarch"),
        ("The Pale Hand", "The Pale Hand"),
        ("Queen's Champion", "Queen's Champion"),
        ("Ember Queen, Warden", "Ember Queen, Warden"),
        ("", ""),
    ],
)
def test_a_title_after_is(title: str, expected: str) -> None:
    assert title_phrase(title) == expected


def test_an_answer_tells_a_title_with_its_article_and_a_card_as_written() -> None:
    assert fact_sentence("Maren Dray", "title", "Ember Queen", told=True) == "Maren Dray is the Ember Queen"
    assert fact_sentence("Maren Dray", "title", "Ember Queen") == "Maren Dray is Ember Queen"


def test_a_sentence_opening_with_an_event_name() -> None:
    said = "Battle of Gull Rock took place at Gull Rock"
    assert opening(said, "Battle of Gull Rock", "Event") == "The Battle of Gull Rock took place at Gull Rock"
    assert opening(said, "Battle of Gull Rock", "Person") == said
    assert opening("Tamsin's Investiture took place", "Tamsin's Investiture", "Event") == (
        "Tamsin's Investiture took place"
    )
    assert opening("Idris Fenn took part", "Battle of Gull Rock", "Event") == "Idris Fenn took part"


def test_one_of_several_names_reads_with_or() -> None:
    assert names_in_prose(["House Orrow", "Maelis Orrow", "The Corsairs' Rest"], either=True) == (
        "House Orrow, Maelis Orrow or the Corsairs' Rest"
    )


def test_a_group_s_members_read_in_one_sentence_and_counted_in_words() -> None:
    from canon.wording.relations import members_sentence

    assert (
        members_sentence(["Ysra Dunmore"], "The Ashen Corsairs")
        == "Ysra Dunmore is a member of the Ashen Corsairs"
    )
    assert members_sentence(["The Grey Sisters", "Kell Varrow"], "House Orrow") == (
        "The Grey Sisters and Kell Varrow are members of House Orrow"
    )
    assert members_sentence(["A", "B", "C"], "The Bellwrights", counting=True) == (
        "The Bellwrights have three members: A, B and C"
    )
    many = [f"N{i}" for i in range(13)]
    assert members_sentence(many, "House Orrow", counting=True).startswith("House Orrow has 13 members: N0, ")
