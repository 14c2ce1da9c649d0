"""A book's own definitions of its words, read as what the table means by them.

A game names its rules in its own words ("Husk", "Rattle", "a Sawbones") and says once what each means, in a
glossary entry ("COLD. Open vacuum; anywhere without air.", "**Plate**: armour", "Strain: the fatigue a
character builds up") or a sentence ("A Knack is a trained skill", "Cold is what riders call open vacuum",
"Ward means the armour a beast wears"). A player asks in plain words ("how much damage does vacuum do", "what
does a doctor roll"), which the books write nowhere else. So each definition is read as a glossary entry of the
campaign, the plain words it gives standing for the book's term: the question is searched and answered in the
book's words (`memory.knowledge.glossary.merged`, under the GM's own terms).

What a definition gives: the short noun phrases it opens with, up to its first stop (".", ";", ":", a bracket) or
the first word that starts a clause or a place ("that", "of", "between", ...): "The money of the Belt, stamped
tin chits" gives "money"; "fear, fatigue and void-sickness a rider builds up" gives "fear", "fatigue",
"void-sickness". A phrase of up to three words is taken whole, and its last word alone too (the head of an
English noun phrase: "vacuum" of "open vacuum"). A phrase is left out when it is no plain word for the term:
- it starts with a number, or is a clause ("to give one die", "how many bites");
- it is a term the books define, or a word of one;
- the books write it in more than `MAX_CHUNKS` passages: there it is a word of their own, which the question
  must keep ("damage" in a game that counts damage everywhere), and two definitions giving it leave it too.
The initials of the books' headings and terms are read as those terms too (`book_initials`). A term defined as
what every game has under a name of its own ("Husk is how much harm your body can take": hit points; "Rattle is
the fear ... a rider builds up": stress; "BITE. A die that shows a 7 or an 8.": success) is read for that common name, and through it for the table's words for
it ("health", "hp"), when one term alone is so defined and the books never write the common name.
Only the passages the asker may read are read (a GM-only definition never rewrites a player's question), once
per set of readable source versions; a campaign too large to read whole gets none. What they give is kept in
the database (`knowledge_book_glossaries`) under a digest of that set (the sources' ids and versions, the
GM-only chunks left out) and of the rules that made it (this module's and `book_initials`' code, the stop words,
the shipped glossary): made when a campaign's sources change (`settle`, for its players and its GM) or by the
first question reading another set, a question then reads one row instead of every passage. A row is only ever
read for the very set it was made from, so a glossary drawn from a GM-only source never reaches a player.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import sys
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import Database
from memory.fulltext import STOPWORDS
from memory.knowledge.book_glossary_rows import drop_other_glossaries, keep_glossary, kept_glossary
from memory.knowledge.glossary import SHIPPED
from memory.knowledge.repository import SourceLite, chunk_words_texts
from memory.knowledge.retrieval import book_initials
from memory.knowledge.retrieval.book_initials import initials_glossary
from memory.knowledge.retrieval.config import SearchConfig

__all__ = ["MAX_CHUNKS", "BookTerms", "definitions", "plain_words", "readable_digest"]

log = logging.getLogger(__name__)

#: The most passages a plain word may be written in and still stand for a book's term.
MAX_CHUNKS = 2
_CACHE = 16

_TERM = r"[A-Z][\w'’-]*(?:[ -][A-Z][\w'’-]*){0,2}"
#: An entry line: `COLD. Open vacuum`, `**Plate**: armour`, `- Strain: the fatigue …`, `Ward — the armour …`.
_ENTRY = re.compile(
    rf"^\s*(?:[-*•]\s+)?(?P<bold>\*\*)?(?P<term>{_TERM})(?:\*\*)?\s*(?P<mark>[.:—–]|\s-)(?:\*\*)?\s+(?P<gloss>\S.*)$"
)
#: A sentence defining a term: `A Knack is a trained skill`, `Cold is what riders call open vacuum`.
_SENTENCE = re.compile(
    rf"(?:^|(?<=[.!?]\s))(?:(?:A|An|The|Your|Each)\s+)?(?!(?:It|Its|This|That|These|Those|They|Their|He|His|She"
    rf"|Her|We|Our|You|My|There|Here)\b)(?P<term>{_TERM})\s+"
    r"(?:(?:is|are)\s+(?:what\s+(?:[\w'’-]+\s+){0,3}?calls?\s+|(?=(?:a|an|the|how)\s))|means\s+|refers\s+to\s+)"
    r"(?P<gloss>[^.!?]+)"
)
_ARTICLES = frozenset({"a", "an", "the", "your", "its", "their", "his", "her", "our", "any", "each", "every"})
#: Words that end a noun phrase: a clause, a place, a time or a manner begins.
_ENDS = frozenset(
    [
        "that",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "while",
        "if",
        "as",
        "of",
        "for",
        "with",
        "in",
        "on",
        "at",
        "to",
        "from",
        "by",
        "between",
        "beyond",
        "without",
        "within",
        "under",
        "over",
        "into",
        "onto",
        "after",
        "before",
        "until",
        "against",
        "through",
        "is",
        "are",
        "was",
        "were",
        "be",
        "can",
        "may",
        "must",
        "will",
        "you",
        "they",
        "he",
        "she",
        "it",
        "we",
        "i",
    ]
)
#: Words that open no noun phrase: a clause or a question.
_OPENS_NO_PHRASE = frozenset(
    ["to", "how", "what", "why", "when", "where", "who", "whether", "if", "not", "no"]
)
#: Words no term is made of: "Inside: a sarcophagus" says where, "Isis and Nephthys" names two.
_NOT_TERMS = _ENDS | {"and", "or", "inside", "outside", "here", "there", "note", "example"}
_RANKS = frozenset(
    ["best", "worst", "first", "last", "only", "same", "other", "most", "least", "next", "main"]
)
_NUMBER = re.compile(r"^(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|half|once|twice)\b")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_STOP = re.compile(r"[.;:()\[\]!?]")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'").casefold()


_CALLED = re.compile(r"^what\s+(?:[\w'’-]+\s+){0,3}?calls?\s+", re.IGNORECASE)


def plain_words(gloss: str) -> list[str]:
    """Return the plain noun phrases a definition's words open with (see the module)."""
    first = _STOP.split(_CALLED.sub("", gloss.replace("**", "").strip()), maxsplit=1)[0]
    said = _WORD.findall(first)
    if not first[:1].isalpha() or (len(said) > 1 and all(w[:1].isupper() for w in said)):
        return []  # a number ("+1 Fixing"), or a name or a title ("The Tinhollow Bell"), not plain words
    opening = _WORD.findall(_fold(first))[0]
    if opening not in _ARTICLES and opening.endswith("s") and not opening.endswith("ss"):
        return []  # "lights Near range", "always points": a verb or an adverb, no noun, opens it
    phrases: list[str] = []
    for index, item in enumerate(re.split(r",|\s+(?:and|or|nor)\s+", first)):
        words = _WORD.findall(_fold(item))
        spoken = bool(words) and words[0] in _ARTICLES
        if not words or words[0] in _OPENS_NO_PHRASE or _NUMBER.match(item.strip().casefold()):
            if index == 0:
                return []  # a clause ("to give one die", "how many bites"): no phrase at all
            break
        if re.search(r"[\d+=×*/]", item):
            break  # a sum or a number ("roll Wits + Lore"), not a word for the term
        while words and (words[0] in _ARTICLES or words[0].endswith("'s")):
            words = words[1:]
        if words and (words[0] in _RANKS or re.fullmatch(r"\w{3,}est", words[0])):
            return []  # "the best on the Reach", "the first town": a rank among others, not a meaning
        kept: list[str] = []
        for word in words:
            # a clause, a place, a participle ("a duel called out") or another article ("the machine a pilot
            # drives") ends the phrase
            if word in _ENDS or (kept and (word.endswith(("ed", "ing")) or word in _ARTICLES)):
                break
            kept.append(word)
        if len(kept) < len(words) and (index > 0 or not spoken):
            # a clause began after the list ("…, chosen when …"), or one opened by no article may be a verb's
            # ("earn shells equal to …"): the list of plain words is over
            break
        if 0 < len(kept) <= 3:
            phrases.append(" ".join(kept))
            if len(kept) > 1:
                phrases.append(kept[-1])
        if len(kept) < len(words):
            break  # a clause began: the list of plain words is over
    return [p for p in phrases if len(p) >= 3]


