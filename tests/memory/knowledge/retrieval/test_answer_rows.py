"""The row of a table or list a question names by its label answers, in books laid out unlike the SRD: a pipe table
of lock grades, a definition list of wounds, levels of a curse numbered "Level N:", a currency table read row by
column; a block or a line named by the entry's own title words is not asked."""

from __future__ import annotations

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_rows import rows_of
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

# A heist game's lock table: the label column is not first in the book's order of difficulty words.
LOCKS = passage(
    "## Lock Grades\n\nA thief picks a lock by beating its grade's target number.\n\n"
    "| Grade | Target | Tools needed |\n|:--|:-:|:--|\n"
    "| Simple | 8 | none |\n| Sturdy | 12 | picks |\n| Very sturdy | 16 | picks |\n"
    "| Masterwork | 20 | fine picks |\n\nA failed attempt makes noise.",
    "Heists",
    "Lock Grades",
)

# A horror game's wounds as a definition list: the term on its line, the definition after a colon below it.
WOUNDS = passage(
    "## Wounds\n\nA character takes wounds as the fight goes on; each wound has its own effect.\n\n"
    "Grazed\n: You lose your next free move.\n\nBleeding\n: You lose 1 vigor at the start of each turn.\n\n"
    "Broken\n: You drop whatever you hold and cannot run.\n\n"
    "Wounds heal at a rate of one a week.",
    "Harm",
    "Wounds",
)

# A curse whose stages are numbered "Level N:"; the rule about the levels comes after them.
CURSE = passage(
    "## Witchrot\n\nWitchrot gnaws at the body in stages.\n\n"
    "- Level 1: Your hands tremble; you have a -1 penalty to fine work.\n"
    "- Level 2: Your sight dims beyond 30 feet.\n"
    "- Level 3: You can no longer speak above a whisper.\n\n"
    "A victim suffers the effect of its current level of witchrot and of every level below it.",
    "Afflictions",
    "Witchrot",
)

# A currency table whose columns are named by the coins' abbreviations.
COINS = passage(
    "## Coin Values\n\n| Coin | BP | RS | SK |\n|---|---|---|---|\n| Brass penny (bp) | 1 | 1/12 | 1/240 |\n"
    "| River shilling (rs) | 12 | 1 | 1/20 |\n| Sun crown (sk) | 240 | 20 | 1 |",
    "Trade",
    "Coin Values",
)


def test_a_pipe_table_row_named_by_its_whole_label_answers_not_its_neighbour() -> None:
    said = reply(analyse("what target number is a very sturdy lock"), [], [LOCKS])
    assert said.known and "16" in said.text and "Very sturdy" in said.text
    said = reply(analyse("target for a sturdy lock?"), [], [LOCKS])
    assert said.known and "12" in said.text and "16" not in said.text


def test_a_column_the_question_names_is_the_cell_answered() -> None:
    said = reply(analyse("what tools are needed for a masterwork lock"), [], [LOCKS])
    assert said.known and "fine picks" in said.text and "20" not in said.text


def test_a_definition_list_term_answers_the_question_naming_it() -> None:
    said = reply(analyse("what does the bleeding wound do"), [], [WOUNDS])
    assert said.known and "1 vigor" in said.text


def test_a_numbered_level_answers_before_the_rule_about_levels() -> None:
    said = reply(analyse("witchrot lvl 2 effect"), [], [CURSE])
    assert said.known and "sight dims" in said.text
    said = reply(analyse("what does witchrot do at the third level"), [], [CURSE])
    assert said.known and "whisper" in said.text


def test_a_currency_table_is_read_row_by_the_column_counted() -> None:
    said = reply(analyse("how many brass pennies is a sun crown worth"), [], [COINS])
    assert said.known and "240" in said.text
    said = reply(analyse("how many river shillings is a sun crown worth"), [], [COINS])
    assert said.known and "20" in said.text and "240" not in said.text


def test_no_row_named_leaves_the_answer_alone() -> None:
    said = reply(analyse("what happens when a lock pick attempt fails"), [], [LOCKS])
    assert said.known and "noise" in said.text
    # "how sturdy" asks an amount: it names no row "Sturdy".
    assert rows_of(LOCKS.text)[1].label == "Sturdy"


def test_two_rows_named_neither_holding_the_other_is_no_row_asked() -> None:
    said = reply(analyse("difference between a simple and a masterwork lock"), [], [LOCKS])
    assert not said.known or not said.text.startswith(("Simple:", "Masterwork:"))


