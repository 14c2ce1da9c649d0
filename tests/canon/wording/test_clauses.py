"""Events named by a clause, said as a table would (`canon.wording.clauses`)."""

from __future__ import annotations

import pytest

from canon.wording.clauses import in_the_past, is_clause, said_of_clauses


@pytest.mark.parametrize(
    ("name", "clause"),
    [
        ("The Gilded Eel opens", True),
        ("Saltmere falls", True),
        ("The king is crowned", True),
        ("The Red Tide marches north", True),
        ("Battle of Grey Point", False),
        ("Battle at the ford", False),
        ("Tamsin's Investiture", False),
        ("Mill Row Fire", False),
        ("Siege of the Tollhouse", False),
        ("Night of the long knives", False),
        ("The Great Surge", False),
        ("Elves' exodus", False),
    ],
)
def test_a_clause_is_told_from_a_noun(name: str, clause: bool) -> None:
    assert is_clause(name) is clause


def test_a_clause_is_said_in_the_past() -> None:
    assert in_the_past("The Gilded Eel opens") == "The Gilded Eel opened"
    assert in_the_past("Saltmere falls") == "Saltmere fell"
    assert in_the_past("The king is crowned") == "The king was crowned"
    assert in_the_past("The Red Tide marches north") == "The Red Tide marched north"
    assert in_the_past("The Vale Lords rally") == "The Vale Lords rally"  # no verb it can read: as written


def test_an_answer_says_a_clause_name_as_one() -> None:
    names = ["The Gilded Eel opens", "Battle of Grey Point"]
    assert said_of_clauses(
        "The Gilded Eel opens took place at Quillhaven on 3 Frostfall, year 12.", names
    ) == ("The Gilded Eel opened at Quillhaven on 3 Frostfall, year 12.")
    assert said_of_clauses(
        "Pell Varn took part in the Gilded Eel opens and the Battle of Grey Point.", names
    ) == ("Pell Varn took part in “The Gilded Eel opens” and the Battle of Grey Point.")
    said = "A took place in year 3. [1] The Gilded Eel opens took place in year 12. [1]"
    assert said_of_clauses(said, names) == "A took place in year 3. [1] The Gilded Eel opened in year 12. [1]"
