"""A question asking something of a thing it describes: the description searched on its own, the question asked
of the thing it names.

The book here is a coastal almanac of sea-folk and shore-beasts, its own words, not a reference book's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.ask_described import SearchedEarly, by_description
from memory.knowledge.models import Answer, LoreResult, RetrievalTrace
from memory.knowledge.question import Question, analyse
from memory.knowledge.retrieval.described_subject import named, split
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage
from tests.memory.knowledge.retrieval.test_answer_described import ranked

ALMANAC = """# Shore-Folk

## Saltcrone

*Hag of the tide-flats*

- **Threat** Grim
- **Haunts** Mudflats below the sea wall

**Soured Glance:** Milk curdles and bread molds wherever the saltcrone's eye falls.

**Brine Bargain:** She trades a fair wind for a sailor's first-born catch.

## Ironpincer

*Shore crab, giant*

- **Threat** Slight
- **Haunts** Rock pools

**Claws:** The ironpincer strikes twice each round with its two iron claws.

## Siren Conch

*Shell, enchanted*

The conch sings without end; its song carries half a league over calm water and lulls the listening to sleep.

## Tollkeeper

*Harbour official*

- **Threat** None

The tollkeeper takes a copper from every boat that ties up.
"""

SALTCRONE = passage(
    "*Hag of the tide-flats*\n\n- **Threat** Grim\n\n**Soured Glance:** Milk curdles and bread molds wherever the saltcrone's eye falls.",
    "Shore-Folk",
    "Saltcrone",
    chunk_id=1,
)
TOLLKEEPER = passage(
    "*Harbour official*\n\n- **Threat** None\n\nThe tollkeeper takes a copper from every boat that ties up.",
    "Shore-Folk",
    "Tollkeeper",
    chunk_id=4,
)
IRONPINCER = passage(
    "*Shore crab, giant*\n\n- **Threat** Slight\n\n**Claws:** The ironpincer strikes twice each round with its two iron claws.",
    "Shore-Folk",
    "Ironpincer",
    chunk_id=2,
)


def test_a_description_then_a_question_of_it_in_a_clause_of_its_own_is_split() -> None:
    found = split("the hag that curdles milk with a glance - what threat is she?")
    assert found is not None and found.description == "the hag that curdles milk with a glance"
    assert found.asked("Saltcrone") == "what threat is Saltcrone"
    found = split("the crab with iron claws in the rock pools. how often does it strike?")
    assert found is not None and found.description == "the crab with iron claws in the rock pools"
    assert found.asked("Ironpincer") == "how often does Ironpincer strike"
    # A possessive stands for the thing's own; the last pronoun is the thing ("how hard is it to ... out of it").
    found = split("that shell which sings forever... how far does its song carry")
    assert found is not None and found.asked("Siren Conch") == "how far does Siren Conch's song carry"
    found = split("the hag that curdles milk… what threat is she")
    assert found is not None and found.asked("Saltcrone") == "what threat is Saltcrone"
    found = split("the crab with iron claws, how hard is it to pry a hand out of it")
    assert found is not None and found.asked("Ironpincer").endswith("pry a hand out of Ironpincer")
    # No pronoun: the question is asked of the thing.
    found = split("the hag that curdles milk, what's the threat level")
    assert found is not None and found.asked("Saltcrone") == "what's the threat level of Saltcrone"


def test_a_description_inside_a_question_is_split_from_what_is_asked() -> None:
    found = split("what's the threat of the hag that curdles milk with a glance?")
    assert found is not None and found.description == "the hag that curdles milk with a glance"
    assert found.asked("Saltcrone") == "what's the threat of Saltcrone"
    # "with" names one or two words; the question's verb follows.
    found = split("how many times does the crab with the iron claws strike each round?")
    assert found is not None and found.description == "the crab with the iron claws"
    assert found.asked("Ironpincer") == "how many times does Ironpincer strike each round"
    # A demonstrative's short noun phrase before the question's last verb.
    found = split("how far can the song from that always-singing shell carry?")
    assert found is not None and found.description == "that always-singing shell"
    assert found.asked("Siren Conch") == "how far can the song from Siren Conch carry"
    # The question's last verb is the asking's, not the description's.
    found = split("how much damage does the hag that curdles milk deal")
    assert found is not None and found.description == "the hag that curdles milk"
    assert found.asked("Saltcrone") == "how much damage does Saltcrone deal"
    # The article that opens the description is the one nearest its relative word.
    found = split("whats the threat vs that old hag who sours the milk")
    assert found is not None and found.description == "that old hag who sours the milk"


def test_a_question_asking_only_which_thing_or_naming_it_is_not_split() -> None:
    for question in (
        "which hag curdles milk with a glance?",  # which thing: `answer_described`'s
        "which charm fills the pool with eels that bite swimmers",
        "what's the hag that curdles milk",
        "what's the crab with iron claws",
        "what does the hag that curdles milk do",  # what the thing is
        "spell that makes a zone where no sound can be made",
        "how much does an ironpincer weigh",
        "what is the saltcrone's threat",
        "my boat sank. can I swim to shore?",  # a scene, no description
        "",
        "?",
    ):
        assert split(question) is None, question


def test_the_thing_is_named_when_both_searches_agree_on_a_passage_holding_the_description() -> None:
    description = analyse("the hag that curdles milk with a glance", {})
    agreed = [ranked(SALTCRONE, 1, 1), ranked(IRONPINCER, 2, 3)]
    assert named(description, agreed, []) == "Saltcrone"
    # The searches disagree, or the passage found holds too few of the description's words, or no kind asked.
    assert named(description, [ranked(SALTCRONE, 1, None), ranked(IRONPINCER, 2, 1)], []) is None
    crab = analyse("the crab that curdles milk with a glance", {})
    assert named(crab, agreed, []) is None  # the saltcrone is no crab
    elsewhere = analyse("the hag that spins storms from seaweed and rope", {})
    assert named(elsewhere, agreed, []) is None
    # A capitalised name no source holds: something the books do not hold.
    zorbl = analyse("the hag Zorbl that curdles milk with a glance", {})
    assert named(zorbl, agreed, ["zorbl"]) is None
    assert named(description, [], []) is None
    stale = SALTCRONE.model_copy(update={"out_of_date": "changed"})
    assert named(description, [ranked(stale, 1, 1)], []) is None


async def test_a_question_of_a_described_thing_is_answered_of_it_by_name(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Drowned Coast")
    await service.import_bytes(campaign, "almanac.md", ALMANAC.encode())
    answer = await service.ask(
        campaign, "what's the threat of the hag that curdles milk with a glance?", viewer=Viewer.PLAYER
    )
    assert answer.reply is not None and answer.reply.known
    assert "Saltcrone" in answer.reply.text and "Grim" in answer.reply.text
    # A description the book holds nothing of stays "nothing known".
    answer = await service.ask(
        campaign, "what's the threat of the giant squid that wrecks galleons at night?", viewer=Viewer.PLAYER
    )
    assert answer.reply is not None and not answer.reply.known


def searched(results: list[LoreResult], reply: ShortAnswer | None = None) -> Answer:
    """Return a search's answer holding the passages found (and a reply, for the whole question's)."""
    trace = RetrievalTrace(
        preset="default",
        mode="hybrid",
        lexical_query=None,
        lexical_candidates=len(results),
        semantic_candidates=len(results),
        semantic_status="ok",
        entity_matches=[],
        allowed_sources=1,
        blocked_sources=0,
        candidates=[],
        budgets={},
        used_tokens={},
        timings_ms={},
    )
    return Answer(
        campaign_id=1,
        question="q",
        viewer="player",
        results=results,
        canon_facts=[],
        trace=trace,
        reply=reply,
    )


def quoting(text: str, chunk_id: int | None) -> ShortAnswer:
    """Return a short answer quoting one passage (None: nothing known)."""
    if chunk_id is None:
        return ShortAnswer(text=text, mode=AnswerMode.NOTHING, known=False)
    cited = Citation(number=1, kind="passage", label="Shore-Folk", chunk_id=chunk_id, cited=True)
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=[cited])


async def test_the_thing_named_answers_when_the_first_reading_quotes_another_or_nothing_asked() -> None:
    question = analyse("what's the threat of the hag that curdles milk with a glance?", {})
    asked: list[str] = []

    async def search(text: str) -> Answer:
        return searched([ranked(SALTCRONE, 1, 1), ranked(TOLLKEEPER, 2, 2)])

    async def reply(of: Question, found: Answer) -> ShortAnswer:
        asked.append(of.text)
        return quoting("Saltcrone's threat is Grim. [1]", SALTCRONE.chunk_id)

    # Nothing known, a line of another passage saying the field, a line of the thing's saying nothing asked.
    for said in (
        quoting("Nothing is known.", None),
        quoting("Tollkeeper's threat is None. [1]", TOLLKEEPER.chunk_id),
        quoting("Milk curdles wherever the saltcrone's eye falls. [1]", SALTCRONE.chunk_id),
    ):
        first = searched([TOLLKEEPER, SALTCRONE], said)
        answer = await by_description(question, {}, search, reply, first)
        assert answer is not None and answer.reply is not None
        assert answer.reply.text == "Saltcrone's threat is Grim. [1]"
    assert asked[-1] == "what's the threat of Saltcrone"
    # The thing's own passage already answering what is asked stands, and is not searched again.
    searches: list[str] = []

    async def counted(text: str) -> Answer:
        searches.append(text)
        return await search(text)

    first = searched([SALTCRONE], quoting("Saltcrone's threat is Grim. [1]", SALTCRONE.chunk_id))
    assert await by_description(question, {}, counted, reply, first) is None
    assert searches == []


async def test_nothing_is_named_or_answered_from_a_description_the_searches_do_not_agree_on() -> None:
    question = analyse("what's the threat of the hag that curdles milk with a glance?", {})
    first = searched([TOLLKEEPER], quoting("Nothing is known.", None))

    async def disagreeing(text: str) -> Answer:
        return searched([ranked(SALTCRONE, 1, None), ranked(TOLLKEEPER, 2, 1)])

    async def reply(of: Question, found: Answer) -> ShortAnswer:
        return quoting("Tollkeeper's threat is None. [1]", TOLLKEEPER.chunk_id)

    assert await by_description(question, {}, disagreeing, reply, first) is None

    async def agreeing(text: str) -> Answer:
        return searched([ranked(SALTCRONE, 1, 1)])

    # The question asked by name quotes another passage than the thing's, or nothing: the first answer stands.
    assert await by_description(question, {}, agreeing, reply, first) is None
    unasked = analyse("which hag curdles milk with a glance?", {})
    assert await by_description(unasked, {}, agreeing, reply, first) is None


async def test_the_description_is_searched_once_begun_before_the_whole_answer_is_read() -> None:
    question = analyse("what's the threat of the hag that curdles milk with a glance?", {})
    searches: list[str] = []
    began = asyncio.Event()

    async def search(text: str) -> Answer:
        searches.append(text)
        began.set()
        return searched([ranked(SALTCRONE, 1, 1), ranked(TOLLKEEPER, 2, 2)])

    early = SearchedEarly.of(question, {}, search)
    assert early is not None
    await asyncio.wait_for(began.wait(), 1)  # begun before anything asks for it
    assert searches == [analyse("the hag that curdles milk with a glance", {}).search_text]

    async def reply(of: Question, found: Answer) -> ShortAnswer:
        return quoting("Saltcrone's threat is Grim. [1]", SALTCRONE.chunk_id)

    first = searched([TOLLKEEPER, SALTCRONE], quoting("Nothing is known.", None))
    answer = await by_description(question, {}, early, reply, first)
    await early.settled()
    assert answer is not None and answer.reply is not None
    assert answer.reply.text == "Saltcrone's threat is Grim. [1]"
    assert len(searches) == 1  # the early search's answer, not a second search
    assert await early("another text") is not None and searches[-1] == "another text"


async def test_an_early_search_unread_or_failed_ends_with_the_answer() -> None:
    async def failing(text: str) -> Answer:
        raise RuntimeError("the index is gone")

    early = SearchedEarly.of(
        analyse("what's the threat of the hag that curdles milk with a glance?", {}), {}, failing
    )
    assert early is not None
    await early.settled()  # its failure is not the answer's: the description was not needed
    assert early.task.done()
    assert SearchedEarly.of(analyse("what's the saltcrone's threat?", {}), {}, failing) is None


async def test_a_described_things_question_asked_in_full_begins_its_description_search_early(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Drowned Coast")
    await service.import_bytes(campaign, "almanac.md", ALMANAC.encode())
    order: list[str] = []
    search, reply = service.answers.retriever.search, service.answers._reply

    async def searching(campaign_id: int, text: str, **options: Any) -> Answer:
        order.append(f"search {text}")
        return await search(campaign_id, text, **options)

    async def replying(asked: Question, answer: Answer, reads: Any = None) -> ShortAnswer:
        said = await reply(asked, answer, reads)
        order.append(f"replied {asked.text}")
        return said

    service.answers.retriever.search = searching  # type: ignore[method-assign]
    service.answers._reply = replying  # type: ignore[method-assign]
    answer = await service.ask(
        campaign, "what's the threat of the hag that curdles milk with a glance?", viewer=Viewer.PLAYER
    )
    assert answer.reply is not None and "Grim" in answer.reply.text
    # The description's search ran while the whole question's answer was read.
    assert [step.split()[0] for step in order] == ["search", "search", "replied", "replied"]
    assert order[1] == "search the hag that curdles milk with a glance" and order[2].startswith(
        "replied what is the threat of the hag"
    )
