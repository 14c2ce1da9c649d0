"""A book's own definitions read as the meanings of its words (`book_terms`), and the table's glossary over them."""

from __future__ import annotations

from memory.knowledge.glossary import expand, merged
from memory.knowledge.retrieval.book_terms import book_glossary, definitions, plain_words
from memory.knowledge.retrieval.passage_sentences import sentences

# A mech game's books, in layouts of their own: a bold glossary with dashes, a term in a sentence, a field list.
_GLOSSARY = """Pilot's Lexicon
**Frame** — the walking machine a pilot drives, also called a rig.
**Flux** — coolant. Every Action builds Flux.
**Sync** - a pilot's focus, nerve and stamina, spent to push a Frame past its limits.
Tonnage: 40
Weapon: Rail Lance
"""
_RULES = """Heat and Venting
Shutdown is what pilots call overheating. A Frame in Shutdown loses its next turn.
A Gantry is a repair crew working from a carrier deck. Gantries mend 2 Plating a hour.
A pilot out of stamina ejects.
The Spire is the tallest tower in Vell.
Vent: roll Sync + Frame to lose 3 Flux.
"""
_MORE = "Weapons\nThe Rail Lance fires once a turn and builds 2 Flux; stamina is never spent on it."


def test_definitions_in_entry_lines_and_in_sentences() -> None:
    found = dict(definitions([_GLOSSARY, _RULES]))
    assert found["Frame"].startswith("the walking machine")
    assert found["Shutdown"] == "overheating"
    assert found["Gantry"].startswith("a repair crew")
    assert "Tonnage" not in found and "Weapon" not in found  # a field's value, not a definition


def test_the_plain_words_a_definition_opens_with() -> None:
    assert plain_words("a pilot's focus, nerve and stamina, spent to push") == ["focus", "nerve", "stamina"]
    assert plain_words("the walking machine a pilot drives") == ["walking machine", "machine"]
    assert plain_words("coolant. Every Action builds Flux.") == ["coolant"]
    assert plain_words("roll Sync + Frame to lose 3 Flux") == []  # a sum, not a word for the term
    assert plain_words("to give one die to a friend") == []  # a clause
    assert plain_words("3 hours of air") == []
    assert plain_words("the tallest tower in Vell") == []  # a rank among others, not a meaning
    assert plain_words("The Crimson Gate") == []  # a name


def test_a_books_glossary_maps_plain_words_to_its_terms_but_not_words_it_writes_often() -> None:
    glossary = book_glossary([_GLOSSARY, _RULES, _MORE])
    assert glossary["coolant"] == "flux"
    assert glossary["overheating"] == "shutdown"
    assert glossary["repair crew"] == "gantry" and glossary["crew"] == "gantry"
    assert glossary["focus"] == "sync" and glossary["nerve"] == "sync"
    assert "stamina" not in glossary  # written in three passages: a word of the books' own
    assert "machine" in glossary and "vent" not in glossary


def test_a_question_in_plain_words_is_read_in_the_books_terms() -> None:
    glossary = merged(None, (), book_glossary([_GLOSSARY, _RULES, _MORE]))
    assert expand("how much coolant does a vent cost", glossary)[0] == "how much flux does a vent cost"
    assert expand("what happens when overheating", glossary)[0] == "what happens when shutdown"


def test_a_shipped_spelling_of_a_defined_word_reaches_the_books_term() -> None:
    glossary = merged(None, (), {"armour": "hull", "fatigue": "strain"})
    assert expand("what does armor do", glossary)[0] == "what does hull do"
    assert (
        expand("how does fatigue work", glossary)[0] == "how does strain work"
    )  # not the shipped exhaustion
    gm = merged({"fatigue": "weariness"}, (), {"fatigue": "strain"})
    assert expand("fatigue?", gm)[0] == "weariness?"  # the GM's own term outranks the books'


def test_a_glossary_entry_in_capitals_keeps_its_term_with_its_meaning() -> None:
    text = "LEXICON\n\nDRIFT-LOCK. When two Frames grapple. Both lose Flux.\n\nII. Movement rules follow."
    said = sentences(text)
    assert "Drift-lock: When two Frames grapple. Both lose Flux." in said  # the whole entry: one sentence
    assert not any(s.startswith("Ii") for s in said)  # a numeral, not a term


def test_a_field_asked_in_the_tables_words_is_asked_in_the_books_term() -> None:
    from memory.knowledge.question import analyse
    from memory.knowledge.retrieval.answer_comparison import comparison
    from tests.memory.knowledge.retrieval.test_answer import passage

    book = merged(None, (), book_glossary(["Terms\nWOUNDING. Damage; what a blow takes off your Grit."]))
    assert analyse("which hits harder, a pike or a maul", book).fields == ["wounding"]
    assert analyse("which hits harder, a pike or a maul", merged()).fields == ["damage"]
    arms = passage(
        "## Arms\n\n| Arm | Wounding | Reach |\n|---|---|---|\n| Pike | 3 | 2 |\n| Maul | 5 | 1 |", "Arms"
    )
    answer = comparison(analyse("which hits harder, a pike or a maul", book), [], [arms])
    assert answer is not None and answer.text.endswith("Maul has the higher wounding.")


# "Cogmarsh": its hit points are Spring, its stress is Jitters, never called so in the book.
COGMARSH = [
    "Gauges\nSpring is how much harm your frame can take before it seizes. Your Spring equals Grip × 2 + 3.",
    "Gauges\nJitters are the panic and shaking a tinker builds up underground. Your Jitters limit is Nerve + 2.",
    "Mishaps\nA boiler that bursts deals 4 harm to everyone near. A flask of oil mends 1 harm you take.",
    "Words of the Works\nTICK. A die that comes up 6. Count your Ticks against the Gear.",
]


def test_a_term_defined_as_what_every_game_has_answers_its_common_name() -> None:
    glossary = book_glossary(COGMARSH)
    assert glossary["hit points"] == "spring" and glossary["stress"] == "jitters"
    assert glossary["success"] == glossary["successes"] == "tick"
    # The table's own words for them reach the book's term through the shipped glossary.
    terms = merged(None, (), glossary)
    assert expand("how much health does a tinker with grip 2 have", terms)[0] == (
        "how much spring does a tinker with grip 2 have"
    )
    assert expand("whats a rivet crabs hp", terms)[0] == "whats a rivet crabs spring"


def test_no_common_name_is_given_where_the_books_write_it_or_two_terms_say_it() -> None:
    written = [*COGMARSH, "Beasts\nA rivet crab has 11 hit points."]
    assert "hit points" not in book_glossary(written)
    twice = [*COGMARSH, "Gauges\nSteam is the harm a boiler can take before it bursts."]
    assert "hit points" not in book_glossary(twice)
