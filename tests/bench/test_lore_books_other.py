"""The other-books bench: its sets' shape, and how a reply is judged against a question's answers."""

from __future__ import annotations

from bench.lore_books_other import (
    DUSTWIRE_QUESTIONS,
    LANTERNWAKE_QUESTIONS,
    MOSSBELL_QUESTIONS,
    SALTGLASS_QUESTIONS,
    accepted,
    read_questions,
    saltglass_books,
    sets_of,
    tuning_half,
)


def test_saltglass_sets_differ_only_in_the_gear_chapters_form() -> None:
    markdown = {p.name for p in saltglass_books(".md")}
    assert all(name.endswith(".md") for name in markdown) and len(markdown) == 3
    for form in (".pdf", ".html"):
        other = {p.name for p in saltglass_books(form)}
        assert markdown - other == {"saltglass-gear-and-beasts.md"}
        assert other - markdown == {f"saltglass-gear-and-beasts{form}"}


def test_saltglass_questions_have_unique_ids_and_both_kinds() -> None:
    questions = read_questions(SALTGLASS_QUESTIONS)
    assert len({q["id"] for q in questions}) == len(questions)
    assert any(q["answers"] for q in questions) and any(not q["answers"] for q in questions)


def test_lanternwake_is_untouched_and_holds_a_quarter_unanswerable() -> None:
    questions = read_questions(LANTERNWAKE_QUESTIONS)
    assert len({q["id"] for q in questions}) == len(questions) == 60
    assert sum(1 for q in questions if not q["answers"]) == 15
    books, path, readable, half = sets_of([])["lanternwake"]
    assert path == LANTERNWAKE_QUESTIONS and not readable and half is None  # its misses are never printed
    assert {p.suffix for p in books} == {".md", ".html", ".pdf"}


def test_dustwire_is_split_in_halves_by_its_ids_and_only_the_tuning_half_is_readable() -> None:
    questions = read_questions(DUSTWIRE_QUESTIONS)
    assert len({q["id"] for q in questions}) == len(questions) == 100
    assert sum(1 for q in questions if not q["answers"]) == 25
    sets = sets_of([])
    assert sets["dustwire_tuning"][1:] == (DUSTWIRE_QUESTIONS, True, True)
    assert sets["dustwire_untouched"][1:] == (DUSTWIRE_QUESTIONS, False, False)
    assert {p.suffix for p in sets["dustwire_tuning"][0]} == {".md", ".txt", ".pdf", ".html"}
    tuning = [q for q in questions if tuning_half(q["id"])]
    assert 40 <= len(tuning) <= 60  # a fixed hash of the id, so the halves never move
    assert [tuning_half(f"dustwire-00{n}") for n in (1, 2, 3)] == [False, False, True]


def test_mossbell_is_split_in_halves_like_dustwire_and_only_its_tuning_half_is_readable() -> None:
    questions = read_questions(MOSSBELL_QUESTIONS)
    assert len({q["id"] for q in questions}) == len(questions) == 46
    assert sum(1 for q in questions if not q["answers"]) == 9
    sets = sets_of([])
    assert sets["mossbell_tuning"][1:] == (MOSSBELL_QUESTIONS, True, True)
    assert sets["mossbell_untouched"][1:] == (MOSSBELL_QUESTIONS, False, False)
    assert {p.suffix for p in sets["mossbell_tuning"][0]} == {".txt", ".pdf"}
    assert sum(1 for q in questions if tuning_half(q["id"])) == 23


def test_a_reply_holds_one_string_or_every_string_of_a_list() -> None:
    assert accepted("A desalter kit costs 25 sh. [1]", "25 sh")
    assert not accepted("A desalter kit costs 125 sh. [1]", ["125", "tidecoat"])
    assert accepted(
        "Sharkskin jack's armour value is 2; Tidecoat's is 1. [1]", ["sharkskin", "2", "tidecoat", "1"]
    )
    assert not accepted("Sharkskin jack's armour value is 2. [1]", ["sharkskin", "2", "tidecoat", "1"])


def test_a_bare_number_is_a_whole_number_and_never_a_citation() -> None:
    assert not accepted("Its wounds are 14. [1]", "1")
    assert not accepted("Its wounds are 14.", "4")


def test_a_verdict_must_open_the_reply() -> None:
    assert accepted("No: it cannot be sung on yourself. [1]", "no")
    assert not accepted("Nothing the table knows says so.", "no")
    assert not accepted("It says no such thing.", "no")
    assert accepted("Yes: damage 5 against 4. [1]", ["yes", "5", "4"])
    assert not accepted("Yes: Shoot covers glass pistols. [1]", ["yes", "5", "4"])
