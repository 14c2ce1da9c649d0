"""A subject described in other words: the best passage answers, its subject named, when the searches agree.

The books here are a starship crew's xenobestiary (bold-led fields, no headings inside) and a setting's gazetteer
(prose under place names): layouts unlike the reference books the answer step was tuned on.
"""

from __future__ import annotations

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import LoreResult, Reason
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_described import (
    agreed,
    best_sentence,
    content_share,
    described,
    describes,
    kind_words,
    named_subject,
)
from memory.knowledge.retrieval.answer_first import from_first
from memory.knowledge.retrieval.answer_step import reply
from tests.memory.knowledge.retrieval.test_answer import passage


def ranked(result: LoreResult, lexical: int | None, semantic: int | None) -> LoreResult:
    """Return the passage as the search found it: its word-search and meaning-search ranks."""
    reasons = [Reason(kind="lexical", rank=lexical, score=9.0)] if lexical is not None else []
    reasons += [Reason(kind="semantic", rank=semantic, score=0.6)] if semantic is not None else []
    return result.model_copy(update={"reasons": reasons})


VOIDEEL = passage(
    "**Class:** Hull-parasite, vacuum-adapted\n\n**Threat:** Amber\n\n"
    "**Feeding:** The voideel latches onto a ship's hull and drinks its reactor coolant until the lines run dry.\n\n"
    "**Signal mimicry:** It can copy a distress beacon to lure rescue craft close.",
    "Xenobestiary",
    "Voideel",
    chunk_id=1,
)
GLASSWING = passage(
    "**Class:** Swarm, atmospheric\n\n**Threat:** Green\n\n"
    "**Habits:** They drift in clouds over the salt flats and scatter when a lander's engines fire.",
    "Xenobestiary",
    "Glasswing",
    chunk_id=2,
)
HOLLOWFORD = passage(
    "Hollowford sits where the river forks below the chalk hills. Its ferrymen take a copper a crossing and "
    "refuse anyone after dusk. Once a year the town floods and the market moves to the roofs.",
    "Gazetteer",
    "The Riverlands",
    "Hollowford",
    chunk_id=3,
)
TOLLGATE = passage(
    "The tollgate keeps the old bridge. A rider pays two silver marks, a walker one copper.",
    "Gazetteer",
    "The Riverlands",
    "Tollgate",
    chunk_id=4,
)


def test_a_question_that_describes_its_subject_is_told_from_its_form() -> None:
    for question in (
        "which parasite drinks a ship's coolant?",
        "what little pest latches onto the hull?",
        "is there a creature that copies distress beacons",
        "town where the market moves to the roofs",
        "what's the swarm thing that scatters when engines fire",
        "spell to write a secret message",
    ):
        assert describes(question), question
    for question in (
        "what does a voideel eat?",
        "what is hollowford",
        "how do glasswings move",
        "voideel threat level",
        "where is hollowford",
    ):
        assert not describes(question), question


def test_agreement_wants_both_searches_near_the_top() -> None:
    assert agreed(ranked(VOIDEEL, 1, 1)) and agreed(ranked(VOIDEEL, 3, 1)) and agreed(ranked(VOIDEEL, 1, 2))
    assert not agreed(ranked(VOIDEEL, 1, 3))  # the meaning search put two others before it
    assert not agreed(ranked(VOIDEEL, 5, 1))  # the word search barely found it
    assert not agreed(ranked(VOIDEEL, None, 1)) and not agreed(ranked(VOIDEEL, 1, None))


def test_a_description_agreed_on_is_answered_with_the_subject_named_and_its_best_sentence() -> None:
    question = "which space parasite sucks the coolant out of a ship?"
    answer = reply(analyse(question), [], [ranked(VOIDEEL, 2, 1), ranked(GLASSWING, 1, 4)])
    assert answer.known
    assert answer.text.startswith("Voideel: ")
    assert "drinks its reactor coolant" in answer.text and answer.text.endswith("[1]")
    assert [c.cited for c in answer.citations] == [True, False]


def test_a_description_the_searches_disagree_on_is_nothing_known_unless_the_first_holds_it() -> None:
    # Both searches have it in their first few and it holds the description: it answers.
    question = "which space parasite sucks the coolant out of a ship?"
    answer = reply(analyse(question), [], [ranked(VOIDEEL, 1, 3), ranked(GLASSWING, 2, 1)])
    assert answer.known and answer.text.startswith("Voideel"), answer.text
    # Unrelated to the description, or far down the meaning search's list: nothing known.
    other = "which space parasite spits acid at the crew's visors?"
    answer = reply(analyse(other), [], [ranked(VOIDEEL, 1, 3), ranked(GLASSWING, 2, 1)])
    assert not answer.known and answer.text.startswith("Nothing the table knows")
    answer = reply(analyse(question), [], [ranked(VOIDEEL, 7, 1), ranked(GLASSWING, 2, 2)])
    assert not answer.known and answer.text.startswith("Nothing the table knows")


