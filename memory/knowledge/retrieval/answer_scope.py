"""What a question is about, as the sources know it: words no source holds, and words that only chat.

`strange_words`: the words naming what a question is about that no source the asker may read holds, nor
misspells ("kenku mimicry", "do I get advantage for flanking"): such a question is answered "nothing known", not
with a line about something else that shares its other words. When the question's other words name the best
passage's section (its own words, a plural apart: "kenku mimicry" does not name Mimic), the word only qualifies
it ("tasha's hideous laughter": the books call it Hideous Laughter). The retriever finds the words no source
holds (`RetrievalTrace.unknown_words`); the table's chatter ("guys", "whats") is no question's subject, nor is
its word for what the books say otherwise ("formula": `glossary.RELATED`).

`unheld_kind`: such a word right before the name of an entry the books hold, in a question asking one of its
fields ("the armour of a *grey* Bogwarden" of a bestiary with no grey kind), asks of a kind no source holds:
whichever rule found the field (a line, a stat line, a table's row), the answer is "nothing known", word for word
as of a name nobody wrote. Asked whole ("what is a grey bogwarden", "grey bogwarden stats"), it is no answer
either. An owner ("tasha's hideous laughter", "ysoldes bogwarden"), a kind the books hold ("elder") or a word
describing loosely ("that big bogwarden thing") is the entry.

`off_subject`: sentences quoted from a lesser passage only (the best one said nothing that answers) must be
about what is asked: the passage's headings or the sentences quoted hold the subject's first naming word and at
least half of its naming words (typos forgiven). Otherwise the sentence shares the question's other words only
("-5 to hit" of a monster's bite for a feat no source names): the answer is "nothing known". Sentences of the
best passage need one naming word only ("elves" names Elf). A word asking how many or how much ("max *number* of
attuned items", "*total* of charges") names what is asked, not what it is asked of: it is no naming word; an
abbreviation is held where its long form's words are ("dc" in a heading "Difficulty Classes").

`narrowed`: "my party is about to fight a troll, how many hit points does it have?" asks the troll's; the words
apart from the name the sources know ("party", "fight") only set the scene. A word next to the name may be part
of what is asked ("cinder wolf", "death tyrant", "how much does a troll regain"): then nothing is narrowed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rapidfuzz import fuzz

from memory.fulltext import STOPWORDS
from memory.knowledge.fields import KIND, fields_of
from memory.knowledge.models import LoreResult
from memory.knowledge.question import CHATTER, FILLER, Question, ending_verb
from memory.knowledge.retrieval.answer_kind_named import LOOSE
from memory.knowledge.retrieval.answer_words import (
    ABBREVIATIONS,
    fold_words,
    has_word,
    is_number,
    labelled_sentences,
    related_said,
    same_word,
    sections_of,
    table_word,
)
from memory.knowledge.retrieval.field_answer import PASSAGES_READ

__all__ = [
    "CHATTER",
    "held_long",
    "named_otherwise",
    "narrowed",
    "off_subject",
    "strange_words",
    "unheld_kind",
    "unheld_words",
]

#: How many of the subject's first words name what the question is about.
NAMING_WORDS = 3
#: A subject this short names what is asked about with every word.
SHORT_SUBJECT = 4
#: Words that join a word to a name: "crossbow of ice", "mason's tools".
_JOINS = frozenset({"of", "s"})
#: Words asking an amount of something: what is asked, never what it is asked of ("max number of attuned items").
AMOUNT_ASKED = frozenset({"number", "amount", "count", "total", "max", "maximum", "min", "minimum", "limit"})
#: A word no source holds is a misspelling of a passage's word when it is this close (and starts alike).
TYPO_RATIO = 75
#: Words describing a thing loosely, naming no kind of it: "that *big* bogwarden thing", "an *old* owlbear".
_DESCRIBING = LOOSE | {"old", "young", "little", "large", "huge", "tiny", "scary", "weird", "angry", "wild"}
#: Words after an entry's name that ask it whole: "grey bogwarden *stats*".
_WHOLE_ASKED = frozenset(
    {"stats", "stat", "statblock", "statblocks", "block", "entry", "info", "lore", "details"}
)
#: The letters of a word, as the unknown words' lookup reads it (`retrieval.words`: "morv5" is "morv").
_LETTERS = re.compile(r"[^\W\d_]+")


def _misspelt(word: str, words: set[str]) -> bool:
    for w in words:
        if len(w) < 4 or abs(len(w) - len(word)) > 2:
            continue
        ratio = fuzz.ratio(word, w)
        # "trenat" for "treant"; "otols" for "tools" (two letters swapped at the start).
        if (w[:1] == word[:1] and ratio >= TYPO_RATIO) or (abs(len(w) - len(word)) <= 1 and ratio >= 80):
            return True
    return False


def strange_words(question: Question, unknown: Sequence[str], results: Sequence[LoreResult]) -> list[str]:
    """Return the words naming what the question is about that no source the asker may read holds, and that
    are not a misspelling of a word of the best passages (see the module docstring)."""
    strange = _unheld_naming(question, unknown, results)
    if strange and results and _names_first(question, strange, results[0]):
        return []  # "tasha's hideous laughter": the rest names the best passage's section
    return strange


def _unheld_naming(question: Question, unknown: Sequence[str], results: Sequence[LoreResult]) -> list[str]:
    # What a question is about comes first; a long description's later words are the table's own
    # ("a cursed deck of cards where each draw can be wonderful or disastrous").
    # A short subject is all naming words ("what ability score bonus do tortles get").
    naming = len(question.subject) if len(question.subject) <= SHORT_SUBJECT else NAMING_WORDS
    about = {w for part in question.parts for w in part[:NAMING_WORDS]} | set(question.subject[:naming])
    # A word of letters and figures ("morv5") is looked up by its letters, as the sources' words are read; it is
    # misspelt or not as typed ("morv" is close to "more", "morv5" is not).
    typed = {letters: w for w in about for letters in _LETTERS.findall(w) if letters != w}
    about |= set(typed)
    # An amount names nothing ("can a sloop tow three barges" of a book saying "two barges"); nor does the
    # table's word for what the books say otherwise ("the *formula* for carrying capacity": the books give a sum).
    strange = [
        w for w in unknown if w in about and w not in CHATTER and not is_number(w) and not table_word(w)
    ]
    if not strange:
        return []
    seen: set[str] = set()
    for result in results[:PASSAGES_READ]:
        seen |= set(fold_words(" ".join([*result.heading_path, result.text])))
    strange = [w for w in strange if not _misspelt(typed.get(w, w), seen)]
    return [w for w in strange if w not in related_said(sorted(seen), [w])]  # "money": the books' "coin"


def unheld_kind(question: Question, unknown: Sequence[str], results: Sequence[LoreResult]) -> bool:
    """Return whether the question asks a field of a kind of an entry that no source holds: a word no source
    holds (`strange_words`' own, a misspelling apart) right before the name of a field's subject of the best
    passages, and the question asking a field (one it names, or one of that subject's lines: "the armour of a
    *grey* Bogwarden"), or the entry whole (`_kind_asked_whole`). Whichever rule found it, it is no answer: the
    books hold no grey Bogwarden. An owner ("tasha's hideous laughter", "ysolde's bogwarden") names the entry."""
    strange = set(_unheld_naming(question, unknown, results))
    if not strange:
        return False
    words = fold_words(question.expanded)
    # The books' label as typed ("armour") or as the table's glossary reads it ("armor").
    said = {*words, *fold_words(question.text)}
    for result in results[:PASSAGES_READ]:
        for field in fields_of(result):
            name = fold_words(field.subject.split("›")[-1])
            if field.label == KIND or not name:
                continue
            asked = bool(question.fields) or any(
                has_word(set(fold_words(field.label)), w) and w not in name for w in said
            )
            if asked and any(
                w in strange and _plural_apart(name[0], words[i + 1]) for i, w in enumerate(words[:-1])
            ):
                return True
    return not question.fields and _kind_asked_whole(question, strange, results)


def _kind_asked_whole(question: Question, strange: set[str], results: Sequence[LoreResult]) -> bool:
    """Return whether the question asks a kind no source holds of a best passage's entry, whole ("what is a
    *grey* Bogwarden", "grey bogwarden stats"): its subject is the entry's title (a plural apart) after such a
    word said right before it, and nothing else but a word asking the whole entry. A word describing loosely
    ("that *big* bogwarden thing") or an owner typed without its apostrophe ("ysoldes bogwarden") is no kind."""
    kinds = {w for w in strange if w not in _DESCRIBING and not (w.endswith("s") and not w.endswith("ss"))}
    words = fold_words(question.expanded)
    subject = [w for w in fold_words(" ".join(question.subject)) if w not in STOPWORDS]
    for result in results[:PASSAGES_READ]:
        title = [
            w
            for w in fold_words(result.heading_path[-1] if result.heading_path else "")
            if w not in STOPWORDS
        ]
        if not title:
            continue
        for j in range(1, len(subject) - len(title) + 1):
            named = subject[j : j + len(title)]
            if not all(_plural_apart(t, w) for t, w in zip(title, named, strict=True)):
                continue
            rest = subject[j + len(title) :]
            if (
                all(w in strange for w in subject[:j])
                and all(w in _WHOLE_ASKED for w in rest)
                and any(
                    w in kinds and _plural_apart(title[0], words[i + 1]) for i, w in enumerate(words[:-1])
                )
            ):
                return True
    return False


def unheld_words(question: Question, results: Sequence[LoreResult]) -> tuple[list[str], int]:
    """Return the words naming what the question is about (its subject's first few) that none of the best
    passages holds, in its headings, text or lines' names (an ending, a typo or the books' own word for it
    apart), and how many naming words there are: the search may have found passages about something else
    ("hermes symbol?" finding holy symbols)."""
    verb = ending_verb(question.expanded)
    naming = [
        w
        for w in question.subject[:NAMING_WORDS]
        if w not in STOPWORDS
        and w not in CHATTER
        and w not in FILLER
        and w != verb
        and not is_number(w)
        and len(w) > 2
    ]
    if not naming:
        return [], 0
    folded: list[str] = []
    for result in results[:PASSAGES_READ]:
        labels = " ".join(f.label for f in fields_of(result))
        folded += fold_words(" ".join([result.source_title, *result.heading_path, labels, result.text]))
    seen = set(folded)
    missing = [
        w for w in naming if not _held(w, seen) and not (w.endswith("ves") and _held(w[:-3] + "f", seen))
    ]
    said = related_said(folded, missing) if missing else set()
    return [w for w in missing if w not in said], len(naming)


def off_subject(question: Question, quoted: Sequence[LoreResult], said: str, best: bool = False) -> bool:
    """Return whether sentences quoted (`said`) from passages that are not the best one (`quoted`) miss what
    the question is about: the first naming word of its subject, or half of its naming words, is in neither
    the passages' headings nor the sentences (see the module docstring). With `best` (the best passage is
    quoted), only when none of them is."""
    naming = [
        w
        for w in question.subject[:NAMING_WORDS]
        if w not in STOPWORDS
        and w not in CHATTER
        and w.split("'")[0] not in STOPWORDS  # "i'm", "can't"
        and not w.isdigit()  # a number names nothing: "-5 to hit" is no monster's "reach 5 ft."
        and w not in AMOUNT_ASKED
    ]
    if not naming or not quoted or _kind_asked(question, naming[0]):
        return False
    words = set(fold_words(said))
    for result in quoted:
        # Its headings, inner headings and bold names ("Claw." heads every sentence of its block).
        named = [h or "" for h, _ in sections_of(result.text)]
        named += [
            label or "" for _, body in sections_of(result.text) for label, _ in labelled_sentences(body)
        ]
        words |= set(fold_words(" ".join([result.source_title, *result.heading_path, *named])))
    held = [w for w in naming if held_long(w, words)]
    if best:
        return not held
    # The first naming word the books say in their own words is held ("rid" of "get rid of": "Removed by …");
    # the others count as held only in the question's words.
    first = naming[0] in held or naming[0] in related_said(sorted(words), naming[:1])
    return not first or 2 * len(held + [naming[0]] * (naming[0] not in held)) < len(naming)


def named_otherwise(question: Question, result: LoreResult) -> bool:
    """Return whether the question names something else than a passage's entry by one of its title's words:
    the title's word joined by "of" to a word of the question's subject ("aura of *warding*" of "Aura of
    Courage") that the passage holds nowhere, neither in its headings nor in its text. A passage about another
    aura does not answer. (A word before the title's is often a verb: "what stops troll regeneration".)"""
    if not result.heading_path:
        return False
    title = [
        w
        for w in fold_words(result.heading_path[-1].split(":")[-1])
        if w not in STOPWORDS and not w.isdigit()
    ]
    held = set(fold_words(" ".join([result.source_title, *result.heading_path, result.text])))
    subject = {w for w in question.subject if w not in CHATTER and not _held(w, held)}
    if not title or not subject:
        return False
    words = fold_words(question.expanded)
    for i, word in enumerate(words):
        if not any(same_word(word, t) for t in title):
            continue
        joined = words[i + 2] if words[i + 1 : i + 2] == ["of"] and i + 2 < len(words) else ""
        if joined in subject:
            return True
    return False


def _held(word: str, words: set[str]) -> bool:
    """Return whether `words` hold a word, but for an ending or a typo ("elves" is tried as "elf" too)."""
    return has_word(words, word) or _misspelt(word, words)


def held_long(word: str, words: set[str]) -> bool:
    """Return whether `words` hold a word (`_held`; "elves" as "elf" too), or every word of an abbreviation's long
    form ("dc": "difficulty" and "class")."""
    if _held(word, words) or (word.endswith("ves") and _held(word[:-3] + "f", words)):
        return True
    long_form = ABBREVIATIONS.get(word, ())
    return bool(long_form) and all(_held(w, words) for w in long_form)


def _kind_asked(question: Question, word: str) -> bool:
    """Return whether the question asks which entry of a kind fits a description ("which fiend can only be hurt
    by ..."): the word after "which" or "what" names a kind, not what is asked about."""
    words = fold_words(question.expanded)
    return len(words) > 1 and words[0] in ("which", "what") and same_word(words[1], word)


def _names_first(question: Question, strange: Sequence[str], first: LoreResult) -> bool:
    """Return whether the question's other words name the best passage's section (every word of its title):
    then the word no source holds only qualifies it (an owner, a nickname), as in "tasha's hideous laughter"."""
    rest = [w for w in fold_words(question.expanded) if w not in strange]
    title = [
        w for w in fold_words(first.heading_path[-1] if first.heading_path else "") if w not in STOPWORDS
    ]
    # The title's own words, a plural apart: "kenku mimicry" does not name "Mimic" ("mimicry" is another word).
    # A plural title said in the singular ("the frozen condition" of "Conditions") names a kind of entry the
    # section lists: the word no source holds is the entry asked, which the list does not hold.
    if any(t in (w + "s", w + "es") for t in title for w in rest):
        return False
    return bool(title) and all(any(_plural_apart(t, w) for w in rest) for t in title)


def _plural_apart(a: str, b: str) -> bool:
    """Return whether two folded words are one, or one the other's plural ("laughter", "laughters")."""
    short, long_ = sorted((a, b), key=len)
    return long_ in (short, short + "s", short + "es")


def _named_in(word: str, headings: set[str]) -> bool:
    """Return whether a heading holds a word: the same word but for an ending, or misspelt from its first
    letter on ("wearing" is not "hearing")."""
    return any(
        same_word(word, h) or (h[:1] == word[:1] and len(word) >= 5 and fuzz.ratio(word, h) >= 80)
        for h in headings
    )


def narrowed(question: Question, results: Sequence[LoreResult]) -> Question | None:
    """Return the question about the words of its subject the best passages' headings (or their lines' names)
    name, when the others
    only set the scene apart from the name (see the module docstring), or None."""
    headings: set[str] = set()
    for result in results[:PASSAGES_READ]:
        inner = " ".join(h for h, _ in sections_of(result.text) if h)
        # A line's name counts as a heading: "Breath Weapon" of the Dragonborn.
        labels = " ".join(f.label for f in fields_of(result) if f.label != KIND)
        headings |= set(fold_words(" ".join([*result.heading_path, inner, labels])))
    kept = [w for w in question.subject if _named_in(w, headings)]
    if not kept or len(kept) == len(question.subject):
        return None
    words = fold_words(question.expanded)
    at = {i for i, w in enumerate(words) if w in kept}
    for i, word in enumerate(words):
        if word not in question.subject or word in kept:
            continue
        # A word next to the name (or joined to it: "crossbow of ice") is part of what is asked.
        near = {i - 1, i + 1} | {
            i + 2 * d for d in (-1, 1) if 0 <= i + d < len(words) and words[i + d] in _JOINS
        }
        if near & at:
            return None
    return replace(question, subject=kept)
