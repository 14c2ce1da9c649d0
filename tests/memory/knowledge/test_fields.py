"""Questions read for what they ask, fields read from any book's layout, and answers that pick the field asked."""

from __future__ import annotations

import pytest

from memory.knowledge.answer_models import AnswerMode
from memory.knowledge.fields import KIND, Field, fields_of
from memory.knowledge.glossary import clean_term, expand, merged
from memory.knowledge.question import KIND_LINE, analyse
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import card, passage

OWLBEAR = passage(
    "## Owlbear\n\n*Large monstrosity, unaligned*\n\n- **Armor Class** 13 (natural armor)\n"
    "- **Hit Points** 59 (7d10 + 21)\n- **Speed** 40 ft.\n- **Challenge** 3 (700 XP)\n\n"
    "***Keen Sight and Smell.*** The owlbear has advantage on Wisdom (Perception) checks.",
    "Bestiary",
    "Owlbear",
    chunk_id=1,
)
TROLL = passage(
    "## Troll\n\n- **Armor Class** 15 (natural armor)\n- **Hit Points** 84 (8d10 + 40)\n\n"
    "***Regeneration.*** The troll regains 10 hit points at the start of its turn.",
    "Bestiary",
    "Troll",
    chunk_id=2,
)
FIREBALL = passage(
    "## Fireball\n\n*3rd-level evocation*\n\n- **Range** 150 feet\n- **Classes** Sorcerer, Wizard\n\n"
    "A bright streak flashes from your pointing finger. Each creature must make a Dexterity saving throw.",
    "Spells",
    "Fireball",
    chunk_id=3,
)
# Two layouts that are not the SRD's: plain "Label: value" lines, and a table with a name column.
STORMCROW = passage(
    "### Stormcrow\n\nDefense: 14\nVitality: 22 (4d8 + 4)\nMove: 10 ft., fly 60 ft.\n\n"
    "Stormcrows nest on the cliffs of the Grey Reach.",
    "Beasts of the Reach",
    "Stormcrow",
    chunk_id=4,
)
ARMOURY = passage(
    "## Weapons of the Reach\n\n| Weapon | Price | Damage |\n|---|---|---|\n"
    "| Hookblade | 12 crowns | 1d8 slashing |\n| Reach Pike | 7 crowns | 1d10 piercing |\n",
    "Gear",
    "Weapons of the Reach",
    chunk_id=5,
)
GLOSSED = passage(
    "## Warden\n\nHit Dice\n: 2d10\n\nWardens keep the old roads.", "Callings", "Warden", chunk_id=6
)


def test_the_glossary_reads_abbreviations_and_slang_as_the_books_words() -> None:
    text, used = expand("owlbear hp and AC when knocked out cold?")
    assert text == "owlbear hit points and armor class when unconscious?"
    assert used["knocked out cold"] == "unconscious"
    # A campaign's terms join the shipped ones and outrank them; a term that is not a word is dropped.
    terms = merged({"Grey Reach": "the reach", "hp": "vitality", "<@123>": "x"})
    assert expand("grey reach hp", terms)[0] == "the reach vitality"
    assert clean_term("<@123>") == "" and "<@123>" not in terms


def test_a_question_says_the_field_asked_and_what_about() -> None:
    asked = analyse("owlbear hp")
    assert (asked.kind, asked.fields, asked.subject) == ("field", ["hit points"], ["owlbear"])
    asked = analyse("how far can an ancient brass dragon move in a turn")
    assert asked.fields == ["speed"] and asked.subject == ["ancient", "brass", "dragon"]
    asked = analyse("cost and weight of a longsword")
    assert asked.fields == ["cost", "weight"] and asked.subject == ["longsword"]
    asked = analyse("What level spell is Fireball?")
    assert asked.fields == [KIND_LINE] and asked.subject == ["fireball"]
    asked = analyse("which has more hit points, an ogre or a troll?")
    assert asked.kind == "comparison" and asked.parts == [["ogre"], ["troll"]]
    assert analyse("Can a vampire walk in sunlight?").kind == "yes/no"
    assert analyse("Who rules Greyhaven?").fields == []


def test_fields_are_read_from_stat_blocks_label_lines_definitions_and_tables() -> None:
    assert Field("Owlbear", KIND, "Large monstrosity, unaligned") in fields_of(OWLBEAR)
    assert Field("Owlbear", "Hit Points", "59 (7d10 + 21)") in fields_of(OWLBEAR)
    assert Field(
        "Owlbear", "Keen Sight and Smell", "The owlbear has advantage on Wisdom (Perception) checks."
    ) in (fields_of(OWLBEAR))
    assert Field("Stormcrow", "Defense", "14") in fields_of(STORMCROW)
    assert Field("Warden", "Hit Dice", "2d10") in fields_of(GLOSSED)
    table = fields_of(ARMOURY)
    assert Field("Weapons of the Reach › Hookblade", "Price", "12 crowns") in table
    assert Field("Weapons of the Reach › Reach Pike", "Damage", "1d10 piercing") in table