def definitions(texts: Iterable[str]) -> list[tuple[str, str]]:
    """Return the (term, definition) pairs the texts give, as glossary entries and defining sentences."""
    found: list[tuple[str, str]] = []
    for text in texts:
        for line in text.splitlines()[1:]:  # the first line is the passage's heading
            entry = _ENTRY.match(line)
            if entry is not None:
                term, mark, gloss = entry["term"], entry["mark"].strip(), entry["gloss"]
                capitals = term.isupper() and len(term) > 1
                # "Label: value" is a field, not a definition, unless the value reads as one ("the …", "a …",
                # "toughness, strength"); a value opening with a capital there is a name ("Attack: Chill touch").
                spoken = re.match(r"(?:a|an|the)\s", gloss, re.IGNORECASE) is not None
                named = mark == ":" and not spoken and gloss[:1].isupper()
                if not named and (capitals or entry["bold"] or spoken or mark in "—–-."):
                    found.append((term, gloss))
                    continue
            for sentence in _SENTENCE.finditer(line):
                found.append((sentence["term"], sentence["gloss"]))
    return found


def _chunk_count(phrase: str, texts: Sequence[str], words: Counter[str]) -> int:
    """Return in how many texts a phrase is written (a word: by the counted words; several: by search)."""
    if " " not in phrase:
        return words[phrase] + words.get(phrase + "s", 0) + words.get(phrase + "es", 0)
    pattern = re.compile(rf"(?<![\w']){re.escape(phrase)}(?:e?s)?(?![\w'])")
    return sum(1 for text in texts if pattern.search(text))


