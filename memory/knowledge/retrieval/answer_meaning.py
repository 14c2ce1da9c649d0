"""Meaning where words say too little: the shipped embedding model (all-MiniLM-L6-v2, the meaning search's)
reads the sentences of an answer, in two places only.

1. `closest`: the word step (`answer_step.reply`) found the passages about what a question asks but no sentence
   holding enough of its words ("if im dragging a grappled enemy around what happens to my speed": the books say
   "drag or carry the grappled creature with you, but your speed is halved"). A question asking a field is then
   answered by the sentence of the best two passages closest to it in meaning, when both searches rank that
   passage at the top, the sentence says the field asked and more of the question's words, and it is at least
   `CLOSE` similar.
2. `checked`: an extractive answer holding at most `WEAK_OVERLAP` of the question's content words is read for
   its meaning, under the headings of the passage it quotes ("Barbarian (Berserker): Retaliation: ... you can use
   your reaction to make a melee weapon attack" for "silvery barbs - can i use it to make my ally reroll", a spell
   no source holds: "barbs" is the table's word for barbarians, "make" the one word shared). Below `UNRELATED`,
   it is about something else, and the answer is "nothing known".
The thresholds are calibrated on the tuning question sets (`bench.lore_answers`): the right answers read by
`checked` are 0.39 similar or more with their headings (0.16 without: a line in other words than the question's,
"You take half damage from cold." for "what are void elves resistant to", needs what it is under), the unrelated
one 0.15; no sentence `closest` may quote for an unanswerable question is above 0.41, the one right sentence it
adds is 0.75. `checked` reads the question with the search's corrections (a typo does not drop an answer),
`closest` as typed (a correction may name something else: "toll the dead" read as "troll").

Measured and not used: the model choosing the quoted sentence among the word step's candidates, replacing it
with a sibling closer in meaning, or answering a question asking no field from its closest sentence, each lost
more right answers (or let more unanswerable questions through) than it gained: a sentence naming what is asked
about is as close in meaning to a question it does not answer ("can a pilot tow two frames at once" / "The tow
cable snaps when ...") as the answer is. Embedding costs about 2.5 ms a sentence, so only the sentences a rule
keeps are embedded, in one batch, the last texts' vectors are kept, and a text the question's search embedded
(the question itself, most often) is read from the search's vectors: a vector is the same in a batch or alone.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from memory.embedding import Embedder
from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, FILLER, Question
from memory.knowledge.retrieval.answer import nothing_known, numbered, says_field
from memory.knowledge.retrieval.answer_described import agreed
from memory.knowledge.retrieval.answer_first import akin, field_words
from memory.knowledge.retrieval.answer_words import (
    asked_words,
    fold_words,
    kind_line,
    labelled_sentences,
    sections_of,
)
from memory.knowledge.retrieval.words import corrected

__all__ = [
    "CLOSE",
    "UNRELATED",
    "WEAK_OVERLAP",
    "Meaning",
    "MeaningReader",
    "checked",
    "closest",
    "weakly_tied",
]

log = logging.getLogger(__name__)

#: The cosine similarity below which a quoted text is about something else than the question.
UNRELATED = 0.2
#: The most of the question's content words an answer may hold and still be read for its meaning.
WEAK_OVERLAP = 1
#: The least similarity of the sentence closest in meaning for it to answer when the word step quoted none.
CLOSE = 0.5
#: The least of the question's content words that sentence must hold itself (with its bold name), one of them
#: not in its passage's headings (a line saying only what the passage is about answers nothing asked of it).
CLOSE_WORDS = 2
#: The passages read for it: the best two, each one both searches rank at the top (`answer_described.agreed`).
CLOSE_PASSAGES = 2
#: How many texts' vectors are kept (a question asked again, a line quoted again).
CACHED = 512
#: A citation ("[2]") and what follows the quoted lines ("[1] is out of date: ...").
_CITATION = re.compile(r"\s*\[\d+\]")


class MeaningReader:
    """Reads how close two texts are in meaning with an embedder; keeps the last texts' vectors."""

    def __init__(self, embedder: Embedder, *, cached: int = CACHED) -> None:
        self.embedder = embedder
        self._cached = cached
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(
        self, texts: Sequence[str], known: Mapping[str, Sequence[float]] | None = None
    ) -> list[npt.NDArray[np.float32]]:
        """Return the unit vector of each text, embedding the ones not kept in one batch; `known`: vectors the
        question's search embedded already, by text (its own words: the same vector, not embedded twice)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        given = {t: known[t] for t in missing if known is not None and t in known}
        missing = [t for t in missing if t not in given]
        found = self.embedder.embed_documents(missing) if missing else []
        with self._lock:
            for text, vector in [*given.items(), *zip(missing, found, strict=True)]:
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
            for text in texts:
                self._vectors.move_to_end(text)
            while len(self._vectors) > self._cached:
                self._vectors.popitem(last=False)
            return [self._vectors[t] for t in texts]

    def similarity(self, first: str, second: str) -> float:
        """Return the cosine similarity of two texts' meanings (-1 to 1)."""
        a, b = self.vectors([first, second])
        return float(np.dot(a, b))

    def reading(
        self,
        corrections: Mapping[str, str] | None = None,
        known: Mapping[str, Sequence[float]] | None = None,
    ) -> Meaning:
        """Return the reader for one question, its misspelt words read as the search corrected them; `known`:
        the vectors its searches embedded, by text (`Reads.vectors`)."""
        return Meaning(self, dict(corrections or {}), known if known is not None else {})


