"""Lore answers as the rest of the program sees them: pydantic values, never SQL rows.

A source's authority class, the passages and canon facts chosen for a question, the retrieval trace and the
stored record; sources and their imports live in `memory.knowledge.source_models`.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memory.knowledge.answer_models import Founding, Hold, Kin, Life, Office, Relation, ShortAnswer
from memory.leaks import Secret


class KnowledgeClass(enum.StrEnum):
    """How much story authority a source has: Canon > Reference > Inspiration."""

    CANON = "canon"
    REFERENCE = "reference"
    INSPIRATION = "inspiration"

    @property
    def label(self) -> str:
        """Return the class as shown to people."""
        return self.value.title()

    @property
    def authority(self) -> int:
        """Return the authority rank (higher wins)."""
        return {KnowledgeClass.CANON: 3, KnowledgeClass.REFERENCE: 2, KnowledgeClass.INSPIRATION: 1}[self]


class Reason(BaseModel):
    """Why a result was chosen: one retriever that found it, with its rank and raw score."""

    model_config = ConfigDict(frozen=True)

    #: lexical | semantic | heading | entity | title | coverage | always_include | canon_graph
    kind: str
    rank: int | None = None
    score: float | None = None
    detail: str | None = None

    def describe(self) -> str:
        """Return the reason as a short phrase."""
        parts = [self.kind.replace("_", " ")]
        if self.rank is not None:
            parts.append(f"#{self.rank}")
        if self.detail:
            parts.append(f"({self.detail})")
        return " ".join(parts)


def citation_label(title: str, heading_path: Sequence[str], place: str | None) -> str:
    """Return a passage's place in words: "Basic Rules, p. 112 (Combat › Cover)" for a book's page or chapter,
    "Title › Section › Subsection" for a source whose sections are its places."""
    path = [h for h in heading_path if h and h != title]
    if place:
        return f"{title}, {place}" + (f" ({' › '.join(path)})" if path else "")
    return " › ".join([title, *path])


class LoreResult(BaseModel):
    """One passage chosen for an answer, with its provenance."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int | None
    source_id: int | None
    source_title: str
    filename: str
    knowledge_class: KnowledgeClass
    heading_path: list[str]
    #: The text shown (and stored with the retrieval record): the chunk body with its heading context.
    text: str
    token_count: int
    score: float
    reasons: list[Reason]
    hidden: bool = False
    always_include: bool = False
    #: A committed fact supersedes what this (Canon) passage says: the sentence saying what is true now.
    out_of_date: str | None = None
    #: The fields the chunk holds, kept at import ([subject, label, value]; `memory.knowledge.fields`); None
    #: when not kept (read from the text when asked). Not stored with an answer, not shown.
    stored_fields: list[list[str]] | None = Field(default=None, exclude=True, repr=False)
    #: Another Canon source among the answer's disagrees with this one: which prevails, in words.
    disagrees: str | None = None
    #: Another Canon source prevails over this one where they disagree (the GM's choice or source order).
    overruled: bool = False
    #: Where the passage is in its book ("p. 112", "ch. 3"); None when its sections are its places.
    place: str | None = None

    @property
    def where(self) -> str:
        """Return where the passage is from: "Basic Rules, p. 112 (Combat › Cover)" or "Title › Section"."""
        return citation_label(self.source_title, self.heading_path, self.place)

    @property
    def is_fact(self) -> bool:
        """Return whether this passage may be presented as a fact (Inspiration never is)."""
        return self.knowledge_class != KnowledgeClass.INSPIRATION

    @property
    def label(self) -> str:
        """Return how the passage is labelled: class, and hidden/not-fact markers."""
        label = self.knowledge_class.label
        if not self.is_fact:
            label += " (inspiration, not established fact)"
        if self.hidden:
            label += " [hidden: GM only]"
        return label


