"""The retriever: one question through filtering, candidate lists, fusion, rerank and budget (see the package)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign
from canon.forks import LineageStep
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology
from canon.storage import Database
from canon.visibility import Knowing, sections_seen
from memory import fulltext
from memory.embedding import Embedder
from memory.knowledge.disagreements import Policy, mark_disagreements
from memory.knowledge.models import Answer, LoreResult
from memory.knowledge.repository import SourceLite, retrievable, split_lineage_sources
from memory.knowledge.retrieval.asking import as_of_today, misspelt, were_where
from memory.knowledge.retrieval.asking_intent import without_intent
from memory.knowledge.retrieval.assemble import Found, assemble
from memory.knowledge.retrieval.book_terms import BookTerms, readable_digest
from memory.knowledge.retrieval.campaign_reads import CampaignReads
from memory.knowledge.retrieval.candidates import CandidateLists, EntityMatch
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.entities import EntityFinder
from memory.knowledge.retrieval.kept_chunks import KeptChunks
from memory.knowledge.retrieval.question_reads import KeptReads, Reads
from memory.knowledge.retrieval.semantic import SemanticSearch
from memory.knowledge.retrieval.words import TypoFixer, campaigns_of, corrected, scale_words
from memory.knowledge.section_rows import hidden_section_chunks
from memory.vector_index import VectorIndex


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


_Readable = tuple[list[SourceLite], list[SourceLite], dict[int, SourceLite], frozenset[int], frozenset[int]]


class Retriever(CampaignReads):
    """Answers questions from a campaign's knowledge; see `memory.knowledge.retrieval`."""

    def __init__(
        self,
        db: Database,
        *,
        vectors: VectorIndex | None = None,
        embedder: Embedder | None = None,
        ontology_for: Callable[[Campaign], Ontology] | None = None,
    ) -> None:
        self.db = db
        self.vectors = vectors
        self.embedder = embedder
        self.semantic = SemanticSearch(vectors=vectors, embedder=embedder)
        self.entities = EntityFinder(ontology_for)
        self.typos = TypoFixer()
        #: The plain words the books define their terms by, per set of readable versions (`book_terms`).
        self.book_words = BookTerms(db)
        self._campaigns = {}
        #: What questions read that holds until something shown is written (`question_reads`).
        self.kept = KeptReads(db)
        #: The chunks questions' reranks read, kept the same way (`kept_chunks`).
        self.kept_chunks = KeptChunks()

    async def reads(self) -> Reads:
        """Return the reads of a new question: what earlier questions read is used again while nothing shown was
        written since (the content mark is read now, before anything the question reads)."""
        return Reads(mark=await self.kept.mark(), kept=self.kept)

    async def search(
        self,
        campaign_id: int,
        question: str,
        *,
        viewer: Viewer,
        limit: int,
        config: SearchConfig,
        knowing: Knowing | None = None,
        subject: Sequence[str] = (),
        reads: Reads | None = None,
        ahead: Sequence[str] = (),
    ) -> Answer:
        """Return the best passages and canon facts for a question, for one viewer (see `memory.knowledge.retrieval`).

        `subject`: the words naming what a field is asked of ("zombie" in "zombie hp"): a section titled with them
        is preferred (`SearchConfig.title_weight`). `reads`: what the question has read already (`Reads`).
        `ahead`: what the question searches next (a comparison's parts): embedded with this search's words.
        """
        timings: dict[str, float] = {}
        started = time.perf_counter()
        reads = reads if reads is not None else Reads()
        async with self.db.session() as session:
            campaign, steps = await self._campaign(session, campaign_id)
            # A branch: its ancestors' sources up to the fork; the ones imported later are blocked like
            # hidden ones, so they are kept out of the ancestor's vector collection too.
            sources, after_fork, allowed, secret, unseen = await _readable(
                session, campaign_id, steps, viewer, knowing, reads
            )
            blocked = [s for s in sources if s.id not in allowed] + after_fork
            versions: dict[int, tuple[str, str]] = {}
            if config.mode != "lexical":
                versions = await self.semantic.index_versions(session, {s.campaign_id for s in sources})
            timings["sources"] = _ms(started)
            found = await self._candidates(
                session,
                campaign,
                steps,
                question,
                viewer,
                config,
                allowed,
                blocked,
                versions,
                timings,
                knowing,
                unseen,
                (reads, ahead),
            )
            found.secret = secret
            found.chunks = partial(self.kept_chunks.rows, mark=reads.mark)
            await self._for_coverage(session, found, question, config)
            mark = time.perf_counter()
            answer = await assemble(
                session,
                found,
                campaign_id=campaign_id,
                question=question,
                viewer=viewer,
                limit=limit,
                subject=subject,
                config=config,
            )
            marked = await self.entities.mark_superseded(
                session, campaign, steps, viewer, answer.results, knowing=knowing
            )
            marked = mark_disagreements(marked, Policy.of(campaign.settings))
            if marked != answer.results:
                answer = answer.model_copy(update={"results": marked})
            timings["assemble"] = _ms(mark)
        timings["total"] = _ms(started)
        return answer.model_copy(update={"trace": answer.trace.model_copy(update={"timings_ms": timings})})

    async def _candidates(
        self,
        session: AsyncSession,
        campaign: Campaign,
        steps: list[LineageStep],
        question: str,
        viewer: Viewer,
        config: SearchConfig,
        allowed: dict[int, SourceLite],
        blocked: list[SourceLite],
        versions: dict[int, tuple[str, str]],
        timings: dict[str, float],
        knowing: Knowing | None,
        unseen: frozenset[int],
        embedding: tuple[Reads, Sequence[str]],
    ) -> Found:
        """Return the lexical, semantic and entity candidate lists of a question (the semantic one meanwhile): the
        question embedded as corrected, with the texts its next searches embed (`embedding`: its reads, those)."""
        lists = CandidateLists()
        mark = time.perf_counter()
        words = fulltext.query_words(question)
        if config.typo_cutoff and allowed:
            lists.corrections = await self.typos.corrections(session, words, allowed, config, unseen)
            words += [w for w in lists.corrections.values() if w not in words]
        timings["typos"] = _ms(mark)

        semantic_task = await self._semantic(
            session,
            corrected(question, lists.corrections),
            allowed,
            blocked,
            versions,
            config,
            unseen,
            embedding,
        )
        mark = time.perf_counter()
        facts, matches = await self.entities.find(
            session, campaign, steps, question, viewer, config, knowing, embedding[0]
        )
        # A name given as an alias, in part or misspelt is searched by the entity's name too.
        named = [f.entity_name for f in facts] + [m.matched for m in matches]
        words += [w for name in named for w in fulltext.query_words(name) if w not in words]
        timings["entities"] = _ms(mark)
        if config.typo_cutoff and allowed:
            mark = time.perf_counter()
            names = [*named, *(m.window for m in matches)]
            lists.unknown = await self.typos.unknown(
                session, question, lists.corrections, names, allowed, unseen
            )
            timings["unknown_words"] = _ms(mark)

        mark = time.perf_counter()
        if config.mode != "semantic":
            words = await scale_words(session, words, allowed, config, lists, unseen)
            lists.lexical = await fulltext.lexical_search(
                session,
                words,
                list(allowed),
                campaigns=campaigns_of(allowed),
                limit=config.lexical_k,
                heading_weight=config.heading_weight,
                without=sorted(unseen),
            )
        timings["lexical"] = _ms(mark)

        mark = time.perf_counter()
        lists.entity = await _entity_headings(session, matches, allowed, config, unseen)
        timings["entity_headings"] = _ms(mark)

        if semantic_task is not None:
            mark = time.perf_counter()
            lists.semantic, lists.semantic_status = await semantic_task
            timings["semantic_wait"] = _ms(mark)
            if lists.semantic_status.startswith(("failed", "stale", "disabled")):
                lists.warnings.append(f"semantic search unavailable ({lists.semantic_status}): words only")
        return Found(allowed, blocked, words, lists, facts, matches, unseen)

    async def _semantic(
        self,
        session: AsyncSession,
        question: str,
        allowed: dict[int, SourceLite],
        blocked: list[SourceLite],
        versions: dict[int, tuple[str, str]],
        config: SearchConfig,
        unseen: frozenset[int],
        embedding: tuple[Reads, Sequence[str]],
    ) -> asyncio.Task[tuple[list[tuple[int, float, str]], str]] | None:
        """Start the semantic search of a question as corrected (None: words only), embedding with it the texts the
        question searches next, as their own searches correct them."""
        if config.mode == "lexical":
            return None
        later = [await self.typos.fixed(session, text, allowed, config, unseen) for text in embedding[1]]
        search = self.semantic.search(
            question, allowed, blocked, versions, config, embedding[0].vectors, unseen=unseen, ahead=later
        )
        return asyncio.create_task(search)

    async def _for_coverage(
        self, session: AsyncSession, found: Found, question: str, config: SearchConfig
    ) -> None:
        """Give the found candidates what the coverage rerank reads: the question's words and the campaign's."""
        # Coverage is added to fused scores (0..1): rank fusion's tiny scores would be swamped by it.
        if (
            config.coverage_weight > 0
            and config.fusion == "score"
            and config.mode != "semantic"
            and found.allowed
        ):
            found.asked = fulltext.query_words(corrected(question, found.lists.corrections))
            found.vocabulary = await self.typos.words(session, found.allowed, config, found.unseen)

    async def out_of_date(
        self, campaign_id: int, passages: list[LoreResult], *, viewer: Viewer, max_entities: int = 50
    ) -> list[LoreResult]:
        """Return passages with the Canon ones the story has changed marked (a source inspected, not a question)."""
        async with self.db.session() as session:
            campaign, steps = await self._campaign(session, campaign_id)
            return await self.entities.mark_superseded(
                session, campaign, steps, viewer, passages, max_entities=max_entities
            )

    async def respelled(
        self,
        campaign_id: int,
        question: str,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> str:
        """Return the question with its misspelt asking words read right ("marrid" as "married",
        `retrieval.asking`), but for a word of a name or a source the viewer may read ("mary" with a Mary), its
        time words dropped ("where does she live now": canon's answer is today's, `asking.as_of_today`), and the
        asker's character's wish before the deed asked about ("my rogue wants to ...", `asking_intent`)."""
        question = without_intent(as_of_today(were_where(question)))
        found = misspelt(question)
        if not found:
            return question
        async with self.db.session() as session:
            campaign, steps = await self._campaign(session, campaign_id)
            _, _, allowed, _, unseen = await _readable(session, campaign_id, steps, viewer, knowing, reads)
            reader = CanonReader(
                session, steps, self.entities.ontology(campaign), viewer=viewer, knowing=knowing
            )
            named = {
                w for folded in (await self.entities.names(reader, viewer, reads))[0] for w in folded.split()
            }
            for typed in list(found):
                if typed in named or await self.typos.exists(session, typed, allowed, unseen):
                    del found[typed]
        return corrected(question, found)

    async def book_terms(
        self,
        campaign_id: int,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> dict[str, str]:
        """Return {plain words: the book's term} from the definitions in the sources the viewer may read
        (`book_terms`)."""
        async with self.db.session() as session:
            _, steps = await self._campaign(session, campaign_id)
            _, _, allowed, _, unseen = await _readable(session, campaign_id, steps, viewer, knowing, reads)
            return await self.book_words.of(session, allowed, unseen, SearchConfig(), asked_in=campaign_id)

    async def settle_book_terms(self, campaign_id: int, *, rechunked: bool = False) -> None:
        """Make and keep the book glossaries of a campaign's players and GM now (its sources changed), so that
        their questions only read them; drop the ones its sources' older versions made (`book_terms`).
        `rechunked`: its sources were chunked again (the same versions, other passages): made anew."""
        kept: list[str] = []
        async with self.db.session() as session:
            _, steps = await self._campaign(session, campaign_id)
            for viewer in (Viewer.PLAYER, Viewer.GM):
                _, _, allowed, _, unseen = await _readable(session, campaign_id, steps, viewer, None, None)
                await self.book_words.of(
                    session, allowed, unseen, SearchConfig(), asked_in=campaign_id, remake=rechunked
                )
                kept.append(readable_digest(allowed, unseen))
        await self.book_words.drop_others(campaign_id, kept)

    def forget_index_state(self, campaign_id: int) -> None:
        """Drop the cached vector-index state of a campaign (called when its vectors are rebuilt)."""
        self.semantic.forget_index_state(campaign_id)


async def _readable(
    session: AsyncSession,
    campaign_id: int,
    steps: list[LineageStep],
    viewer: Viewer,
    knowing: Knowing | None,
    reads: Reads | None,
) -> _Readable:
    """Return a lineage's sources, those a branch blocks (imported after its fork), those the viewer may read by
    id, the chunks of their GM-only sections, and those of them the viewer may not read (`reads`: read once a
    question)."""
    if reads is not None and (campaign_id, viewer) in reads.readable:
        return reads.readable[campaign_id, viewer]  # type: ignore[no-any-return]

    async def read() -> _Readable:
        sources, after_fork = await split_lineage_sources(session, steps)
        allowed = {s.id: s for s in retrievable(sources, viewer, knowing)}
        # GM-only sections of allowed sources: left out for whoever may not read them, as hidden sources are.
        secret = await hidden_section_chunks(session, [s.id for s in allowed.values() if s.hidden_chunks])
        unseen = frozenset(c for c, s in secret.items() if not sections_seen(viewer, s, knowing))
        return sources, after_fork, allowed, frozenset(secret), unseen

    if reads is None:
        return await read()
    readable = await reads.once(("readable", campaign_id, tuple(steps), viewer, knowing), read)
    reads.readable[campaign_id, viewer] = readable
    return readable


async def _entity_headings(
    session: AsyncSession,
    matches: list[EntityMatch],
    allowed: dict[int, SourceLite],
    config: SearchConfig,
    unseen: frozenset[int],
) -> list[tuple[int, float, str]]:
    """Return the allowed chunks whose headings name an entity the question names."""
    if not (matches and config.entity_k and allowed):
        return []
    return await fulltext.heading_search(
        session,
        [m.matched for m in matches],
        list(allowed),
        campaigns=campaigns_of(allowed),
        limit=config.entity_k,
        without=sorted(unseen),
    )
