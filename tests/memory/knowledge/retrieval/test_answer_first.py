"""The best passage answers when the question names it, in the player's words rather than the book's."""

from __future__ import annotations

from dataclasses import replace

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer import compose
from memory.knowledge.retrieval.answer_first import akin, from_first, title_words
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import labelled_sentences
from tests.memory.knowledge.retrieval.test_answer import passage

# A homebrew system's layouts, not the SRD's: "Label: value" lines, bold names ending in a colon.
GLAIVE = passage(
    "## Glaive\n\nWeapon (martial, reach)\n\nPrice: 20 crowns\nDamage: 1d10 cutting\n\n"
    "A long blade on a longer pole.",
    "Armoury",
    "Glaive",
)
MIRE_HAG = passage(
    "## Mire Hag\n\n**Defense:** 14\n\n**Regrowth:** The hag heals 5 wounds each round. Salt or flame on her "
    "skin keeps her from healing that round. She rises again at the dark moon.\n\n**Claws:** 2 wounds.",
    "Creatures",
    "Mire Hag",
)
IRON_WILL = passage(
    "### Knight: Iron Will\n\nTaken at rank 3.\n\nWhen a spell would bend your mind, you may shrug it off once "
    "per day.\n\nAt rank 9 you may do so twice.",
    "Paths",
    "Knight: Iron Will",
)
FRENZY = passage(
    "## Frenzy\n\nThe berserker's blood runs hot. While frenzied they fight without fear.\n\n"
    "Each hit deals +3 extra harm while the frenzy lasts, and the frenzy lasts until the fight ends.",
    "Paths",
    "Frenzy",
)


def test_the_field_of_the_passage_the_question_names_answers_though_the_question_says_more() -> None:
    answer = reply(analyse("glaive damage dice?"), [], [GLAIVE])
    assert answer.known and "1d10 cutting" in answer.text and "Glaive" in answer.text


def test_a_name_the_question_qualifies_is_something_else_and_nothing_is_known() -> None:
    for question in ("stormforged glaive damage", "what's the price of a glaive of thunder"):
        answer = reply(analyse(question), [], [GLAIVE])
        assert not answer.known, question
    assert title_words(analyse("how hard does a stormforged glaive hit"), GLAIVE) == []


def test_a_name_reached_only_by_the_search_correcting_a_word_is_not_named() -> None:
    typed = analyse("how much harm does toll the dead do")
    corrected = replace(analyse("how much harm does troll the dead do"), text=typed.text)
    troll = passage("## Troll\n\nA troll's claws deal 2d6 harm.", "Creatures", "Troll")
    assert title_words(corrected, troll) == []
    assert title_words(analyse("how much harm does a troll do"), troll) == ["troll"]


def test_a_block_the_question_names_answers_with_its_sentences_in_order() -> None:
    found = from_first(analyse("what stops the mire hag from regrowing"), [MIRE_HAG], 1)
    assert found is not None and found.number == 1
    assert found.sentences == (
        "Regrowth: The hag heals 5 wounds each round.",
        "Salt or flame on her skin keeps her from healing that round.",
    )


def test_every_sentence_of_a_bold_named_block_carries_its_name() -> None:
    said = labelled_sentences(MIRE_HAG.text)
    assert ("Regrowth", "She rises again at the dark moon.") in said
    assert ("Claws", "Claws: 2 wounds.") in said


def test_what_a_named_feature_does_is_its_first_sentence_of_prose_when_none_holds_the_words() -> None:
    answer = reply(analyse("what does iron will do for a knight"), [], [IRON_WILL])
    assert answer.known and "bend your mind" in answer.text


def test_an_amount_asked_picks_the_line_holding_one() -> None:
    answer = reply(analyse("how much extra harm does frenzy give at low rank"), [], [FRENZY])
    assert answer.known and "+3 extra harm" in answer.text


def test_a_rule_is_quoted_before_its_example() -> None:
    rest = passage(
        "### Camping\n\nFor example, a traveller with 6 stamina dice regains 3 stamina dice after camping.\n\n"
        "After camping, a traveller regains half of their spent stamina dice.",
        "Travel",
        "Camping",
    )
    answer = compose("how many stamina dice do you regain after camping", [], [rest])
    assert answer.known and "half of their spent stamina dice" in answer.text


def test_the_books_abbreviations_hold_the_words_they_stand_for() -> None:
    wall = passage(
        "## Cover\n\nA creature behind a low wall has a +2 bonus to AC against missiles.", "Battle", "Cover"
    )
    answer = reply(analyse("how much armor class does cover behind a low wall give"), [], [wall])
    assert answer.known and "+2 bonus to AC" in answer.text


def test_a_field_asked_of_an_unnamed_passage_needs_a_sentence_saying_the_field() -> None:
    lancer = passage(
        "## Moonlit Lancer\n\n**Resists:** cold, and blows of weapons that aren't moonsilvered.",
        "Creatures",
        "Moonlit Lancer",
    )
    assert not reply(analyse("how long does moonlance last"), [], [lancer]).known


def test_who_asks_is_not_what_the_question_is_about() -> None:
    asked = analyse("someone frozen - what saves do they get disadvantage on again?")
    assert "someone" not in asked.subject and "again" not in asked.subject and "frozen" in asked.subject
    assert "guy" not in analyse("if my guy gets grappled can he still walk away").subject
    assert "add" not in analyse("how much extra damage does frenzy add").subject


def test_how_far_something_can_shoot_asks_its_range() -> None:
    for question in ("how far can a sling shoot", "how far can a handaxe be thrown"):
        assert analyse(question).fields == ["range"], question


def test_words_of_one_root_are_akin_but_different_words_are_not() -> None:
    assert akin("rage", "raging") and akin("twinning", "twinned") and akin("regenerating", "regeneration")
    assert not akin("toll", "troll") and not akin("wolf", "worg") and not akin("rage", "range")


def test_an_abbreviation_reads_out_only_when_the_question_asks_all_its_words() -> None:
    trap = passage(
        "## Pit Trap\n\nA creature stepping on the lid makes a DC 12 Agility save or falls.",
        "Traps",
        "Pit Trap",
    )
    assert not compose("which class gets smite", [], [trap]).known
    assert "DC 12" in compose("what difficulty class is the pit trap save", [], [trap]).text


def test_a_field_asked_of_the_name_and_a_word_after_it_the_entry_lacks_is_of_something_else() -> None:
    assert not reply(analyse("glaive sheath price"), [], [GLAIVE]).known
    assert reply(analyse("glaive blade price"), [], [GLAIVE]).known