def test_a_lowercase_word_no_source_holds_may_be_part_of_a_description_but_a_name_may_not() -> None:
    results = [ranked(VOIDEEL, 1, 1), ranked(GLASSWING, 2, 2)]
    described = reply(analyse("which hull leech drinks reactor coolant?"), [], results, unknown=["leech"])
    assert described.known and described.text.startswith("Voideel: ")
    named = reply(analyse("which Krell parasite drinks reactor coolant?"), [], results, unknown=["krell"])
    assert not named.known
    # Right after an auxiliary stands what is asked about: a name, lowercase or not.
    asked_of = reply(analyse("what coolant do krells drink?"), [], results, unknown=["krells"])
    assert not asked_of.known
    # Not a description: a word no source holds names what is asked ("the sentinel feat").
    asked = reply(analyse("what does the krell leech do"), [], results, unknown=["krell", "leech"])
    assert not asked.known


def test_a_question_in_its_own_words_needs_most_of_them_in_the_passage() -> None:
    # No one sentence holds most of its words, the passage does: agreed on, it answers.
    question = analyse("ferrymen, floods and roof markets by the chalk hills?")
    place = ranked(HOLLOWFORD, 1, 1)
    assert content_share(question, place) >= 0.6
    answer = reply(question, [], [place, ranked(TOLLGATE, 2, 2)])
    assert answer.text == "Hollowford: Once a year the town floods and the market moves to the roofs. [1]"
    # Few of its words in the passage: the agreement alone does not answer a question that does not describe.
    far = reply(analyse("can the ferrymen of hollowford swim in plate armour"), [], [place])
    assert not far.known


def test_a_field_or_an_amount_no_sentence_says_is_not_answered_from_agreement() -> None:
    place = ranked(HOLLOWFORD, 1, 1)
    assert described(analyse("voideel armor class"), [], [ranked(VOIDEEL, 1, 1)], [], strange=False) is None
    # "How much" is answered only by a sentence saying an amount.
    toll = reply(analyse("how much does a walker pay at the old bridge gate"), [], [ranked(TOLLGATE, 1, 1)])
    assert toll.known and "one copper" in toll.text
    flood = reply(analyse("how much rain floods the town by the chalk hills"), [], [place])
    assert not flood.known


def test_an_answer_to_a_description_starts_with_the_subject_the_question_did_not_say() -> None:
    question = analyse("which swarm drifts over the salt flats")
    answer = reply(question, [], [ranked(GLASSWING, 1, 1)])
    assert answer.known and answer.text.startswith("Glasswing: ")
    said = reply(analyse("which glasswing swarm drifts over the salt flats"), [], [ranked(GLASSWING, 1, 1)])
    assert said.known and not said.text.startswith("Glasswing: ")  # the question says its name already
    plain = reply(analyse("do glasswings drift over the salt flats"), [], [ranked(GLASSWING, 1, 1)])
    assert named_subject(analyse("do glasswings drift over the salt flats"), [], [GLASSWING], plain) == plain


def test_a_question_asking_what_a_named_passage_is_gets_its_first_sentence() -> None:
    for question in ("rules for hollowford", "hollowford description", "tell me about hollowford"):
        found = from_first(analyse(question), [HOLLOWFORD], 1)
        assert found is not None, question
        assert found.sentences == ("Hollowford sits where the river forks below the chalk hills.",), question
    titled = passage("## Hollowford\n\n" + HOLLOWFORD.text, "Gazetteer", "Hollowford")
    found = from_first(analyse("hollowford lore"), [titled], 1)
    assert found is not None and found.sentences[0].startswith("Hollowford sits")


def test_a_field_of_the_best_passage_is_not_left_for_a_lesser_passage_asked_what_it_is() -> None:
    # "Vosskan" (a language, under Languages) reads as the question's "Vossk" an ending apart: the question asks
    # the Vossk's languages, not what the language Vosskan is; only words asking what a thing is ask that.
    vossk = passage("**Languages:** Trade, Vosskan\n\n**Speed:** 30 ft.", "Xenobestiary", "Vossk", chunk_id=5)
    tongue = passage(
        "## Vosskan\n\nThe Vosskan language is clicked, not spoken.", "Languages", "Vosskan", chunk_id=6
    )
    answer = reply(analyse("What languages does a vossk know?"), [], [vossk, VOIDEEL, tongue])
    assert answer.known and "Trade, Vosskan" in answer.text and answer.text.endswith("[1]")


