"""The words a question is searched by: typos corrected towards the campaign's words, large campaigns' rarest words.

Typos. A question word of four letters or more that appears nowhere in the allowed sources and is close to a word
of their headings or to a field's word they hold ("challenge", "speed") is searched as that word too ("Hyra" ->
"hydra"), by words and by meaning. Close: the same first letter, and rapidfuzz ratio >= `typo_cutoff`, or, for a
long enough word, one slip apart (two neighbours swapped: "trenat" -> "treant"; a letter added or dropped, or in a
longer word changed: "challange" -> "challenge"), when only one word of the vocabulary is that close. A word of
six letters or more close to none of those is read as the closest word of the readable chunks one slip away (a
swap, or a letter added or dropped: a changed letter there too often makes another word), the more frequent when
several are (`memory.knowledge.retrieval.vocabulary`: "posion" -> "poison"), except in a campaign above
`large_campaign_chunks`, whose chunks are not read whole. Only the allowed sources are looked at, so no typo is
"corrected" towards a word only a hidden source (or a GM-only section the asker may not read) contains. A word
typed without its vowels ("spd", "hvy") is read as the books' word it is the consonants of (`unvowelled`).

Large campaigns. bm25 scores every chunk that has any query word: a word found in a quarter of 100,000 chunks
costs hundreds of milliseconds and adds almost nothing to the ranking (its idf is tiny). Above
`large_campaign_chunks`, the words found in more than `common_word_share` of the chunks are left to the semantic
search.
"""

from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeVar

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA
from sqlalchemy.ext.asyncio import AsyncSession

from memory import fulltext
from memory.knowledge.question import FIELD_WORDS
from memory.knowledge.repository import SourceLite, chunk_words_texts, heading_texts
from memory.knowledge.retrieval.candidates import CandidateLists
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.unvowelled import is_unvowelled, unvowelled
from memory.knowledge.retrieval.vocabulary import Vocabulary

_WORD = re.compile(r"[^\W\d_]+")
_T = TypeVar("_T")
_K = TypeVar("_K")
#: Heading vocabularies kept (one per set of allowed source versions).
_VOCAB_CACHE = 8
#: Whether a word is in the allowed sources' chunks, kept per word and set of allowed source versions.
_EXISTS_CACHE = 20000
#: The shortest misspelt word corrected from one slip alone, by slip: two neighbours swapped ("trenat"), a letter
#: added or dropped ("grapple", "graple"), a letter changed ("challange"). A changed letter most often makes
#: another real word ("tortle", "turtle"): only long words are read through it.
SWAP_LETTERS = 5
ADDED_LETTERS = 6
CHANGED_LETTERS = 8


def _slip_fits(word: str, other: str) -> bool:
    """Return whether two words one slip apart are long enough for that kind of slip to be a typo."""
    if len(word) != len(other):
        return min(len(word), len(other)) >= ADDED_LETTERS
    if sorted(word) == sorted(other):
        return len(word) >= SWAP_LETTERS
    return len(word) >= CHANGED_LETTERS


def _slip_in_text(word: str, other: str) -> bool:
    """Return whether a slip may be read as a typo of a word of the chunks: a swap or a letter added or dropped.

    A letter changed is left to the headings' words: against the thousands of words of the text, it most often
    makes another word the question did not mean ("tortles", "turtles").
    """
    return _slip_fits(word, other) and (len(word) != len(other) or sorted(word) == sorted(other))


def one_slip(word: str, vocabulary: Sequence[str]) -> str | None:
    """Return the one word of `vocabulary` a word is one slip from (see `_slip_fits`), or None when none is, or
    several are (which was meant is not known)."""
    if len(word) < SWAP_LETTERS:
        return None
    close = [v for v in vocabulary if OSA.distance(word, v, score_cutoff=1) <= 1 and _slip_fits(word, v)]
    return close[0] if len(close) == 1 else None


def campaigns_of(allowed: dict[int, SourceLite]) -> list[int]:
    """Return the campaigns owning the allowed sources (the scope of a full-text query)."""
    return sorted({s.campaign_id for s in allowed.values()})


def corrected(question: str, corrections: dict[str, str]) -> str:
    """Return the question with misspelt words replaced (for the embedding)."""
    for wrong, right in corrections.items():
        question = re.sub(rf"(?i)\b{re.escape(wrong)}\b", right, question)
    return question