def test_the_field_asked_answers_and_names_its_subject() -> None:
    answer = reply(analyse("owlbear hp"), [], [FIREBALL, OWLBEAR, TROLL])
    assert answer.known and answer.text == "Owlbear's hit points are 59 (7d10 + 21). [2]"
    assert [c.number for c in answer.citations if c.cited] == [2]
    answer = reply(analyse("whats the AC on a trol"), [], [OWLBEAR, TROLL])
    assert answer.text == "Troll's armor class is 15 (natural armor). [2]"
    answer = reply(analyse("What level spell is fireball?"), [], [OWLBEAR, FIREBALL])
    assert answer.text == "Fireball is a 3rd-level evocation. [2]"
    answer = reply(analyse("which classes can cast fireball"), [], [FIREBALL])
    assert answer.text == "Fireball's classes are Sorcerer, Wizard. [1]"


def test_fields_answer_in_layouts_other_than_the_srd_s() -> None:
    answer = reply(analyse("stormcrow defense?"), [], [OWLBEAR, STORMCROW])
    assert answer.text == "Stormcrow's defense is 14. [2]"
    answer = reply(analyse("how much is a hookblade, price?"), [], [ARMOURY])
    assert answer.text == "Hookblade's price is 12 crowns. [1]"
    answer = reply(analyse("warden hit dice"), [], [GLOSSED])
    assert answer.text == "Warden's hit dice are 2d10. [1]"


def test_a_field_of_something_nobody_wrote_is_nothing_known_not_a_neighbour() -> None:
    # Break it on purpose: without the subject check, "Owlbear's armor class" would answer a beholder.
    for question in ("What is the armor class of a beholder?", "ironjaw owlbear hp", "mind flayer AC"):
        answer = reply(analyse(question), [], [OWLBEAR, TROLL])
        assert not answer.known and answer.mode == AnswerMode.NOTHING, question
        assert not any(c.cited for c in answer.citations)


def test_a_question_that_is_not_a_field_still_gets_its_sentence() -> None:
    answer = reply(analyse("how many hp does a troll regain at the start of its turn"), [], [TROLL])
    assert answer.known and "regains 10 hit points" in answer.text


def test_canon_outranks_a_field() -> None:
    canon = card("Owlbear", facts=["Owlbear's hit points are 3 after the fight at the mill"])
    answer = reply(analyse("owlbear hit points"), [canon], [OWLBEAR])
    assert answer.mode == AnswerMode.GRAPH and "[1]" in answer.text


def test_a_comparison_answers_both_parts_with_both_citations_and_says_which() -> None:
    asked = analyse("which has more hit points, an owlbear or a troll?")
    answer = comparison(asked, [], [OWLBEAR, TROLL])
    assert answer is not None
    assert answer.text == (
        "Owlbear's hit points are 59 (7d10 + 21). [1] Troll's hit points are 84 (8d10 + 40). [2] "
        "Troll has the higher hit points."
    )
    assert (
        comparison(analyse("which has more hit points, an owlbear or a beholder?"), [], [OWLBEAR, TROLL])
        is None
    )


def test_a_yes_no_question_about_a_field_is_answered_yes_or_no_first() -> None:
    potion = passage(
        "## Potion of Climbing\n\n*Potion, common*\n\nYou can climb.", "Items", "Potion of Climbing"
    )
    ring = passage(
        "## Ring of Warmth\n\n*Ring, uncommon (requires attunement)*\n\nYou resist cold.",
        "Items",
        "Ring of Warmth",
    )
    haste = passage("## Haste\n\n- **Duration** Concentration, up to 1 minute\n", "Spells", "Haste")
    answer = reply(analyse("does the potion of climbing require attunement?"), [], [potion, ring])
    assert answer.text == "No: Potion of Climbing is a potion, common. [1]"
    answer = reply(analyse("does the ring of warmth need attunement?"), [], [potion, ring])
    assert answer.text == "Yes: Ring of Warmth is a ring, uncommon (requires attunement). [2]"
    answer = reply(analyse("is haste concentration?"), [], [haste])
    assert answer.text == "Yes: Haste's duration is Concentration, up to 1 minute. [1]"

    # A yes/no question naming a field in the book's own words (no field phrase of the table's) is answered too,
    # its verdict first: the entry has the trait asked.
    answer = reply(analyse("does the owlbear have keen sight and smell?"), [], [OWLBEAR])
    assert answer.known and answer.text.startswith("Yes: Owlbear's Keen Sight and Smell:")


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("compare the AC of plate and chain mail", [["plate"], ["chain", "mail"]]),
        ("what is the difference in cost between a rapier and a longsword", [["rapier"], ["longsword"]]),
        ("how do the hit points of a wight and a ghoul compare", [["wight"], ["ghoul"]]),
        ("how does the speed of a mule compare to a pony", [["mule"], ["pony"]]),
        ("compare the vigour of the Reeve and the Warden", [["vigour", "reeve"], ["warden"]]),
    ],
)
def test_a_field_of_two_things_set_side_by_side_is_a_comparison(
    question: str, parts: list[list[str]]
) -> None:
    asked = analyse(question)
    assert asked.kind == "comparison" and asked.parts == parts


@pytest.mark.parametrize(
    "question",
    [
        "compare the Reeve and the Warden",
        "cost of a rapier",
        # "vs" with no field the table's words know is a game's jargon as often ("a save vs the Warden's gaze").
        "what is the save vs the Warden's gaze",
    ],
)
def test_two_things_named_without_a_field_to_compare_are_no_comparison(question: str) -> None:
    assert analyse(question).parts == []