class CanonFact(BaseModel):
    """A fact from the canon graph about an entity named in the question."""

    model_config = ConfigDict(frozen=True)

    entity_id: int
    entity_name: str
    entity_type: str
    matched: str
    match_score: float
    hidden: bool
    description: str | None
    facts: list[str]
    score: float = 0.0
    #: The entity's relations as parts (answers from the graph: "who rules Greyhaven").
    relations: list[Relation] = Field(default_factory=list)
    #: The entity's current state as the card shows it ("alive", "dead"), and whether the ontology calls it
    #: terminal: a yes/no question about a state is answered by whether this is the state asked.
    state: str | None = None
    state_terminal: bool = False
    #: When it was born and died, as far as the asker may see (ages and who is older are counted from these).
    life: Life | None = None
    #: When a place or a group was founded, as far as the asker may see (`retrieval.answer_founded`).
    founding: Founding | None = None
    #: When an event took place, as far as the asker may see it, with the story's date in a founding's shape
    #: (`retrieval.answer_ago`: "how long ago was the Siege of X?").
    happened: Founding | None = None
    #: The titles a person held for a span (`retrieval.offices`), and of an event the day it took place (its world
    #: key), as the asker may see them: who held an office when, before or after whom.
    offices: tuple[Office, ...] = ()
    #: Who led, ruled or held it for a span (`retrieval.tenures`): a faction's leaders, an item's holders.
    holds: tuple[Hold, ...] = ()
    #: A person's ties to others that hold both ways, with their spans (`retrieval.bonds`): rivals, allies.
    bonds: tuple[Hold, ...] = ()
    when_key: int | None = None
    #: A person's family two steps out, read when the question asks a kin word (`retrieval.kin`).
    kin: Kin | None = None
    #: Found by the inner part of a two-step question (`retrieval.steps`): that step in words ("Ilin Sarr is a
    #: member of The Lantern Guild") and the question's words it stands for ("the faction ilin belongs to").
    step: str | None = None
    step_span: str | None = None
    #: Found by a part of its name other entities found share (`candidates.EntityMatch.shared`).
    shared: bool = False
    #: The sex canon says of the people the card's kin ties name, by name, as the asker may read it ("female"):
    #: a tie asked by a word naming a sex is said by each one's own (`retrieval.tie_sexes`).
    sexes: dict[str, str] = Field(default_factory=dict, exclude=True)
    #: Those the card's ties name who are dead as the asker reads them, by name, with when each died in words (""
    #: when not known): an answer naming one says so (`retrieval.card_deaths`).
    deaths: dict[str, str] = Field(default_factory=dict, exclude=True)
    #: What the card holds that players may not read, as the secret guard's secrets (`memory.leaks.card_secrets`,
    #: from the card's typed statements): empty on a player's card; never stored with an answer's record.
    secrets: tuple[Secret, ...] = Field(default=(), exclude=True)

    def tied(self, predicate: str, *, to_me: bool = True) -> list[str]:
        """Return the names at the other end of the card's relations of one kind, each once, in the card's order:
        those tied to it (`to_me`: it is the relation's object, "who is a member of the guild") or those it is
        tied to."""
        me = self.entity_name.casefold()
        return list(
            dict.fromkeys(
                (r.subject if to_me else r.object)
                for r in self.relations
                if r.predicate.upper() == predicate and (r.object if to_me else r.subject).casefold() == me
            )
        )

    def typed(self, attribute: re.Pattern[str]) -> tuple[str, str] | None:
        """Return the card's first typed fact whose attribute the pattern matches whole ("cause of death",
        "prison"), as its attribute and value ("Tamsin Rook's cause of death: a poisoned arrow"), or None."""
        for line in self.facts:
            for head in (f"{self.entity_name}'s ", f"{self.entity_name}' "):
                said, colon, value = line.removeprefix(head).partition(": ")
                if line.startswith(head) and colon and attribute.fullmatch(said.strip()):
                    return said.strip(), value.strip()
        return None


class Candidate(BaseModel):
    """A candidate in the retrieval trace, kept or not."""

    model_config = ConfigDict(frozen=True)

    chunk_id: int
    source_id: int
    heading: str
    fused: float
    final: float
    reasons: list[Reason]
    chosen: bool
    dropped_because: str | None = None
    hidden: bool = False


class RetrievalTrace(BaseModel):
    """Everything the "Why these?" inspector shows about one retrieval."""

    model_config = ConfigDict(frozen=True)

    preset: str
    mode: str
    lexical_query: str | None
    lexical_candidates: int
    semantic_candidates: int
    semantic_status: str
    entity_matches: list[str]
    allowed_sources: int
    blocked_sources: int
    candidates: list[Candidate]
    budgets: dict[str, int]
    used_tokens: dict[str, int]
    timings_ms: dict[str, float]
    warnings: list[str] = Field(default_factory=list)
    #: Misspelt question words and the heading words they were searched as ("revivfy" -> "revivify").
    corrections: dict[str, str] = Field(default_factory=dict)
    #: Question words no source the asker may read holds (the answer step says "nothing known" for them).
    unknown_words: list[str] = Field(default_factory=list)
    #: Question words many of the chunks the asker may read hold (`Vocabulary.common`): a scene's words, not a
    #: name's; none where the campaign is too large to read its words.
    common_words: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    """The answer to a `/lore` question: passages with provenance, canon facts and the retrieval trace."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    question: str
    viewer: str
    results: list[LoreResult]
    canon_facts: list[CanonFact]
    trace: RetrievalTrace
    #: The stored retrieval record (for the "Why these?" button), when the answer was recorded.
    retrieval_id: int | None = None
    #: The short answer with its citations (extractive, from the graph, or written by the language model).
    reply: ShortAnswer | None = None
    #: Why the answer could not be recorded (a storage fault in plain words: "the disk is full"), if so.
    unsaved: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the command line's JSON shape: `results` with source, heading_path, class, score, text."""
        return {
            "question": self.question,
            "retrieval_id": self.retrieval_id,
            "answer": self.reply.to_json() if self.reply is not None else None,
            "results": [result_json(r) for r in self.results],
            "canon_facts": [f.model_dump(mode="json") for f in self.canon_facts],
        }


def result_json(result: LoreResult) -> dict[str, Any]:
    """Return one result in the command line's JSON shape."""
    return {
        "source": result.filename,
        "title": result.source_title,
        "heading_path": result.heading_path,
        "place": result.place,
        "class": result.knowledge_class.value,
        "score": round(result.score, 6),
        "text": result.text,
        "chunk_id": result.chunk_id,
        "source_id": result.source_id,
        "hidden": result.hidden,
        "is_fact": result.is_fact,
        "always_include": result.always_include,
        "token_count": result.token_count,
        "out_of_date": result.out_of_date,
        "disagrees": result.disagrees,
        "reasons": [r.model_dump(mode="json", exclude_none=True) for r in result.reasons],
    }


class RetrievalRecord(BaseModel):
    """A stored answer: what was shown, kept even after its sources change or are deleted."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    viewer: str
    asker_id: int | None
    question: str
    preset: str
    results: list[LoreResult]
    canon_facts: list[CanonFact]
    trace: RetrievalTrace
    created_at: dt.datetime
