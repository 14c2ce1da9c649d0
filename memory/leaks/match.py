"""Match a secret against a text: by its names, by what it says of whom, and by its distinctive words."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.leaks.lexicon import RELATION_WORDS, STATE_WORDS, cue_phrases, state_adjectives, wording_phrases
from memory.leaks.normalize import Clause, clauses, fold_word, tokens
from memory.leaks.secret import Secret, SecretKind

__all__ = [
    "CompiledSecret",
    "Text",
    "compile_secret",
    "distinctive_quote",
    "hidden_name",
    "may_say",
    "reveals",
]

Phrase = tuple[str, ...]

STOP = frozenset(fold_word(w) for w in STOPWORDS)
ARTICLES = frozenset({"the", "a", "an"})
#: Words before an adjective that make it a noun for a crowd ("for the dead", "our wounded").
CROWD = frozenset({"the", "our", "their", "your", "its"})
PRONOUNS = frozenset(
    fold_word(w) for w in ["he", "she", "him", "her", "his", "hers", "they", "them", "their", "it", "its"]
)
NEGATIONS = frozenset(
    fold_word(w)
    for w in [
        "not",
        "no",
        "never",
        "nor",
        "none",
        "neither",
        "cannot",
        "isn",
        "wasn",
        "aren",
        "weren",
        "hasn",
        "hadn",
        "didn",
        "doesn",
        "don",
        "won",
    ]
)
#: Values that say only that the attribute holds ("is_spy = true"): the attribute's words say what it is.
TRUTHY = frozenset({"true", "yes", "y"})
NGRAM = 3
MIN_NAME_CHARS = 3
#: A free-text clause is a claim when it has this many content words (fewer say nothing; more are a passage).
MIN_CLAIM_WORDS, MAX_CLAIM_WORDS = 2, 8
#: A clause this short ("Slain, last winter.") is an answer about what the clause before it named.
ELLIPTIC_WORDS = 4


class Text:
    """A text prepared once for matching: its clauses, its words and the runs of words it holds."""

    def __init__(self, text: str = "", *, parts: Sequence[Text] = ()) -> None:
        self.clauses: list[Clause] = clauses(text) if text else [c for part in parts for c in part.clauses]
        self.words = [w for c in self.clauses for w in c.words]
        self.vocabulary = frozenset(self.words)
        self.raw = [w for c in self.clauses for w in c.raw]

    def quote(self, gram: Phrase) -> str:
        """Return the first run of words equal to `gram`, as written."""
        at = _find(self.words, gram)
        return " ".join(self.raw[at[0] : at[0] + len(gram)]) if at else " ".join(gram)

    def has_run(self, phrase: Phrase) -> bool:
        """Return whether the words of `phrase` stand together in one clause."""
        if not phrase or phrase[0] not in self.vocabulary:
            return False
        return any(c.find(phrase) for c in self.clauses)


@dataclass(frozen=True)
class CompiledSecret:
    """A secret as the matcher reads it: names as word runs, and the groups of words that say its content."""

    secret: Secret
    subjects: tuple[tuple[Phrase, ...], ...]
    partial: tuple[frozenset[str], ...]
    cues: tuple[tuple[Phrase, ...], ...]
    adjective: bool
    names: tuple[Phrase, ...]


def _phrase(text: str) -> Phrase:
    return tuple(tokens(text))


def _forms(text: str) -> list[Phrase]:
    """Return a phrase's word runs: a hyphenated word reads as one word ("parent-in-law") and spaced apart."""
    forms = [_phrase(text)]
    if any(h in text for h in "-\u2010\u2011"):
        forms.append(_phrase(re.sub("[-\u2010\u2011]", " ", text)))
    return [f for f in forms if f]


def _joined(words: Sequence[str]) -> tuple[Phrase, ...]:
    """Return a predicate's words run together as a hyphenated word reads ("step parent of" as "step-parent")."""
    core = list(words)
    while core and core[-1] in STOP:
        core.pop()
    while core and core[0] in STOP:
        core.pop(0)
    return (("".join(core),),) if len(core) > 1 else ()


