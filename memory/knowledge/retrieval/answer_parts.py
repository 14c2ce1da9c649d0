"""A question of two parts ("who won the siege of Saltmere and when was it"): each part asked, each answered.

A question joins two asking parts with "and" before a second asking word ("… and when was it", "… and where",
"… and who leads it"). The second part's "it", "there", "they", "he", "she", "him" or "her" is what the first
part names (the entity found by its words, events first), and a bare asking word ("and when") asks of it as the
first part does ("where was Bran born and when": "when was Bran born"; of an event, "when was the Siege of
Saltmere"). Each part is searched and answered on its own (`KnowledgeService.ask`; `parts_answered` puts the two
answers' sources together, renumbered), or, where only the whole was searched, from its canon and passages; the
answers are said one after the other, and a part nothing answers says so, so no part is dropped. "who did X marry and when" is one question
(`answer_kin`), and so is anything with no second asking word ("when did Tomas and Ilse marry").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.models import Answer, CanonFact, LoreResult
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["joined", "parts_answered", "two_parts"]

_ASKING = r"(?:when|where|who|whom|whose|how|what|why|which|did|does|do|was|were|is|are)"
_TWO = re.compile(
    rf"^\s*(?P<a>{_ASKING}\b.+?)\s*,?\s+and\s+(?P<b>{_ASKING}\b.*?)\s*[?.!]*\s*$", re.IGNORECASE
)
_PRONOUN = re.compile(r"\b(?:it|there|they|them|he|she|him|her|that)\b", re.IGNORECASE)
#: "where was Bran born" → its auxiliary and what follows, for a bare "and when".
_AUX = re.compile(rf"^\s*{_ASKING}\s+(?P<aux>was|were|is|are|did|does|do)\s+(?P<rest>.+)$", re.IGNORECASE)
_MARRIAGE = re.compile(r"\b(?:marry|wed|married|wedded)\b", re.IGNORECASE)


def _named(part: str, facts: Sequence[CanonFact]) -> CanonFact | None:
    """Return what a part names: the card whose words found it all stand in the part, an event first."""
    words = set(fold_words(part))
    held = [f for f in facts if f.matched and set(fold_words(f.matched)) <= words]
    held.sort(key=lambda f: (not is_event(f), -len(f.matched)))
    return held[0] if held else None


def two_parts(question: str, facts: Sequence[CanonFact]) -> tuple[str, str] | None:
    """Return a two-part question's parts, the second said of what the first names; None for a question of one
    part (see the module docstring)."""
    found = _TWO.match(question.replace("’", "'"))
    if found is None:
        return None
    first, second = found["a"], found["b"]
    bare = re.fullmatch(_ASKING, second, re.IGNORECASE) is not None
    if bare and _MARRIAGE.search(first):
        return None  # "who did X marry and when": one question (`answer_kin`)
    named = _named(first, facts)
    if named is None:
        return None
    name = in_prose(named.entity_name, named.entity_type if is_event(named) else None)
    if bare:
        aux = _AUX.match(first)
        if is_event(named):
            second = f"{second} was {name}"
        elif aux is not None:
            second = f"{second} {aux['aux']} {aux['rest']}"
        else:
            return None
    elif not set(fold_words(second)) & set(fold_words(named.entity_name)):
        second = _PRONOUN.sub(name.replace("\\", "\\\\"), second, count=1)
    return first, second


def _sentences(text: str) -> list[str]:
    """Return an answer's sentences without their citation marks."""
    bare = re.sub(r"\s*\[\d+\]", "", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", bare) if s.strip()]


def joined(answers: Sequence[ShortAnswer]) -> ShortAnswer:
    """Return the answers of a question's parts as one: their words one after the other (a sentence said twice
    once, one mark for two from one source), every source either cites marked cited, known when any part is."""
    texts: list[str] = []
    for answer in answers:
        said = {s for t in texts for s in _sentences(t)}
        if not set(_sentences(answer.text)) <= said:  # a part said whole by one before adds nothing
            texts.append(answer.text)
    for at in range(len(texts) - 1):
        mark = re.search(r" \[\d+\]$", texts[at])
        if mark and texts[at + 1].endswith(mark[0]):
            texts[at] = texts[at][: mark.start()]  # two answers from one source: one mark
    cited = {c.number for a in answers for c in a.citations if c.cited}
    first = next((a for a in answers if a.known), answers[0])
    citations = [c.model_copy(update={"cited": c.number in cited}) for c in first.citations]
    return first.model_copy(
        update={"text": " ".join(texts), "citations": citations, "known": any(a.known for a in answers)}
    )


def _placed(
    first: Answer, second: Answer
) -> tuple[list[CanonFact], list[LoreResult], dict[int, int], dict[int, int]]:
    """Return the two answers' facts and passages as one list each (the first's, then the second's not in it), and
    where each of the first's and the second's numbers goes."""
    facts, results = list(first.canon_facts), list(first.results)
    fact_at: dict[int, int] = {}
    for number, fact in enumerate(second.canon_facts, 1):
        have = next((n for n, f in enumerate(facts, 1) if f.entity_id == fact.entity_id), None)
        facts += [] if have else [fact]
        fact_at[number] = have or len(facts)
    result_at: dict[int, int] = {}
    for number, result in enumerate(second.results, 1):
        have = next(
            (n for n, r in enumerate(results, 1) if r.chunk_id == result.chunk_id and r.chunk_id), None
        )
        results += [] if have else [result]
        result_at[number] = have or len(results)
    one = {n: n for n in range(1, len(first.canon_facts) + 1)}
    one |= {len(first.canon_facts) + n: len(facts) + n for n in range(1, len(first.results) + 1)}
    two = dict(fact_at)
    two |= {len(second.canon_facts) + n: len(facts) + at for n, at in result_at.items()}
    return facts, results, one, two


def _renumbered(text: str, moved: dict[int, int]) -> str:
    """Return an answer's text with its citation marks moved to their new numbers."""
    return re.sub(r"\[(\d+)\]", lambda m: f"[{moved.get(int(m[1]), int(m[1]))}]", text)


def parts_answered(first: Answer, second: Answer) -> dict[str, object]:
    """Return the fields of one answer made of the answers of a question's two parts, each searched on its own:
    the facts and passages of both, each once, renumbered, and the two replies joined (`joined`)."""
    facts, results, one, two = _placed(first, second)
    base = {c.number: c for c in numbered(facts, results)}
    replies: list[ShortAnswer] = []
    for answer, moved in ((first, one), (second, two)):
        if answer.reply is None:
            continue
        text = _renumbered(answer.reply.text, moved)
        for citation in answer.reply.citations:
            if citation.cited and citation.number in moved:
                base[moved[citation.number]] = citation.model_copy(update={"number": moved[citation.number]})
        cited = [moved[c.number] for c in answer.reply.citations if c.cited and c.number in moved]
        marked = [c.model_copy(update={"cited": c.number in cited}) for c in base.values()]
        replies.append(answer.reply.model_copy(update={"text": text, "citations": marked}))
    reply = joined(replies) if replies else None
    if reply is not None:  # a source either cites keeps the label that answer gave it
        reply = reply.model_copy(
            update={
                "citations": [base[c.number].model_copy(update={"cited": c.cited}) for c in reply.citations]
            }
        )
    return {"canon_facts": facts, "results": results, "reply": reply}
