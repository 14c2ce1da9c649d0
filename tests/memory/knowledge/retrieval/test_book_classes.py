"""Classes of players' questions, each shown on a horror game's rulebook laid out unlike the SRD: a doubled letter
typed single, a question about a named thing, numbers typed in words (one rule per class, for any book)."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.answer_words import same_word
from memory.knowledge.retrieval.vocabulary import Vocabulary, single_letters
from memory.knowledge.retrieval.words import _slip_in_text
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage

# A horror game's rulebook: dread rules in prose, a threat's stats as a bold-led line, a table of wards.
HOLLOW_HOURS = """# Hollow Hours

## Dread

Every investigator carries Dread from 0 to 10. Seeing the impossible adds 1 Dread; a night's sleep in a
warded room removes 2 Dread.

## Suppression

An investigator may suppress a vision by spending 1 Resolve. Suppression lasts until the next dawn, and a
suppressed vision returns twice as strong.

## The Pale Lodger

**Threat 4 · Menace 12 · Lair: the attic**

The Pale Lodger feeds on sleepers. Anyone it touches loses 1 Resolve and cannot shout for help.

## Wards

| Ward | Holds back | Lasts |
|------|------------|-------|
| Salt line | The Pale Lodger | One night |
| Iron nail | Drowned things | A week |
"""


def test_a_doubled_letter_typed_single_is_no_slip_of_its_own() -> None:
    vocabulary = Vocabulary.of_texts([HOLLOW_HOURS, "a shuttle docks", "the hollow apple"])
    assert single_letters("suppression") == "supresion"
    # Both doubled letters typed single, and one typed single beside a swap: two edits as typed, one read single.
    assert vocabulary.closest("supresion", fits=_slip_in_text) == "suppression"
    assert vocabulary.closest("shutel", fits=_slip_in_text) == "shuttle"
    # A word one edit away as typed is still taken first; a short word is never read as a typo.
    assert vocabulary.closest("suppresion", fits=_slip_in_text) == "suppression"
    assert vocabulary.closest("aple", fits=_slip_in_text) is None
    # Two slips besides the doubled letter are not a typo: nothing is read.
    assert vocabulary.closest("supersoin", fits=_slip_in_text) is None
    assert vocabulary.closest("xyzzyx", fits=_slip_in_text) is None


async def test_a_question_with_a_doubled_letter_typed_single_is_answered(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Hollow Hours")
    await service.import_bytes(campaign, "hollow.md", HOLLOW_HOURS.encode())
    answer = await service.ask(campaign, "how long does supresion last", viewer=Viewer.PLAYER)
    assert answer.trace.corrections.get("supresion") == "suppression"
    assert answer.reply is not None and answer.reply.known and "next dawn" in answer.reply.text


async def test_a_question_about_a_named_thing_is_answered_led_by_its_title(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Hollow Hours")
    await service.import_bytes(campaign, "hollow.md", HOLLOW_HOURS.encode())

    async def said(question: str) -> str:
        answer = await service.ask(campaign, question, viewer=Viewer.PLAYER)
        assert answer.reply is not None and answer.reply.known, question
        return answer.reply.text

    # The book's sentence says "suppress", never the entry's name: the answer names it.
    assert (await said("how does suppression work?")).startswith("Suppression: An investigator may suppress")
    # A sentence already saying the title is not led by it twice.
    assert (await said("tell me about dread")).startswith("Every investigator carries Dread")
    # A yes or no question leads with its verdict, not the title.
    assert not (await said("does suppression last until the next dawn?")).startswith("Suppression:")
    # A question asking who, where or when asks a person, a place or a time: no title leads its answer.
    assert not (await said("who may use suppression?")).startswith("Suppression:")
    assert not (await said("when does suppression end?")).startswith("Suppression:")


# The vigil's rule: amounts printed in figures, as books print any number past twelve.
VIGIL = passage(
    "## The Vigil\n\nAfter 2 rounds of silence the lamp dims. After 20 rounds the candle gutters and the "
    "Lodger wakes. A vigil kept for 15 minutes restores 1 Resolve.",
    "Hollow Hours",
    "The Vigil",
)


def test_numbers_typed_in_words_are_the_books_figures() -> None:
    assert same_word("fifteen", "15") and same_word("twenty", "20") and same_word("forty", "40")
    assert same_word("twentieth", "20th") and same_word("thirteenth", "13th")
    assert not same_word("fifteen", "50") and not same_word("twenty", "2") and not same_word("ninety", "19")
    answer = reply(analyse("what happens after twenty rounds of the vigil"), [], [VIGIL])
    assert answer.known and "candle gutters" in answer.text and "lamp dims" not in answer.text
    answer = reply(analyse("what does a vigil of fifteen minutes restore"), [], [VIGIL])
    assert answer.known and "1 Resolve" in answer.text


# A condition of the horror game, its effects a numbered list.
HAUNTED = passage(
    "## Haunted\n\n1. A haunted investigator hears whispers no one else hears.\n"
    "2. They cannot sleep in the house that haunts them.\n3. Their Dread rises by 1 at each dawn.\n"
    "4. The haunting ends when its ghost is laid to rest.",
    "Hollow Hours",
    "Haunted",
)


def test_a_list_of_rules_asked_as_a_whole_is_said_by_its_items() -> None:
    for question in ("what happens when I'm haunted?", "how does being haunted work"):
        answer = reply(analyse(question), [], [HAUNTED])
        assert answer.known, question
        assert (
            "hears whispers" in answer.text
            and "cannot sleep" in answer.text
            and "at each dawn" in answer.text
        )
        assert "laid to rest" not in answer.text  # at most three items
    # A question asking one thing of it is answered by the item saying it alone.
    answer = reply(analyse("when does being haunted end"), [], [HAUNTED])
    assert answer.known and "laid to rest" in answer.text and "whispers" not in answer.text


# A rule saying a limit in its own words, beside a passage saying "number" of something else.
CANDLES = passage(
    "## Candles\n\nThe number of candles an investigator lights sets how far the light reaches.",
    "Hollow Hours",
    "Candles",
    chunk_id=1,
)
WARDS = passage(
    "## Wards\n\nAn investigator can keep no more than two wards at once. A ward of salt holds for one night.",
    "Hollow Hours",
    "Wards",
    chunk_id=2,
)


def test_the_max_number_of_something_asks_how_many() -> None:
    assert analyse("max number of wards an investigator can keep").expanded.startswith("how many wards")
    for question in (
        "max number of wards an investigator can keep",
        "the maximum number of wards i can keep",
    ):
        answer = reply(analyse(question), [], [CANDLES, WARDS])
        assert answer.known and "no more than two wards" in answer.text, question
    # "number" in any other place is the question's own word.
    assert "number" in analyse("what number is on the cellar door").subject
