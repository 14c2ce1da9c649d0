"""The word tests the answer step repeats for every answer form read the same when they take shortcuts: a word is
compared only with the words that start as it does unless it is an irregular verb's form or a number, and a
passage's words and sentences, read once, are given to each caller as its own list."""

from __future__ import annotations

import itertools

import pytest
from rapidfuzz import fuzz

from memory.knowledge.retrieval.answer_first import _akin_any, akin
from memory.knowledge.retrieval.answer_words import (
    fold_words,
    has_word,
    labelled_sentences,
    same_word,
    sections_of,
    sentences,
)
from memory.knowledge.retrieval.field_answer import word_in

#: Words of every kind `same_word` pairs: endings, irregular verbs, units, numbers, ordinals, short words.
WORDS = [
    *("go", "went", "gone", "goes", "steal", "stole", "stolen", "die", "dying", "dies", "leave", "left"),
    *("foot", "feet", "ft", "pound", "lb", "lbs", "1", "1st", "first", "4", "4th", "fourth", "four", "2"),
    *("two", "second", "spy", "spies", "spied", "carry", "carried", "drag", "dragging", "grab", "grabbed"),
    *("owe", "owes", "owed", "run", "runs", "running", "ran", "touches", "touching", "touch", "rage"),
    *("raging", "regenerating", "regeneration", "aboleth", "aboleths", "elf", "elves", "a", "an", "x"),
    *("tool", "tools", "otols", "wearing", "hearing", "twinned", "twinning", "fly", "flies", "flying"),
]


@pytest.mark.parametrize("word", WORDS)
def test_a_word_is_held_as_when_every_word_is_compared(word: str) -> None:
    words = set(WORDS) - {word}
    assert has_word(words, word) == any(same_word(word, w) for w in words)
    assert _akin_any(word, words) == any(akin(word, w) for w in words)
    # A field's subject: the same word, an ending apart, or a typo of five letters or more.
    typo = [w for w in words if len(word) >= 5 and len(w) >= 5 and fuzz.ratio(word, w) >= 80]
    assert word_in(word, sorted(words)) == (any(same_word(word, w) for w in words) or bool(typo))


@pytest.mark.parametrize(
    ("asked", "said"),
    [("went", "go"), ("go", "gone"), ("ft", "feet"), ("first", "1"), ("4th", "fourth"), ("four", "4")],
)
def test_forms_that_start_otherwise_are_still_one_word(asked: str, said: str) -> None:
    assert has_word({said, "other"}, asked)
    assert _akin_any(asked, [said, "other"])


@pytest.mark.parametrize(
    ("a", "b"), list(itertools.combinations(["spy", "spies", "drag", "dragging", "rage"], 2))
)
def test_an_ending_apart_is_one_word_either_way(a: str, b: str) -> None:
    assert same_word(a, b) == same_word(b, a)
    assert akin(a, b) == akin(b, a)


def test_words_that_start_otherwise_are_not_one_word() -> None:
    assert not has_word({"hearing", "wearing"}, "bearing")
    assert not akin("regeneration", "generation")


TEXT = "## Rage\n\n***Rage.*** You rage. It lasts 1 minute.\n\n| Level | Rages |\n|---|---|\n| 1st | 2 |\n"


def test_a_passage_read_again_is_read_the_same_whatever_a_caller_did_with_its_lists() -> None:
    first = sentences(TEXT)
    first.append("Added by a caller.")
    first_words = fold_words(TEXT)
    first_words.clear()
    sections_of(TEXT).clear()
    labelled_sentences(TEXT).pop()
    assert sentences(TEXT) == ["Rage: You rage.", "It lasts 1 minute.", "1st 2"]
    assert fold_words(TEXT)[:3] == ["rage", "rage", "you"]
    assert sections_of(TEXT)[0][0] == "Rage"
    assert labelled_sentences(TEXT)[-1] == (None, "1st 2")