def _name_forms(names: Iterable[str]) -> tuple[Phrase, ...]:
    """Return the word runs that name an entity: each name without its article, and run together."""
    forms: list[Phrase] = []
    for name in names:
        words = _phrase(name)
        while len(words) > 1 and words[0] in ARTICLES:
            words = words[1:]
        if len("".join(words)) >= MIN_NAME_CHARS:
            forms.append(words)
            if len(words) > 1:
                forms.append(("".join(words),))  # "Crimson-Pact" reads as one word
    return tuple(dict.fromkeys(forms))


def _find(words: Sequence[str], phrase: Phrase) -> list[int]:
    size = len(phrase)
    if not size:
        return []
    return [i for i in range(len(words) - size + 1) if tuple(words[i : i + size]) == phrase]


def _content(text: str) -> list[str]:
    return [w for w in tokens(text) if w not in STOP]


_TABLES = {"state": STATE_WORDS, "relation": RELATION_WORDS, "none": {}}


def _cue_group(words: Iterable[str], table: str) -> tuple[Phrase, ...]:
    return _cue_group_of(tuple(words), table)


@functools.lru_cache(maxsize=4096)
def _cue_group_of(words: tuple[str, ...], table: str) -> tuple[Phrase, ...]:
    return tuple(dict.fromkeys(f for p in cue_phrases(words, _TABLES[table]) for f in _forms(p)))


def _text_claims(secret: Secret) -> list[CompiledSecret]:
    """Return a free-text secret's clauses as claims: all the content words of one clause said together."""
    claims: list[CompiledSecret] = []
    for clause in clauses(secret.text):
        content = list(dict.fromkeys(w for w in clause.words if w not in STOP))
        if MIN_CLAIM_WORDS <= len(content) <= MAX_CLAIM_WORDS:
            cues = tuple(_cue_group([w], "state") for w in content)
            claims.append(CompiledSecret(secret, (), (), cues, adjective=True, names=()))
    return claims


@functools.lru_cache(maxsize=4096)
def compile_secret(secret: Secret) -> tuple[CompiledSecret, ...]:
    """Return what the matcher needs of a secret: names as word runs, cue groups with their synonyms.

    A structured secret gives one claim; free text one per clause short enough to be a claim.
    """
    if secret.kind == SecretKind.TEXT:
        return tuple(_text_claims(secret))
    subjects = tuple(_name_forms(names) for names in secret.subjects)
    partial = tuple(
        frozenset(w for p in names for w in p if len(p) > 1 and w not in STOP and len(w) >= 4)
        for names in subjects
    )
    cues: list[tuple[Phrase, ...]] = []
    predicate_words = _content((secret.predicate or "").replace("_", " "))
    value = secret.value or ""
    if secret.kind == SecretKind.STATE:
        raw = " ".join(tokens(value))
        cues.append(_cue_group([raw, *_content(value)], "state"))
    elif secret.kind == SecretKind.RELATION:
        key = (secret.predicate or "").lower()
        # "parent" and "law" are no cue of their own where the card says them in one word ("parent-in-law").
        said = wording_phrases(key)
        parts = {p for w in said if "-" in w for p in tokens(w.replace("-", " "))}.difference(
            p for w in said for p in tokens(w)
        )
        group = _cue_group([w for w in predicate_words if w not in parts or w in STOP], "none")
        joined = _joined(tokens(key.replace("_", " ")))
        extra = _cue_group([key], "relation")[1:]
        worded = tuple(f for w in said for f in _forms(w))
        cues.append(tuple(dict.fromkeys((*group, *joined, *extra, *worded))))
    elif secret.kind == SecretKind.FACT:
        words = _content(value)
        if not words or set(words) <= TRUTHY:
            cues.append(_cue_group(predicate_words, "state"))
        else:
            cues += [_cue_group([w], "state") for w in words]
    names = _name_forms(secret.hidden_names)
    compiled = CompiledSecret(
        secret=secret,
        subjects=subjects,
        partial=partial,
        cues=tuple(g for g in cues if g),
        adjective=secret.kind in (SecretKind.STATE, SecretKind.FACT),
        names=names,
    )
    return (compiled,)


def _names_subject(clause: Clause, names: tuple[Phrase, ...], partial: frozenset[str]) -> int | None:
    for name in names:
        found = clause.find(name)
        if found:
            return found[0]
    for i, word in enumerate(clause.words):
        if word in partial and clause.capitalised(i):
            return i
    return None


