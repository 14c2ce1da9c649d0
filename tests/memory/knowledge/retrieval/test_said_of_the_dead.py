"""Graph answers in the table's words, read from a card: a death only its description tells (and none it hedges or
tells of another), the time an event a question names stands for, who held a title of several at once, and a
group's dead members said as members once."""

from __future__ import annotations

import pytest

from memory.knowledge.answer_models import Life, Relation
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import kind_answer
from memory.knowledge.retrieval.answer_lives import life_answer
from memory.knowledge.retrieval.answer_members import members_answer
from memory.knowledge.retrieval.death_said import death_said
from memory.knowledge.retrieval.event_times import event_time
from memory.knowledge.retrieval.offices import asked_office, possessed_title


def _person(description: str, *, state: str = "alive", died: str | None = None) -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name="Brann Tolliver",
        entity_type="NPC",
        matched="Brann Tolliver",
        match_score=1.0,
        hidden=False,
        description=description,
        facts=["Brann Tolliver is alive, born in year 40 of the Salt Reckoning"],
        state=state,
        life=Life(born="40", born_key=400000, died=died),
    )


@pytest.mark.parametrize(
    ("description", "said"),
    [
        (
            "A ferryman. He was hanged at the crossroads for smuggling in the spring of 88.",
            "Brann Tolliver was hanged at the crossroads for smuggling in the spring of 88",
        ),
        ("A ferryman. He was thought drowned in the flood, but walked home at midsummer.", None),
        ("A ferryman, feared lost in the blizzard until he came back in spring.", None),
        ("A ferryman who swore to avenge his brother's death.", None),
        ("A ferryman. His wife was poisoned by a rival.", None),
        ("A ferryman who keeps the north crossing.", None),
    ],
)
def test_a_death_only_the_description_tells_is_read_and_a_hedged_one_is_not(
    description: str, said: str | None
) -> None:
    assert death_said(_person(description)) == said


def test_a_death_canon_holds_is_canons_to_tell() -> None:
    dead = _person("He was hanged at the crossroads.", state="dead", died="88")
    assert death_said(dead) is None


def test_is_alive_is_answered_from_the_description_when_only_it_tells_the_death() -> None:
    fact = _person("A ferryman. He was hanged at the crossroads for smuggling.")
    assert kind_answer("is Brann Tolliver still alive?", [fact]) == (
        "No: Brann Tolliver was hanged at the crossroads for smuggling. [1]",
        1,
    )
    assert kind_answer("is Brann Tolliver dead?", [fact]) == (
        "Yes: Brann Tolliver was hanged at the crossroads for smuggling. [1]",
        1,
    )
    alive = _person("A ferryman. He was thought dead after the flood, but walked home.")
    assert kind_answer("is Brann Tolliver alive?", [alive]) == (
        "Yes: Brann Tolliver is alive, born in year 40 of the Salt Reckoning. [1]",
        1,
    )


def test_when_and_where_one_died_is_the_descriptions_sentence_when_only_it_tells() -> None:
    fact = _person("A ferryman. He was hanged at the crossroads for smuggling in the spring of 88.")
    told = "Brann Tolliver was hanged at the crossroads for smuggling in the spring of 88. [1]"
    assert life_answer("when did Brann Tolliver die?", [fact]) == (told, 1)
    assert life_answer("where did Brann Tolliver die?", [fact]) == (told, 1)
    alive = _person("A ferryman. He was feared drowned in the flood.")
    assert life_answer("when did Brann Tolliver die?", [alive]) == (
        "Nothing the table knows says Brann Tolliver died; Brann Tolliver is alive, born in year 40 of the Salt "
        "Reckoning. [1]",
        1,
    )


def _event(name: str, key: int, line: str) -> CanonFact:
    return CanonFact(
        entity_id=7,
        entity_name=name,
        entity_type="Event",
        matched=name.removeprefix("The "),
        match_score=1.0,
        hidden=False,
        description=None,
        facts=[line],
        when_key=key,
    )


