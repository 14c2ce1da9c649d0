"""A question of two parts ("who won the siege of Saltmere and when was it"): each part asked, each answered.

A question joins two asking parts with "and" before a second asking word ("… and when was it", "… and where",
"… and who leads it"). The second part's "it", "there", "they", "he", "she", "him" or "her" ("its",
"their", "his", "her" of a possessive too) is what the first part names (the entity found by its words, one the
pronoun agrees with first, then events), and a bare asking word ("and when") asks of it as the
first part does ("where was Bran born and when": "when was Bran born"; of an event, "when was the Siege of
Saltmere"). Each part is searched and answered on its own (`KnowledgeService.ask`; `parts_answered` puts the two
answers' sources together, renumbered), or, where only the whole was searched, from its canon and passages; the
answers are said one after the other, and a part nothing answers says so, so no part is dropped. Parts join by
"and", "and also", a comma or a semicolon (the first then a question as it stands: "when a troll heals, what stops
it" is one), or follow a name and a colon ("Ysolt: alive or dead, and where is she now?"). A personal pronoun of
the second part after a "who" part asking of another is read once the first part is answered (`answer_chain`),
and a "why" part is answered by a reason or said unknown (`answer_reasons`). "who did X marry and when" is one
question (`answer_kin`), and so is "how did X die, and who did it" (`answer_lives`), and anything with no second asking word ("when did Tomas and Ilse marry").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from canon.wording import in_prose
from memory.knowledge.answer_models import ShortAnswer
from memory.knowledge.models import Answer, CanonFact, LoreResult
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_chain import (
    PERSONAL,
    PRONOUN,
    agrees,
    asks_of_another,
    chained,
    said_of,
    sex,
)
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_lives import asks_how_died
from memory.knowledge.retrieval.answer_reasons import reasoned
from memory.knowledge.retrieval.answer_words import fold_words

__all__ = ["joined", "parts_answered", "parts_reply", "second_of", "two_parts"]

_ASKING = r"(?:when|where|who|whom|whose|how|what|why|which|did|does|do|was|were|is|are)"
#: "… and by whom", "… and from where": an asking word after a preposition asks too.
_BY = r"(?:(?:by|with|from|for|to)\s+)?"
_TWO = re.compile(
    rf"^\s*(?P<a>{_ASKING}\b.+?)\s*,?\s+and(?:\s+also)?\s+(?P<b>{_BY}{_ASKING}\b.*?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
#: "who leads the Wardens, where are they based": two parts a comma joins, the first a question as it stands
#: (an asking word before its verb), never a clause that sets a scene ("when a troll heals, what stops it").
_COMMA = re.compile(
    rf"^\s*(?P<a>(?:(?:who|what|which)\s+\w+|{_ASKING}\s+(?:is|was|are|were|did|does|do|has|had))\b[^,]+?)"
    rf"\s*[,;]\s*(?:and\s+)?(?:also\s+)?(?P<b>{_BY}{_ASKING}\b.*?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
#: "Ysolt Barra: alive or dead, and where is she now?": whom the parts ask of, before a colon.
_HEADED = re.compile(r"^\s*(?P<name>[^:?]{2,60}?)\s*:\s*(?P<rest>\S.*)$")
#: "where was Bran born" → its auxiliary and what follows, for a bare "and when".
_AUX = re.compile(rf"^\s*{_ASKING}\s+(?P<aux>was|were|is|are|did|does|do)\s+(?P<rest>.+)$", re.IGNORECASE)
#: "who founded the Wickmen" → the deed and what it was done to, for a bare "and when" ("when was … founded").
_DEED = re.compile(
    r"^\s*who\s+(?P<verb>\w+ed|built|made|wrote|won|began|dug|cast|set\s+up)\s+(?P<rest>.+)$", re.I
)
_MARRIAGE = re.compile(r"\b(?:marry|wed|married|wedded)\b", re.IGNORECASE)


def _named(part: str, facts: Sequence[CanonFact], second: str = "") -> CanonFact | None:
    """Return what a part names: the card whose words found it all stand in the part, one the second part's
    pronoun agrees with first, then an event."""
    words = set(fold_words(part))
    held = [f for f in facts if f.matched and set(fold_words(f.matched)) <= words]
    pronoun = PRONOUN.search(second)
    held.sort(
        key=lambda f: (
            pronoun is not None and not agrees(pronoun[0], f.entity_type, sex(f)),
            not is_event(f),
            -len(f.matched),
        )
    )
    return held[0] if held else None


def _headed(question: str) -> str:
    """Return a question whose parts ask of a name before a colon as one sentence: "Ysolt: alive or dead, and
    where is she" → "is Ysolt alive or dead, and where is she"; "Ysolt: where is she…" → "where is Ysolt…"."""
    found = _HEADED.match(question)
    if found is None or re.match(_ASKING, found["name"], re.IGNORECASE):
        return question
    name, rest = found["name"], found["rest"]
    if re.match(rf"{_ASKING}\b", rest, re.IGNORECASE):
        return said_of(rest, name) if PRONOUN.search(rest.split(",")[0]) else question
    return f"is {name} {rest}"


