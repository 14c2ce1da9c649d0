"""Amounts as a table writes them, read as ranges (`amounts`), and names typed with a slip (`typed_names`)."""

from __future__ import annotations

import pytest

from memory.knowledge.retrieval.amounts import amount, unit
from memory.knowledge.retrieval.typed_names import closest, nearest_part


@pytest.mark.parametrize(
    ("said", "read"),
    [
        ("2400", (2400, 2400)),
        ("about 12,000 dwarves", (12000, 12000)),
        ("a few hundred souls", (200, 999)),
        ("forty thousand", (40000, 40000)),
        ("two hundred and fifty", (250, 250)),
        ("hundreds of miners", (200, 999)),
        ("a dozen", (12, 12)),
        ("several thousand", (3000, 9999)),
        ("a smelting village", None),
    ],
)
def test_an_amount_is_read_as_the_range_its_words_say(said: str, read: tuple[int, int] | None) -> None:
    assert amount(said) == read


def test_a_unit_is_the_words_after_the_number() -> None:
    assert unit("3 square leagues") == "square leagues"
    assert unit("12 thousand acres") == "acres"


OWNERS = {
    "kessarine": ("Kessarine", 1),
    "kessarion": ("Kessarion", 2),
    "belgarun deep": ("Belgarun Deep", 3),
    "lira reed": ("Lira Reed", 4),
    "the belgarun deep": ("Belgarun Deep", 3),
}


def _closest(key: str) -> tuple[list[str], float] | None:
    return closest(key, list(OWNERS), OWNERS, 88.0)


def test_a_slip_finds_the_one_name_near_it() -> None:
    assert _closest("belgrun deep") is not None and _closest("belgrun deep")[0] == ["belgarun deep"]  # type: ignore[index]
    assert _closest("belgarn dep")[0] == ["belgarun deep"]  # type: ignore[index]


def test_two_names_equally_near_are_neither() -> None:
    assert _closest("kessarin") == ([], pytest.approx(94.1, abs=0.1))


def test_a_short_word_two_letters_off_is_no_slip() -> None:
    assert _closest("lira real") is None
    assert _closest("quarnshire") is None


PARTS = {
    "ysolde": (("Ysolde Marrow", 1),),
    "ysolda": (("Ysolda Penn", 2),),
    "marrow": (("Ysolde Marrow", 1),),
    "tamsin": (("Tamsin Vaske", 3),),
}


def test_a_slip_in_a_part_names_the_one_name_near_it_and_never_a_tie() -> None:
    assert nearest_part("tamsen", list(PARTS), PARTS, 80.0) == ("tamsin", pytest.approx(83.3, abs=0.1))
    assert nearest_part("ysoldi", list(PARTS), PARTS, 80.0) is None  # Ysolde and Ysolda alike
