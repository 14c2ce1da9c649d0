"""Lore answers to render in the renderers' tests: passages, canon facts, a retrieval's trace, an answer."""

from __future__ import annotations

import datetime as dt

import discord

from memory.knowledge.models import (
    Answer,
    Candidate,
    CanonFact,
    KnowledgeClass,
    LoreResult,
    Reason,
    RetrievalTrace,
)

NOW = dt.datetime(2026, 11, 30, 18, 0, tzinfo=dt.UTC)
LONG = "Ω" * 3000 + " [click me](https://evil.example/track.png) @everyone ![img](https://t.example/a.png)"
SECRET = "the abbot is a vampire"


def result(
    index: int,
    *,
    cls: KnowledgeClass = KnowledgeClass.REFERENCE,
    hidden: bool = False,
    text: str = "King Aldric rules from the Gull Throne.",
    title: str = "Westhaven",
) -> LoreResult:
    return LoreResult(
        chunk_id=100 + index,
        source_id=index,
        source_title=title,
        filename=f"file-{index}.md",
        knowledge_class=cls,
        heading_path=[title, f"Section {index}"],
        text=text,
        token_count=40,
        score=1.0 / (index + 1),
        reasons=[
            Reason(kind="lexical", rank=index + 1, score=3.2),
            Reason(kind="semantic", rank=2, score=0.7),
        ],
        hidden=hidden,
    )


def fact(name: str, *, hidden: bool = False, facts: list[str] | None = None) -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name=name,
        entity_type="NPC",
        matched=name,
        match_score=100.0,
        hidden=hidden,
        description="a knight",
        facts=facts if facts is not None else [f"{name} title = King"],
    )


def trace(candidates: list[Candidate] | None = None) -> RetrievalTrace:
    return RetrievalTrace(
        preset="default",
        mode="hybrid",
        lexical_query="gull throne",
        lexical_candidates=12,
        semantic_candidates=30,
        semantic_status="indexed",
        entity_matches=["Aldric"],
        allowed_sources=3,
        blocked_sources=2,
        candidates=candidates or [],
        budgets={"canon": 2400, "reference": 2400, "inspiration": 800},
        used_tokens={"reference": 120},
        timings_ms={"lexical": 3.0, "semantic": 9.5},
    )


def answer(results: list[LoreResult], facts: list[CanonFact] | None = None) -> Answer:
    return Answer(
        campaign_id=1,
        question="Who rules the Gull Throne?",
        viewer="gm",
        results=results,
        canon_facts=facts or [],
        trace=trace(),
        retrieval_id=42,
    )


def text_of(embed: discord.Embed) -> str:
    """Return an embed's words as a reader meets them: title, description, footer, then each field."""
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", ""), data.get("footer", {}).get("text", "")]
    parts += [f"{f['name']}\n{f['value']}" for f in data.get("fields", [])]
    return "\n".join(parts)