@dataclass(frozen=True, slots=True)
class Meaning:
    """The meaning reader of one question, as typed: not read through the glossary (the table's words are what
    the player means: "barbs" read as "barbarians" makes a question about a spell named "silvery barbs" one about
    barbarians), and `corrections` the search made to its misspelt words ("sahaugin" read as "sahuagin")."""

    reader: MeaningReader
    corrections: Mapping[str, str] = field(default_factory=dict)
    known: Mapping[str, Sequence[float]] = field(default_factory=dict)

    def similarities(
        self, question: str, texts: Sequence[str], *, corrected_words: bool = False
    ) -> list[float] | None:
        """Return each text's similarity to the question (with `corrected_words`, its misspelt words corrected),
        or None when the model cannot be run (meaning is an extra: the answer stays the word step's)."""
        if corrected_words:
            question = corrected(question, dict(self.corrections))
        try:
            first, *rest = self.reader.vectors([question, *texts], self.known)
        except Exception as error:  # the model's files missing or broken: words alone
            log.warning("the meaning check is unavailable: %s", error)
            return None
        return [float(np.dot(first, v)) for v in rest]


def _content(question: Question) -> list[str]:
    return [
        w
        for w in asked_words(question.expanded)
        if w not in STOPWORDS and w not in CHATTER and w not in FILLER and not w.isdigit()
    ]


def quoted(answer: ShortAnswer) -> str:
    """Return the lines an answer quotes, without citations or the notes after them."""
    lines = [p for p in re.split(r"(?<=\])\s+", answer.text) if not re.match(r"^\[\d+\]", p)]
    return _CITATION.sub("", " ".join(lines)).strip()


def weakly_tied(question: Question, answer: ShortAnswer) -> bool:
    """Return whether an extractive answer holds at most `WEAK_OVERLAP` of the question's content words (an
    ending apart), so only its meaning can say whether it answers."""
    if not answer.known or answer.mode != AnswerMode.EXTRACTIVE:
        return False
    said = set(fold_words(quoted(answer)))
    held = [w for w in _content(question) if any(akin(w, s) for s in said)]
    return len(held) <= WEAK_OVERLAP


def checked(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    meaning: Meaning,
) -> ShortAnswer:
    """Return the answer, or "nothing known" when it is weakly tied to the question by its words
    (`weakly_tied`) and what it quotes, under the headings of the passage it cites first, is unrelated to the
    question in meaning (`UNRELATED`)."""
    if not weakly_tied(question, answer):
        return answer
    first = len(facts) + 1
    cited = [
        c.number - first for c in answer.citations if c.cited and first <= c.number < first + len(results)
    ]
    headings = " › ".join(results[min(cited)].heading_path) if cited else ""
    said = f"{headings}: {quoted(answer)}" if headings else quoted(answer)
    # Read with its misspelt words corrected: a line is not dropped for a typo the search read through.
    similar = meaning.similarities(question.text, [said], corrected_words=True)
    if similar is None or similar[0] >= UNRELATED:
        return answer
    if question.glossary_used:
        # Read in the books' words too ("heal with a Sawbones" of "heal with a doctor"): the passage's own words.
        booked = meaning.similarities(question.expanded, [said], corrected_words=True)
        if booked is None or booked[0] >= UNRELATED:
            return answer
    return ShortAnswer(
        text=nothing_known(question.text),
        mode=AnswerMode.NOTHING,
        known=False,
        citations=[c.model_copy(update={"cited": False}) for c in answer.citations],
    )


def closest(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], meaning: Meaning
) -> ShortAnswer | None:
    """Return the sentence of the best passages closest in meaning to a question asking a field, when the word
    step found the passages but no sentence holding enough of the question's words: it says the field asked
    (`says_field`), holds `CLOSE_WORDS` of the question's words, one not in its headings, and is at least `CLOSE`
    similar ("if im dragging a grappled enemy around what happens to my speed": "... drag or carry the grappled
    creature with you, but your speed is halved ..."); else None. A question asking no field is not answered
    here: a sentence sharing the names asked about is as close in meaning to a question it does not answer ("can
    a pilot tow two frames at once" of "The tow cable snaps when ...")."""
    fields = field_words(question)
    if not fields:
        return None
    words = _content(question)
    found: list[tuple[int, str]] = []
    for index, result in enumerate(results[:CLOSE_PASSAGES]):
        if not result.is_fact or result.out_of_date or result.overruled or not agreed(result):
            continue
        heading = set(fold_words(" ".join([result.source_title, *result.heading_path])))
        for _section, body in sections_of(result.text):
            kind = kind_line(body)
            for label, text in labelled_sentences(body):
                said = set(fold_words(f"{label or ''} {text}"))
                held = [w for w in words if any(akin(w, s) for s in said)]
                asked = [w for w in held if not any(akin(w, h) for h in heading)]
                says = all(any(akin(w, s) for s in said) or says_field(w, text, said) for w in fields)
                if text != kind and says and len(held) >= CLOSE_WORDS and asked:
                    found.append((index, text))
    if not found:
        return None
    # Read as typed: a correction may name something else ("toll the dead" read as "troll"), and an answer is
    # added only when the player's own words mean it.
    similar = meaning.similarities(question.text, [text for _, text in found])
    if similar is None or max(similar) < CLOSE:
        return None
    index, text = found[similar.index(max(similar))]
    number = len(facts) + 1 + index
    ended = text if text.endswith((".", "!", "?", "…")) else text + "."
    citations = [c.model_copy(update={"cited": c.number == number}) for c in numbered(facts, results)]
    return ShortAnswer(
        text=f"{ended} [{number}]", mode=AnswerMode.EXTRACTIVE, known=True, citations=citations
    )
