"""Coverage: a passage holding most of what a question says, weighed by how telling each word is, comes first."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval import PRESETS
from memory.knowledge.retrieval.coverage import Coverage, coverage, stem
from memory.knowledge.retrieval.vocabulary import Vocabulary
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

# A city gazetteer of a cyberpunk game: places and people as short prose entries, no stat blocks, no kind lines.
# The market's title and text say "stolen memories" over and over: words alone put it first for a question about
# the fixer, whose entry holds every telling word of that question once, among many others.
GAZETTEER = """# Neon Alley Gazetteer

## Stolen Memories

Stolen memories sold by the gram: stolen memories, stolen memories.

## Mother Static

She keeps a noodle bar on the third tier, above the laundries, where the steam hides who comes and goes. The
cooks are her nephews and the regulars are mostly couriers waiting for a call. Nobody orders the soup twice.
The bar has six stools, a cracked screen that shows the weather from a city that no longer exists, and a cat
that sleeps on the till. Rent is paid on the first night of the month, in person, to her eldest nephew, who
counts it twice and writes nothing down. The laundries below keep the floor warm all winter long.
Behind the bar she is a fixer: she trades stolen memories for favours owed, and she never forgets a debt.

## Courier Lines

Couriers run the lines between towers at night, paid in favours or in cash.

## The Drowned Mall

Half the mall is under water; the other half rents stalls to tailors, tinkers and fortune tellers.

## Tower Nine

The corporate tower nobody enters without a badge; its guards are drones and its lifts answer to no one.

## Rust Chapel

Monks mend old machines here and ask only for silence and spare parts.

## Night Ferry

A barge crosses the canal at midnight, lit by paper lanterns, carrying whoever can pay the toll.
"""


def test_stems_fold_plural_and_verb_endings() -> None:
    assert stem("drinks") == stem("drink") == "drink"
    assert stem("trading") == "trad" and stem("traded") == "trad"
    assert stem("glass") == "glass"  # a double s is no plural
    assert stem("bus") == "bus"  # three letters at least are kept


def test_coverage_weighs_the_telling_words() -> None:
    vocabulary = Vocabulary.of_texts(["a fixer", "the city", "the city", "the city tower", "stolen goods"])
    asked = ["fixer", "city"]
    # Holding only the rare word covers most of the question; holding only the common one, little of it.
    rare = coverage(asked, vocabulary.weight, ["Gazetteer", "Mother Static"], "a fixer")
    common = coverage(asked, vocabulary.weight, ["Gazetteer", "Streets"], "the city")
    assert rare > 0.5 > common > 0
    assert coverage(asked, vocabulary.weight, ["City"], "a fixer") == 1.0  # headings count
    assert coverage(asked, vocabulary.weight, [], "nothing here") == 0.0
    assert coverage([], vocabulary.weight, ["City"], "a fixer") == 0.0  # no question words
    assert coverage(["fixers"], vocabulary.weight, [], "a fixer") == 1.0  # plurals folded
    assert coverage(["trading"], vocabulary.weight, [], "she traded it") == 1.0  # verb endings folded
    assert coverage(["fix"], vocabulary.weight, [], "a fixer") == 0.0  # a stem is a whole word, not a prefix


def test_a_word_with_digits_is_never_read_as_held() -> None:
    def even(word: str) -> float:
        return 1.0

    # A passage's "d20" is not the question's "d20s" read by letters: the number keeps its share unheld.
    assert coverage(["d20s", "fixer"], even, [], "the fixer rolls a d20") == 0.5


def test_a_word_is_held_for_its_longest_stem_only() -> None:
    def even(word: str) -> float:
        return 1.0

    # "runes" is "rune" and an ending, or "run" and one: read as the longer stem, as a scan would; said twice,
    # in any case, the second reading is the same.
    assert coverage(["rune", "run"], even, [], "Runes glow.") == 0.5
    assert coverage(["rune", "run"], even, ["RUNES"], "runes and runs") == 1.0
    assert coverage(["fixer"], even, [], "the fixers_guild") == 0.0  # an underscore joins the word


def test_letters_whose_case_does_not_fold_plainly_are_read_as_a_case_blind_scan_reads_them() -> None:
    def even(word: str) -> float:
        return 1.0

    # The kelvin sign and the long s match "k" and "s" case-blind, though they do not lowercase to them; a
    # dotted capital I or a dotless i matches "i" too, but folds to another word than "iron".
    assert coverage(["kind"], even, [], "a \u212aind word") == 1.0
    assert coverage(["sword"], even, [], "a \u017fword") == 1.0
    assert coverage(["iron"], even, [], "\u0130ron bars") == 0.0
    assert coverage(["iron"], even, [], "\u0131ron bars") == 0.0
    assert coverage(["iron"], even, [], "caf\u00e9 iron") == 1.0  # other letters outside ASCII change nothing
    assert coverage(["café"], even, [], "CAFÉ au lait") == 1.0  # nor do the question's own


def test_one_question_reads_plain_passages_and_those_its_pattern_must_scan_alike() -> None:
    weights = {"kind": 1.0, "swords": 3.0, "d20": 1.0}
    asked = Coverage(list(weights), weights.__getitem__)
    # Read by its words, then by the pattern (the kelvin sign), then by its words again: the same shares.
    assert asked.share(["Kinds"], "two swords") == 0.8
    assert asked.share([], "a \u212aind of sword") == 0.8
    assert asked.share([], "a kind word and a d20") == 0.2
    # Words with digits only: no pattern at all, nothing held.
    assert Coverage(["d20", "3rd"], lambda word: 1.0).share([], "roll a d20 on the 3rd") == 0.0


async def test_the_passage_holding_the_question_comes_before_the_one_repeating_a_word(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Neon Alley")
    await service.import_bytes(campaign, "gazetteer.md", GAZETTEER.encode())
    asked = "which fixer trades stolen memories for favours"
    answer = await service.ask(campaign, asked, viewer=Viewer.PLAYER, record=False)
    assert answer.results[0].heading_path[-1] == "Mother Static"
    assert any(r.kind == "coverage" for r in answer.results[0].reasons)
    # Without the coverage rerank, words alone put the market first: the rule is what decides.
    plain = PRESETS["default"].model_copy(update={"coverage_weight": 0.0})
    words = await service.ask(campaign, asked, viewer=Viewer.PLAYER, config=plain, record=False)
    assert words.results[0].heading_path[-1] == "Stolen Memories"
    assert all(r.kind != "coverage" for result in words.results for r in result.reasons)
