"""A relative named through someone, and something else asked of them: "how old is Corin's mum", "where does
Lira's dad live", "is Ilse's husband still alive", "when was Pell Varns son born".

The relative is the tie's people as the asker may see them (`retrieval.kin`: a GM-only parent walks nowhere for a
player), of the sex the kin word names where canon says one's (`answer_kin.tie_said`). The step found stands for
the words naming the relative, so the rest of the question is asked of each one found, the step said first
(`answer_graph`): "Lira Reed's mother is Ilse Marr; Ilse Marr lives in Quillhaven." Where the tie names no one,
the step is the whole answer: "Nothing the table knows names a mother of Corin Vale.", unless the question
names another one and a description the asker may read tells the tie of the two (`kin_told`): "Osric Vennard:
Brought up as Tamsin's son and heir." A question asking only who
the relative is ("who is Corin's mum") is the kin answers' (`answer_kin`), as it always was.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import NamedTuple

from canon.graph import CanonReader
from canon.models import EntityCard
from canon.wording import PLAIN
from memory.knowledge.retrieval.answer_kin import ASKING, tie_said
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.kin import KIN_WORDS, kin_of
from memory.knowledge.retrieval.kin_told import described_tie

__all__ = ["Hop", "kin_hop"]

_ALL_KIN = "|".join(sorted(KIN_WORDS, key=len, reverse=True))
#: "Corin's mum", "the Reeds' son", and as the table types it without an apostrophe: "corins mum".
_HOP = re.compile(rf"(?P<owner>[\w' -]+?)(?P<owns>'s|s'|')\s+(?P<word>{_ALL_KIN})\b(?!-in-law)")
_BARE = re.compile(rf"(?P<owner>[\w' -]+?)(?P<owns>s)\s+(?P<word>{_ALL_KIN})\b(?!-in-law)")
#: What a tie's people are called when none is found, by the sex the word names (None: either).
_NONE = {
    "parents": {"male": "a father", "female": "a mother", None: "a parent"},
    "children": {"male": "a son", "female": "a daughter", None: "a child"},
    "siblings": {"male": "a brother", "female": "a sister", None: "a brother or sister"},
    "spouses": {"male": "a husband", "female": "a wife", None: "a spouse"},
}


class Hop(NamedTuple):
    """The relative a question names resolved: the words naming them, the tie in words, and those found."""

    span: str
    said: str
    found: tuple[int, ...]


Owner = Callable[[CanonReader, str, Sequence[EntityMatch]], Awaitable[tuple[int, str, str] | None]]


async def kin_hop(
    reader: CanonReader, folded: str, named: Sequence[EntityMatch], owner_of: Owner
) -> Hop | None:
    """Return the relative a question names through someone, when it asks something else of them (see the
    module docstring), or None. `folded`: the question casefolded, apostrophes straight, no question mark;
    `owner_of`: whom the words before the possessive name (`steps.owner_of`)."""
    for pattern in (_HOP, _BARE):
        for match in pattern.finditer(folded):
            hop = await _hop(reader, folded, match, named, owner_of)
            if hop is not None:
                return hop
    return None


async def _hop(
    reader: CanonReader, folded: str, match: re.Match[str], named: Sequence[EntityMatch], owner_of: Owner
) -> Hop | None:
    word = match["word"]
    tie, sex = KIN_WORDS[word]
    if tie not in _NONE:
        return None  # ties two steps out are read by the steps as they were
    owner = await owner_of(reader, match["owner"], named)
    if owner is None and match["owns"] == "s":  # "pell varns son": a name ending in that "s" itself
        owner = await owner_of(reader, match["owner"] + "s", named)
    if owner is None:
        return None
    owner_id, words, title = owner
    if title:
        return None  # a title names the owner: the steps say who holds it
    typed = re.search(rf"{re.escape(words)}\s*(?:'s|s'|'|s)?\s+{re.escape(word)}\b", folded)
    if typed is None:
        return None
    span = typed.group(0)
    naming = {w for m in named for w in (*fold_words(m.window), *fold_words(m.matched))}
    rest = fold_words(folded.replace(span, " "))
    if all(w in ASKING or w in naming for w in rest):
        return None  # "who is Corin's mum", "is Sella Jory's sister": the kin answers', as before
    entity = await reader.entity(owner_id)
    kin = await kin_of(reader, owner_id, PLAIN)
    told = tie_said(entity.name, kin, word)
    if told is None:
        others = [m.entity_id for m in named if m.entity_id != owner_id]
        described = await _described(reader, word, entity.name, owner_id, others[:1])
        if described is not None:
            return Hop(span, described[0], (described[1],))
        return Hop(span, f"Nothing the table knows names {_NONE[tie][sex]} of {entity.name}.", (owner_id,))
    said, names = told
    ids = dict(zip(kin.ties[tie], kin.ids[tie], strict=True))
    return Hop(span, said, tuple(ids[n] for n in names))


async def _described(
    reader: CanonReader, word: str, name: str, owner_id: int, others: Sequence[int]
) -> tuple[str, int] | None:
    """Return the sentence of the owner's or the other one's description (as the asker's cards hold it) that
    tells the tie asked of the two, and whose it is; None when the question names no other or none tells it."""
    if not others:
        return None
    cards = {i: await reader.card(i, with_evidence=False) for i in (others[0], owner_id)}
    told = {i: _description(card) for i, card in cards.items()}
    them = cards[others[0]].entity.name
    found = described_tie(word, [(them, told[others[0]], name), (name, told[owner_id], them)])
    if found is None:
        return None
    return found[0], (others[0], owner_id)[found[1]]


def _description(card: EntityCard) -> str:
    """Return a description as a card shows it to its reader: a GM-only one is on no player's card."""
    said = [v.statement.value or "" for v in card.facts if v.statement.predicate == "description"]
    return " ".join([card.entity.description or "", *said]).strip()