#: What every game has under a name of its own, with what a definition of it says: a player asks for it by the
#: common name ("how much health", "my stress"), the book names it "Husk" or "Rattle".
_CONCEPTS: dict[str, re.Pattern[str]] = {
    # "how much harm your body can take", "the harm a keeper can take before going under"
    "hit points": re.compile(
        r"\b(?:harm|damage|hurt|injur\w*|wounds?)\b[^.;]{0,40}\bcan\s+(?:take|withstand|suffer|endure|absorb)\b"
    ),
    # "the fear, fatigue and void-sickness a rider builds up"
    "stress": re.compile(r"^[^.;]{0,40}\b(?:fear|dread|stress|strain|panic|terror)\b"),
    # "A die that shows a 7 or an 8", "A die showing 5 or 6": a success of a pool of dice
    "success": re.compile(
        r"^(?:an?\s+|each\s+|any\s+|every\s+)?(?:die|dice)\b[^.;]{0,30}\b(?:show|roll|come)\w*\b[^.;]{0,20}\d"
    ),
}
#: The plurals of the common names, read as the term too.
_PLURALS = {"success": "successes"}


def _concepts(pairs: Sequence[tuple[str, str]], folded: Sequence[str]) -> dict[str, str]:
    """Return {common name: the book's term} for each concept one term alone is defined as, where the books do
    not write the common name themselves ("Husk is how much harm your body can take": hit points)."""
    found: dict[str, str] = {}
    for concept, said in _CONCEPTS.items():
        terms = {_fold(term) for term, gloss in pairs if said.search(_fold(gloss).split(". ")[0])}
        written = any(re.search(rf"\b{re.escape(concept)}\b", text) for text in folded)
        if len(terms) == 1 and not written:
            found[concept] = next(iter(terms))
            if concept in _PLURALS:
                found[_PLURALS[concept]] = found[concept]
    return found


