"""A question asking something of a thing it describes: the description searched on its own, then the question
asked of the thing it names.

"what's the CR of the demon that has the Horror Nimbus ability?" searched as one finds the demon, but the answer
step reads a question about a demon that no passage is titled with, and says nothing is known (or quotes the line
the description was made of: "Horror Nimbus: ..."). `by_description` searches the description alone
(`described_subject.split`), names the thing when both searches agree on it (`described_subject.named`), and asks
the question of it by name ("what's the CR of Nalfeshnee?"), its passages first: an answer quoting the thing's
own passage is given, led by its name, when the whole question's answer is "nothing known", holds no word of what
is asked (`described_subject.answers_asked`), or quotes another passage holding less of the description (a guard's
spear for "the spell that summons a guard dog - how much damage does its bite do"). Anything else leaves the first
answer as it was: a description the books do not hold stays "nothing known". One more search, only for a question
asking something of a thing it describes, begun as the whole question's answer is read (`SearchedEarly`: it runs
meanwhile) and read only when that answer is not already a line saying what is asked, of a passage holding half
the description's words or more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from functools import partial

from canon.models import Viewer
from canon.visibility import Knowing
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.ask_compared import each_compared
from memory.knowledge.models import Answer, LoreResult
from memory.knowledge.question import Question, analyse
from memory.knowledge.retrieval import Reads, Retriever, SearchConfig
from memory.knowledge.retrieval.answer_described import LED_SHARE, content_share, with_subject
from memory.knowledge.retrieval.described_subject import Described, answers_asked, named, split

__all__ = ["DescribedAsking", "SearchedEarly", "by_description"]

#: Searches a text and returns its passages and facts, without a reply.
Search = Callable[[str], Awaitable[Answer]]
#: The short answer to a question from a search's passages and facts.
Reply = Callable[[Question, Answer], Awaitable[ShortAnswer]]
#: Who asks and how a question is searched: the viewer, the passages wanted, the preset, what the character
#: knows, the question's reads.
Where = tuple[Viewer, int, SearchConfig, Knowing | None, Reads]


class DescribedAsking:
    """The answer step of `memory.knowledge.ask.Answerer` that asks a described thing's question by its name."""

    retriever: Retriever

    async def _reply(self, asked: Question, answer: Answer, reads: Reads | None = None) -> ShortAnswer:
        raise NotImplementedError

    async def _part(
        self,
        campaign_id: int,
        part: str,
        viewer: Viewer,
        limit: int,
        config: SearchConfig,
        glossary: Mapping[str, str],
        knowing: Knowing | None,
        reads: Reads,
    ) -> Answer:
        raise NotImplementedError

    async def _replied(
        self, asked: Question, answer: Answer, glossary: Mapping[str, str], where: Where
    ) -> Answer:
        """Return the answer with its reply to the question, asked of the thing it describes by name when the
        whole question's reply is not known or says nothing asked (`by_description`)."""
        viewer, limit, config, knowing, reads = where
        read = partial(self._reply, reads=reads)
        search = partial(
            self.retriever.search,
            answer.campaign_id,
            viewer=viewer,
            limit=limit,
            config=config,
            knowing=knowing,
            reads=reads,
        )
        # The description's search, mostly needed, starts now: it runs while the whole question is answered.
        early = SearchedEarly.of(asked, glossary, search)
        try:
            first = answer.model_copy(update={"reply": await read(asked, answer)})
            said = await by_description(asked, glossary, early or search, read, first) or first
            # A comparison of a field no line holds: each part asked on its own (`ask_compared`).
            part = partial(self._part, answer.campaign_id, viewer=viewer, limit=limit, config=config)
            return await each_compared(
                said, asked, partial(part, glossary=glossary, knowing=knowing, reads=reads)
            )
        finally:
            if early is not None:
                await early.settled()


async def by_description(
    asked: Question, glossary: Mapping[str, str], search: Search, reply: Reply, first: Answer
) -> Answer | None:
    """Return the answer to a question asked of a thing it describes, by the thing's name, or None (see the
    module docstring). `search`: the description's search; `reply`: the short answer of a question from a
    search's passages; `first`: the whole question's answer, with its reply."""
    parts = split(asked.text)
    said = first.reply
    if parts is None or said is None:
        return None
    description = analyse(parts.description, glossary)
    if said.known and _described_quoted(first, said, parts, glossary, description):
        return None  # no search: the line quoted says what is asked, of a passage holding the description
    found = await search(description.search_text)
    name = named(description, found.results, found.trace.unknown_words)
    if name is None or (said.known and _of_another(first, said, parts, glossary, description, found)):
        return None
    told = await reply(analyse(parts.asked(name), glossary), found)
    own = found.results[0].chunk_id  # the thing's passage, first of the description's search
    if not told.known or not any(c.cited and c.chunk_id == own for c in told.citations):
        return None
    if name.casefold() not in told.text.casefold():
        told = told.model_copy(update={"text": with_subject(name, told.text)})
    return found.model_copy(update={"question": first.question, "reply": told})


class SearchedEarly:
    """A search of a question's description started before its answer asks for it (`by_description`'s `search`):
    the same search, begun while the whole question is answered; any other text is searched when asked."""

    def __init__(self, text: str, search: Search) -> None:
        self.text = text
        self.search = search
        self.task: asyncio.Future[Answer] = asyncio.ensure_future(search(text))

    @classmethod
    def of(cls, asked: Question, glossary: Mapping[str, str], search: Search) -> SearchedEarly | None:
        """Return the early search of the description a question asks something of, or None (it describes
        nothing: `described_subject.split`)."""
        parts = split(asked.text)
        return cls(analyse(parts.description, glossary).search_text, search) if parts is not None else None

    async def __call__(self, text: str) -> Answer:
        return await (self.task if text == self.text else self.search(text))

    async def settled(self) -> None:
        """Wait for the search to end (its answer unread when the description was not searched after all)."""
        with contextlib.suppress(Exception):
            await self.task


def _quoted(first: Answer, said: ShortAnswer) -> list[LoreResult]:
    quoted = {c.chunk_id for c in said.citations if c.cited}
    return [r for r in first.results if r.chunk_id in quoted]


def _described_quoted(
    first: Answer, said: ShortAnswer, parts: Described, glossary: Mapping[str, str], description: Question
) -> bool:
    """Return whether the whole question's answer says a word of what is asked (`answers_asked`), quoting a
    passage that holds half the description's words or more: the thing described, most likely."""
    if not answers_asked(parts, glossary, said.text):
        return False
    return any(content_share(description, r) >= LED_SHARE for r in _quoted(first, said))


def _of_another(
    first: Answer,
    said: ShortAnswer,
    parts: Described,
    glossary: Mapping[str, str],
    description: Question,
    found: Answer,
) -> bool:
    """Return whether the whole question's answer stands: it says a word of what is asked (`answers_asked`)
    quoting the thing's own passage, or one holding as much of the description."""
    if not answers_asked(parts, glossary, said.text):
        return False
    thing = found.results[0]
    if any(c.cited and c.chunk_id == thing.chunk_id for c in said.citations):
        return True
    share = content_share(description, thing)
    return any(content_share(description, r) >= share for r in _quoted(first, said))
