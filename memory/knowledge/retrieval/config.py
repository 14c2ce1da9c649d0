"""How a question is searched: `SearchConfig` and its named presets (`PRESETS`, `preset`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory.knowledge.models import KnowledgeClass
from memory.knowledge.source_models import SourceInfo

__all__ = ["PRESETS", "Fusion", "Mode", "SearchConfig", "always_include_warning", "preset"]

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
    #: Added to the best candidates by how much of the question's telling words they hold (the idf-weighed share,
    #: raised to `coverage_power`): `memory.knowledge.retrieval.coverage`.
    coverage_weight: float = Field(default=0.2, ge=0)
    coverage_power: float = Field(default=2.0, gt=0)
    #: Added to a chunk whose headings name a canon entity named in the question (divided by its rank).
    entity_weight: float = Field(default=0.25, ge=0)
    #: Added to a candidate by how much of its section title the question names (the share of the title's words,
    #: squared): "zombie hp" prefers "Zombie" to "Ogre Zombie" (`memory.knowledge.retrieval.titles`).
    title_weight: float = Field(default=0.3, ge=0)
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
    #: Large campaigns: above this many chunks, words are searched by their rarest few only (see
    #: `memory.knowledge.retrieval.words`)...
    large_campaign_chunks: int = Field(default=20_000, ge=1)
    #: ...a word in more than this share of the chunks is left to the semantic search...
    common_word_share: float = Field(default=0.01, gt=0, le=1)
    #: ...and at most this many of the rarer words are searched.
    large_campaign_words: int = Field(default=3, ge=1)
    #: Typo tolerance: question words the campaign never uses, close to a heading word (rapidfuzz ratio at least
    #: this, or one edit) or to another of its words, are searched as that word too (0 = off; see `words`).
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


def always_include_warning(sources: Sequence[SourceInfo], config: SearchConfig | None = None) -> str | None:
    """Return a warning for the GM when always-included Canon takes over half of an answer's Canon budget.

    Always-included passages come first in every answer and use the Canon budget before anything the question
    found: past half of it, the Canon that answers the question is crowded out.
    """
    budget = (config or PRESETS["default"]).budget(KnowledgeClass.CANON)
    always = [
        s for s in sources if s.always_include and s.enabled and s.knowledge_class == KnowledgeClass.CANON
    ]
    used = sum(s.token_count for s in always)
    if not budget or used * 2 <= budget:
        return None
    titles = ", ".join(s.title for s in always[:5]) + (
        f" and {len(always) - 5} more" if len(always) > 5 else ""
    )
    share = min(100, round(100 * used / budget))
    return (
        f"Always-included Canon ({titles}) takes {used:,} tokens, {share}% of the {budget:,} tokens of Canon an "
        "answer holds: the Canon a question finds gets little room. Turn always-include off for some of them "
        "with `/lore set`."
    )
