"""Questions typed in the table's forms that the books write otherwise: read through, not declined.

A fraction in figures ("3/4") is the books' "three-quarters"; an ordinal in figures ("2nd") is the word
"second"; a number only sets the case asked ("the 2nd use"), never names what it is asked of; the table's word
for what the books say otherwise ("formula") is a way of asking, never a name no book holds. A word no source
holds that names something ("a gorgonaut") still makes the answer "nothing known".
"""

from __future__ import annotations

from memory.knowledge.glossary import expand
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_scope import strange_words
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import same_word
from memory.knowledge.retrieval.field_answer import word_in
from tests.memory.knowledge.retrieval.test_answer import passage

SHELTER = passage(
    "## Shelter\n\nRocks, hulls and thick reeds can shelter a skiff from a volley. A skiff behind **half "
    "shelter** has a +1 bonus to AC. A skiff behind **three-quarters shelter** has a +3 bonus to AC and can't "
    "be boarded.",
    "Seafaring",
    "Shelter",
    chunk_id=1,
)
HAULING = passage(
    "#### Hauling\n\nYour hauling load is your Brawn score multiplied by 20. This is the weight in pounds that "
    "you can drag across a deck.",
    "Using Ability Scores",
    "Brawn",
    "Hauling",
    chunk_id=2,
)
OVERLOAD = passage(
    "## Stormcaller: Overload\n\n*Stormcaller feature, level 10*\n\nYou can pour a storm into one spell. "
    "The first time you do so, nothing ill happens. If you use this feature again before a long rest, you take "
    "3d8 lightning damage for each level of the spell.",
    "Class Features",
    "Stormcaller: Overload",
    chunk_id=3,
)


def test_a_fraction_in_figures_is_read_as_the_books_write_it() -> None:
    assert expand("3/4 shelter")[0] == "three-quarters shelter"
    answer = reply(analyse("3/4 shelter AC bonus"), [], [SHELTER])
    assert answer.known and "+3 bonus" in answer.text and "+1" not in answer.text
    # A fraction books print in figures ("a challenge of 1/2") stays as typed.
    assert expand("monsters of challenge 1/2")[0] == "monsters of challenge 1/2"


def test_an_ordinal_in_figures_is_the_word_and_a_number_never_names_the_subject() -> None:
    assert same_word("2nd", "second") and same_word("second", "2nd")
    assert not same_word("2nd", "seconds")
    # "2nd" is said nowhere in the passage ("again"): it sets the case asked, the feature is named.
    answer = reply(analyse("overload 2nd use dmg"), [], [OVERLOAD])
    assert answer.known and "3d8 lightning damage" in answer.text


def test_the_tables_word_for_a_sum_is_a_way_of_asking_not_an_unknown_name() -> None:
    asked = analyse("hauling load formula for brawn")
    assert strange_words(asked, ["formula"], [HAULING]) == []
    answer = reply(asked, [], [HAULING], unknown=["formula"])
    assert answer.known and "multiplied by 20" in answer.text


def test_a_word_no_source_holds_that_names_something_still_says_nothing_known() -> None:
    asked = analyse("what is the brawn formula of a gorgonaut")
    assert strange_words(asked, ["formula", "gorgonaut"], [HAULING]) == ["gorgonaut"]
    answer = reply(asked, [], [HAULING], unknown=["formula", "gorgonaut"])
    assert not answer.known and answer.text.startswith("Nothing the table knows")
    for question, unknown in (
        ("gorgonaut 2nd use dmg", ["gorgonaut"]),
        ("3/4 gorgonaut AC bonus", ["gorgonaut"]),
    ):
        said = reply(analyse(question), [], [OVERLOAD, SHELTER], unknown=unknown)
        assert not said.known, question


GLOOMWING = passage(
    "## Gloomwing\n\n*Large fiend (moth), chaotic evil*\n\n- **Armor Class** 15\n- **Challenge** 7 (2,900 XP)\n\n"
    "***Magic Resistance.*** The gloomwing has advantage on saving throws against spells.\n\n**Actions**\n\n"
    "***Bite.*** Melee Weapon Attack: +6 to hit, reach 5 ft., one target.\n\n"
    "***Dust Veil.*** The gloomwing sheds a cloud of grey dust. Each creature within 10 feet of it is blinded "
    "until the end of its next turn.",
    "Bestiary",
    "Gloomwing",
    chunk_id=4,
)
ASHMAW = passage(
    "## Ashmaw\n\n*Huge fiend, chaotic evil*\n\n- **Armor Class** 17\n- **Challenge** 11 (7,200 XP)\n\n"
    "***Magic Resistance.*** The ashmaw has advantage on saving throws against spells.\n\n**Actions**\n\n"
    "***Bite.*** Melee Weapon Attack: +9 to hit, reach 10 ft., one target.",
    "Bestiary",
    "Ashmaw",
    chunk_id=5,
)


