"""Catch a reply that quotes GM-only text before it is posted where players read it.

A narrator may be steered by hidden canon; an NPC never is, but its reply is checked all the same. The check
is lexical: a reply leaks a secret when it repeats a run of the secret's words (three, or the whole secret
when it is shorter) that carries a *distinctive* word, one the material players may see (`public`) never
uses, two distinctive words side by side, or a proper noun of the secret that the players never saw. Words
the players already know cannot leak anything, which keeps ordinary phrases and public names from tripping
the check. A paraphrase escapes it; the prompts' instruction never to reveal hidden material is the first
line of defence, this is the second.

`public` must hold only what players may legitimately see: player-visible canon, public sources, what the GM
said at the table. Never a player's own words: a player who types "Is Mira in the Crimson Pact?" would
otherwise make the secret's words ordinary, and a reply confirming it would pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from memory.fulltext import STOPWORDS

__all__ = ["Leak", "Secret", "find_leaks", "words"]

NGRAM = 3
MIN_NAME_CHARS = 4

_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = re.compile(r"[.!?:;]\s*$")


class Secret(BaseModel):
    """A GM-only text and a label saying where it comes from (shown to the GM, never to players)."""

    model_config = ConfigDict(frozen=True)

    text: str
    label: str


class Leak(BaseModel):
    """A secret a reply repeats, and the words it repeats."""

    model_config = ConfigDict(frozen=True)

    label: str
    phrase: str


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Return the folded words of a text (case, accents and punctuation ignored)."""
    return [_fold(w) for w in _WORD.findall(unicodedata.normalize("NFKC", text))]


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def _proper_nouns(text: str) -> list[str]:
    """Return the capitalised words of a text that do not start a sentence (names, mostly)."""
    found: list[str] = []
    for match in _WORD.finditer(unicodedata.normalize("NFKC", text)):
        word = match.group(0)
        before = text[: match.start()].rstrip()
        starts_sentence = not before or bool(_SENTENCE_END.search(before))
        if word[:1].isupper() and not starts_sentence and len(word) >= MIN_NAME_CHARS:
            found.append(_fold(word))
    return found


def find_leaks(reply: str, secrets: Iterable[Secret], public: Iterable[str]) -> list[Leak]:
    """Return the secrets `reply` quotes (empty when it quotes none); `public` is what players may know."""
    reply_words = words(reply)
    if not reply_words:
        return []
    known = set()
    for text in public:
        known.update(words(text))
    reply_set = set(reply_words)
    leaks: list[Leak] = []
    for secret in secrets:
        tokens = words(secret.text)
        distinctive = {w for w in tokens if w not in known and w not in STOPWORDS and len(w) > 2}
        if not distinctive:
            continue
        found: str | None = None
        size = min(NGRAM, len(tokens))
        reply_grams = _grams(reply_words, size)
        for gram in _grams(tokens, size):
            if gram in reply_grams and distinctive.intersection(gram):
                found = " ".join(gram)
                break
        if found is None:
            # Two distinctive words side by side ("crimson pact") are a quote even without a third.
            pairs = _grams(reply_words, 2)
            for gram in _grams(tokens, 2):
                if gram in pairs and set(gram) <= distinctive:
                    found = " ".join(gram)
                    break
        if found is None:
            names = [n for n in _proper_nouns(secret.text) if n in distinctive and n in reply_set]
            if names:
                found = names[0]
        if found is not None:
            leaks.append(Leak(label=secret.label, phrase=found))
    return leaks