async def scale_words(
    session: AsyncSession,
    words: list[str],
    allowed: dict[int, SourceLite],
    config: SearchConfig,
    lists: CandidateLists,
    unseen: frozenset[int] = frozenset(),
) -> list[str]:
    """Return the words to search by: all of them, or in a large campaign its rarest few (see the docstring)."""
    chunks = sum(s.chunk_count for s in allowed.values())
    if chunks <= config.large_campaign_chunks or not words:
        return words
    cap = max(500, int(chunks * config.common_word_share))
    counts = await fulltext.document_frequencies(
        session, words, list(allowed), campaigns=campaigns_of(allowed), cap=cap, without=sorted(unseen)
    )
    # A word in no chunk would only take the place of one that matches.
    rare = sorted((w for w in words if 0 < counts[w] <= cap), key=lambda w: counts[w])
    kept = [w for w in words if w in set(rare[: config.large_campaign_words])]
    if kept != words:
        lists.warnings.append(
            f"large campaign: searched by the rarer words {', '.join(kept) or '(none)'}; common words by meaning"
        )
    return kept


class TypoFixer:
    """Finds misspelt question words and the heading words they were meant to be (see the docstring)."""

    def __init__(self) -> None:
        self._vocabularies: OrderedDict[tuple[tuple[int, ...], ...], list[str]] = OrderedDict()
        #: Each kept vocabulary as a set, by the list's identity (read by every question; built once).
        self._vocabulary_sets: dict[int, tuple[list[str], frozenset[str]]] = {}
        self._words: OrderedDict[tuple[tuple[int, ...], ...], Vocabulary | None] = OrderedDict()
        self._exists: OrderedDict[tuple[tuple[tuple[int, ...], ...], str], bool] = OrderedDict()

    async def exists(
        self,
        session: AsyncSession,
        word: str,
        allowed: dict[int, SourceLite],
        unseen: frozenset[int] = frozenset(),
    ) -> bool:
        """Return whether a word (stemmed as the index stems it) is in a readable chunk of the allowed sources
        (`fulltext.word_exists`), kept per word and allowed source versions as the vocabularies are."""
        key = (_key(allowed, unseen), word)
        found = self._exists.get(key)
        if found is None:
            found = await fulltext.word_exists(
                session, word, list(allowed), campaigns=campaigns_of(allowed), without=sorted(unseen)
            )
            _keep(self._exists, key, found, _EXISTS_CACHE)
        else:
            self._exists.move_to_end(key)
        return found

    async def vocabulary(
        self, session: AsyncSession, allowed: dict[int, SourceLite], unseen: frozenset[int] = frozenset()
    ) -> list[str]:
        """Return the heading words of the allowed sources, less unseen chunks' (cached per versions and chunks)."""
        key = _key(allowed, unseen)
        cached = self._vocabularies.get(key)
        if cached is not None:
            self._vocabularies.move_to_end(key)
            return cached
        words: set[str] = set()
        for text in await heading_texts(session, list(allowed), without=unseen):
            words.update(
                w for w in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()) if len(w) >= 4
            )
        for word in sorted(FIELD_WORDS - words):
            # A field's word the sources write in their lines, not their headings ("Challenge 5").
            if len(word) >= 4 and await self.exists(session, word, allowed, unseen):
                words.add(word)
        vocabulary = sorted(words)
        _keep(self._vocabularies, key, vocabulary)
        return vocabulary

    async def words(
        self,
        session: AsyncSession,
        allowed: dict[int, SourceLite],
        config: SearchConfig,
        unseen: frozenset[int] = frozenset(),
    ) -> Vocabulary | None:
        """Return every word of the allowed sources' readable chunks (`vocabulary`), or None in a large campaign."""
        if sum(s.chunk_count for s in allowed.values()) > config.large_campaign_chunks:
            return None
        key = _key(allowed, unseen)
        if key in self._words:
            self._words.move_to_end(key)
            return self._words[key]
        found = Vocabulary.of_texts(await chunk_words_texts(session, list(allowed), without=unseen))
        _keep(self._words, key, found)
        return found

    async def corrections(
        self,
        session: AsyncSession,
        words: Sequence[str],
        allowed: dict[int, SourceLite],
        config: SearchConfig,
        unseen: frozenset[int] = frozenset(),
    ) -> dict[str, str]:
        """Return {misspelt word: the campaign's word} for question words found nowhere in the allowed sources:
        a heading word or a field's word first, then any word of the readable chunks (see the docstring)."""
        candidates = [w for w in words if (len(w) >= 4 and w.isalpha()) or is_unvowelled(w)]
        if not candidates:
            return {}
        vocabulary = await self.vocabulary(session, allowed, unseen)
        known = self._as_set(vocabulary)
        everything = await self.words(session, allowed, config, unseen)
        fixes: dict[str, str] = {}
        for word in candidates:
            if word in known or (everything is not None and word in everything):
                continue
            # "spd", "hvy": a word typed without its vowels (`unvowelled`), before any slip.
            meant = unvowelled(word, vocabulary, everything.frequencies if everything is not None else None)
            pool = [v for v in vocabulary if v[0] == word[0] and abs(len(v) - len(word)) <= 3]
            if meant is None and len(word) >= 4:
                found = process.extractOne(word, pool, scorer=fuzz.ratio, score_cutoff=config.typo_cutoff)
                meant = found[0] if found is not None else one_slip(word, pool)
            if meant is None and everything is not None:
                meant = everything.closest(word, fits=_slip_in_text)
            if meant is None:
                continue
            if await self.exists(session, word, allowed, unseen):
                continue  # a real word of these sources, only in another form ("wolves" for "wolf")
            fixes[word] = meant
        return fixes

    async def fixed(
        self,
        session: AsyncSession,
        text: str,
        allowed: dict[int, SourceLite],
        config: SearchConfig,
        unseen: frozenset[int] = frozenset(),
    ) -> str:
        """Return a text as its own search embeds it: its misspelt words corrected (`corrections`)."""
        if not (config.typo_cutoff and allowed):
            return text
        return corrected(
            text, await self.corrections(session, fulltext.query_words(text), allowed, config, unseen)
        )

    def _as_set(self, vocabulary: list[str]) -> frozenset[str]:
        """Return a vocabulary (as `vocabulary` gives it) as a set, made once while it is kept."""
        kept = self._vocabulary_sets.get(id(vocabulary))
        if kept is None or kept[0] is not vocabulary:
            if len(self._vocabulary_sets) >= _VOCAB_CACHE:
                self._vocabulary_sets.clear()
            kept = self._vocabulary_sets[id(vocabulary)] = (vocabulary, frozenset(vocabulary))
        return kept[1]

    async def unknown(
        self,
        session: AsyncSession,
        question: str,
        corrections: dict[str, str],
        names: Sequence[str],
        allowed: dict[int, SourceLite],
        unseen: frozenset[int] = frozenset(),
    ) -> list[str]:
        """Return the question's words (four letters or more) that no allowed source holds: not in a heading,
        not a misspelling corrected, not part of a canon name found, and in no chunk ("kenku", "warforged")."""
        vocabulary = self._as_set(await self.vocabulary(session, allowed, unseen))
        named = {w for name in names for w in _WORD.findall(unicodedata.normalize("NFKC", name).casefold())}
        words = _WORD.findall(unicodedata.normalize("NFKC", question).casefold().replace("’", "'"))
        asked = [
            word
            for word in dict.fromkeys(words)
            if len(word) >= 4
            and not any(word in skipped for skipped in (fulltext.STOPWORDS, vocabulary, named, corrections))
        ]
        await self._look_up(session, asked, allowed, unseen)
        return [word for word in asked if not await self.exists(session, word, allowed, unseen)]

    async def _look_up(
        self,
        session: AsyncSession,
        words: Sequence[str],
        allowed: dict[int, SourceLite],
        unseen: frozenset[int],
    ) -> None:
        """Keep whether each word not kept yet is in the allowed sources (`exists`), read in one statement."""
        key = _key(allowed, unseen)
        new = [w for w in words if (key, w) not in self._exists]
        if len(new) < 2:
            return  # one word: `exists` reads it as it is
        found = await fulltext.words_existing(
            session, new, list(allowed), campaigns=campaigns_of(allowed), without=sorted(unseen)
        )
        for word in new:
            _keep(self._exists, (key, word), word in found, _EXISTS_CACHE)


def _key(allowed: dict[int, SourceLite], unseen: frozenset[int]) -> tuple[tuple[int, ...], ...]:
    """Return the cache key of a set of allowed source versions less some chunks."""
    return (*sorted((s.id, s.version) for s in allowed.values()), tuple(sorted(unseen)))


def _keep(cache: OrderedDict[_K, _T], key: _K, value: _T, size: int = _VOCAB_CACHE) -> None:
    """Keep a value in a cache, dropping the least recently used past `size`."""
    cache[key] = value
    while len(cache) > size:
        cache.popitem(last=False)
