"""Hybrid retrieval for `/lore`: lexical + semantic + canon-graph entities, fused, filtered, reranked, budgeted.

One question, step by step (`Retriever.search`):

1. Filter first. The sources the campaign sees (its own and, for a branch, its ancestors') are narrowed to the
   ones this viewer may draw from: enabled, and not hidden unless the viewer is the GM. Every candidate list
   below is restricted to those source ids (inside the SQL for full-text search; by collection and then by id
   for vectors), so nothing filtered out is ever ranked, fused or counted, and no typo is "corrected" towards
   a word only a hidden source contains.
2. Typos. A question word of four letters or more that appears nowhere in the allowed sources and is close to
   a word of their headings (same first letter, rapidfuzz ratio >= `typo_cutoff`) is searched as that word
   too ("Hyra" -> "hydra"), by words and by meaning.
3. Candidates, each list scored on its own:
   - lexical: FTS5 bm25 (headings weighted) or PostgreSQL ts_rank over the question's content words;
   - semantic: cosine similarity of the question to each chunk's best view (`memory.embed_text`) in the
     campaign's vector collection;
   - entity: canon-graph entities named in the question (exact names and aliases on word windows of the
     question, then fuzzy, so typos still match); chunks whose headings carry an entity's name get a bonus,
     and the entities' cards become `canon_facts`.
4. Fusion (`fusion="score"`, the default): each list's scores are divided by its best score, then combined as
   `lexical_weight * lexical + semantic_weight * semantic + entity bonus`; a chunk missing from a list gets that
   list's lowest kept score. This beat reciprocal rank fusion on the SRD dev set (`bench/lore_quality.py`):
   rank fusion throws away how much better the first hit is than the second. `fusion="rrf"` is kept as a
   preset for comparison. Duplicates (the same text in two sources) keep the best copy.
5. Rerank: relevance first, class second: the fused score is multiplied by a class weight close to 1
   (Canon > Reference > Inspiration), so authority breaks near-ties but never lifts an irrelevant passage.
6. Budget: results are taken best first while their class's token budget allows, up to `limit`. Chunks of
   always-include Canon sources come first and are always there within the Canon budget.

Every result keeps its provenance (source, file, class, heading path, chunk id, score, reasons). Inspiration
is labelled as not being fact (`LoreResult.is_fact`).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rapidfuzz import fuzz, process
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign, ChangesetRow, LineageStep, get_campaign, lineage
from canon.domain import EntityCard, Viewer, Visibility
from canon.errors import GameError
from canon.graph import CanonReader, fold
from canon.ontology import Ontology, base_ontology
from canon.storage import Database
from memory import fulltext
from memory.embed_text import VIEWS_VERSION
from memory.embedding import Embedder
from memory.knowledge_domain import (
    Answer,
    Candidate,
    CanonFact,
    KnowledgeClass,
    LoreResult,
    Reason,
    RetrievalTrace,
    VectorStatus,
)
from memory.knowledge_models import KnowledgeChunkRow, KnowledgeIndexStateRow
from memory.knowledge_repo import SourceLite, chunks_by_id, retrievable, split_lineage_sources
from memory.vector_index import VectorHit, VectorIndex

log = logging.getLogger(__name__)

__all__ = ["PRESETS", "Retriever", "SearchConfig", "preset"]

Mode = Literal["hybrid", "lexical", "semantic"]
Fusion = Literal["score", "rrf"]


class SearchConfig(BaseModel):
    """How a question is searched; named presets live in `PRESETS`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "default"
    mode: Mode = "hybrid"
    fusion: Fusion = "score"
    #: Candidates taken from each list before fusion.
    lexical_k: int = Field(default=50, ge=1, le=500)
    semantic_k: int = Field(default=50, ge=1, le=500)
    entity_k: int = Field(default=10, ge=0, le=100)
    #: bm25() weight of the heading column against the text column (PostgreSQL: ts_rank A against B).
    heading_weight: float = Field(default=2.0, gt=0)
    #: Score fusion: weights of the max-normalised lists (lexical + semantic = 1 keeps scores in 0..1).
    lexical_weight: float = Field(default=0.4, ge=0)
    semantic_weight: float = Field(default=0.6, ge=0)
    #: Added to a chunk whose headings name a canon entity named in the question (divided by its rank).
    entity_weight: float = Field(default=0.25, ge=0)
    #: Reciprocal rank fusion (fusion="rrf"): score = sum(weight / (rrf_k + rank)).
    rrf_k: float = Field(default=60.0, gt=0)
    #: Relevance first, class second: multipliers close to 1.
    class_weights: dict[KnowledgeClass, float] = Field(
        default_factory=lambda: {
            KnowledgeClass.CANON: 1.0,
            KnowledgeClass.REFERENCE: 0.97,
            KnowledgeClass.INSPIRATION: 0.9,
        }
    )
    #: Tokens of passages per class in one answer.
    budgets: dict[KnowledgeClass, int] = Field(
        default_factory=lambda: {
            KnowledgeClass.CANON: 2400,
            KnowledgeClass.REFERENCE: 2400,
            KnowledgeClass.INSPIRATION: 800,
        }
    )
    #: Large campaigns: above this many chunks, words are searched by their rarest few only (see module doc).
    large_campaign_chunks: int = Field(default=20_000, ge=1)
    #: ...a word in more than this share of the chunks is left to the semantic search...
    common_word_share: float = Field(default=0.01, gt=0, le=1)
    #: ...and at most this many of the rarer words are searched.
    large_campaign_words: int = Field(default=3, ge=1)
    #: Typo tolerance: question words close to a heading word are searched as that word too (0 = off).
    typo_cutoff: float = Field(default=85.0, ge=0, le=100)
    #: Canon-graph entities named in a question: how many cards, and the fuzzy cut-off (0-100).
    max_entities: int = Field(default=3, ge=0, le=10)
    fuzzy_cutoff: float = Field(default=88.0, ge=50, le=100)
    max_facts_per_entity: int = Field(default=12, ge=1, le=50)

    def budget(self, knowledge_class: KnowledgeClass) -> int:
        """Return the token budget of a class."""
        return self.budgets.get(knowledge_class, 0)


