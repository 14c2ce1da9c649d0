"""A question that sets its scene first: its asking clauses answered, of the passages the scene names.

Players often tell what is going on before they ask ("fighting a rust monster and i hit it with my longsword,
what happens to the sword", "my cleric casts heroes feast tomorrow. how much does the bowl cost"). The scene's
words (the cleric, tomorrow, the longsword) are not what the sentence answering says, and the sentence reading
(`answer_extractive`) wants most of the question's words in the sentence it quotes, so it often finds nothing.
The question is split where its asking clause starts (after a full stop, a comma, a dash, a clause opening with
an asking word: "what", "how", "does", "can", ...; the scene at least `SCENE_WORDS` long), and the asking clause
in two where "and" opens a second one ("... cost and how many of us can eat"); a name typed before two asking
clauses, unmarked, is read the same ("quivering palm how many ki and how much dmg"). Each clause is asked again, on the
passages already found, of each of the best passages whose title the scene names (as searched: a typo read
through), the title said first ("rust monster: what happens to the sword"), and answered from that passage alone
(a goblin's scene is not answered by a worg's line). When several titled passages answer, the answer closest in
meaning to the question, under its headings, is kept (the prone condition's, not the goblin's languages, for "im
prone and a goblin attacks me, does it get adv"). A clause asking yes or no is answered yes or no first when the
sentence quoted answers it outright (`answer_verdict`), whether the whole question found it or the clause did.
A question is answered clause by clause when its whole reading found nothing, or, of two clauses, when each has
its own answer; a clause nothing answers says "nothing known", and a question none of whose clauses is answered
keeps its whole reading's answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import Question, analyse
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_nothing import nothing_known
from memory.knowledge.retrieval.answer_parts import joined
from memory.knowledge.retrieval.answer_verdict import verdict
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.field_answer import PASSAGES_READ

__all__ = ["asking_clauses", "by_clauses", "scene_answer"]

_ASKING = (
    r"(?:what|whats|what's|how|which|who|whom|whose|where|when|why|does|do|did|can|could|is|are|was|were|will|"
    r"would|should|may|must|has|have)"
)
#: Where an asking clause starts after the scene: a full stop, a comma, a dash, an ellipsis, then an asking word.
_CLAUSE_START = re.compile(rf"(?:[.!?;:,]+|\s-+|\s–)\s+(?={_ASKING}\b)", re.IGNORECASE)
#: A question that starts by asking sets no scene first.
_ASKS_FIRST = re.compile(rf"^\W*{_ASKING}\b", re.IGNORECASE)
#: The first asking word of a question.
_OPENS = re.compile(rf"\b{_ASKING}\b", re.IGNORECASE)
#: A second asking clause joined by "and": "how much does the bowl cost and how many of us can eat".
_SECOND = re.compile(rf",?\s+and\s+(?={_ASKING}\b)", re.IGNORECASE)
_BRACKETS = re.compile(r"\([^)]*\)")
#: The least words a scene has before its question (shorter is a name or a fragment: "owlbear, what ac").
SCENE_WORDS = 4
#: The least meaning similarity to the question of an answer quoted for a clause, under its headings.
SCENE_CLOSE = 0.2


def asking_clauses(text: str) -> list[str]:
    """Return the asking clauses of a question that sets its scene first (one or two), or none."""
    return _split(text)[1]


def _split(text: str) -> tuple[str, list[str]]:
    """Return a scene-first question's scene and its asking clauses (none: no scene is set first)."""
    if _ASKS_FIRST.match(text):
        return "", []
    found = _CLAUSE_START.search(text)
    if found is None or len(text[: found.start()].split()) < SCENE_WORDS:
        # "quivering palm how many ki and how much dmg": a name, then two asking clauses, unmarked.
        opens = _OPENS.search(text)
        if opens is None:
            return "", []
        clauses = _clauses(text[opens.start() :])
        return (text[: opens.start()], clauses) if len(clauses) == 2 else ("", [])
    return text[: found.start()], _clauses(text[found.end() :])


def _clauses(asked: str) -> list[str]:
    return [c.strip(" ,") for c in _SECOND.split(asked.strip(), maxsplit=1) if c.strip(" ,")]