def test_a_field_of_an_entry_called_by_its_trait_s_name_is_the_entry_s() -> None:
    answer = reply(
        analyse("what's the CR of the fiend that has the Dust Veil ability?"), [], [GLOOMWING, ASHMAW]
    )
    assert answer.text == "Gloomwing's challenge is 7 (2,900 XP). [1]"
    answer = reply(analyse("armor class of the thing with dust veil"), [], [ASHMAW, GLOOMWING])
    assert answer.known and "15" in answer.text and "Gloomwing" in answer.text


def test_a_trait_every_entry_has_or_a_one_word_trait_calls_no_entry() -> None:
    for question in (
        "AC of the fiend with magic resistance",  # both entries found have it
        "challenge of the fiend with a bite",  # one word: every creature's
        "challenge of the fiend with a dust cloak",  # no block so named
    ):
        assert not reply(analyse(question), [], [GLOOMWING, ASHMAW]).known, question


STALWART = passage(
    "## Warden (Bulwark): Stalwart\n\n*Warden (Bulwark) feature, level 14*\n\nAt the start of your turn, "
    "you regain hit points equal to 3 + your Wisdom modifier if you have no more than half of your hit "
    "points left.",
    "Class Features",
    "Warden (Bulwark): Stalwart",
    chunk_id=6,
)


def test_two_letters_swapped_and_the_table_s_regen_are_read_as_the_books_words() -> None:
    assert word_in("trun", {"turn"})
    assert not word_in("tnur", {"turn"}) and not word_in("tern", {"turn"}) and not word_in("rtun", {"turn"})
    answer = reply(analyse("bulwark stalwart hp regen per trun"), [], [STALWART], unknown=["trun"])
    assert answer.known and "3 + your Wisdom modifier" in answer.text
    # A name no source holds beside them still says nothing known.
    said = reply(analyse("gorgonaut hp regen per trun"), [], [STALWART], unknown=["gorgonaut", "trun"])
    assert not said.known


def test_a_trait_named_beside_something_the_entry_does_not_hold_calls_no_entry() -> None:
    asked = analyse("what's the CR of the thornbeast that has the Dust Veil ability?")
    assert not reply(asked, [], [GLOOMWING, ASHMAW]).known


RETURNING = passage(
    "## Rite of Returning\n\n*6th-level conjuration*\n\n- **Casting Time** 1 action\n\nYou and up to three "
    "willing creatures within 5 feet of you step through a door of light to your shrine. The door then closes.",
    "Spells",
    "Rite of Returning",
    chunk_id=7,
)
WEARINESS = passage(
    "## Exhaustion\n\nExhaustion is counted in four steps. Each step of exhaustion gives a -2 penalty to every "
    "check. A long rest with food takes one step away.",
    "Conditions",
    "Exhaustion",
    chunk_id=8,
)


def test_the_people_a_rule_counts_are_the_books_creatures() -> None:
    asked = analyse(
        "Our priest wants to Rite of Returning the whole party out of the cave. How many other people can go "
        "with him?"
    )
    answer = reply(asked, [], [RETURNING])
    assert answer.known and "up to three willing creatures" in answer.text
    # A count of people the passage does not give is not answered with its casting time.
    assert not reply(analyse("how many people live in Gorgonhold"), [], [RETURNING], ["gorgonhold"]).known


def test_fatigue_is_read_as_the_books_exhaustion() -> None:
    assert expand("levels of fatigue")[0] == "levels of exhaustion"
    answer = reply(analyse("penalties for the levels of fatigue"), [], [WEARINESS])
    assert answer.known and "-2 penalty" in answer.text


STATUE = passage(
    "## Petrified\n\n- A petrified creature becomes a statue, along with what it carries.\n- Its weight is "
    "multiplied by five, and it stops growing older.\n- The creature can't move or speak.",
    "Conditions",
    "Petrified",
    chunk_id=9,
)


def test_a_field_asked_of_a_passage_named_is_the_sentence_saying_it_when_nothing_else_is_asked() -> None:
    assert expand("he got turned to stone")[0] == "he got petrified"
    answer = reply(
        analyse("my buddy got turned to stone. does he get heavier, and by how much?"), [], [STATUE]
    )
    assert answer.known and "multiplied by five" in answer.text
    # A field no sentence of it says is not answered from it.
    assert not reply(analyse("my buddy got turned to stone. how far can he see?"), [], [STATUE]).known


QUILLFOLK = passage(
    "## Quillfolk\n\n- **Speed** 25 feet\n- **Languages** Common, Quillish", "Races", "Quillfolk", chunk_id=10
)
QUILLISH = passage(
    "## Quillish\n\nThe Quillish language is written in knots and is famed for its long songs.",
    "Languages",
    "Quillish",
    chunk_id=11,
)


def test_a_field_a_passage_s_part_is_named_by_is_none_of_its_sentences() -> None:
    answer = reply(analyse("What languages does a quillfolk know?"), [], [QUILLFOLK, QUILLISH])
    assert answer.text == "Quillfolk's languages are Common, Quillish. [1]"
