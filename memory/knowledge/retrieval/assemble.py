"""From fused candidates to an answer: rerank by class, choose within the budgets, keep the trace.

Rerank: relevance first, class second: the fused score is multiplied by a class weight close to 1 (Canon >
Reference > Inspiration), so authority breaks near-ties but never lifts an irrelevant passage. The chunks of
GM-only sections the asker may not read (`Found.unseen`) are never loaded, as a hidden source's are not. Budget: results are
taken best first while their class's token budget allows, up to `limit`. Chunks of always-include Canon sources
come first and are always there within the Canon budget. Duplicates (the same text in two sources) keep the best
copy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from canon.models import Viewer
from canon.visibility import passage_hidden
from canon.wording.counts import counted
from memory.knowledge.models import (
    Answer,
    Candidate,
    CanonFact,
    KnowledgeClass,
    LoreResult,
    Reason,
    RetrievalTrace,
)
from memory.knowledge.repository import ChunkLite, SourceLite, chunk_ids_of, chunks_by_id
from memory.knowledge.retrieval.candidates import CandidateLists, EntityMatch, fuse, reasons_of
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.coverage import Coverage
from memory.knowledge.retrieval.titles import title_fit
from memory.knowledge.retrieval.vocabulary import Vocabulary
from memory.knowledge.source_models import VectorStatus


@dataclass(slots=True)
class Found:
    """What the search of one question found, before the answer is assembled."""

    allowed: dict[int, SourceLite]
    blocked: list[SourceLite]
    words: list[str]
    lists: CandidateLists
    facts: list[CanonFact]
    matches: list[EntityMatch]
    #: Chunks of GM-only sections of allowed sources the asker may not read (never candidates).
    unseen: frozenset[int] = frozenset()
    #: Every chunk of a GM-only section among the allowed sources (a passage of one is marked hidden).
    secret: frozenset[int] = frozenset()
    #: The question's content words as searched (typos corrected), and the campaign's words (None: too large).
    asked: list[str] = field(default_factory=list)
    vocabulary: Vocabulary | None = None
    #: Reads chunks by id (`chunks_by_id`, or the retriever's kept ones: `kept_chunks`).
    chunks: Callable[[AsyncSession, Sequence[int]], Awaitable[dict[int, ChunkLite]]] = chunks_by_id


@dataclass(slots=True)
class _Ranked:
    """The candidates that can be shown (their chunks loaded), with their scores and reasons."""

    fused: dict[int, float]
    reasons: dict[int, list[Reason]]
    rows: dict[int, ChunkLite]
    allowed: dict[int, SourceLite]
    class_weights: dict[KnowledgeClass, float]
    secret: frozenset[int] = frozenset()

    def source(self, chunk_id: int) -> SourceLite:
        """Return the source of a loaded candidate."""
        return self.allowed[self.rows[chunk_id].source_id]

    def hidden(self, chunk_id: int) -> bool:
        """Return whether a loaded candidate is hidden from players (its source, or its GM-only section)."""
        return passage_hidden(self.source(chunk_id).hidden, chunk_id in self.secret)

    def final(self, chunk_id: int) -> float:
        """Return a candidate's fused relevance weighted by its class."""
        cls = self.source(chunk_id).knowledge_class
        return self.fused.get(chunk_id, 0.0) * self.class_weights.get(cls, 1.0)


@dataclass(slots=True)
class _Choice:
    """Which candidates an answer shows, and why the others were left out."""

    always: list[int] = field(default_factory=list)
    chosen: list[int] = field(default_factory=list)
    taken: set[int] = field(default_factory=set)
    dropped: dict[int, str] = field(default_factory=dict)
    used: dict[KnowledgeClass, int] = field(default_factory=lambda: dict.fromkeys(KnowledgeClass, 0))


async def assemble(
    session: AsyncSession,
    found: Found,
    *,
    campaign_id: int,
    question: str,
    viewer: Viewer,
    limit: int,
    config: SearchConfig,
    subject: Sequence[str] = (),
) -> Answer:
    """Return the answer: the chosen passages with their provenance, the canon facts, and the trace."""
    fused = fuse(found.lists, config)
    always_sources = [
        s.id for s in found.allowed.values() if s.always_include and s.knowledge_class == KnowledgeClass.CANON
    ]
    always_ids = await chunk_ids_of(session, always_sources) if always_sources else []
    always_ids = [cid for cid in always_ids if cid not in found.unseen]
    ordered_ids = sorted(
        (cid for cid in fused if cid not in found.unseen), key=lambda cid: (-fused[cid], cid)
    )
    # Load only what can be shown or traced: the best candidates (and the always-include chunks).
    wanted = ordered_ids[: max(60, limit * 6)]
    # Reasons only for what an answer can show or trace (the others are never read).
    reasons = reasons_of(found.lists, {*wanted, *always_ids})
    rows = await found.chunks(session, wanted + always_ids)
    # A chunk may have gone (a vector left behind by a failed delete) or belong to a source not allowed.
    rows = {
        cid: row for cid, row in rows.items() if row.source_id in found.allowed and cid not in found.unseen
    }
    if config.title_weight > 0 and subject:
        for cid, row in rows.items():
            fit = title_fit(subject, row.heading_path)
            if fit > 0:
                fused[cid] = fused.get(cid, 0.0) + config.title_weight * fit
                reasons.setdefault(cid, []).append(
                    Reason(kind="title", score=round(fit, 4), detail="the question names its title")
                )
    if config.coverage_weight > 0 and found.asked:
        covered = Coverage(found.asked, found.vocabulary.weight if found.vocabulary is not None else _even)
        for cid, row in rows.items():
            share = covered.share(row.heading_path, row.text)
            if share > 0:
                fused[cid] = fused.get(cid, 0.0) + config.coverage_weight * share**config.coverage_power
                reasons.setdefault(cid, []).append(
                    Reason(
                        kind="coverage", score=round(share, 4), detail="holds the question's telling words"
                    )
                )
    ranked = _Ranked(fused, reasons, rows, found.allowed, config.class_weights, found.secret)
    ordered = sorted((cid for cid in wanted if cid in rows), key=lambda cid: (-ranked.final(cid), cid))
    choice = _choose(ranked, always_ids, ordered, limit, config)
    results = [_result(ranked, cid, always=True) for cid in choice.always]
    results += [_result(ranked, cid, always=False) for cid in choice.chosen]
    return Answer(
        campaign_id=campaign_id,
        question=question,
        viewer=viewer.value,
        results=results,
        canon_facts=found.facts,
        trace=_trace(found, ranked, ordered, choice, limit, config),
    )


