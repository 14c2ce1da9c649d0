"""The glossary a question is read through: the campaign's calendar outranks the shipped terms, the GM's own
terms outrank the calendar."""

from __future__ import annotations

from canon.campaign_calendar import calendar_from
from canon.date_words import calendar_words
from memory.knowledge.glossary import SHIPPED, expand, merged
from memory.knowledge.question import analyse

# Every calendar word below is a shipped term too: "LR" a long rest, "AC" armor class, "Max" maximum.
LANTERN = calendar_from(
    {
        "eras": [
            {"name": "The Lantern Reckoning", "abbreviation": "LR"},
            {"name": "After the Crowning", "abbreviations": ["AC", "A.C."]},
        ],
        "months": ["Thaw", "Max", "Frostfall"],
    },
    {},
)


def test_the_calendar_s_words_are_every_name_it_gives_folded() -> None:
    words = calendar_words(LANTERN)
    assert {"lr", "lantern reckoning", "ac", "after the crowning", "max", "frostfall"} <= words
    assert {"lr", "ac", "max"} <= words & set(SHIPPED)


def test_a_calendar_word_is_never_read_as_a_shipped_term() -> None:
    glossary = merged(None, calendar_words(LANTERN))
    assert {"lr", "ac", "max"}.isdisjoint(glossary)
    assert glossary["hp"] == "hit points" and glossary["sr"] == "short rest"  # the others stay
    for question, read in (
        ("what happened in 499 LR", "what happened in 499 LR"),
        ("who was born in 12 AC", "who was born in 12 AC"),
        ("events of LR 500", "events of LR 500"),
        ("what happened on 3 Max, 12 AC", "what happened on 3 Max, 12 AC"),
        ("how many hp after an SR", "how many hit points after an short rest"),
    ):
        assert analyse(question, glossary).expanded == read
        assert analyse(question, glossary).typed == read


def test_without_the_era_the_shipped_reading_stands() -> None:
    glossary = merged(None, calendar_words(calendar_from({"eras": [{"name": "Dale Reckoning"}]}, {})))
    assert expand("what is my AC after a LR", glossary)[0] == "what is my armor class after a long rest"
    assert merged() == merged(None, ()) == SHIPPED


def test_a_term_the_gm_added_outranks_the_calendar() -> None:
    # The GM typed it: their table says "LR" for a long rest, and they chose that over the era's abbreviation.
    glossary = merged({"LR": "long rest", "lamps": "The Lantern Reckoning"}, calendar_words(LANTERN))
    assert glossary["lr"] == "long rest" and "ac" not in glossary
    assert analyse("what happened in 499 LR", glossary).expanded == "what happened in 499 long rest"
    assert analyse("who was born in 12 AC", glossary).expanded == "who was born in 12 AC"


def test_a_term_the_gm_gave_itself_switches_the_shipped_meaning_off() -> None:
    # Another game's "HP" and "armour" are its own words: the GM removed the shipped meanings (stored as
    # themselves), and a question keeps them as typed, with no glossary term said to be used.
    glossary = merged({"HP": "hp", "armour": "Armour"})
    assert "hp" not in glossary and "armour" not in glossary
    assert glossary["armour class"] == "armor class" and glossary["ac"] == "armor class"  # the others stay
    assert expand("kelp hound hp and armour", glossary) == ("kelp hound hp and armour", {})