PRESETS: dict[str, SearchConfig] = {
    "default": SearchConfig(),
    "lexical": SearchConfig(name="lexical", mode="lexical"),
    "semantic": SearchConfig(name="semantic", mode="semantic"),
    "rrf": SearchConfig(name="rrf", fusion="rrf", lexical_weight=1.0, semantic_weight=1.0, entity_weight=1.0),
    # Context assembly for narration: more candidates, a bigger budget.
    "context": SearchConfig(
        name="context",
        lexical_k=80,
        semantic_k=80,
        budgets={
            KnowledgeClass.CANON: 4000,
            KnowledgeClass.REFERENCE: 3000,
            KnowledgeClass.INSPIRATION: 1000,
        },
    ),
}


def preset(name: str) -> SearchConfig:
    """Return a named search preset, or raise `KeyError` listing the names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown search preset {name!r}; presets: {', '.join(PRESETS)}") from None


class _EntityMatch(BaseModel):
    model_config = ConfigDict(frozen=True)

    entity_id: int
    matched: str
    window: str
    score: float


class _Lists(BaseModel):
    """The scored candidate lists of one question (chunk id, score; best first) and what happened."""

    lexical: list[tuple[int, float]] = Field(default_factory=list)
    semantic: list[tuple[int, float, str]] = Field(default_factory=list)
    entity: list[tuple[int, float, str]] = Field(default_factory=list)
    semantic_status: str = "off"
    corrections: dict[str, str] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)


_WORD = re.compile(r"[^\W\d_]+")
_ARTICLES = frozenset({"the", "a", "an"})
_VOCAB_CACHE = 8
_NAMES_CACHE = 16
# Up to this many times the vectors a search wants, blocked vectors are over-fetched rather than filtered out.
_OVERFETCH_VECTORS = 4
# How long the vector-index state of a campaign is trusted (this process forgets it at once when it writes it).
_STATE_TTL = 10.0
# A campaign's settings (its ontology) and lineage are re-read after this many seconds (a rebase in another
# process moves a lineage; in this one, `forget_campaign` drops it at once).
_CAMPAIGN_TTL = 30.0


def _windows(question: str, longest: int = 6) -> list[str]:
    """Return the word windows of a question (1 to `longest` words) that do not start or end on a stopword."""
    words = [w.strip('.,;:!?"()[]') for w in question.replace("’", "'").split()]
    words = [w[:-2] if w.lower().endswith("'s") else w for w in words if w]
    found: list[str] = []
    for size in range(min(longest, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            window = words[start : start + size]
            if fold(window[0]) in fulltext.STOPWORDS or fold(window[-1]) in fulltext.STOPWORDS:
                continue
            found.append(" ".join(window))
    return list(dict.fromkeys(found))


def _card_facts(card: EntityCard, limit: int) -> list[str]:
    facts: list[str] = []
    if card.state is not None:
        facts.append(card.state.sentence())
    facts += [view.sentence() for view in card.facts]
    facts += [view.sentence() for view in card.relations]
    return list(dict.fromkeys(facts))[:limit]


def _normalised(scores: dict[int, float]) -> tuple[dict[int, float], float]:
    """Return scores divided by the best one, and the lowest normalised score (what a missing chunk gets)."""
    if not scores:
        return {}, 0.0
    top = max(scores.values())
    if top <= 0:
        return {cid: 0.0 for cid in scores}, 0.0
    normal = {cid: max(score, 0.0) / top for cid, score in scores.items()}
    return normal, min(normal.values())


class Retriever:
    """Answers questions from a campaign's knowledge; see the module docstring."""

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
        self.ontology_for = ontology_for
        self._base_ontology: Ontology | None = None
        self._vocabularies: OrderedDict[tuple[tuple[int, int], ...], list[str]] = OrderedDict()
        self._campaigns: dict[int, tuple[float, Campaign, list[LineageStep]]] = {}
        self._index_state: dict[int, tuple[float, tuple[str, str]]] = {}
        self._names_cache: OrderedDict[
            tuple[tuple[int, ...], str, int], tuple[dict[str, tuple[str, int]], list[str]]
        ] = OrderedDict()

    def _ontology(self, campaign: Campaign) -> Ontology:
        if self.ontology_for is not None:
            return self.ontology_for(campaign)
        if self._base_ontology is None:
            self._base_ontology = base_ontology()
        extension = campaign.settings.get("ontology")
        return self._base_ontology.extended(extension) if extension else self._base_ontology

    async def search(
        self, campaign_id: int, question: str, *, viewer: Viewer, limit: int, config: SearchConfig
    ) -> Answer:
        """Return the best passages and canon facts for a question, for one viewer (see the module docstring)."""
        timings: dict[str, float] = {}
        started = time.perf_counter()
        # The query embedding (the slowest step) starts first and runs while the database is asked.
        embedding: asyncio.Task[list[float]] | None = None
        if config.mode != "lexical" and self.embedder is not None and self.vectors is not None:
            embedding = asyncio.create_task(asyncio.to_thread(self.embedder.embed_query, question))
            # Whoever ends up not needing it (a lexical-only campaign, an error) leaves it unread: mark it read.
            embedding.add_done_callback(_consume)
        async with self.db.session() as session:
            campaign, steps = await self._campaign(session, campaign_id)
            # A branch: its ancestors' sources up to the fork; the ones imported later are blocked like
            # hidden ones, so they are kept out of the ancestor's vector collection too.
            sources, after_fork = await split_lineage_sources(session, steps)
            allowed = {s.id: s for s in retrievable(sources, viewer)}
            blocked = [s for s in sources if s.id not in allowed] + after_fork
            versions: dict[int, tuple[str, str]] = {}
            if config.mode != "lexical":
                versions = await self._index_versions(session, {s.campaign_id for s in sources})
            timings["sources"] = _ms(started)

            lists = _Lists()
            mark = time.perf_counter()
            words = fulltext.query_words(question)
            if config.typo_cutoff and allowed:
                lists.corrections = await self._corrections(session, words, allowed, config)
                words += [w for w in lists.corrections.values() if w not in words]
            timings["typos"] = _ms(mark)

            semantic_task: asyncio.Task[tuple[list[tuple[int, float, str]], str]] | None = None
            if config.mode != "lexical":
                if lists.corrections and embedding is not None:  # embed the corrected question instead
                    embedding.cancel()
                    embedding = None
                semantic_task = asyncio.create_task(
                    self._semantic(
                        _corrected(question, lists.corrections), allowed, blocked, versions, config, embedding
                    )
                )
            mark = time.perf_counter()
            if config.mode != "semantic":
                words = await self._scale_words(session, words, allowed, config, lists)
                lists.lexical = await fulltext.lexical_search(
                    session,
                    words,
                    list(allowed),
                    campaigns=_campaigns_of(allowed),
                    limit=config.lexical_k,
                    heading_weight=config.heading_weight,
                )
            timings["lexical"] = _ms(mark)

            mark = time.perf_counter()
            facts, matches = await self._entities(session, campaign, steps, question, viewer, config)
            if matches and config.entity_k and allowed:
                names = [m.matched for m in matches]
                lists.entity = await fulltext.heading_search(
                    session, names, list(allowed), campaigns=_campaigns_of(allowed), limit=config.entity_k
                )
            timings["entities"] = _ms(mark)

            if semantic_task is not None:
                mark = time.perf_counter()
                lists.semantic, lists.semantic_status = await semantic_task
                timings["semantic_wait"] = _ms(mark)
                if lists.semantic_status.startswith(("failed", "stale", "disabled")):
                    lists.warnings.append(
                        f"semantic search unavailable ({lists.semantic_status}): words only"
                    )

            mark = time.perf_counter()
            answer = await self._assemble(
                session,
                campaign_id,
                question,
                viewer,
                limit,
                config,
                allowed,
                blocked,
                words,
                lists,
                facts,
                matches,
            )
            timings["assemble"] = _ms(mark)
        timings["total"] = _ms(started)
        return answer.model_copy(update={"trace": answer.trace.model_copy(update={"timings_ms": timings})})

    def forget_index_state(self, campaign_id: int) -> None:
        """Drop the cached vector-index state of a campaign (called when its vectors are rebuilt)."""
        self._index_state.pop(campaign_id, None)

    async def _index_versions(self, session: AsyncSession, campaigns: set[int]) -> dict[int, tuple[str, str]]:
        """Return (model version, views version) of each campaign's vectors, cached for a few seconds."""
        now = time.monotonic()
        fresh = {c: v for c, (at, v) in self._index_state.items() if c in campaigns and now - at < _STATE_TTL}
        missing = campaigns - fresh.keys()
        if missing:
            t = KnowledgeIndexStateRow
            rows = await session.execute(
                select(t.campaign_id, t.embedding_model_version, t.embedding_views).where(
                    t.campaign_id.in_(missing)
                )
            )
            for cid, version, views in rows.all():
                fresh[cid] = (version, views)
                self._index_state[cid] = (now, (version, views))
        return {c: v for c, v in fresh.items() if v is not None}

    # -- large campaigns ---------------------------------------------------------------------------

    async def _scale_words(
        self,
        session: AsyncSession,
        words: list[str],
        allowed: dict[int, SourceLite],
        config: SearchConfig,
        lists: _Lists,
    ) -> list[str]:
        """Return the words to search by: all of them, or in a large campaign its rarest few.

        bm25 scores every chunk that has any query word: a word found in a quarter of 100,000 chunks costs
        hundreds of milliseconds and adds almost nothing to the ranking (its idf is tiny). In a large campaign
        the words found in more than `common_word_share` of the chunks are left to the semantic search.
        """
        chunks = sum(s.chunk_count for s in allowed.values())
        if chunks <= config.large_campaign_chunks or not words:
            return words
        cap = max(500, int(chunks * config.common_word_share))
        counts = await fulltext.document_frequencies(
            session, words, list(allowed), campaigns=_campaigns_of(allowed), cap=cap
        )
        # A word in no chunk would only take the place of one that matches.
        rare = sorted((w for w in words if 0 < counts[w] <= cap), key=lambda w: counts[w])
        kept = [w for w in words if w in set(rare[: config.large_campaign_words])]
        if kept != words:
            lists.warnings.append(
                f"large campaign: searched by the rarer words {', '.join(kept) or '(none)'}; common words by meaning"
            )
        return kept

    # -- typos -------------------------------------------------------------------------------------

    async def _vocabulary(self, session: AsyncSession, allowed: dict[int, SourceLite]) -> list[str]:
        """Return the heading words of the allowed sources (cached per set of source versions)."""
        key = tuple(sorted((s.id, s.version) for s in allowed.values()))
        cached = self._vocabularies.get(key)
        if cached is not None:
            self._vocabularies.move_to_end(key)
            return cached
        words: set[str] = set()
        ids = list(allowed)
        for start in range(0, len(ids), 500):
            rows = await session.execute(
                select(KnowledgeChunkRow.heading_text).where(
                    KnowledgeChunkRow.source_id.in_(ids[start : start + 500])
                )
            )
            for (text,) in rows.all():
                words.update(
                    w for w in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()) if len(w) >= 4
                )
        vocabulary = sorted(words)
        self._vocabularies[key] = vocabulary
        while len(self._vocabularies) > _VOCAB_CACHE:
            self._vocabularies.popitem(last=False)
        return vocabulary

    async def _corrections(
        self,
        session: AsyncSession,
        words: Sequence[str],
        allowed: dict[int, SourceLite],
        config: SearchConfig,
    ) -> dict[str, str]:
        """Return {misspelt word: heading word} for question words found nowhere in the allowed sources."""
        candidates = [w for w in words if len(w) >= 4 and w.isalpha()]
        if not candidates:
            return {}
        vocabulary = await self._vocabulary(session, allowed)
        known = set(vocabulary)
        fixes: dict[str, str] = {}
        for word in candidates:
            if word in known:
                continue
            pool = [v for v in vocabulary if v[0] == word[0] and abs(len(v) - len(word)) <= 3]
            if not pool:
                continue
            found = process.extractOne(word, pool, scorer=fuzz.ratio, score_cutoff=config.typo_cutoff)
            if found is None:
                continue
            if await fulltext.word_exists(session, word, list(allowed), campaigns=_campaigns_of(allowed)):
                continue  # a real word of these sources, only not in a heading
            fixes[word] = found[0]
        return fixes

    # -- semantic ----------------------------------------------------------------------------------

    async def _semantic(
        self,
        question: str,
        allowed: dict[int, SourceLite],
        blocked: Sequence[SourceLite],
        versions: dict[int, tuple[str, str]],
        config: SearchConfig,
        embedding: asyncio.Task[list[float]] | None = None,
    ) -> tuple[list[tuple[int, float, str]], str]:
        """Return (chunk id, similarity, view) of the nearest allowed chunks, best first, and a status word."""
        if self.vectors is None or self.embedder is None:
            return [], "disabled"
        if not allowed:
            if embedding is not None:
                embedding.cancel()
            return [], "empty"
        embedder, vectors = self.embedder, self.vectors
        try:
            current = (embedder.model_version, VIEWS_VERSION)
        except Exception as error:  # model files missing: lexical only
            return [], f"failed: {error}"
        campaigns = sorted({s.campaign_id for s in allowed.values()})
        stale = [c for c in campaigns if c in versions and versions[c] != current]
        usable = [c for c in campaigns if versions.get(c) == current]
        if not usable:
            return [], "stale (run reindex)" if stale else "empty"
        # Two views per chunk: fetch twice as many vectors to keep `semantic_k` chunks.
        wanted = 2 * config.semantic_k
        try:
            raw = (
                await embedding
                if embedding is not None
                else await asyncio.to_thread(embedder.embed_query, question)
            )
            vector = np.asarray(raw, dtype=np.float32)
            hits: list[VectorHit] = []
            for campaign_id in usable:
                own_blocked = [s for s in blocked if s.campaign_id == campaign_id]
                hits += await _nearest(vectors, campaign_id, vector.tolist(), wanted, own_blocked, allowed)
        except Exception as error:  # semantic search is an extra: never fail the answer
            log.warning("semantic search failed: %s", error)
            return [], f"failed: {error}"
        # Filtered again here: the vector index only suggests, the database decides what may be seen.
        best: dict[int, tuple[float, str]] = {}
        for hit in hits:
            if hit.source_id not in allowed:
                continue
            similarity = 1.0 - hit.distance
            if hit.chunk_id not in best or best[hit.chunk_id][0] < similarity:
                best[hit.chunk_id] = (similarity, hit.view)
        ranked = sorted(best.items(), key=lambda item: -item[1][0])[: config.semantic_k]
        status = "ok" if not stale else "partly stale (run reindex)"
        return [(cid, sim, view) for cid, (sim, view) in ranked], status

    # -- canon graph -------------------------------------------------------------------------------

    def forget_campaign(self, campaign_id: int) -> None:
        """Drop a campaign's cached lineage (a rebase moved its fork point)."""
        self._campaigns.pop(campaign_id, None)

    async def _campaign(self, session: AsyncSession, campaign_id: int) -> tuple[Campaign, list[LineageStep]]:
        """Return a campaign and its lineage (a lineage never changes; the campaign is re-read after a while)."""
        cached = self._campaigns.get(campaign_id)
        if cached is not None and time.monotonic() - cached[0] < _CAMPAIGN_TTL:
            return cached[1], cached[2]
        campaign = await get_campaign(session, campaign_id)
        steps = await lineage(session, campaign_id)
        self._campaigns[campaign_id] = (time.monotonic(), campaign, steps)
        return campaign, steps

    async def _names(
        self, reader: CanonReader, viewer: Viewer
    ) -> tuple[dict[str, tuple[str, int]], list[str]]:
        """Return the entity names and aliases the viewer may see, folded, cached until canon changes."""
        campaigns = [step.campaign_id for step in reader.steps]
        stamp = await reader.session.scalar(
            select(func.max(ChangesetRow.id)).where(ChangesetRow.campaign_id.in_(campaigns))
        )
        if stamp is None:  # no canon written in this lineage yet
            return {}, []
        key = (tuple(campaigns), viewer.value, int(stamp))
        cached = self._names_cache.get(key)
        if cached is not None:
            return cached
        folded_names: dict[str, tuple[str, int]] = {}
        for name, entity_id in await reader.names():
            folded = fold(name)
            folded_names.setdefault(folded, (name, entity_id))
            # "the Harbor Hawk" is also named "Harbor Hawk" (question windows never start on a stopword).
            first, _, rest = folded.partition(" ")
            if rest and first in _ARTICLES:
                folded_names.setdefault(rest, (name, entity_id))
        value = (folded_names, list(folded_names))
        self._names_cache[key] = value
        while len(self._names_cache) > _NAMES_CACHE:
            self._names_cache.popitem(last=False)
        return value

    async def _entities(
        self,
        session: AsyncSession,
        campaign: Campaign,
        steps: Sequence[LineageStep],
        question: str,
        viewer: Viewer,
        config: SearchConfig,
    ) -> tuple[list[CanonFact], list[_EntityMatch]]:
        """Return the cards of canon entities named in the question (exact, then fuzzy on word windows)."""
        if config.max_entities == 0:
            return [], []
        reader = CanonReader(session, steps, self._ontology(campaign), viewer=viewer)
        folded_names, choices = await self._names(reader, viewer)
        if not folded_names:
            return [], []
        best: dict[int, _EntityMatch] = {}
        covered: list[str] = []
        for window in _windows(question):
            key = fold(window)
            if any(key in longer for longer in covered):
                continue  # "Red Dragon" inside an already matched "Adult Red Dragon"
            match: tuple[str, float] | None = None
            if key in folded_names:
                match = (key, 100.0)
            elif len(key) >= 4:
                found = process.extractOne(key, choices, scorer=fuzz.ratio, score_cutoff=config.fuzzy_cutoff)
                if found is not None:
                    match = (found[0], float(found[1]))
            if match is None:
                continue
            name, entity_id = folded_names[match[0]]
            covered.append(key)
            score = match[1] + len(key) / 100  # longer matches first among equals
            if entity_id not in best or best[entity_id].score < score:
                best[entity_id] = _EntityMatch(entity_id=entity_id, matched=name, window=window, score=score)
        ranked = sorted(best.values(), key=lambda m: -m.score)[: config.max_entities]
        facts: list[CanonFact] = []
        for m in ranked:
            try:
                card = await reader.card(m.entity_id)
            except GameError:  # an entity retconned or hidden meanwhile: no card
                log.debug("no card for entity #%s", m.entity_id)
                continue
            entity = card.entity
            facts.append(
                CanonFact(
                    entity_id=entity.id,
                    entity_name=entity.name,
                    entity_type=entity.type,
                    matched=m.window,
                    match_score=round(min(m.score, 100.0), 1),
                    hidden=entity.visibility == Visibility.GM_ONLY,
                    description=entity.description,
                    facts=_card_facts(card, config.max_facts_per_entity),
                    score=round(min(m.score, 100.0) / 100, 4),
                )
            )
        names = {f.entity_id for f in facts}
        return facts, [m for m in ranked if m.entity_id in names]

    # -- fusion, rerank, budget --------------------------------------------------------------------

    def _fuse(self, lists: _Lists, config: SearchConfig) -> tuple[dict[int, float], dict[int, list[Reason]]]:
        """Return each candidate's fused relevance and the reasons it was found."""
        fused: dict[int, float] = {}
        reasons: dict[int, list[Reason]] = {}
        lexical = {cid: score for cid, score in lists.lexical}
        semantic = {cid: score for cid, score, _ in lists.semantic}
        for rank, (cid, score) in enumerate(lists.lexical, 1):
            reasons.setdefault(cid, []).append(Reason(kind="lexical", rank=rank, score=round(score, 4)))
        for rank, (cid, score, view) in enumerate(lists.semantic, 1):
            detail = "title" if view == "t" else None
            reasons.setdefault(cid, []).append(
                Reason(kind="semantic", rank=rank, score=round(score, 4), detail=detail)
            )
        for rank, (cid, score, name) in enumerate(lists.entity, 1):
            reasons.setdefault(cid, []).append(
                Reason(kind="entity", rank=rank, score=round(score, 4), detail=f"heading names {name}")
            )
        candidates = set(lexical) | set(semantic) | {cid for cid, _, _ in lists.entity}
        if config.fusion == "rrf":
            for rank, (cid, _) in enumerate(lists.lexical, 1):
                fused[cid] = fused.get(cid, 0.0) + config.lexical_weight / (config.rrf_k + rank)
            for rank, (cid, _, _) in enumerate(lists.semantic, 1):
                fused[cid] = fused.get(cid, 0.0) + config.semantic_weight / (config.rrf_k + rank)
            for rank, (cid, _, _) in enumerate(lists.entity, 1):
                fused[cid] = fused.get(cid, 0.0) + config.entity_weight / (config.rrf_k + rank)
            return fused, reasons
        lex_norm, lex_floor = _normalised(lexical)
        sem_norm, sem_floor = _normalised(semantic)
        for cid in candidates:
            score = 0.0
            if lex_norm:
                score += config.lexical_weight * lex_norm.get(cid, lex_floor)
            if sem_norm:
                score += config.semantic_weight * sem_norm.get(cid, sem_floor)
            fused[cid] = score
        for rank, (cid, _, _) in enumerate(lists.entity, 1):
            fused[cid] = fused.get(cid, 0.0) + config.entity_weight / rank
        return fused, reasons

    async def _assemble(
        self,
        session: AsyncSession,
        campaign_id: int,
        question: str,
        viewer: Viewer,
        limit: int,
        config: SearchConfig,
        allowed: dict[int, SourceLite],
        blocked: Sequence[SourceLite],
        words: Sequence[str],
        lists: _Lists,
        facts: list[CanonFact],
        matches: Sequence[_EntityMatch],
    ) -> Answer:
        fused, reasons = self._fuse(lists, config)
        always_sources = [
            s.id for s in allowed.values() if s.always_include and s.knowledge_class == KnowledgeClass.CANON
        ]
        always_ids: list[int] = []
        if always_sources:
            always_ids = list(
                (
                    await session.execute(
                        select(KnowledgeChunkRow.id)
                        .where(KnowledgeChunkRow.source_id.in_(always_sources))
                        .order_by(KnowledgeChunkRow.source_id, KnowledgeChunkRow.chunk_index)
                    )
                ).scalars()
            )
        ordered_ids = sorted(fused, key=lambda cid: (-fused[cid], cid))
        # Load only what can be shown or traced: the best candidates (and the always-include chunks).
        wanted = ordered_ids[: max(60, limit * 6)]
        rows = await chunks_by_id(session, wanted + always_ids)
        # A chunk may have gone (a vector left behind by a failed delete) or belong to a source not allowed.
        rows = {cid: row for cid, row in rows.items() if row.source_id in allowed}

        def final(chunk_id: int) -> float:
            cls = allowed[rows[chunk_id].source_id].knowledge_class
            return fused.get(chunk_id, 0.0) * config.class_weights.get(cls, 1.0)

        ordered = sorted((cid for cid in wanted if cid in rows), key=lambda cid: (-final(cid), cid))
        used = dict.fromkeys(KnowledgeClass, 0)
        chosen: list[int] = []
        chosen_set: set[int] = set()
        dropped: dict[int, str] = {}
        seen_hashes: set[str] = set()
        always_chosen: list[int] = []
        for cid in always_ids:
            if cid not in rows:
                continue
            row = rows[cid]
            if used[KnowledgeClass.CANON] + row.token_count > config.budget(KnowledgeClass.CANON):
                dropped[cid] = "always-include over the Canon budget"
                continue
            used[KnowledgeClass.CANON] += row.token_count
            always_chosen.append(cid)
            chosen_set.add(cid)
            seen_hashes.add(row.content_hash)
        for cid in ordered:
            if cid in chosen_set:
                continue
            row = rows[cid]
            cls = allowed[row.source_id].knowledge_class
            if row.content_hash in seen_hashes:
                dropped[cid] = "duplicate text"
                continue
            if len(chosen) >= limit:
                dropped[cid] = "below the limit"
                continue
            if used[cls] + row.token_count > config.budget(cls):
                dropped[cid] = f"over the {cls.label} budget"
                continue
            used[cls] += row.token_count
            chosen.append(cid)
            chosen_set.add(cid)
            seen_hashes.add(row.content_hash)

        def result(cid: int, *, always: bool) -> LoreResult:
            row = rows[cid]
            source = allowed[row.source_id]
            why = list(reasons.get(cid, []))
            if always:
                why.insert(0, Reason(kind="always_include", detail="always-include Canon"))
            return LoreResult(
                chunk_id=cid,
                source_id=source.id,
                source_title=source.title,
                filename=source.filename,
                knowledge_class=source.knowledge_class,
                heading_path=list(row.heading_path or []),
                text=row.text,
                token_count=row.token_count,
                score=round(final(cid), 6),
                reasons=why,
                hidden=source.hidden,
                always_include=always,
            )

        results = [result(cid, always=True) for cid in always_chosen]
        results += [result(cid, always=False) for cid in chosen]
        candidates = [
            Candidate(
                chunk_id=cid,
                source_id=rows[cid].source_id,
                heading=" › ".join(rows[cid].heading_path or []),
                fused=round(fused.get(cid, 0.0), 6),
                final=round(final(cid), 6),
                reasons=reasons.get(cid, []),
                chosen=cid in chosen_set,
                dropped_because=dropped.get(cid),
                hidden=allowed[rows[cid].source_id].hidden,
            )
            for cid in ordered[: max(20, limit * 3)]
        ]
        without_vectors = [
            s
            for s in allowed.values()
            if s.vector_status not in (VectorStatus.INDEXED, VectorStatus.DISABLED)
        ]
        warnings = list(lists.warnings)
        if without_vectors and config.mode != "lexical" and lists.semantic_status == "ok":
            warnings.append(f"{len(without_vectors)} source(s) have no vectors yet (found by words only)")
        if lists.corrections:
            warnings.append(
                "searched also for " + ", ".join(f"“{b}” (for “{a}”)" for a, b in lists.corrections.items())
            )
        trace = RetrievalTrace(
            preset=config.name,
            mode=config.mode,
            lexical_query=" OR ".join(words) if config.mode != "semantic" else None,
            lexical_candidates=len(lists.lexical),
            semantic_candidates=len(lists.semantic),
            semantic_status=lists.semantic_status if config.mode != "lexical" else "off",
            entity_matches=[f"{m.window} → {m.matched} ({min(m.score, 100.0):.0f})" for m in matches],
            allowed_sources=len(allowed),
            blocked_sources=len(blocked),
            candidates=candidates,
            budgets={cls.value: config.budget(cls) for cls in KnowledgeClass},
            used_tokens={cls.value: used[cls] for cls in KnowledgeClass},
            timings_ms={},
            warnings=warnings,
        )
        return Answer(
            campaign_id=campaign_id,
            question=question,
            viewer=viewer.value,
            results=results,
            canon_facts=facts,
            trace=trace,
        )