def _even(word: str) -> float:
    """Return the same weight for every word (a campaign too large to read its vocabulary)."""
    return 1.0


def _choose(
    ranked: _Ranked, always_ids: Sequence[int], ordered: Sequence[int], limit: int, config: SearchConfig
) -> _Choice:
    """Take the always-include chunks within the Canon budget, then the best others within their budgets."""
    choice = _Choice()
    seen_hashes: set[str] = set()
    for cid in always_ids:
        if cid not in ranked.rows:
            continue
        row = ranked.rows[cid]
        if choice.used[KnowledgeClass.CANON] + row.token_count > config.budget(KnowledgeClass.CANON):
            choice.dropped[cid] = "always-include over the Canon budget"
            continue
        choice.used[KnowledgeClass.CANON] += row.token_count
        choice.always.append(cid)
        choice.taken.add(cid)
        seen_hashes.add(row.content_hash)
    for cid in ordered:
        if cid in choice.taken:
            continue
        row = ranked.rows[cid]
        cls = ranked.source(cid).knowledge_class
        if row.content_hash in seen_hashes:
            choice.dropped[cid] = "duplicate text"
            continue
        if len(choice.chosen) >= limit:
            choice.dropped[cid] = "below the limit"
            continue
        if choice.used[cls] + row.token_count > config.budget(cls):
            choice.dropped[cid] = f"over the {cls.label} budget"
            continue
        choice.used[cls] += row.token_count
        choice.chosen.append(cid)
        choice.taken.add(cid)
        seen_hashes.add(row.content_hash)
    return choice


def _result(ranked: _Ranked, cid: int, *, always: bool) -> LoreResult:
    """Return one chosen passage with its provenance, score and reasons."""
    row = ranked.rows[cid]
    source = ranked.source(cid)
    why = list(ranked.reasons.get(cid, []))
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
        score=round(ranked.final(cid), 6),
        reasons=why,
        hidden=ranked.hidden(cid),
        always_include=always,
        stored_fields=row.fields,
        place=row.place,
    )


def _warnings(found: Found, config: SearchConfig) -> list[str]:
    """Return what the asker should know about how the question was searched."""
    lists = found.lists
    without_vectors = [
        s
        for s in found.allowed.values()
        if s.vector_status not in (VectorStatus.INDEXED, VectorStatus.DISABLED)
    ]
    warnings = list(lists.warnings)
    if without_vectors and config.mode != "lexical" and lists.semantic_status == "ok":
        warnings.append(
            f"{counted(len(without_vectors), 'source')} without vectors yet (found by words only)"
        )
    if lists.corrections:
        warnings.append(
            "searched also for " + ", ".join(f"“{b}” (for “{a}”)" for a, b in lists.corrections.items())
        )
    return warnings


def _trace(
    found: Found, ranked: _Ranked, ordered: Sequence[int], choice: _Choice, limit: int, config: SearchConfig
) -> RetrievalTrace:
    """Return everything the "Why these?" inspector shows about this retrieval (timings come later)."""
    candidates = [
        Candidate(
            chunk_id=cid,
            source_id=ranked.rows[cid].source_id,
            heading=" › ".join(ranked.rows[cid].heading_path or []),
            fused=round(ranked.fused.get(cid, 0.0), 6),
            final=round(ranked.final(cid), 6),
            reasons=ranked.reasons.get(cid, []),
            chosen=cid in choice.taken,
            dropped_because=choice.dropped.get(cid),
            hidden=ranked.hidden(cid),
        )
        for cid in ordered[: max(20, limit * 3)]
    ]
    lists = found.lists
    return RetrievalTrace(
        preset=config.name,
        mode=config.mode,
        lexical_query=" OR ".join(found.words) if config.mode != "semantic" else None,
        lexical_candidates=len(lists.lexical),
        semantic_candidates=len(lists.semantic),
        semantic_status=lists.semantic_status if config.mode != "lexical" else "off",
        entity_matches=[f"{m.window} → {m.matched} ({min(m.score, 100.0):.0f})" for m in found.matches],
        allowed_sources=len(found.allowed),
        blocked_sources=len(found.blocked),
        candidates=candidates,
        budgets={cls.value: config.budget(cls) for cls in KnowledgeClass},
        used_tokens={cls.value: choice.used[cls] for cls in KnowledgeClass},
        timings_ms={},
        warnings=_warnings(found, config),
        corrections=dict(lists.corrections),
        unknown_words=list(lists.unknown),
        common_words=found.vocabulary.common(found.asked) if found.vocabulary is not None else [],
    )
