"""The candidate lists of one question, and their fusion into one relevance per chunk.

Fusion (`fusion="score"`, the default): each list's scores are divided by its best score, then combined as
`lexical_weight * lexical + semantic_weight * semantic + entity bonus`; a chunk missing from a list gets that
list's lowest kept score. `fusion="rrf"` is reciprocal rank fusion, kept as a preset for comparison.
"""

from __future__ import annotations

from collections.abc import Container

from pydantic import BaseModel, ConfigDict, Field

from memory.knowledge.models import Reason
from memory.knowledge.retrieval.config import SearchConfig


class EntityMatch(BaseModel):
    """A canon entity named in a question: which words of the question matched which name, how well."""

    model_config = ConfigDict(frozen=True)

    entity_id: int
    matched: str
    window: str
    score: float
    #: Found by a part of its name that other entities' names share too ("Orrow": Maelis Orrow, House Orrow),
    #: none of which the part begins: which one is meant, the question's form tells or the asker is asked.
    shared: bool = False


class CandidateLists(BaseModel):
    """The scored candidate lists of one question (chunk id, score; best first) and what happened."""

    lexical: list[tuple[int, float]] = Field(default_factory=list)
    semantic: list[tuple[int, float, str]] = Field(default_factory=list)
    entity: list[tuple[int, float, str]] = Field(default_factory=list)
    semantic_status: str = "off"
    corrections: dict[str, str] = Field(default_factory=dict)
    #: Question words no allowed source holds, not misspellings of a heading word nor part of a name found.
    unknown: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def normalised(scores: dict[int, float]) -> tuple[dict[int, float], float]:
    """Return scores divided by the best one, and the lowest normalised score (what a missing chunk gets)."""
    if not scores:
        return {}, 0.0
    top = max(scores.values())
    if top <= 0:
        return {cid: 0.0 for cid in scores}, 0.0
    normal = {cid: max(score, 0.0) / top for cid, score in scores.items()}
    return normal, min(normal.values())


def reasons_of(lists: CandidateLists, among: Container[int] | None = None) -> dict[int, list[Reason]]:
    """Return, for each candidate (`among` them only: the ones an answer can show or trace), the lists that found
    it with its rank and raw score there."""
    reasons: dict[int, list[Reason]] = {}
    for rank, (cid, score) in enumerate(lists.lexical, 1):
        if among is None or cid in among:
            reasons.setdefault(cid, []).append(Reason(kind="lexical", rank=rank, score=round(score, 4)))
    for rank, (cid, score, view) in enumerate(lists.semantic, 1):
        if among is None or cid in among:
            detail = {"t": "title", "n": "names"}.get(view)
            reasons.setdefault(cid, []).append(
                Reason(kind="semantic", rank=rank, score=round(score, 4), detail=detail)
            )
    for rank, (cid, score, name) in enumerate(lists.entity, 1):
        if among is None or cid in among:
            reasons.setdefault(cid, []).append(
                Reason(kind="entity", rank=rank, score=round(score, 4), detail=f"heading names {name}")
            )
    return reasons


def fuse(lists: CandidateLists, config: SearchConfig) -> dict[int, float]:
    """Return each candidate's fused relevance (the reasons it was found: `reasons_of`)."""
    fused: dict[int, float] = {}
    if config.fusion == "rrf":
        for rank, (cid, _) in enumerate(lists.lexical, 1):
            fused[cid] = fused.get(cid, 0.0) + config.lexical_weight / (config.rrf_k + rank)
        for rank, (cid, _, _) in enumerate(lists.semantic, 1):
            fused[cid] = fused.get(cid, 0.0) + config.semantic_weight / (config.rrf_k + rank)
        for rank, (cid, _, _) in enumerate(lists.entity, 1):
            fused[cid] = fused.get(cid, 0.0) + config.entity_weight / (config.rrf_k + rank)
        return fused
    lexical = {cid: score for cid, score in lists.lexical}
    semantic = {cid: score for cid, score, _ in lists.semantic}
    candidates = set(lexical) | set(semantic) | {cid for cid, _, _ in lists.entity}
    lex_norm, lex_floor = normalised(lexical)
    sem_norm, sem_floor = normalised(semantic)
    for cid in candidates:
        score = 0.0
        if lex_norm:
            score += config.lexical_weight * lex_norm.get(cid, lex_floor)
        if sem_norm:
            score += config.semantic_weight * sem_norm.get(cid, sem_floor)
        fused[cid] = score
    for rank, (cid, _, _) in enumerate(lists.entity, 1):
        fused[cid] = fused.get(cid, 0.0) + config.entity_weight / rank
    return fused
