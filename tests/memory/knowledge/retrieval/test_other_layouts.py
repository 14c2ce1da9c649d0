"""Answers from a game laid out otherwise than the SRD: price lists with dotted leaders, stat lines joined by
slashes or dashes, a list of conditions, tables of gear, travel told in the book's own unit."""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_verdict import verdict
from tests.memory.knowledge.retrieval.test_answer import passage

SUPPLIES = passage(
    "## Supplies\n\nFilter mask ..... 9 cr\nRation tin, three days ..... 2 cr\nRoute map, per sector ..... 4 cr",
    "Ashfall Gear",
    "Supplies",
    chunk_id=1,
)
WOLF = passage(
    "### Cinder Wolf\n\nA wolf of ash and ember.\n\nArmour 2 / Health 7 / Dice 3 / Bite 2 damage, and Dazed.",
    "Ashfall Gear",
    "Creatures",
    "Cinder Wolf",
    chunk_id=2,
)
GOLEM = passage(
    "### Slag Golem\n\nArmour — 5\nHealth — 20\nDice — 4\n\nSlag Golems guard the old foundries.",
    "Ashfall Gear",
    "Creatures",
    "Slag Golem",
    chunk_id=3,
)
CONDITIONS = passage(
    "## Conditions\n\nA condition lasts until it is removed.\n\n"
    "- **Dazed**: you cannot take Reactions. Shake it off with a Grit roll.\n"
    "- **Scorched**: lose 1 Health each turn. Removed by dousing yourself with water.",
    "Ashfall Rules",
    "Conditions",
    chunk_id=4,
)
WEAPONS = passage(
    "## Weapons\n\n| Weapon | Damage | Range | Cost | Notes |\n|---|---|---|---|---|\n"
    "| Ash rifle | 5 | Far | 30 cr | |\n| Hand cannon | 6 | Near | 45 cr | A hit leaves the target Dazed |\n"
    "| Vent knife | 2 | Close | 3 cr | |",
    "Ashfall Gear",
    "Weapons",
    chunk_id=5,
)
ARMOUR = passage(
    "## Armour\n\n| Armour | Armour value | Cost |\n|---|---|---|\n| Ash cloak | 1 | 8 cr |\n| Slag plate | 3 | 40 cr |",
    "Ashfall Gear",
    "Armour",
    chunk_id=6,
)
TRAVEL = passage(
    "## Travel\n\nDistances are counted in sectors. Ember Gate to Coldharbour is 5 sectors; Coldharbour to the "
    "Vents is 2 sectors.\n\nEach traveller breathes through one filter for every three sectors.",
    "Ashfall Rules",
    "Travel",
    chunk_id=7,
)


def test_a_price_lists_line_answers_its_cost() -> None:
    answer = reply(analyse("what does a filter mask cost"), [], [SUPPLIES, WEAPONS])
    assert answer.known and "9 cr" in answer.text and "Filter mask" in answer.text


def test_a_stat_line_joined_by_slashes_or_dashes_answers_its_field_even_misspelt() -> None:
    assert "7" in reply(analyse("cinder wolf health"), [], [WOLF, CONDITIONS]).text
    answer = reply(analyse("slag golem healht"), [], [GOLEM, WOLF])
    assert answer.known and "20" in answer.text


def test_a_term_a_list_defines_answers_what_it_does_before_a_line_naming_it() -> None:
    answer = reply(analyse("what does dazed do"), [], [WEAPONS, CONDITIONS])
    assert answer.known and "cannot take Reactions" in answer.text
    # A question asking an amount of a trait's words asks no definition.
    assert "cannot take Reactions" not in reply(analyse("how long am i dazed"), [], [CONDITIONS]).text


def _quoted(text: str) -> ShortAnswer:
    cited = Citation(
        number=1, kind="passage", label="Ashfall Gear › Weapons", chunk_id=5, source_id=10, cited=True
    )
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=[cited])


def test_a_row_naming_the_thing_gives_no_verdict_and_a_sentence_saying_it_does() -> None:
    asked = analyse("can i use the vent knife on myself")
    assert verdict(asked, [], [WEAPONS], _quoted("Vent knife 2 Close 3 cr. [1]")).text.startswith("Vent")
    said = verdict(asked, [], [WEAPONS], _quoted("A vent knife can never be turned on yourself. [1]"))
    assert said.text.startswith("No: ")