@pytest.mark.parametrize(
    "question",
    [
        "who was reeve when the Great Thaw came?",
        "who was reeve during the Great Thaw?",
        "who kept the ferry at the time of the Great Thaw?",
        "who was reeve in the days of the Great Thaw?",
    ],
)
def test_the_time_an_event_named_stands_for(question: str) -> None:
    thaw = _event(
        "The Great Thaw", 880302, "The Great Thaw took place at Ferrow on 2 Seedmoon, year 88 of the SR"
    )
    time = event_time(question, [thaw])
    assert time is not None
    assert (time.lo, time.hi, time.number) == (880302, 880302, 1)
    assert time.said == "when the Great Thaw took place, on 2 Seedmoon, year 88 of the SR"


def test_no_event_time_without_an_event_named_after_when() -> None:
    thaw = _event("The Great Thaw", 880000, "The Great Thaw took place in year 88 of the SR")
    assert event_time("who was reeve in year 88?", [thaw]) is None
    assert event_time("what was the Great Thaw?", [thaw]) is None
    year = event_time("who was reeve during the Great Thaw?", [thaw])
    assert year is not None and (year.lo, year.hi) == (880000, 889999)


def test_a_groups_dead_members_are_said_once_with_when_they_died() -> None:
    guild = CanonFact(
        entity_id=3,
        entity_name="The Ferrymen's Guild",
        entity_type="Faction",
        matched="Ferrymen's Guild",
        match_score=1.0,
        hidden=False,
        description=None,
        facts=[],
        relations=[
            Relation(subject=name, predicate="MEMBER_OF", object="The Ferrymen's Guild")
            for name in ("Orla Brisk", "Brann Tolliver", "Cade Wren", "Ivo Marsh")
        ],
        deaths={"Brann Tolliver": "in year 88 of the Salt Reckoning", "Ivo Marsh": ""},
    )
    assert members_answer("who are the members of the Ferrymen's Guild?", [guild]) == (
        "Orla Brisk and Cade Wren are members of the Ferrymen's Guild; Brann Tolliver (died in year 88 of the Salt "
        "Reckoning) and the late Ivo Marsh were members too. [1]",
        1,
    )
    assert members_answer("how many members does the Ferrymen's Guild have?", [guild]) == (
        "The Ferrymen's Guild has two living members: Orla Brisk and Cade Wren; Brann Tolliver (died in year 88 of "
        "the Salt Reckoning) and the late Ivo Marsh were members too. [1]",
        1,
    )
    gone = guild.model_copy(update={"relations": guild.relations[1:2]})
    assert members_answer("who is in the Ferrymen's Guild?", [gone]) == (
        "Brann Tolliver (died in year 88 of the Salt Reckoning) was a member of the Ferrymen's Guild. [1]",
        1,
    )


@pytest.mark.parametrize(
    ("question", "title", "event"),
    [
        (
            "who held the office of Reeve of Ferrow when the Great Thaw began?",
            "reeve of ferrow",
            "the great thaw",
        ),
        ("who was reeve during the Great Thaw?", "reeve", "the great thaw"),
        ("who was the reeve back when the Great Thaw began?", "reeve", "the great thaw"),
        ("who was Ferrow's reeve at the time of the Great Thaw?", "ferrow's reeve", "the great thaw"),
    ],
)
def test_an_office_is_asked_at_the_time_of_an_event(question: str, title: str, event: str) -> None:
    assert asked_office(question) == ("event", {"title": title, "event": event})


def test_an_office_said_as_its_places_is_its_title() -> None:
    assert possessed_title("ferrow's reeve") == "reeve of ferrow"
    assert possessed_title("reeve of ferrow") is None


def test_a_group_member_dead_only_by_the_description_is_a_late_member() -> None:
    from memory.knowledge.retrieval.death_said import death_told

    assert death_told("Eli Hatch", "A union man. He was shot dead outside the saloon.") == (
        "Eli Hatch was shot dead outside the saloon"
    )
    assert death_told("Eli Hatch", "A union man. He was thought dead, but walked home.") is None
    assert death_told("Eli Hatch", "A union man who swore to avenge his brother's death.") is None
