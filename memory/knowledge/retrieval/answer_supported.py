"""Whether the passages an answer quotes are about what was asked, read from how the question names it.

Every rule of the answer step picks its sentence by the words a question shares with a passage. A question about
a thing no source holds most often shares all but one of its words with a neighbour: a made-up "ember hound's
armor class" with the real Hound's, a "frost lance" with the spell Lance. `unsupported` reads the words that name
what is asked where the question's grammar says they do, and finds the one the passages quoted do not hold (in
their headings or text, an ending, a typo or the books' own word apart), or None:
1. the owner of the field asked ("the ember hound's armor class"): every word of it names whose field is asked
   (the asker's own character does not: "my warden's save DC" asks a rule the passage need not say of wardens);
2. a kind of the field asked ("a burrowing speed", "its cold damage"): the word before the field's names which
   of its kinds is asked when other passages found name things or fields' values by it ("Ring of Burrowing",
   "Speed: 20 ft., burrow 20 ft."); a word the books name nothing by asks an amount ("its average hit points");
3. a name of two nouns joined by "of" ("the oath of embers"): a passage naming another of its kind ("Oath of
   Cinders") and never the second noun is about that other one;
4. a word after the quoted passage's title in a bare naming phrase the question opens with ("lance stones - how
   far", "hound pack how many", "hound whelp hit points"): the title with a noun after it is another thing. A
   word followed by a small word is most often a verb ("ghoul clawing at you"), and the last word of a question
   that is a bare phrase is what it asks ("bag of holding capacity"): both are left alone, as are words common in
   the books (`RetrievalTrace.common_words`: "target", "creature"); so is a word right before the owner a passage's
   heading names ("silvery barbs - ..." of "Barbarian: Reckless Attack"), when it is no word saying whose or which.
5. the measure asked by "how" whose units other measures share ("how tall", "how wide"): a distance said of
   something else ("reach 15 ft.") is no height; the answer must say the measure in its own words.
6. a name of two words after an owner's "'s" ("the owlbear's rending roar"): the owner's passage must hold the
   noun it ends with (`answer_owned`);
7. a thing named with its kind ("the hex spell", "the oath of vengeance"): the passages quoted must hold a word of
   its name (`answer_kind_named`);
8. the field asked of a thing a table's row answers whole ("how heavy is the cart" answered by its row of a table of
   prices): a column, a cell or the passage must say that field, by name, a word read as it or its unit ("Mass
   (kg)", "12 kg"; `answer_rows.row_unsaid`).
`supported` answers "nothing known" in place of an answer quoting such passages. An answer quoting canon facts
is left as it is: canon's names are matched when its facts are found.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.fields import fields_of
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, FIELD_WORDS, FILLER, Question, how_word
from memory.knowledge.retrieval.answer import nothing_known
from memory.knowledge.retrieval.answer_described import held_words
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_kind_named import kind_unheld
from memory.knowledge.retrieval.answer_owned import owned_unheld
from memory.knowledge.retrieval.answer_rows import row_unsaid
from memory.knowledge.retrieval.answer_scope import AMOUNT_ASKED, held_long
from memory.knowledge.retrieval.answer_words import (
    fold_words,
    is_number,
    labelled_sentences,
    naming_word,
    sections_of,
)

__all__ = ["supported", "unsupported"]

#: Words that ask how much of a field, not which of its kinds ("bonus damage", "base speed").
_DEGREE = frozenset({*AMOUNT_ASKED, "extra", "additional", "bonus", "base", "more", "less", "much", "many"})
#: Words saying a field's kind that passages leave unsaid: the default ("walking speed" is the speed written).
_DEFAULT = frozenset({"walking", "walk", "normal", "regular", "usual", "basic"})
#: Words before a noun phrase: a kind of a field stands after one.
_DETERMINERS = frozenset(
    {"a", "an", "the", "its", "their", "his", "her", "my", "your", "our", "this", "that", "s"}
)
#: The words of an owner read, nearest first: its noun and the word naming which ("hound alpha's"); words before
#: them are as often a verb or a scene ("the spear sets the blast's range").
OWNER_WORDS = 2
#: Words that make an owner a character at the table, not a thing the books name ("my wizard's save DC").
_THEIRS = frozenset({"my", "our", "your", "his", "her", "their"})
#: The words that ask (a bare phrase has none).
_ASKING = re.compile(
    r"who|whom|whose|what|whats|when|where|which|why|how|is|are|was|were|did|does|do|has|have|can|could|will"
    r"|would|should"
)
#: The measures asked by "how" whose units say other measures too ("reach 15 ft." is no height): a sentence says
#: one only in its own words.
_MEASURE_WORDS = {
    "tall": ("tall", "height", "high", "short", "towering"),
    # How high a thing goes is said by how far it rises ("the tide rises 12 feet").
    "high": ("high", "height", "tall", "towering", "rise", "rises", "rising", "raise", "raises", "raised"),
    "deep": ("deep", "depth", "shallow"),
    "wide": ("wide", "width", "across", "broad", "narrow", "thick", "radius", "diameter"),
}
#: Marks between clauses: "a green dragon's breath, acid or poison" names no "breath acid".
_CLAUSE = re.compile(r"[,;:.?!()]")
#: Words before a name saying whose or which loosely, naming no other thing: "my wizard", "new barbarian".
_LOOSE = frozenset(
    {
        *_THEIRS,
        "new",
        "old",
        "first",
        "next",
        "last",
        "other",
        "big",
        "small",
        "young",
        "baby",
        "evil",
        "good",
        "bad",
    }
)
_BRACKETED = re.compile(r"\([^)]*\)")
#: The most words a bare naming phrase opening a question has ("young blue dragon nest rules").
TOPIC_WORDS = 5
#: Where a question's opening naming phrase ends: a dash or a colon between words, a sentence's end, an asking word.
_TOPIC_END = re.compile(rf"\s[-–—]\s|:\s|[.?!]\s|\b(?:{_ASKING.pattern})\b", re.IGNORECASE)


def _kind_word(word: str) -> bool:
    """Return whether a word before a field may name one of its kinds: not a small word, a number, an amount's
    word or a superlative ("additional", "the highest"), a field's own word, nor its kind said by default ("walking
    speed")."""
    return (
        len(word) > 1
        and word not in STOPWORDS
        and word not in CHATTER
        and not is_number(word)
        and word not in _DEGREE
        and word not in _DEFAULT
        and word not in FIELD_WORDS
        and not word.endswith("est")
    )


