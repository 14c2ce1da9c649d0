"""Questions as the table types them, in forms the answer step was not first written for: a field asked by its
verb, a long trait asked for one of its sentences, a number in words, a word of letters and figures no source
holds."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scope import strange_words
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

EMBERHOUND = passage(
    "## Emberhound\n\n*Medium beast, unaligned*\n\n- **Armor Class** 13\n- **Hit Points** 30 (4d8 + 12)\n"
    "- **Damage Resistances** frost; lightning\n- **Damage Immunities** fire\n\n"
    "***Ash Trail.*** The hound leaves smouldering ash wherever it walks.",
    "Beasts of the Cinderwood",
    "Emberhound",
    chunk_id=1,
)
MIRE_DRAKE = passage(
    "## Mire Drake\n\n*Large dragon, neutral*\n\n- **Armor Class** 16\n\n"
    "***Bog Breath.*** The drake exhales marsh gas in a 40-foot line. It smells of rot and old reeds. "
    "Each creature in the line makes a Stamina saving throw. The number to beat on this saving throw is 12 plus "
    "the drake's age band. A creature that fails is sickened until the gas clears.\n\n"
    "***Soul Sip.*** The drake drinks at a sleeper's dreams. The sleeper's Resolve drops by 1d4 each night. "
    "The sleeper never wakes again if this brings its Resolve to 0. Otherwise it recovers after a week.",
    "Beasts of the Cinderwood",
    "Mire Drake",
    chunk_id=2,
)
WARDEN = passage(
    "## Warden: Quiet Step\n\n*Warden calling, level 3*\n\nAt 3rd level a warden learns to move more quietly "
    "than most.",
    "Callings",
    "Warden: Quiet Step",
    chunk_id=3,
)


def test_a_field_asked_by_its_verb_is_the_field() -> None:
    answer = reply(analyse("what does an emberhound resist? list pls"), [], [EMBERHOUND])
    assert answer.known and "frost; lightning" in answer.text
    assert "ash" not in answer.text.casefold()
    # With what is resisted said, it asks which thing resists it: no field of one thing.
    assert analyse("which hound resists frost because of its fiery blood?").fields == []


def test_a_long_trait_named_is_quoted_by_the_sentence_saying_what_else_is_asked() -> None:
    # The campaign's glossary reads the table's "save" as the books' "saving throw".
    asked = analyse("mire drake bog breath - what's the save DC", {"save": "saving throw"})
    answer = reply(asked, [], [MIRE_DRAKE])
    assert "12 plus the drake's age band" in answer.text
    assert "smells of rot" not in answer.text
    # Asked nothing besides the trait, its first sentences answer as before.
    plain = reply(analyse("what does the mire drake's bog breath do"), [], [MIRE_DRAKE])
    assert plain.text.startswith("Mire Drake's Bog Breath: The drake exhales marsh gas in a 40-foot line.")


def test_a_number_in_words_finds_the_sentence_saying_it_in_figures() -> None:
    answer = reply(
        analyse("mire drake soul sip - what if it takes someone's resolve to zero"), [], [MIRE_DRAKE]
    )
    assert "never wakes again" in answer.text and "drops by 1d4" not in answer.text


def test_a_word_of_letters_and_figures_no_source_holds_is_unknown_as_typed() -> None:
    # The lookup reads "morv5" as "morv", close to the passage's "more"; typed whole, it is no misspelling of it.
    asked = analyse("whats morv5 for a 3rd level warden")
    assert strange_words(asked, ["morv"], [WARDEN]) == ["morv"]
    assert not reply(asked, [], [WARDEN], unknown=["morv"]).known


STORM_LANTERN = passage(
    "## Storm Lantern\n\n*Wondrous item, uncommon*\n\nThis lantern holds 2d4 + 1 wicks when it is found. "
    "A new owner can light the lantern's wicks together as one action.",
    "Curios",
    "Storm Lantern",
    chunk_id=5,
)


def test_one_standing_for_the_thing_named_is_no_number_to_find() -> None:
    asked = analyse("the ranger found a storm lantern, how many wicks does a new one have?")
    answer = reply(asked, [], [STORM_LANTERN])
    assert "2d4 + 1 wicks" in answer.text and "one action" not in answer.text