async def _nearest(
    vectors: VectorIndex,
    campaign_id: int,
    vector: list[float],
    wanted: int,
    blocked: Sequence[SourceLite],
    allowed: dict[int, SourceLite],
) -> list[VectorHit]:
    """Return a campaign's nearest vectors, holding its `wanted` nearest allowed ones (or all it has).

    Vectors of blocked sources (hidden from this viewer, disabled, imported after a branch's fork) are kept out
    without a metadata filter when possible: in a large collection a filter costs many times the search itself
    (notes/offline-models.md). With few blocked vectors, over-fetching by their number is exact. With more, one
    search twice as deep nearly always holds enough allowed vectors (a hidden source is a small share of a
    campaign); only when it does not (a question about the hidden material itself) is the filtered search run.
    """
    blocked_vectors = 2 * sum(s.chunk_count for s in blocked)
    if blocked_vectors <= _OVERFETCH_VECTORS * wanted:
        return await vectors.query(campaign_id, vector, limit=wanted + blocked_vectors)
    deeper = 2 * wanted
    found = await vectors.query(campaign_id, vector, limit=deeper)
    # Enough: the wanted number, or every vector the allowed sources have when they have fewer.
    enough = min(wanted, 2 * sum(s.chunk_count for s in allowed.values() if s.campaign_id == campaign_id))
    if len(found) < deeper or sum(1 for hit in found if hit.source_id in allowed) >= enough:
        return found
    return await vectors.query(campaign_id, vector, limit=wanted, exclude_sources=[s.id for s in blocked])


def _campaigns_of(allowed: dict[int, SourceLite]) -> list[int]:
    """Return the campaigns owning the allowed sources (the scope of a full-text query)."""
    return sorted({s.campaign_id for s in allowed.values()})


def _consume(task: asyncio.Task[list[float]]) -> None:
    if not task.cancelled():
        task.exception()


def _corrected(question: str, corrections: dict[str, str]) -> str:
    """Return the question with misspelt words replaced (for the embedding)."""
    for wrong, right in corrections.items():
        question = re.sub(rf"(?i)\b{re.escape(wrong)}\b", right, question)
    return question


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
