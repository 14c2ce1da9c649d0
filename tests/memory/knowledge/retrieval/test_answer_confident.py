"""A question every rule declines is answered from the first passage when retrieval is sure of it, and only then."""

from __future__ import annotations

from memory.knowledge.models import KnowledgeClass, LoreResult, Reason
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_confident import confidence, confident, sure
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage

# A seafaring game's trinkets and hazards, not the SRD's layouts: an italic kind line, prose in short paragraphs.
LANTERN = passage(
    "### Tide Lantern\n\n*Wondrous trinket, uncommon*\n\nThe lantern burns seawater instead of oil. Its light "
    "reaches 30 paces and shows the way to the nearest shore. It goes dark when carried more than a mile from "
    "the sea.",
    "Trinkets",
    "Tide Lantern",
)
VENT = passage(
    "### Steam Vent\n\nA steam vent bursts every third round. Anyone standing over it is scalded for 2d4 heat "
    "and pushed 3 paces upward.\n\nA wet cloak halves the heat.",
    "Hazards",
    "Steam Vent",
    chunk_id=2,
)
SHIELD = passage(
    "### Shield\n\nA round shield of oak and iron.\n\nWeight: 6 lb.\n\nCost: 10 marks",
    "Gear",
    "Shield",
    chunk_id=3,
)
TERSE = "lantern burns seawater, light reach?"


def ranked(result: LoreResult, lexical: int | None = 1, semantic: int | None = 1) -> LoreResult:
    """Return the passage as both searches found it, at these ranks."""
    reasons = [
        Reason(kind=k, rank=r) for k, r in (("lexical", lexical), ("semantic", semantic)) if r is not None
    ]
    return result.model_copy(update={"reasons": reasons})


def test_a_paraphrase_the_rules_decline_is_answered_when_both_searches_agree_on_the_passage() -> None:
    asked = analyse(TERSE)
    assert not reply(asked, [], [LANTERN, VENT]).known  # no rank: no confidence, the rules' answer stands
    answer = reply(asked, [], [ranked(LANTERN), VENT])
    assert answer.known
    assert (
        answer.text == "Tide Lantern: Its light reaches 30 paces and shows the way to the nearest shore. [1]"
    )
    assert [c.number for c in answer.citations if c.cited] == [1]


def test_a_passage_far_down_either_search_is_not_sure_enough() -> None:
    asked = analyse(TERSE)
    for lexical, semantic in ((4, 1), (1, 6), (None, 1), (1, None)):
        assert not reply(asked, [], [ranked(LANTERN, lexical, semantic), VENT]).known, (lexical, semantic)


def test_an_unknown_named_thing_is_nothing_known_though_a_namesake_is_found() -> None:
    # "tower shield": the Shield is found first by both searches, but it never says "tower".
    for question in ("how much does a tower shield weigh", "what does a frostbound lantern burn"):
        results = [ranked(SHIELD if "shield" in question else LANTERN), VENT]
        answer = reply(analyse(question), [], results, unknown=["frostbound"])
        assert not answer.known, question
        assert confident(analyse(question), [], results, ["frostbound"]) is None


def test_a_word_no_source_holds_keeps_the_answer_unknown_however_sure_the_search() -> None:
    asked = analyse("lantern burns seawater, glimmerweed light reach?")
    found = confidence(asked, [ranked(LANTERN)], ["glimmerweed"])
    assert found is not None and found.unknown == ("glimmerweed",) and not sure(found)
    assert confident(asked, [], [ranked(LANTERN)], ["glimmerweed"]) is None


def test_a_field_asked_that_no_sentence_says_is_not_answered_with_another_line() -> None:
    # The vent's entry holds "vent", "burst" and "heat", but no sentence says a price.
    assert confident(analyse("steam vent burst heat price"), [], [ranked(VENT)], []) is None


def test_a_why_question_needs_a_reason_not_the_line_holding_its_words() -> None:
    asked = analyse("why does the tide lantern burn seawater")
    assert confident(asked, [], [ranked(LANTERN)], []) is None


def test_no_passage_a_lookup_of_one_word_or_a_passage_that_is_no_fact_answer_nothing() -> None:
    assert confidence(analyse(TERSE), [], []) is None
    assert confident(analyse(TERSE), [], [], []) is None
    assert confident(analyse("lantern?"), [], [ranked(LANTERN)], []) is None
    idea = ranked(LANTERN.model_copy(update={"knowledge_class": KnowledgeClass.INSPIRATION}))
    assert confident(analyse(TERSE), [], [idea], []) is None
    stale = ranked(LANTERN.model_copy(update={"out_of_date": "The lantern was lost at sea."}))
    assert confident(analyse(TERSE), [], [stale], []) is None


def test_an_amount_asked_is_answered_only_by_a_sentence_saying_one() -> None:
    asked = analyse("how much seawater does the tide lantern burn")
    assert confident(asked, [], [ranked(LANTERN)], []) is None  # "burns seawater instead of oil": no amount
    far = confident(
        analyse("how many paces does the seawater lantern light reach"), [], [ranked(LANTERN)], []
    )
    assert far is not None and "30 paces" in far.text


def test_one_word_of_a_name_the_passage_never_says_keeps_a_namesake_out() -> None:
    # "storm" is a word of the books (the vent's entry says it), but the lantern's entry never does: a storm
    # lantern is another thing than the Tide Lantern, though every other word asked is the Tide Lantern's.
    gale = passage("### Gale\n\nA storm blows out every open flame.", "Hazards", "Gale", chunk_id=4)
    asked = analyse("storm lantern light reach in paces?")
    found = confidence(asked, [ranked(LANTERN), gale], [])
    assert found is not None and found.share < 1 and not sure(found)
    assert not reply(asked, [], [ranked(LANTERN), gale]).known