#: A second part asking who did what the first part asks of ("… and who did it", "… and who was behind it").
_DID_IT = re.compile(
    r"^\s*(?:who|by\s+whom)(?:\s+(?:did|done|was\s+behind|was\s+responsible(?:\s+for)?)\s+(?:it|that|this)|"
    r"\s+was\s+(?:behind|responsible))?\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def two_parts(question: str, facts: Sequence[CanonFact]) -> tuple[str, str] | None:
    """Return a two-part question's parts, the second said of what the first names; None for a question of one
    part (see the module docstring). A personal pronoun after a "who" part asking of another is left for
    `second_of`, which reads it once the first part is answered."""
    asked = _headed(question.replace("’", "'"))
    found = _TWO.match(asked) or _COMMA.match(asked)
    if found is None:
        return None
    first, second = found["a"], found["b"]
    bare = re.fullmatch(_BY + _ASKING, second, re.IGNORECASE) is not None
    if bare and _MARRIAGE.search(first):
        return None  # "who did X marry and when": one question (`answer_kin`)
    if _DID_IT.match(second) and asks_how_died(first):
        return None  # "how did X die, and who did it": one question of the death (`answer_lives`)
    named = _named(first, facts, second)
    if named is None:
        return None
    name = in_prose(named.entity_name, named.entity_type if is_event(named) else None)
    if bare:
        aux, deed = _AUX.match(first), _DEED.match(first)
        if is_event(named):
            second = f"{second} was {name}"
        elif aux is not None:
            second = f"{second} {aux['aux']} {aux['rest']}"
        elif deed is not None:
            second = f"{second} was {deed['rest']} {deed['verb']}"
        else:
            return None
    elif PERSONAL.search(second) and asks_of_another(first):
        pass  # "who leads X and where was he born": "he" is the first part's answer (`second_of`)
    elif not set(fold_words(second)) & set(fold_words(named.entity_name)):
        second = said_of(second, name)
    return first, second


def second_of(parts: tuple[str, str], said: str, facts: Sequence[CanonFact]) -> str:
    """Return the second part said of the first part's answer (`said`, of the first part's cards `facts`) where
    its pronoun agrees with it (`answer_chain.chained`)."""
    first, second = parts
    return chained(first, second, said, facts, _named(first, facts, second))


def parts_reply(
    parts: tuple[str, str],
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: Callable[[str], ShortAnswer],
) -> ShortAnswer:
    """Return the answer to a two-part question from one search's cards and passages: each part answered by
    `answer`, the second said of the first's answer where its pronoun agrees (`second_of`), a why-part by a
    reason (`answer_reasons.reasoned`)."""
    first = answer(parts[0])
    second = second_of(parts, first.text, facts)
    return joined([first, reasoned(second, answer(second), facts, results, parts[0])])


def _sentences(text: str) -> list[str]:
    """Return an answer's sentences without their citation marks."""
    bare = re.sub(r"\s*\[\d+\]", "", text)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", bare) if s.strip()]


def _unsaid(text: str, said: set[str]) -> str:
    """Return an answer's text without the unmarked sentences said before ("X is imprisoned." twice)."""
    kept: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+(?!\[)", text):
        mark = re.search(r"\s*\[\d+\]$", sentence.strip())
        if re.sub(r"\s*\[\d+\]$", "", sentence.strip()) not in said:
            kept.append(sentence)
        elif mark and kept and not re.search(r"\[\d+\]$", kept[-1]):
            kept[-1] += mark[0]  # the sentence said before goes; its source's mark stays
    return " ".join(kept) or text


def joined(answers: Sequence[ShortAnswer]) -> ShortAnswer:
    """Return the answers of a question's parts as one: their words one after the other (a sentence said twice
    once, one mark for two from one source), every source either cites marked cited, known when any part is."""
    texts: list[str] = []
    for answer in answers:
        said = {s for t in texts for s in _sentences(t)}
        if not set(_sentences(answer.text)) <= said:  # a part said whole by one before adds nothing
            texts.append(_unsaid(answer.text, said))
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