def book_glossary(texts: Sequence[str]) -> dict[str, str]:
    """Return {plain phrase: the book's term} from the definitions the texts give (see the module)."""
    pairs = definitions(texts)
    initials = initials_glossary(texts, (term for term, _ in pairs))
    if not pairs:
        return initials
    folded = [_fold(t) for t in texts]
    words: Counter[str] = Counter()
    for text in folded:
        words.update(set(_WORD.findall(text)))
    pairs = [(t, g) for t, g in pairs if not set(_fold(t).split()) & _NOT_TERMS]
    terms = {_fold(term) for term, _ in pairs}
    given: dict[str, set[str]] = {}
    for term, gloss in pairs:
        for phrase in plain_words(gloss):
            given.setdefault(phrase, set()).add(_fold(term))
    glossary: dict[str, str] = {}
    for phrase, meant in given.items():
        if len(meant) != 1 or phrase in terms or any(phrase in t.split() for t in terms):
            continue
        if _chunk_count(phrase, folded, words) > MAX_CHUNKS:
            continue
        term = next(iter(meant))
        glossary[phrase] = term
        if not phrase.endswith("s"):
            glossary.setdefault(phrase + "s", term)
    return {**initials, **_concepts(pairs, folded), **glossary}


@functools.cache
def rules_version() -> str:
    """Return a digest of what makes a book glossary: this module's and `book_initials`' code, the stop words and
    the shipped glossary (a glossary kept under other rules is made again)."""
    digest = hashlib.sha256()
    for module in (sys.modules[__name__], book_initials):
        try:
            digest.update(Path(str(module.__file__)).read_bytes())
        except OSError:  # no source to read: a glossary kept by another process is never trusted
            digest.update(str(id(module)).encode())
    digest.update(repr(sorted(STOPWORDS)).encode())
    digest.update(repr(sorted(SHIPPED.items())).encode())
    return digest.hexdigest()


def readable_digest(allowed: dict[int, SourceLite], unseen: frozenset[int]) -> str:
    """Return the digest a glossary is kept under: the readable sources' ids and versions, the GM-only chunks
    left out, and the rules (`rules_version`)."""
    key = (sorted((s.id, s.version) for s in allowed.values()), sorted(unseen), rules_version())
    return hashlib.sha256(repr(key).encode()).hexdigest()


class BookTerms:
    """The book glossary of each set of readable source versions: kept in the database, and the last ones in
    memory (see the module)."""

    def __init__(self, db: Database | None = None) -> None:
        self.db = db
        self._kept: OrderedDict[str, dict[str, str]] = OrderedDict()

    async def of(
        self,
        session: AsyncSession,
        allowed: dict[int, SourceLite],
        unseen: frozenset[int],
        config: SearchConfig,
        *,
        asked_in: int = 0,
        remake: bool = False,
    ) -> dict[str, str]:
        """Return the plain words the readable books define their terms by, each with its term; `asked_in`: the
        campaign asking (whose kept glossaries its next import drops); `remake`: read the passages again, the
        kept glossary aside (they were chunked again: the same versions, other passages)."""
        if not allowed or sum(s.chunk_count for s in allowed.values()) > config.large_campaign_chunks:
            return {}
        key = readable_digest(allowed, unseen)
        if key in self._kept and not remake:
            self._kept.move_to_end(key)
            return self._kept[key]
        glossary = await kept_glossary(session, key) if self.db is not None and not remake else None
        if glossary is None:
            glossary = book_glossary(await chunk_words_texts(session, list(allowed), without=unseen))
            await self._keep(key, asked_in, glossary, replace=remake)
        self._kept[key] = glossary
        while len(self._kept) > _CACHE:
            self._kept.popitem(last=False)
        return glossary

    async def _keep(self, key: str, asked_in: int, glossary: dict[str, str], *, replace: bool) -> None:
        """Keep a glossary in the database (a failure only means the next process makes it again)."""
        if self.db is None:
            return
        try:
            await self.db.run(
                lambda session: keep_glossary(session, key, asked_in, glossary, replace=replace)
            )
        except (
            SQLAlchemyError
        ) as error:  # a read-only or busy database, a row kept meanwhile by another process
            log.info("the book glossary was not kept: %s", error)

    async def drop_others(self, asked_in: int, kept: Sequence[str]) -> None:
        """Drop a campaign's kept glossaries but `kept` (made for its sources' older versions)."""
        if self.db is None:
            return
        await self.db.run(lambda session: drop_other_glossaries(session, asked_in, kept))