def test_a_comparison_naming_no_field_weighs_the_one_its_words_point_to() -> None:
    asked = analyse("which is better armour, ash cloak or slag plate")
    answer = comparison(asked, [], [ARMOUR])
    assert answer is not None
    assert "Ash cloak's armour value is 1" in answer.text and "Slag plate's armour value is 3" in answer.text
    assert answer.text.endswith("Slag plate has the higher armour value.")
    answer = comparison(analyse("is a vent knife stronger than an ash rifle"), [], [WEAPONS])
    assert answer is not None and answer.text.startswith("No: ") and "damage is 5" in answer.text


def test_how_much_of_a_thing_is_said_by_a_sentence_naming_it_not_a_price() -> None:
    answer = reply(analyse("how many filters do we use per sector"), [], [SUPPLIES, TRAVEL])
    assert answer.known and "every three sectors" in answer.text


def test_how_far_one_place_is_from_another_in_the_books_unit() -> None:
    answer = reply(analyse("how far is coldharbour from ember gate"), [], [TRAVEL])
    assert answer.known and "5 sectors" in answer.text


def test_getting_rid_of_a_condition_is_what_removes_it_named() -> None:
    answer = reply(analyse("how do i get rid of scorched"), [], [SUPPLIES, CONDITIONS])
    assert answer.known and "dousing yourself with water" in answer.text and "Scorched" in answer.text


def test_a_formula_under_a_bold_label_is_the_labels_value() -> None:
    derived = passage(
        "## Derived Numbers\n\n- **Health** = Grit × 2 + 4.\n- **Heat** limit = Nerve + 3. Heat is how hot you run.",
        "Ashfall Rules",
        "Derived Numbers",
    )
    answer = reply(analyse("heat limit?"), [], [derived])
    assert answer.known and "Nerve + 3" in answer.text


def test_what_a_thing_does_goes_on_past_the_sentence_saying_what_it_is() -> None:
    resting = passage(
        "## Resting\n\nA camp is a full night under a roof. You recover all Heat and clear Dazed.\n\n"
        "A nap is an hour in the shade.",
        "Ashfall Rules",
        "Resting",
    )
    answer = reply(analyse("what does a camp do"), [], [resting])
    assert answer.known and "full night under a roof" in answer.text and "recover all Heat" in answer.text
    assert "recover all Heat" not in reply(analyse("what is a camp"), [], [resting]).text
    answer = reply(analyse("what happens after a camp"), [], [resting])
    assert answer.known and "recover all Heat" in answer.text


def test_a_why_the_book_says_nobody_knows_is_answered_so() -> None:
    vents = passage(
        "## The Vents\n\nThe vents opened in a single night. Nobody knows why the vents opened. The Ember Cult "
        "teaches that the mountain woke.",
        "Ashfall Setting",
        "The Vents",
    )
    answer = reply(analyse("why did the vents open"), [], [vents])
    assert answer.known and "Nobody knows why the vents opened" in answer.text
    untold = passage("## The Vents\n\nThe vents opened in a single night.", "Ashfall Setting", "The Vents")
    assert not reply(analyse("why did the vents open"), [], [untold]).known


def test_an_entry_a_list_of_its_kind_does_not_hold_is_not_known() -> None:
    asked = analyse("what does the chilled condition do")
    assert not reply(asked, [], [CONDITIONS], unknown=["chilled"]).known
    # A word no source holds before a whole title only qualifies it (an owner, a nickname).
    rites = passage("## Ember Rite\n\nThe ember rite wakes a banked fire.", "Ashfall Rules", "Ember Rite")
    assert reply(analyse("what does orla's ember rite do"), [], [rites], unknown=["orla"]).known


def test_a_field_no_source_states_is_not_answered_by_its_entrys_other_lines() -> None:
    asked = analyse("how much does a cinder wolf weigh")
    assert not reply(asked, [], [WOLF], unknown=["weight"]).known


def test_a_row_named_past_its_tables_title_is_said_with_its_columns_names() -> None:
    hounds = passage(
        "### Cinder Hound\n\n| Creature | Armour | Health | Attack |\n|---|---|---|---|\n"
        "| Cinder Hound | 1 | 5 | Bite, 2 damage |\n| Cinder Hound alpha | 2 | 9 | Bite, 3 damage, Dazed |",
        "Ashfall Gear",
        "Creatures",
        "Cinder Hound",
    )
    answer = reply(analyse("cinder hound alpha bite"), [], [hounds])
    assert answer.text.startswith("Cinder Hound alpha: Armour 2; Health 9; Attack Bite, 3 damage, Dazed.")