class _Held:
    """The words passages hold (an ending, a typo or the books' own word apart), read one word at a time when
    asked: most questions need two or three of their words read, not all."""

    def __init__(self, text: str) -> None:
        self.seen = fold_words(text)
        self.distinct = set(self.seen)
        self.known: dict[str, bool] = {}

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        if word not in self.known:
            self.known[word] = bool(held_words([word], self.seen)) or held_long(word, self.distinct)
        return self.known[word]


def _quoted(
    facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> list[LoreResult]:
    """Return the passages an answer quotes, or none when it quotes a canon fact (or nothing)."""
    first = len(facts) + 1
    cited = [c.number for c in answer.citations if c.cited]
    if not cited or any(n < first or n - first >= len(results) for n in cited):
        return []
    return [results[n - first] for n in cited]


def _field_spans(question: Question, words: Sequence[str]) -> list[tuple[int, int]]:
    """Return where the words asking each field stand in the question's folded words."""
    spans = []
    for name in question.fields:
        asked = fold_words(question.asked_by.get(name, name))
        n = len(asked)
        spans += [(i, i + n) for i in range(len(words) - n + 1) if n and list(words[i : i + n]) == asked]
    return spans


def _owner(words: Sequence[str], at: int) -> list[str]:
    """Return the words of the owner whose thing starts at or before `at` ("the ember hound's [bite] damage"):
    the words before a possessive "'s" with nothing but naming words between it and `at`, nearest first."""
    mark = at - 1
    while mark >= 0 and words[mark] not in STOPWORDS and not is_number(words[mark]):
        mark -= 1
    if mark < 1 or words[mark] != "s":
        return []
    owner: list[str] = []
    for word in reversed(words[:mark]):
        if not naming_word(word):
            # "my wizard's spell save DC": the asker's own (or a companion's) character asks a rule's field.
            return [] if word in _THEIRS else owner[:OWNER_WORDS]
        owner.append(word)
    return owner[:OWNER_WORDS]


def _of_field(
    question: Question,
    words: Sequence[str],
    held: _Held,
    asking: set[str],
    named: Callable[[], _Held],
) -> str | None:
    """Return a word of a field asked's owner the passages do not hold, or of its kind the passages do not hold
    while others found name things by it (`named`), or None (rules 1 and 2)."""
    bare = _asks_nothing(words)
    for start, _ in _field_spans(question, words):
        for word in _owner(words, start):
            if word not in held:
                return word
        before = words[start - 1] if start else ""
        # A kind stands after a determiner ("a swimming speed", "its fire damage") or in a bare phrase; after the
        # subject of an asking verb it is most often a verb ("does a ward need concentration").
        placed = bare or (start > 1 and words[start - 2] in _DETERMINERS)
        if (
            placed
            and _kind_word(before)
            and before not in asking
            and before not in held
            and before in named()
        ):
            return before
    return None


def _asks_nothing(words: Sequence[str]) -> bool:
    """Return whether folded words hold no asking word: a bare phrase ("owlbear swimming speed")."""
    return not any(_ASKING.fullmatch(w) for w in words)


def _of_name(words: Sequence[str], seen: Sequence[str], held: _Held, common: set[str]) -> str | None:
    """Return the second noun of a name "N of M" the passages do not hold while they name another "N of"
    ("the oath of embers" beside the passage's "Oath of Cinders"), or None (rule 3)."""
    others = {seen[i - 1] for i in range(1, len(seen) - 1) if seen[i] == "of"}
    for i in range(1, len(words) - 1):
        if words[i] != "of":
            continue
        second = words[i + 2] if words[i + 1] in ("the", "a", "an") and i + 2 < len(words) else words[i + 1]
        first = words[i - 1]
        if (
            naming_word(first)
            and naming_word(second)
            and first in others
            and second not in held
            and second not in common
        ):
            return second
    return None


def _named_elsewhere(results: Sequence[LoreResult], quoted: Sequence[LoreResult]) -> _Held:
    """Return the words passages found but not quoted name things or fields' kinds by: in their headings, their
    lines' names or their fields' values ("Ring of Swimming", "Speed: 20 ft., swim 40 ft.")."""
    said: list[str] = []
    for result in results:
        if result in quoted:
            continue
        said.append(" ".join(result.heading_path))
        said += [f"{f.label} {f.value}" for f in fields_of(result)]
    return _Held(" ".join(said))


def _title_words(result: LoreResult) -> list[str]:
    if not result.heading_path:
        return []
    return [w for w in fold_words(result.heading_path[-1].split(":")[-1]) if w not in STOPWORDS]


def _after_title(
    question: Question, quoted: Sequence[LoreResult], held: _Held, asking: set[str], common: set[str]
) -> str | None:
    """Return the noun after a quoted passage's title in the bare naming phrase a question opens with, when the
    passages do not hold it (rule 4), or None."""
    words = fold_words(question.expanded)
    if words and not naming_word(words[0]) and words[0] not in FILLER:
        return None  # it opens by asking, not by naming
    end = _TOPIC_END.search(question.expanded)
    topic = fold_words(question.expanded[: end.start()] if end else question.expanded)
    if not 2 <= len(topic) <= TOPIC_WORDS:
        return None
    for result in quoted:
        title = _title_words(result)
        at = [i for i, w in enumerate(topic) if any(akin(w, t) for t in title)]
        if not at or max(at) + 1 >= len(topic):
            continue
        word = topic[max(at) + 1]
        after = topic[max(at) + 2] if max(at) + 2 < len(topic) else None
        if after is not None and after in STOPWORDS:
            continue  # "ghoul clawing at you": a verb
        if after is None and end is None:
            continue  # the last word of a bare question is what it asks ("bag of holding capacity")
        if (
            naming_word(word)
            and word not in _DEGREE
            and word not in asking
            and word not in FIELD_WORDS
            and word not in common
            and word not in held
        ):
            return word
    return None


def _before_title(
    question: Question, quoted: Sequence[LoreResult], held: _Held, common: set[str]
) -> str | None:
    """Return the word right before the owner a quoted passage's heading names ("Barbarian" of "Barbarian
    (Berserker): Retaliation") in the bare naming phrase a question opens with ("silvery barbs - ...", "moon druid
    - ..."), when the passages do not hold it: it names another kind of that owner (rule 4 too), or None. A word
    saying whose or which loosely ("my", "new") names nothing."""
    end = _TOPIC_END.search(question.expanded)
    words = fold_words(question.expanded)
    if end is None or not words or not naming_word(words[0]):
        return None  # it asks first, or names without a mark where its naming ends
    topic = fold_words(question.expanded[: end.start()])
    if not 2 <= len(topic) <= TOPIC_WORDS:
        return None
    for result in quoted:
        owner, colon, _ = (result.heading_path[-1] if result.heading_path else "").partition(":")
        if not colon:
            continue  # an entry's own title: a word before it as often describes it ("flying lion thing")
        heading = {w for w in fold_words(_BRACKETED.sub(" ", owner)) if naming_word(w)}
        at = [i for i, w in enumerate(topic) if any(akin(w, h) for h in heading)]
        if not at or min(at) == 0:
            continue
        word = topic[min(at) - 1]
        if (
            naming_word(word)
            and word not in _LOOSE
            and word not in _DEGREE
            and word not in FIELD_WORDS
            and word not in common
            and word not in held
        ):
            return word
    return None


def _block_ends(quoted: Sequence[LoreResult]) -> set[str]:
    """Return the last words of the names of the quoted passages' blocks and inner headings ("gaze" of
    "Petrifying Gaze."), and of their lines' labels."""
    names = [h or "" for r in quoted for h, _ in sections_of(r.text)]
    names += [
        label or ""
        for r in quoted
        for _, body in sections_of(r.text)
        for label, _ in labelled_sentences(body)
    ]
    names += [f.label for r in quoted for f in fields_of(r)]
    return {words[-1] for name in names if (words := fold_words(name))}


def _measure_unsaid(question: Question, answer: ShortAnswer) -> str | None:
    """Return the measure a question asks by "how" ("how tall") when the answer says it in no word of its own,
    or None (rule 5)."""
    how = how_word(question.expanded)
    said = _MEASURE_WORDS.get(how or "")
    if how is None or said is None:
        return None
    words = set(fold_words(answer.text))
    return None if any(w in words for w in said) else how


def unsupported(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    common: Sequence[str] = (),
) -> str | None:
    """Return a word naming what the question asks about that the passages the answer quotes do not hold (see the
    module docstring), or None."""
    if not answer.known or question.parts:
        return None
    quoted = _quoted(facts, results, answer)
    if not quoted:
        return None
    held = _Held(" ".join(" ".join([r.source_title, *r.heading_path, r.text]) for r in quoted))
    words = fold_words(question.expanded)
    asking = {w for name in question.fields for w in fold_words(question.asked_by.get(name, name))}
    folded_common = {w for c in common for w in fold_words(c)}
    fields = {w for name in question.fields for w in fold_words(name)}
    ends = _block_ends(quoted)
    if (
        measure := _measure_unsaid(question, answer) or row_unsaid(question, quoted, answer.text)
    ) is not None:
        return measure
    return (
        _of_field(question, words, held, asking, lambda: _named_elsewhere(results, quoted))
        or next(
            (
                w
                for part in _CLAUSE.split(question.text)
                if (w := owned_unheld(fold_words(part), held, fields, ends))
            ),
            None,
        )
        or next(
            (w for part in _CLAUSE.split(question.text) if (w := kind_unheld(fold_words(part), held))), None
        )
        or _of_name(words, held.seen, held, folded_common)
        or _after_title(question, quoted, held, asking, folded_common)
        or _before_title(question, quoted, held, folded_common)
    )


def supported(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    common: Sequence[str] = (),
) -> ShortAnswer:
    """Return the answer, or "nothing known" when what it quotes is not about what was asked (`unsupported`)."""
    if unsupported(question, facts, results, answer, common) is None:
        return answer
    return ShortAnswer(
        text=nothing_known(question.text),
        mode=AnswerMode.NOTHING,
        known=False,
        citations=[c.model_copy(update={"cited": False}) for c in answer.citations],
    )
