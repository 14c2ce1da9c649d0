"""Relations by the words a table uses: "is an ally of", "is the parent of", "rules" (and "hates" for an enemy).

What the `/propose relationship` and `/canon add relationship` boxes suggest, how a relation typed in words
is found, and the nearest relations to offer when none is found. The value behind each phrase stays the
relation's key in the ontology.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping

from canon.wording.relations import PHRASES, relation_words

# Where the sentence's shape does not give a phrase of its own: "{s} is {o}'s {parent}" and two "lives in".
_OWN: Mapping[str, str] = {
    "PARENT_OF": "is the parent of",
    "REPUTED_PARENT_OF": "is known as the parent of",
    "ADOPTIVE_PARENT_OF": "adopted",
    "FOSTER_PARENT_OF": "is the foster parent of",
    "STEP_PARENT_OF": "is a step-parent of",
    "GODPARENT_OF": "is a godparent of",
    "PARENT_IN_LAW_OF": "is a parent-in-law of",
    "SIBLING_IN_LAW_OF": "is a sibling-in-law of",
    "SIBLING_OF": "is a sibling of",
    "AUNT_OR_UNCLE_OF": "is an aunt or uncle of",
    "GRANDPARENT_OF": "is a grandparent of",
    "COUSIN_OF": "is a cousin of",
    "MENTOR_OF": "is the mentor of",
    "INHABITS": "inhabits",
    "SUB_ERA_OF": "is an age within",
}

# Other words for a relation, as a table says them.
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "PARENT_OF": ("father of", "mother of", "parent of", "begat"),
    "SPOUSE_OF": ("married to", "husband of", "wife of", "spouse of", "weds"),
    "SIBLING_OF": ("brother of", "sister of", "sibling of"),
    "AUNT_OR_UNCLE_OF": ("aunt of", "uncle of"),
    "GRANDPARENT_OF": ("grandfather of", "grandmother of", "grandparent of"),
    "MENTOR_OF": ("teacher of", "master of", "taught", "trained"),
    "RIVAL_OF": ("rivals", "competes with"),
    "FRIEND_OF": ("friends with", "befriended", "close to"),
    "ALLY_OF": ("allied with", "sides with", "supports", "protects"),
    "ENEMY_OF": ("hates", "opposes", "fights", "at war with", "foe of", "feuds with"),
    "MEMBER_OF": ("belongs to", "joined", "serves in", "works for"),
    "LEADS": ("leader of", "heads", "commands", "captain of", "chief of"),
    "RULES": ("ruler of", "reigns over", "governs", "lord of", "king of", "queen of"),
    "LOCATED_IN": ("is at", "inside", "within", "found in", "staying in"),
    "LIVES_IN": ("home in", "resides in", "dwells in"),
    "POSSESSES": ("owns", "has", "carries", "holds", "wields"),
    "MADE": ("forged", "crafted", "built", "maker of"),
    "FOUNDED": ("founder of", "established", "started"),
    "WORSHIPS": ("prays to", "devoted to", "follows"),
    "KILLED": ("slew", "murdered", "slain"),
    "DEFEATED": ("beat", "conquered", "vanquished"),
    "WON": ("was victorious in", "prevailed in", "triumphed in"),
    "HELD_AT": ("held in", "imprisoned in", "imprisoned at", "prisoner at", "prisoner in", "jailed in"),
    "WITNESSED": ("saw", "watched"),
    "PARTICIPATED_IN": ("fought in", "was at", "joined in"),
    "OCCURRED_AT": ("happened at", "happened in"),
    "SPEAKS": ("talks in",),
}

_TAIL = re.compile(r"\s+(?:of|to|in|with|at|from|by|for)$")
_LEAD = re.compile(r"^(?:is|are|was|were)\s+(?:(?:an?|the)\s+)?")
#: Small words that join the parts of a hyphenated word ("in" of "parent-in-law"): typed alone, they are not it.
_JOINING = frozenset({"in", "of", "to", "at", "on", "and", "the", "a"})


def relation_phrase(predicate: str) -> str:
    """Return a relation as the words between two names: "is an ally of", "is the parent of", "rules"."""
    key = predicate.upper()
    if key in _OWN:
        return _OWN[key]
    template = PHRASES.get(key)
    if template is not None and template.startswith("{s} ") and template.endswith(" {o}"):
        return template[4:-4]
    words = relation_words(predicate)
    return f"is {words}" if re.search(r" (of|to|with|from|for|by|in)$", words) else words


def _fold(text: str) -> str:
    return " ".join(text.replace("_", " ").replace("-", " ").casefold().split())


def _core(text: str) -> str:
    """Return words without their leading "is a"/"is the": "is an ally of" → "ally of"."""
    return _LEAD.sub("", _fold(text))


def _word_starts(spelling: str, *, one_word: bool) -> list[str]:
    """Return a spelling's words from each place a word starts there, its first word's place first.

    The parts of a hyphenated word start words too ("law" of "parent-in-law"), but a small joining word inside
    one ("in" of "in-law") does not when `one_word` is typed: the word "in" is not the "in" of "in-law".
    """
    words: list[tuple[str, bool]] = []
    for token in _LEAD.sub("", " ".join(spelling.replace("_", " ").casefold().split())).split():
        parts = [p for p in token.split("-") if p]
        words += [(p, one_word and 0 < j < len(parts) - 1 and p in _JOINING) for j, p in enumerate(parts)]
    return [" ".join(w for w, _ in words[i:]) for i, (_, inner) in enumerate(words) if not inner]


def _spellings(predicate: str) -> list[str]:
    """Return every way of saying a relation, its phrase first (hyphenated words kept as the phrase has them)."""
    phrase, words = relation_phrase(predicate), relation_words(predicate)
    for compound in re.findall(r"[^\W_]+(?:-[^\W_]+)+", phrase):  # "parent in law of" as "parent-in-law of"
        words = words.replace(compound.replace("-", " "), compound)
    return [phrase, words, *SYNONYMS.get(predicate, ())]


def find_relation(text: str, known: Iterable[str]) -> str | None:
    """Return the relation of `known` that `text` names (its key, its phrase or a synonym), or None."""
    keys = list(known)
    folded, core = _fold(text), _core(text)
    for key in keys:
        if folded == _fold(key):
            return key
    for key in keys:
        if any(core == _core(s) for s in _spellings(key)):
            return key
    # "ally" for "is an ally of", "married" for "is married to": the phrase without its last small word, when
    # it is one relation's only.
    bare = [key for key in keys if any(core and core == _TAIL.sub("", _core(s)) for s in _spellings(key))]
    return bare[0] if len(bare) == 1 else None


def matching_relations(
    typed: str, known: Iterable[str], prefer: Callable[[str], bool] | None = None
) -> list[str]:
    """Return the relations of `known` that what was typed begins, best first.

    The words typed rank first: a relation whose phrase starts with them, then one a synonym of which does, then
    one whose phrase, then a synonym, has a later word starting with them ("in" finds "lives in"); letters
    inside a word ("li" of "sibling") are no match, nor is the small word inside a hyphenated one ("in" of
    "parent-in-law"). Among equals, those `prefer` says fit the entities involved come first, then the order given.
    """
    keys = list(known)
    core = _core(typed)

    def rank(key: str) -> int | None:
        if not core:
            return 0
        ranks = []
        for i, spelling in enumerate(_spellings(key)):
            starts = _word_starts(spelling, one_word=" " not in core)
            if starts and starts[0].startswith(core):
                ranks.append(0 if i < 2 else 1)
            elif any(later.startswith(core) for later in starts[1:]):
                ranks.append(2 if i < 2 else 3)
        return min(ranks, default=None)

    ranked = [
        (words, 0 if prefer is None or prefer(key) else 1, i, key)
        for i, key in enumerate(keys)
        if (words := rank(key)) is not None
    ]
    return [key for *_, key in sorted(ranked)]


def nearest_relations(text: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """Return up to `limit` relations of `known` nearest in words to `text` (for "Did you mean …?")."""
    by_spelling: dict[str, str] = {}
    for key in known:
        for spelling in _spellings(key):
            by_spelling.setdefault(_core(spelling), key)
    close = difflib.get_close_matches(_core(text), list(by_spelling), n=limit * 4, cutoff=0.5)
    return list(dict.fromkeys(by_spelling[c] for c in close))[:limit]


def unknown_relation(text: str, known: Iterable[str]) -> str:
    """Return the answer to a relation nobody knows, with the nearest ones in words."""
    near = [f"“{relation_phrase(k)}”" for k in nearest_relations(text, known)]
    hint = (
        f" Did you mean {_either(near)}?"
        if near
        else " Pick one of those the relation box offers as you type."
    )
    return f"“{text.strip()}” is not a relation this campaign knows.{hint}"


def _either(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"
