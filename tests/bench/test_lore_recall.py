"""The recall diagnostic: which passages hold a fact, where a wrong answer lost it, and which sets it may read."""

from __future__ import annotations

import asyncio

import pytest

from bench.lore_answers import OUTSIDER, UNTOUCHED, outsider_questions
from bench.lore_recall import PARAPHRASE, SETS, Holding, SetTally, main

CHUNKS = {
    1: ("Owlbear", "owlbear\narmor class 13 (natural armor). hit points 59."),
    2: ("Giant", "giant\nhit points 130. gnomes are strangely immune."),
    3: ("Troll", "troll\nthe troll regains 10 hit points."),
}


def test_a_number_is_held_whole_and_a_word_with_an_ending() -> None:
    holding = Holding(CHUNKS)
    assert holding.of(["13"], alternatives=True) == {1}  # not the "130" of the giant
    assert holding.of(["gnome"], alternatives=True) == {2}
    assert holding.of(["10 hit points"], alternatives=True) == {3}


def test_any_wording_of_an_outsider_fact_holds_it_and_every_string_of_a_generated_one() -> None:
    holding = Holding(CHUNKS)
    assert holding.of(["13", "regains"], alternatives=True) == {1, 3}
    assert holding.of(["troll", "10"], alternatives=False) == {3}
    assert holding.of(["troll", "59"], alternatives=False) == set()


def test_a_yes_or_no_fact_is_held_by_no_passage_and_left_unjudged() -> None:
    holding = Holding(CHUNKS)
    assert holding.of(["yes"], alternatives=False) is None
    tally = SetTally()
    assert tally.add(None, None, ok=False, known=True) == "unjudged"
    report = tally.report("s")
    assert report["judged"] == 0 and report["wrong"]["unjudged"] == 1


def test_a_wrong_answer_is_lost_to_retrieval_ranking_or_the_answer_step_by_its_fact_s_rank() -> None:
    tally = SetTally()
    assert tally.add(None, 4, ok=False, known=False) == "retrieval"
    assert tally.add(7, 4, ok=False, known=False) == "ranking"
    assert tally.add(2, 4, ok=False, known=True) == "answer_step"
    assert tally.add(1, 2, ok=True, known=True) == "right"
    report = tally.report("s")
    assert report["wrong"] == {"retrieval": 1, "ranking": 1, "answer_step": 1, "unjudged": 0}
    assert report["nothing_known"] == {"retrieval": 1, "ranking": 1, "answer_step": 0, "unjudged": 0}
    assert (report["recall_at_1"], report["recall_at_5"], report["recall_at_20"]) == (0.25, 0.5, 0.75)
    assert report["specific"] == 1 and report["specific_at_1"] == 1.0  # only the fact two passages hold
    assert report["right"] == 1


def test_the_diagnostic_never_reads_an_untouched_set() -> None:
    assert not set(SETS) & set(UNTOUCHED)
    with pytest.raises(SystemExit):  # refused before anything is opened
        asyncio.run(main(["--work", "nowhere", "--only", "outsider_a,outsider_b"]))


def test_the_paraphrase_set_is_answerable_and_its_ids_are_its_own() -> None:
    questions = outsider_questions(PARAPHRASE)
    assert len(questions) >= 60
    assert all(q["fact"] and q["q"].strip() for q in questions)
    ids = {q["id"] for q in questions}
    assert len(ids) == len(questions)
    others = {q["id"] for path in OUTSIDER.values() for q in outsider_questions(path)}
    assert not ids & others
