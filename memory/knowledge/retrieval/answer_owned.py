"""A thing a question names as someone's own ("the owlbear's rending roar") that the passage quoted never holds.

Players ask about a trait, an attack or a feature by its name after its owner's: "the medusa's petrifying gaze",
"the kraken's ink cloud". A made-up one beside a real owner ("the owlbear's rending roar", "the goblin's shadow
step") finds the owner's passage, which holds the question's other words, and a line of it answers something
else ("Armor Class: 13"). `owned_unheld` reads the two naming words right after an owner's "'s" and returns the
second (the noun the name ends with) when the passages quoted hold the owner but not that noun (an ending, a typo
or the books' own word apart): the owner's passage says nothing of such a thing. One word after the "'s" is most
often a field or a rule said in other words ("the troll's healing"), and a name broken by a small word ("lay on
hands") is the books' own: both are left alone, as are a field's words and the words asking it ("the dragon's
breath damage", "healer's kit price") and the asker's own character ("my rogue's sneak attack"), a name asked ("the king's hound called") and a tie of kin in the table's words
("corin's real mum"). A first word ending the name of a block of the passage ("the medusa's gaze
work on ...", "the troll's claws hurt") is the thing itself: the word after it is a verb.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from memory.knowledge.question import FIELD_WORDS
from memory.knowledge.retrieval.answer_words import naming_word
from memory.knowledge.retrieval.kin import KIN_WORDS

__all__ = ["owned_unheld"]

#: Words of the asker's own (or a companion's) character before an owner: "my rogue's", "our wizard's".
_THEIRS = frozenset({"my", "our", "your", "his", "her", "their"})
#: Words asking the name of the thing owned ("what is the king's hound called"): no part of its name.
_NAMING = frozenset({"called", "named", "titled", "known"})
#: Words that name no thing of their own after an owner: what kind of thing it is, or what is asked of it.
_GENERIC = frozenset(
    {
        *(
            "attack",
            "attacks",
            "ability",
            "abilities",
            "trait",
            "traits",
            "action",
            "actions",
            "power",
            "powers",
        ),
        *("feature", "features", "bonus", "effect", "effects", "thing", "stuff", "move", "moves", "stats"),
        *("stat", "block", "save", "dc", "ac", "hp", "number", "numbers", "list", "level", "type", "kind"),
        *("price", "prices", "cost", "costs", "worth", "value", "weight", "range", "speed", "size"),
    }
)


def owned_unheld(
    words: Sequence[str], held: Container[str], common: Container[str], names: Container[str] = ()
) -> str | None:
    """Return the noun ending a two-word name owned by someone the quoted passages hold ("roar" of "the
    owlbear's rending roar") that they do not hold, or None (see the module docstring). `words`: the question's
    folded words (a possessive "'s" is its own word "s"); `held`: the quoted passages' words; `common`: words
    that name no thing of their own (the fields asked); `names`: the last words of
    the quoted passages' blocks' names ("gaze" of "Petrifying Gaze")."""
    for at, word in enumerate(words):
        if word != "s" or at == 0 or not naming_word(words[at - 1]) or words[at - 1] not in held:
            continue
        if at > 1 and words[at - 2] in _THEIRS:
            continue  # "my rogue's sneak attack": the asker's character, asking a rule
        name = words[at + 1 : at + 3]
        if len(name) < 2 or not all(naming_word(w) for w in name):
            continue
        if at + 3 < len(words) and words[at + 3] == "s":
            continue  # "the hound's pack leader's bite": another owner follows
        noun = name[1]
        if noun in _NAMING or noun in KIN_WORDS:
            continue  # "the king's hound called", "corin's real mum": a name asked, a tie of kin (the table's word)
        if any(w in _GENERIC or w in FIELD_WORDS or w in common for w in name) or name[0] in names:
            continue
        if noun not in held:
            return noun
    return None
