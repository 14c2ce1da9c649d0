"""A rule worked out with the player's own number, in books laid out unlike the SRD: a mecha game's formulas in
prose, its tables keyed by ranges of numbers; a number the question ties to nothing, two of them, a huge one, a
negative or zero one, a table with a gap, a formula of two quantities leave the answer as it was."""

from __future__ import annotations

from fractions import Fraction

from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.formulas import formulas
from memory.knowledge.retrieval.given_numbers import givens, tied
from memory.knowledge.retrieval.range_rows import keyed_tables
from tests.memory.knowledge.retrieval.test_answer import passage

# A mecha game's rules: formulas said in words, one of them rounded, one a choice of two.
VENTING = passage(
    "## Venting\n\nA frame sheds heat at the end of each round. The vent total equals 4 + the frame's Core rating. "
    "A frame hauling cargo moves at half its Stride, rounded down.",
    "Frames",
    "Venting",
)
HAULING = passage(
    "## Hauling\n\nA pilot can lift a load equal to their Grip multiplied by 20 kilograms without strain.",
    "Frames",
    "Hauling",
)
BREACH = passage(
    "## Breaching\n\nTo cut through a hull, the crew beats a breach number. The breach number is 12 or double "
    "the hull's Plating, whichever is higher.",
    "Ships",
    "Breaching",
)
SHIELDS = passage(
    "## Shields\n\nThe shield value equals 2 + your Core rating + your Grip. Your dodge is 8 + your Reflex "
    "modifier. The recoil equals half the weapon's Mass.",
    "Frames",
    "Shields",
)
# A rule of a thing whose title names what the question asks of it: its formula answers another question.
PODS = passage(
    "## Seed Pods\n\nA fresh cluster holds 1d4 + 2 seed pods. You can hurl several pods at once. When you do so, "
    "the seed blast grows by 1 for each pod beyond the first.",
    "Gear",
    "Seed Pods",
)
# Its tables: keyed by ranges with a gap, by a die, by ranks written as ordinals.
HEAT = passage(
    "## Heat Track\n\nHeat builds as a frame fights.\n\n| Heat | Effect |\n|---|---|\n| 1-3 | Sluggish |\n\n"
    "| 5-8 | Overheated |\n\n| 9+ | Meltdown |",
    "Frames",
    "Heat Track",
)
RANKS = passage(
    "## Pilot Pay\n\n| Pilot Rank | Frames | Salary |\n|:--|:--|:--|\n| 1st-3rd | one | 40 credits |\n"
    "| 4th-6th | two | 90 credits |\n| 7th+ | three | 200 credits |",
    "Guild",
    "Pilot Pay",
)
WEATHER = passage(
    "## Storms Aloft\n\n| d12 | Weather |\n|---|---|\n| 1-4 | Calm air |\n| 5-9 | Crosswinds |\n| 10-12 | Ion storm |",
    "Travel",
    "Storms Aloft",
)


def _said(question: str, *results: object) -> str:
    answer = reply(analyse(question), [], list(results))  # type: ignore[arg-type]
    assert answer.known
    return answer.text


def test_a_formula_is_worked_with_the_number_the_question_ties_to_its_quantity() -> None:
    said = _said("my frame has Core 6, what is its vent total?", VENTING)
    assert "4 + the frame's Core rating" in said and "[1]" in said
    assert "If the frame's Core rating is 6, that is 10." in said


def test_a_number_in_words_and_a_product_with_the_unit_asked() -> None:
    said = _said("Grip five, how much can my pilot lift in kilograms", HAULING)
    assert "Grip multiplied by 20" in said and "is 5, that is 100" in said


def test_a_rounding_the_sentence_says_and_the_choice_of_two() -> None:
    assert "that is 12." in _said("Stride 25 while hauling cargo, how far does my frame move?", VENTING)
    assert "that is 12." in _said("hull with Plating 4, what breach number do we beat?", BREACH)
    assert "that is 18." in _said("hull with Plating 9, what breach number do we beat?", BREACH)


