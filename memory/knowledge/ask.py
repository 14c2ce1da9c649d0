"""Answering a lore question from a campaign's knowledge, and the stored answers behind "Why these?".

The search itself is `memory.knowledge.retrieval.Retriever.search`; this module checks the question, records the answer
with exactly the text shown, and gives a stored answer back to whoever may see it.
"""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from canon import campaigns
from canon.campaign_calendar import CampaignCalendar
from canon.date_words import calendar_words
from canon.errors import InvalidInput, NotFound
from canon.models import Viewer
from canon.storage import Database, utc_now
from canon.storage_faults import storage_fault
from canon.visibility import Knowing, entity_facts_seen, passages_seen
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.ask_described import DescribedAsking
from memory.knowledge.glossary import GLOSSARY_SETTINGS, merged
from memory.knowledge.models import Answer, LoreResult, RetrievalRecord
from memory.knowledge.question import Question, analyse, spelled_out
from memory.knowledge.retrieval import Reads, Retriever, SearchConfig, preset
from memory.knowledge.retrieval.answer_comparison import comparison
from memory.knowledge.retrieval.answer_eras import (
    NO_TODAY,
    asked_era,
    asks_calendar,
    bordering,
    calendar_answer,
)
from memory.knowledge.retrieval.answer_meaning import MeaningReader, checked
from memory.knowledge.retrieval.answer_months import NO_MONTHS
from memory.knowledge.retrieval.answer_parts import parts_answered, second_of, two_parts
from memory.knowledge.retrieval.answer_reasons import reasoned
from memory.knowledge.retrieval.answer_step import reply
from memory.knowledge.retrieval.era_bounds import outside_era
from memory.knowledge.retrieval.eras import Opening
from memory.knowledge.retrieval.words import corrected
from memory.knowledge.retrievals import add_retrieval, load_retrieval

log = logging.getLogger(__name__)


