"""A thing the question names with its kind ("the hex spell", "the oath of vengeance") that the passage quoted never
holds: no answer.

Things of other books and editions are asked by their name and their kind: "can a wizard learn the hex spell",
"oath of vengeance paladin spells", "circle of the moon druids". When the name's word is in some other passage
("hex", "moon", "vengeance"), no word of the question is strange, and a sentence sharing its other words answers
("You learn whether any spells are affecting the item."). `kind_unheld` reads the name a kind's word is given:
the one or two naming words right before it when the kind's word ends the phrase ("the hex spell", "a shadow
step feat"), or the word after "of" ("oath of vengeance", "circle of the moon"). When none of the name's words
is in the passages quoted (their headings and text, an ending or a typo apart, or a word's two halves the books
write apart: "offhand"), the answer is about something else. A kind's word followed by a noun names no thing (the "spell" of "spell slots"), nor do an amount, a small
word, a field's word ("level spell") or a word saying how good or whose ("a strong spell", "a racial spell");
"monster" and "creature" are words of names as often ("hold monster") and name no kind here.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.question import FIELD_WORDS
from memory.knowledge.retrieval.answer_words import naming_word

__all__ = ["LOOSE", "kind_unheld"]

#: The kinds of thing a player names a thing by ("the hex spell", "the oath of vengeance").
KINDS = frozenset(
    {
        *("spell", "cantrip", "feat", "subclass", "archetype", "domain", "circle", "oath", "college"),
        *("patron", "tradition", "invocation", "condition", "subrace", "deity", "god", "goddess"),
        *("race", "item", "background"),
        # a creature's or a class's own things: "a soul drain ability", "the rending roar attack"
        *("ability", "trait", "attack", "action", "power", "feature"),
    }
)
#: Words before a kind that say which one loosely, naming none: "a good spell", "another feat", "my first spell".
LOOSE = frozenset(
    {
        *("good", "bad", "best", "better", "worst", "strong", "strongest", "powerful", "weak", "cool", "new"),
        *("other", "another", "same", "first", "second", "third", "last", "next", "big", "small", "low"),
        *("high", "higher", "lower", "main", "favorite", "favourite", "useful", "single", "whole", "magic"),
        *("level", "lvl", "class", "any", "every", "each", "some", "which", "what", "own", "whole", "entire"),
        *("my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those"),
        *("racial", "innate", "extra", "free", "known", "prepared", "bonus", "signature", "starting"),
        *("default", "special", "unique", "normal", "basic", "regular", "usual", "standard", "full"),
    }
)
#: The most naming words read before a kind.
NAME_WORDS = 2
#: The fewest letters of each half of a word the books write as two ("off-hand").
HALF_LEAST = 3


def _naming(word: str) -> bool:
    return (
        naming_word(word)
        and word not in LOOSE
        and word not in FIELD_WORDS
        and word not in KINDS
        and not word.endswith("est")
    )


def _names(words: Sequence[str]) -> list[list[str]]:
    """Return the names the question gives things by their kind's word (see the module docstring)."""
    names: list[list[str]] = []
    for at, word in enumerate(words):
        if word not in KINDS and not (word.endswith("s") and word[:-1] in KINDS):
            continue
        after = words[at + 1 : at + 3]
        if after[:1] == ["of"]:
            # "oath of vengeance paladin": the word after "of" (and its article) names it; what follows may be
            # another name ("paladin") the passages hold.
            rest = [w for w in words[at + 2 : at + 4] if w not in ("the", "a", "an")][:1]
            names.append([w for w in rest if _naming(w)])
            continue
        if after[:1] and after[0] not in STOPWORDS and after[0] != "s":
            continue  # "spell slots": the kind's word names what follows
        before: list[str] = []
        for previous in reversed(words[max(0, at - NAME_WORDS) : at]):
            if not _naming(previous):
                break
            before.insert(0, previous)
        names.append(before)
    return [n for n in names if n]


def kind_unheld(words: Sequence[str], held: Container[str]) -> str | None:
    """Return the last word of a name the question gives a thing with its kind ("hex" of "the hex spell") when the
    quoted passages hold none of the name's words, or None (see the module docstring). `words`: one clause's
    folded words; `held`: the quoted passages' words."""
    for name in _names(words):
        if not any(_held(w, held) for w in name):
            return name[-1]
    return None


def _held(word: str, held: Container[str]) -> bool:
    """Return whether the passages hold a word, or its two halves the books write apart ("offhand": "off-hand")."""
    return word in held or any(
        word[:i] in held and word[i:] in held for i in range(HALF_LEAST, len(word) - HALF_LEAST + 1)
    )