def test_a_fraction_or_a_die_names_no_numbered_level() -> None:
    said = reply(analyse("witchrot 1/2 penalty"), [], [CURSE])
    assert not said.text.startswith("2 -")
    said = reply(analyse("witchrot 1d3 stages"), [], [CURSE])
    assert not said.text.startswith("3 -")


def test_the_title_s_words_name_no_block_of_its_entry() -> None:
    spell = passage(
        "## Hour Lock\n\n*7th-level transmutation*\n\n- **Casting Time** 1 action\n- **Range** Self\n\n"
        "You freeze the hour around you and take 1d4 + 1 turns in a row while others stand still.",
        "Spells",
        "Hour Lock",
    )
    said = reply(analyse("the mage cast hour lock. how many turns in a row does she get?"), [], [spell])
    assert said.known and "1d4 + 1 turns" in said.text
    said = reply(analyse("what is the casting time of hour lock"), [], [spell])
    assert said.known and "1 action" in said.text


# A creature of another bestiary: its attack named by the thing counted, its trait saying how many it has.
LASHER = passage(
    "## Bog Lasher\n\n*Large plant, unaligned*\n\n- **Armor Class** 13\n- **Hit Points** 52 (7d10 + 14)\n\n"
    "***Thorned Vines.*** The bog lasher can have up to four vines at a time. A severed vine regrows in an hour.\n\n"
    "**Actions**\n\n***Vine.*** Melee Weapon Attack: +5 to hit, reach 20 ft., one creature. Hit: The target is "
    "pulled 10 feet toward the lasher.",
    "Monsters",
    "Bog Lasher",
)


def test_how_many_of_a_thing_is_the_line_counting_it_not_the_line_named_by_it() -> None:
    for asked in ("bog lasher max # of vines at once?", "how many vines can a bog lasher have"):
        said = reply(analyse(asked), [], [LASHER])
        assert said.known and "up to four vines" in said.text, asked
    said = reply(analyse("what does the bog lasher's vine attack do"), [], [LASHER])
    assert said.known and "+5 to hit" in said.text


def test_a_sentence_saying_the_entry_by_its_pronoun_answers_before_one_echoing_a_hedge() -> None:
    folk = passage(
        "## Marsh Goblin\n\n- **Speed** 30 feet\n\n***Temperament.*** Marsh goblins raised among the river folk "
        "and willing to live out their lives there usually turn to trade.\n\n"
        "***Age.*** They mature by age 8 and seldom live past 40 years.",
        "Peoples",
        "Marsh Goblin",
    )
    said = reply(analyse("how long do marsh goblins usually live?"), [], [folk])
    assert said.known and "40 years" in said.text and "trade" not in said.text


# A caravan game's price list: no column, cell or line of it says what anything weighs.
CARAVAN = passage(
    "## Caravan Stock\n\nThe guild sells carts and beasts at these prices.\n\n"
    "| Item | Price | Notes |\n|:--|:--|:--|\n"
    "| Prayer wagon | 90 shards | carries a shrine |\n| Mule cart | 25 shards | two mules |\n"
    "| Sand sledge | 40 shards | slides on dunes |",
    "Gear",
    "Caravan Stock",
)
# The same stock with a column headed by its unit alone.
CARAVAN_KG = passage(
    "## Caravan Stock\n\n| Item | Price | kg |\n|:--|:--|:--|\n"
    "| Prayer wagon | 90 shards | 300 |\n| Mule cart | 25 shards | 120 |",
    "Gear",
    "Caravan Stock",
)
WAGON = passage(
    "## Prayer Wagon\n\nA prayer wagon carries a shrine of the dune saints. Empty, a prayer wagon weighs 800 "
    "pounds; loaded, it needs four oxen.",
    "Gear",
    "Prayer Wagon",
)


def test_a_row_that_says_nothing_of_the_field_asked_is_no_answer() -> None:
    said = reply(analyse("how much does a prayer wagon weigh"), [], [CARAVAN])
    assert not said.known and "90" not in said.text
    said = reply(analyse("what is the weight of a mule cart"), [], [CARAVAN])
    assert not said.known and "25" not in said.text


def test_a_row_asked_a_field_its_columns_hold_answers() -> None:
    said = reply(analyse("what does a prayer wagon cost"), [], [CARAVAN])
    assert said.known and "90 shards" in said.text
    said = reply(analyse("how much does a prayer wagon weigh"), [], [CARAVAN_KG])
    assert said.known and "300" in said.text


def test_a_passage_saying_the_field_answers_in_the_rows_stead() -> None:
    said = reply(analyse("how much does a prayer wagon weigh"), [], [CARAVAN, WAGON])
    assert said.known and "800 pounds" in said.text and "90" not in said.text