def test_zero_is_worked_and_a_negative_or_huge_number_is_not() -> None:
    assert "If the frame's Core rating is 0, that is 4." in _said("Core 0, what is the vent total?", VENTING)
    for asked in ("Core -3, what is the vent total?", "Core 99999999999, what is the vent total?"):
        said = _said(asked, VENTING)
        assert "that is" not in said and "4 + the frame's Core rating" in said


def test_a_number_tied_to_nothing_or_two_numbers_tied_alike_work_nothing_out() -> None:
    said = _said("on turn 3, what is the vent total?", VENTING)
    assert "4 + the frame's Core rating" in said and "that is" not in said
    said = _said("Core 6 or Core 8, what is the vent total?", VENTING)
    assert "that is" not in said


def test_two_quantities_a_score_for_a_modifier_and_a_broken_result_work_nothing_out() -> None:
    assert "that is" not in _said("Core 6 and Grip 3, what is my shield value?", SHIELDS)
    assert "that is" not in _said("Reflex 14, what is my dodge?", SHIELDS)
    assert "that is 10." in _said("Reflex modifier +2, what is my dodge?", SHIELDS)
    assert "that is" not in _said("weapon Mass 7, what is the recoil?", SHIELDS)


def test_the_row_holding_the_number_answers_and_a_gap_holds_none() -> None:
    said = _said("heat 7, what effect does my frame suffer?", HEAT)
    assert "the row 5-8: " in said and "Overheated" in said
    assert "Meltdown" in _said("heat 12, what effect?", HEAT)
    said = reply(analyse("heat 4, what effect does my frame suffer?"), [], [HEAT]).text
    assert "the row" not in said


def test_the_column_asked_of_a_row_of_ranks_and_a_roll_on_a_die_table() -> None:
    said = _said("pilot rank 5, what salary?", RANKS)
    assert "90 credits" in said and "two" not in said.split("the row")[1]
    said = _said("rolled a 7 on the storms aloft table, what weather?", WEATHER)
    assert "Crosswinds" in said and "Calm" not in said


def test_the_readers_alone() -> None:
    numbers = givens("with a 3rd level slot vs a 5th level spell, what DC")
    chosen = tied(numbers, ("spell", "level"))
    assert chosen is not None and chosen.value == 5
    assert [g.value for g in givens("twenty seven, or 1d6 + 2, or 1,200 feet")] == [27, 2, 1200]
    assert not givens("how many pods does a fresh one hold") and not givens("which one is")
    assert [g.value for g in givens("with one hour left")] == [1]
    assert not givens("she carries over ten times her Grip, what then?")
    (formula,) = formulas("The DC is 10 + 1 for each hour past 8 hours.")
    assert formula.worked(Fraction(10)) == 12 and formula.worked(Fraction(6)) == 10
    (table,) = keyed_tables(HEAT.text)
    assert table.holding(Fraction(4)) is None and table.holding(Fraction(100)) is not None


def test_two_rows_holding_the_number_hold_none() -> None:
    (table,) = keyed_tables("| Range | Band |\n|---|---|\n| 1-5 | Short |\n| 4-8 | Long |\n| 9-12 | Far |")
    assert table.holding(Fraction(4)) is None
    row = table.holding(Fraction(7))
    assert row is not None and row.label == "4-8"


def test_one_as_a_pronoun_and_a_title_word_alone_work_nothing_out() -> None:
    assert "that is" not in _said("how many pods does a fresh one hold?", PODS)
    assert "that is" not in _said("seed pods: I hurl 3 pods, anything special about seed pods?", PODS)
    assert "For 3 pods, that is 2." in _said("I hurl 3 pods at once, how much does the blast grow?", PODS)


def test_a_signed_number_is_no_operator_and_an_adjective_counts_no_unit() -> None:
    assert not formulas("The target gains a +2 bonus to its rolls.")
    assert not formulas("You gain a minimum bonus of +1 to hit.")
    (formula,) = formulas("The wand regains 1 for each additional charge spent.")
    assert formula.words == ("charge",) and formula.worked(Fraction(3)) == 3