class Answerer(DescribedAsking):
    """Answers lore questions for a player or the GM and keeps the answers; a question asked of a thing it
    describes, by the thing's name too (`DescribedAsking`).

    `meaning` (None: words alone) reads the meaning of the sentences where words say too little: the sentence
    closest in meaning answers when none holds enough of the question's words, and a line unrelated in meaning
    to the question is no answer (`answer_step.reply`, `answer_meaning.checked`)."""

    def __init__(self, db: Database, retriever: Retriever, meaning: MeaningReader | None = None) -> None:
        self.db = db
        self.retriever = retriever
        self.meaning = meaning

    async def ask(
        self,
        campaign_id: int,
        question: str,
        *,
        viewer: Viewer = Viewer.PLAYER,
        limit: int = 5,
        config: SearchConfig | str = "default",
        record: bool = True,
        asker_id: int | None = None,
        glossary: Mapping[str, str] | None = None,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> Answer:
        """Answer a lore question from the campaign's sources and canon graph, for a player or the GM.

        Players never get hidden sources or GM-only canon; the GM gets them marked hidden. With `record`, the
        answer is stored (with the exact text shown) for the "Why these?" inspector, and each source used
        counts one more use. The question is read through `glossary` (when None, the campaign's as this viewer
        reads it: `glossary`) and searched in the books' words; a comparison's parts are searched each on its
        own. A question is a read: when the storage cannot take the record (the disk is full, the database is
        read-only), the answer is given all the same, unsaved, and says why. `reads`: read once (`Reads`).
        """
        question = " ".join(question.split())
        if all(unicodedata.category(c)[0] in "PZ" for c in question):  # "?" asks nothing, as "" does
            raise InvalidInput("Ask a question, for example `/lore ask who rules Westhaven?`.")
        if len(question) > 1000:
            raise InvalidInput("A lore question is at most 1,000 characters.")
        if not 1 <= limit <= 25:
            raise InvalidInput("Ask for 1 to 25 results.")
        search = preset(config) if isinstance(config, str) else config
        reads = reads if reads is not None else await self.retriever.reads()
        read = await self.retriever.respelled(
            campaign_id, spelled_out(question), viewer=viewer, knowing=knowing, reads=reads
        )
        if glossary is None:
            glossary = await self._read_glossary(campaign_id, viewer, knowing, reads)
        asked = analyse(read, glossary)
        answer = await self.retriever.search(
            campaign_id,
            asked.search_text,
            viewer=viewer,
            limit=limit,
            config=search,
            knowing=knowing,
            subject=asked.subject if asked.of_entry else (),
            reads=reads,
            ahead=[self._part_text(part, asked) for part in asked.parts],
        )
        answer = answer.model_copy(update={"question": question})
        if asked.parts:
            answer = await self._compared(
                answer, asked, viewer=viewer, config=search, knowing=knowing, reads=reads
            )
        elif (said := await self._of_calendar(answer, asked, glossary, reads, viewer, knowing)) is not None:
            answer = answer.model_copy(update={"reply": said})
        elif (parts := two_parts(asked.text, answer.canon_facts)) is not None:
            # "… and who leads it": each part searched and answered on its own, then said together
            each = await self._parts(
                campaign_id, parts, answer, viewer, limit, search, glossary, knowing, reads
            )
            answer = answer.model_copy(update=each)
        if answer.reply is None:
            if answer.trace.corrections:
                # The search read "revivfy" as "revivify": so does the answer (the question as asked is kept).
                fixed = analyse(corrected(asked.expanded, answer.trace.corrections), {})
                asked = replace(fixed, text=asked.text, glossary_used=asked.glossary_used)
            answer = await self._replied(asked, answer, glossary, (viewer, limit, search, knowing, reads))
        if record:
            try:
                retrieval_id = await self._record(answer, search.name, asker_id)
            except Exception as error:
                fault = storage_fault(error)
                if fault is None:
                    raise
                log.warning("a lore answer was given but not saved: %s (%s)", fault, error)
                return answer.model_copy(update={"unsaved": fault})
            answer = answer.model_copy(update={"retrieval_id": retrieval_id})
        return answer

    async def _parts(
        self,
        campaign_id: int,
        parts: tuple[str, str],
        whole: Answer,
        viewer: Viewer,
        limit: int,
        config: SearchConfig,
        glossary: Mapping[str, str],
        knowing: Knowing | None,
        reads: Reads,
    ) -> dict[str, object]:
        """Return the fields of the answer to a two-part question (`whole`: its search as one), each part searched
        and answered on its own: the second said of the first's answer where its pronoun agrees (`second_of`), a
        why-part answered by a reason or said unknown (`reasoned`)."""
        first = await self._part(campaign_id, parts[0], viewer, limit, config, glossary, knowing, reads)
        told = first.reply.text if first.reply is not None else ""
        part = second_of(parts, told, [*first.canon_facts, *whole.canon_facts])
        second = await self._part(campaign_id, part, viewer, limit, config, glossary, knowing, reads)
        if second.reply is not None:  # "…, and why": a reason, or the reason not known
            why = reasoned(part, second.reply, second.canon_facts, second.results, parts[0])
            second = second.model_copy(update={"reply": why})
        return parts_answered(first, second)

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
        """Return the answer to one part of a two-part question, searched on its own and not recorded."""
        return await self.ask(
            campaign_id,
            part,
            viewer=viewer,
            limit=limit,
            config=config,
            record=False,
            glossary=glossary,
            knowing=knowing,
            reads=reads,
        )

    async def _of_calendar(
        self,
        answer: Answer,
        asked: Question,
        glossary: Mapping[str, str],
        reads: Reads,
        viewer: Viewer,
        knowing: Knowing | None,
    ) -> ShortAnswer | None:
        """Return the answer to a question about the calendar the viewer may see (an era, today), or of a year its
        era never reached ("in 470 EY" of an era that ended in 400: said plainly, never another era's 470), or None."""
        calendar = await self.retriever.calendar(
            answer.campaign_id, viewer=viewer, knowing=knowing, reads=reads
        )
        if (never := outside_era(asked.text, calendar)) is not None:
            return ShortAnswer(text=never, mode=AnswerMode.NOTHING, known=False)
        if not asks_calendar(asked.text):
            return None
        # Today is the story's date as the viewer reads it: the latest dated scene's when later than the calendar's.
        now = await self.retriever.story_date(answer.campaign_id, viewer=viewer, knowing=knowing, reads=reads)
        calendar = calendar.model_copy(update={"today": now})
        era = asked_era(asked.text, calendar, glossary.keys())
        opened: dict[str, Opening] = {}
        if era is not None:  # the event that opened it, or the one after it
            eras = bordering(calendar, era)
            opened = await self.retriever.era_openings(
                answer.campaign_id, eras, viewer=viewer, knowing=knowing
            )
        said = calendar_answer(
            asked.text, calendar, glossary=glossary.keys(), facts=answer.canon_facts, opened=opened
        )
        if said is None:
            return None
        known = said not in (NO_TODAY, NO_MONTHS)
        return ShortAnswer(text=said, mode=AnswerMode.GRAPH if known else AnswerMode.NOTHING, known=known)

    async def _reply(self, asked: Question, answer: Answer, reads: Reads | None = None) -> ShortAnswer:
        """Return the short answer of the passages and facts found; with `meaning`, in a thread (the model runs
        there, off the event loop), reading the texts the question's searches embedded from `reads`."""
        trace = answer.trace
        known = reads.vectors if reads is not None else None  # the question's own vectors, embedded once
        meaning = self.meaning.reading(trace.corrections, known) if self.meaning is not None else None

        def short() -> ShortAnswer:
            facts, results = answer.canon_facts, answer.results
            said = reply(asked, facts, results, trace.unknown_words, trace.common_words, meaning)
            return checked(asked, facts, results, said, meaning) if meaning is not None else said

        return await asyncio.to_thread(short) if meaning is not None else short()

    async def glossary(
        self, campaign_id: int, *, viewer: Viewer, knowing: Knowing | None = None
    ) -> dict[str, str]:
        """Return the glossary a campaign's questions are read through by a viewer: the shipped one without the
        words of the calendar the viewer may see ("LR" where an era is abbreviated so), under the campaign's
        own terms (`memory.knowledge.glossary.merged`). A GM-only era's words are read as any campaign's for a
        player: how a player's question reads never hints at it."""
        calendar = await self.retriever.calendar(campaign_id, viewer=viewer, knowing=knowing)
        return await self._glossary(campaign_id, calendar)

    async def _read_glossary(
        self, campaign_id: int, viewer: Viewer, knowing: Knowing | None, reads: Reads
    ) -> dict[str, str]:
        """Return the glossary a question is read through (`glossary`), kept while nothing shown changes."""
        calendar = await self.retriever.calendar(campaign_id, viewer=viewer, knowing=knowing, reads=reads)
        book = await self.retriever.book_terms(campaign_id, viewer=viewer, knowing=knowing, reads=reads)
        key = ("glossary", campaign_id, viewer, knowing)
        return await reads.once(key, lambda: self._glossary(campaign_id, calendar, book))

    async def _glossary(
        self, campaign_id: int, calendar: CampaignCalendar, book: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """Return the campaign's own terms over the plain words its readable books define their terms by
        (`book`), over the shipped ones its calendar (the viewer's) leaves."""
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, campaign_id)
        own = (campaign.settings or {}).get(GLOSSARY_SETTINGS)
        return merged(own if isinstance(own, dict) else None, calendar_words(calendar), book)

    async def _compared(
        self,
        answer: Answer,
        asked: Question,
        *,
        viewer: Viewer,
        config: SearchConfig,
        knowing: Knowing | None,
        reads: Reads,
    ) -> Answer:
        """Search each part of a comparison on its own, at once, and answer both, or leave it to the usual steps."""
        results: list[LoreResult] = list(answer.results)
        seen = {r.chunk_id for r in results}
        search = partial(
            self.retriever.search, viewer=viewer, limit=3, config=config, knowing=knowing, reads=reads
        )
        searches = [search(answer.campaign_id, self._part_text(p, asked), subject=p) for p in asked.parts]
        for found in await asyncio.gather(*searches):
            for result in found.results:
                if result.chunk_id not in seen:
                    seen.add(result.chunk_id)
                    results.append(result)
        compared = comparison(asked, answer.canon_facts, results)
        if compared is None:
            return answer
        return answer.model_copy(update={"results": results, "reply": compared})

    @staticmethod
    def _part_text(part: list[str], asked: Question) -> str:
        """Return what a comparison's part is searched by: its subject's words and the fields asked."""
        return " ".join([*part, *asked.fields])

    async def _record(self, answer: Answer, preset_name: str, asker_id: int | None) -> int:
        """Store an answer for "Why these?" and count the use of its sources; return the record's id."""
        now = utc_now()
        # Urgent: the answer waits for this short insert, and must not queue behind long commands.
        return await self.db.run(
            lambda session: add_retrieval(session, answer, preset=preset_name, asker_id=asker_id, now=now),
            urgent=True,
        )

    async def get_retrieval(
        self, campaign_id: int, retrieval_id: int, *, viewer: Viewer, knowing: Knowing | None = None
    ) -> RetrievalRecord:
        """Return a stored answer for its Sources and the "Why these?" inspector: a player sees no hidden part
        but what their character knows (`knowing`: its passages and its entities' facts)."""
        async with self.db.session() as session:
            record = await load_retrieval(session, campaign_id, retrieval_id)
        if record is None:
            raise NotFound(f"There is no lore answer #{retrieval_id} in this campaign.")
        if viewer == Viewer.GM:
            return record
        trace = record.trace
        visible_facts = entity_facts_seen(viewer, record.canon_facts, knowing)
        # An entity match reads "window → name (score)"; the window is the fact's `matched`.
        windows = {f.matched for f in visible_facts}
        stripped: dict[str, Any] = {
            "candidates": [c for c in trace.candidates if not c.hidden],
            "entity_matches": [m for m in trace.entity_matches if m.split(" → ", 1)[0] in windows],
        }
        if record.viewer == Viewer.GM.value:
            # The GM's search ran over hidden sources too: its typo corrections (in the warnings and the words
            # searched) may be words only they contain, and its source counts include them.
            stripped.update(
                warnings=[],
                lexical_query=None,
                allowed_sources=0,
                blocked_sources=0,
                corrections={},
                unknown_words=[],
                common_words=[],
            )
        return record.model_copy(
            update={
                "results": passages_seen(viewer, record.results, knowing),
                "canon_facts": visible_facts,
                "trace": trace.model_copy(update=stripped),
            }
        )