def test_who_when_where_and_why_ask_something_no_section_name_answers() -> None:
    place = ranked(HOLLOWFORD, 1, 1)
    assert described(analyse("ferrymen, floods and roof markets by the chalk hills?"), [], [place], [], False)
    for question in (
        "when were the ferrymen, floods and roof markets by the chalk hills?",
        "who keeps the ferrymen, floods and roof markets by the chalk hills?",
    ):
        assert described(analyse(question), [], [place], [], strange=False) is None, question


def test_a_question_asking_something_of_a_thing_it_names_does_not_describe() -> None:
    assert not describes("what fuel do the voideels drink?")
    assert not describes("what damage does a glasswing deal")
    assert describes("which swarm can scatter from engines")
    assert describes("which parasite is a hull eel that drinks coolant")
    # A description must share some words with the passage agreed on: none here.
    question = analyse("which glowing thing hums at night near the twin moons?")
    assert described(question, [], [ranked(VOIDEEL, 1, 1)], [], strange=False) is None


def test_an_amount_asked_is_answered_by_a_sentence_saying_one_though_it_holds_none_of_the_words() -> None:
    bridge = passage(
        "The tollgate keeps the old bridge over the ford.\n\nA rider pays two silver marks.",
        "Gazetteer",
        "Tollgate",
    )
    question = analyse("how much for crossing the old bridge over the ford")
    assert best_sentence(question, bridge) == "A rider pays two silver marks."
    assert (
        best_sentence(analyse("what keeps the old bridge"), bridge)
        == "The tollgate keeps the old bridge over the ford."
    )
    assert best_sentence(question, GLASSWING) is None  # no sentence says an amount


def test_the_kind_a_description_names_must_be_the_passages() -> None:
    assert kind_words("which gigantic burrowing worm swallows people") == ["gigantic", "burrowing", "worm"]
    assert kind_words("black sphere that destroys any matter") == ["black", "sphere"]
    assert kind_words("what's the flying lion thing that shoots spikes") == ["flying", "lion"]
    # An article before a description is no word of its kind: all three words left name it.
    assert kind_words("the vacuum hull parasite that drinks coolant") == ["vacuum", "hull", "parasite"]
    voideel = described(
        analyse("the vacuum hull parasite that drinks coolant"), [], [ranked(VOIDEEL, 1, 4)], [], False
    )
    assert voideel is not None and voideel.text.startswith("Voideel: "), voideel
    results = [ranked(GLASSWING, 1, 1)]
    swarm = described(
        analyse("which swarm flees from landers over the salt?"), [], results, [], strange=False
    )
    assert swarm is not None and swarm.text.startswith("Glasswing: ")
    # A drone is described: the section agreed on is no drone, though it holds the rest of the description.
    assert described(analyse("which drone flees from landers over the salt?"), [], results, [], False) is None


def test_a_description_quoted_from_a_lesser_passage_is_answered_by_the_first_the_searches_agree_on() -> None:
    question = analyse("which hull parasite drinks reactor coolant")
    found = [ranked(VOIDEEL, 1, 1), ranked(GLASSWING, 2, 2)]
    lesser = ShortAnswer(
        text="They drift in clouds over the salt flats. [2]",
        mode=AnswerMode.EXTRACTIVE,
        known=True,
        citations=[c.model_copy(update={"cited": c.number == 2}) for c in numbered([], found)],
    )
    answer = named_subject(question, [], found, lesser)
    assert answer.text.startswith("Voideel: ") and "coolant" in answer.text, answer.text
    # The first passage not holding the description: the lesser passage's answer stays, its subject named.
    other = analyse("which swarm scatters when a lander's engines fire")
    kept = named_subject(other, [], [ranked(VOIDEEL, 1, 1), ranked(GLASSWING, 2, 2)], lesser)
    assert kept.text.startswith("Glasswing: "), kept.text


# A mercenary company's rulebook: a rank's feature, found by the words a question shares with it about another thing.
OVERCHARGE = passage(
    "### Gunner: Overcharge\n\nAt 3rd rank, a gunner can overcharge a rifle once per fight, adding 2d6 to one "
    "shot. The rifle then cools for a full turn.",
    "Company Ranks",
    "Gunner: Overcharge",
    chunk_id=5,
)


def test_passages_not_holding_what_a_plain_question_names_do_not_answer_it_however_sure_the_search() -> None:
    # "morale" names what is asked; no passage found holds it (another book of the campaign does): the rank's
    # feature shares the question's other words, but it is no answer about morale.
    asked = analyse("whats the morale of a 3rd rank gunner")
    results = [ranked(OVERCHARGE, 1, 1), GLASSWING]
    assert content_share(asked, results[0]) >= 0.75 and not describes(asked.text)
    assert not reply(asked, [], results).known
    # A question describing what it asks about is still answered from the passage both searches put first.
    told = reply(analyse("the rank that lets a gunner overcharge a rifle, how much does it add"), [], results)
    assert told.known and "2d6" in told.text