def by_clauses(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    of_passage: Callable[[Question, int], ShortAnswer | None],
    similar: Callable[[Sequence[str]], Sequence[float] | None] | None = None,
) -> ShortAnswer:
    """Return the answer to a question that sets its scene first, by its asking clauses (see the module
    docstring): `answer` is the whole question's; `of_passage` answers a clause from one passage (its place among
    `results`); `similar` reads texts' meaning against the question. Any other question keeps `answer`."""
    clauses = asking_clauses(question.text)
    if not clauses:
        return answer
    if answer.known and len(clauses) == 1:
        # "my trooper is pinned ..., does he gain a bonus die": yes or no first, as of the clause
        return verdict(analyse(clauses[0], question.glossary_used), facts, results, answer)
    said = scene_answer(question, facts, results, of_passage, similar)
    if said is None or (answer.known and not all(s.known for s in said)):
        return answer  # the whole question's answer stands unless each clause has its own
    return joined(said)


def scene_answer(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: Callable[[Question, int], ShortAnswer | None],
    similar: Callable[[Sequence[str]], Sequence[float] | None] | None = None,
) -> list[ShortAnswer] | None:
    """Return the answers of a scene-first question's asking clauses (see the module docstring), each by
    `answer` of the clause said of a passage the question names, from that passage (its place among `results`),
    or None when the question sets no scene or no clause is answered. `similar` reads the meaning of texts
    against the question (None: the first passage's answer)."""
    clauses = asking_clauses(question.text)
    if not clauses:
        return None
    first = len(facts) + 1
    # The titles the scene names (as searched: the glossary's words, a typo read through); one the clause names
    # is in the clause already ("whats the save" names the rule of saving throws).
    scene = _split(question.expanded)[0] or question.expanded
    asked = fold_words(scene)
    titles: dict[str, int] = {}  # each title named, and the place of the passage it heads
    for at, result in enumerate(results[:PASSAGES_READ]):
        title = _title(result)
        if title and all(any(akin(w, a) for a in asked) for w in title.split()):
            titles.setdefault(title, at)
    if not titles:
        return None
    said: list[ShortAnswer] = []
    for clause in clauses:
        found = []
        for title, at in titles.items():
            reply = answer(analyse(f"{title}: {clause}", question.glossary_used), at)
            if reply is not None and reply.known:
                # "does it get adv" of Prone: yes or no first, the title read in place of the clause's subject
                asked_of = analyse(f"{clause} ({title})", question.glossary_used)
                found.append((verdict(asked_of, facts, results, reply), first + at))
        said.append(_closest(found, results, first, similar) or _nothing(clause))
    return said if any(s.known for s in said) else None


def _title(result: LoreResult) -> str:
    """Return a passage's title, folded: its last heading's last part, without what is in brackets."""
    if not result.heading_path:
        return ""
    return " ".join(
        w
        for w in fold_words(_BRACKETS.sub(" ", result.heading_path[-1]).split(":")[-1])
        if w not in STOPWORDS
    )


def _nothing(clause: str) -> ShortAnswer:
    return ShortAnswer(text=nothing_known(clause), mode=AnswerMode.NOTHING, known=False)


def _closest(
    found: Sequence[tuple[ShortAnswer, int]],
    results: Sequence[LoreResult],
    first: int,
    similar: Callable[[Sequence[str]], Sequence[float] | None] | None,
) -> ShortAnswer | None:
    """Return the answer of one passage, or of several the one closest in meaning to the question, under its
    passage's headings, when it is at least `SCENE_CLOSE` similar; without `similar`, the first."""
    if not found:
        return None
    if similar is None or len(found) == 1:
        return found[0][0]
    texts = [f"{' › '.join(results[n - first].heading_path)}: {_quoted(a.text)}" for a, n in found]
    scores = similar(texts)
    if scores is None:
        return found[0][0]
    best = max(range(len(found)), key=lambda i: scores[i])
    return found[best][0] if scores[best] >= SCENE_CLOSE else None


def _quoted(text: str) -> str:
    return re.sub(r"\s*\[\d+\]", "", text)