def _says(clause: Clause, group: tuple[Phrase, ...], *, adjective: bool) -> int | None:
    words = clause.words
    for phrase in group:
        for i in clause.find(phrase):
            # "for the dead at dusk", "our wounded": a state after "the" or a possessive names a crowd.
            as_noun = (
                adjective
                and len(phrase) == 1
                and phrase[0] in state_adjectives()
                and i > 0
                and words[i - 1] in CROWD
            )
            if not as_noun:
                return i
    return None


def may_say(compiled: CompiledSecret, vocabulary: frozenset[str]) -> bool:
    """Return whether a text has words enough to say the secret (most texts are ruled out here, at once)."""
    for group in compiled.cues:
        if not any(phrase[0] in vocabulary for phrase in group):
            return False
    for names, partial in zip(compiled.subjects, compiled.partial, strict=True):
        if not any(name[0] in vocabulary for name in names) and vocabulary.isdisjoint(partial):
            return False
    return True


def reveals(compiled: CompiledSecret, text: Text, *, allow_negated: bool = True) -> str | None:
    """Return the words of `text` that say what the secret says of its subjects (None when none do).

    A clause says it when it names every subject (a subject named in the clause before counts when this
    one refers back: a pronoun, or a clause of a few words) and says every cue (the value or predicate, or a word meaning the same).
    """
    if not compiled.cues or (not compiled.subjects and len(compiled.cues) < MIN_CLAIM_WORDS):
        return None
    if not may_say(compiled, text.vocabulary):
        return None
    previous: Clause | None = None
    for clause in text.clauses:
        if not allow_negated and NEGATIONS.intersection(clause.words):
            previous = clause
            continue
        said = [_says(clause, group, adjective=compiled.adjective) for group in compiled.cues]
        if all(i is not None for i in said):
            # "He died." and "Slain, last winter." speak of whoever the clause before named.
            elliptic = len(clause.words) <= ELLIPTIC_WORDS and not NEGATIONS.intersection(clause.words)
            refers_back = previous is not None and (elliptic or bool(PRONOUNS.intersection(clause.words)))
            places: list[int] = [i for i in said if i is not None]
            named = True
            for names, partial in zip(compiled.subjects, compiled.partial, strict=True):
                at = _names_subject(clause, names, partial)
                if at is not None:
                    places.append(at)
                elif not (refers_back and previous and _names_subject(previous, names, partial) is not None):
                    named = False
                    break
            if named:
                return clause.quote(min(places), max(places))
        previous = clause
    return None


def hidden_name(compiled: CompiledSecret, text: Text, public: Text) -> str | None:
    """Return the first secret name `text` uses that players have not seen elsewhere (None when none)."""
    for name in compiled.names:
        if not public.has_run(name) and text.has_run(name):
            return text.quote(name)
    return None


@functools.lru_cache(maxsize=4096)
def secret_text(text: str) -> Text:
    """Return a secret's own text prepared for matching (kept: the same secrets are checked again and again)."""
    return Text(text)


def _grams(words: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def distinctive_quote(secret_text: Text, reply: Text, known: set[str]) -> str | None:
    """Return a run of a secret's words the reply repeats that players could not have known (None if none).

    A run of three words (or the whole secret when shorter) with a word the public material never uses, two
    such words side by side, or a name (capitalised inside its clause) the players never saw.
    """
    secret_words = secret_text.words
    distinctive = {w for w in secret_words if w not in known and w not in STOP and len(w) > 2}
    if not distinctive or not reply.words:
        return None
    size = min(NGRAM, len(secret_words))
    reply_grams = _grams(reply.words, size)
    for gram in _grams(secret_words, size):
        if gram in reply_grams and distinctive.intersection(gram):
            return reply.quote(gram)
    pairs = _grams(reply.words, 2)
    for gram in _grams(secret_words, 2):
        if gram in pairs and set(gram) <= distinctive:
            return reply.quote(gram)
    reply_set = set(reply.words)
    for clause in secret_text.clauses:
        for i, word in enumerate(clause.words):
            if i and clause.capitalised(i) and word in distinctive and word in reply_set and len(word) >= 4:
                return reply.quote((word,))
    return None
