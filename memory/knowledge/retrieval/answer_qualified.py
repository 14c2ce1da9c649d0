"""A tie asked with a word that doubts the one canon states: "who is Wren's real father", "her true mother".

Canon's relations say the tie the table knows ("Corm Tallis is Wren Tallis' father"); the truth behind it is
often written in prose, in the GM's notes most of all ("Her real father is Hale Brannock, who has never owned
her"). A question asking the tie with such a word ("real", "true", "actual", "secret", "natural", "birth",
"biological") is answered by the sentence of the card's description or notes that says the tie with that word,
said of the one asked about by name ("Wren Tallis's real father is Hale Brannock, …"). The card holds only what
the asker may read, so a player never reads the GM's notes: their answer is the one canon's relations give, word
for word as of someone whose notes say nothing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import RELATION_WORDS, fold_words, sentences

__all__ = ["SAYS_HIDDEN", "doubts_a_tie", "other_sex", "qualified_answer"]

DOUBTS = _DOUBTS = frozenset(
    {"real", "true", "actual", "secret", "natural", "birth", "biological", "hidden", "rightful"}
)
#: Words of a sentence saying a tie is not the one known ("She is secretly Hale's daughter").
SAYS_HIDDEN = _SAYS_HIDDEN = _DOUBTS | {
    "secretly",
    "truly",
    "really",
    "actually",
    "sired",
    "fathered",
    "bastard",
    "in truth",
}
_TOLD = ("description", "gm notes", "notes")
_POSSESSIVE_PRONOUN = re.compile(r"^(?:her|his|their|its)\s+", re.IGNORECASE)


def _told(fact: CanonFact) -> list[str]:
    """Return the sentences of a card's description and notes, as the asker may read them."""
    found: list[str] = []
    for attribute in _TOLD:
        head = f"{possessive(fact.entity_name)} {attribute}: "
        found += [s for line in fact.facts if line.startswith(head) for s in sentences(line[len(head) :])]
    return found


def _said_of(name: str, sentence: str) -> str:
    """Return a sentence said of its subject by name: "Her real father is …" is "Wren Tallis's real father is …"."""
    text = sentence.strip().rstrip(".")
    lead = _POSSESSIVE_PRONOUN.match(text)
    if lead:
        return f"{possessive(name)} {text[lead.end() :]}"
    return told_sentence(name, text)


#: Each tie by sex and its counterpart of the other sex: "her real father" says no mother.
_COUNTERPARTS = {
    **dict.fromkeys(("father", "dad"), ("mother", "mum", "mom", "mam")),
    **dict.fromkeys(("mother", "mum", "mom", "mam"), ("father", "dad")),
    "son": ("daughter",),
    "daughter": ("son",),
    "brother": ("sister",),
    "sister": ("brother",),
    "husband": ("wife",),
    "wife": ("husband",),
    "grandfather": ("grandmother",),
    "grandmother": ("grandfather",),
    "uncle": ("aunt",),
    "aunt": ("uncle",),
    "nephew": ("niece",),
    "niece": ("nephew",),
}


def other_sex(asked: Sequence[str], said: Sequence[str]) -> bool:
    """Tell whether a sentence says the counterpart of the tie asked and never the tie itself ("her real father
    is …" for "who is her true mother"); "the daughter of …" for "who is her real father" is no counterpart."""
    wanted = [w for w in asked if w in _COUNTERPARTS]
    told = set(said)
    return bool(wanted) and not told & set(wanted) and any(told & set(_COUNTERPARTS[w]) for w in wanted)


def doubts_a_tie(question: str) -> bool:
    """Tell whether a question doubts a tie by a word just before it ("real father", "true mother")."""
    words = fold_words(question.replace("’", "'"))
    return any(
        a in _DOUBTS and (b in RELATION_WORDS or b in _COUNTERPARTS) for a, b in itertools.pairwise(words)
    )


def qualified_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the sentence saying a tie asked with a doubting word (see the module docstring), or None."""
    words = fold_words(question.replace("’", "'"))
    if not doubts_a_tie(question):
        return None  # "who heads the secret police": no tie doubted
    doubts = [w for w in words if w in _DOUBTS]
    ties = [w for w in words if w in RELATION_WORDS]
    asked = {p for w in ties for p in RELATION_WORDS[w]}
    for number, fact in enumerate(facts, 1):
        named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
        if not named & set(words):
            continue
        for sentence in _told(fact):
            said = fold_words(sentence)
            pairs = {f"{a} {b}" for a, b in itertools.pairwise(said)}
            # "her real father is …"; or a tie of the kind asked, said hidden ("she is secretly Hale's daughter")
            kin = {p for w in said if w in RELATION_WORDS for p in RELATION_WORDS[w]}
            if other_sex(ties, [w for w in said if w in RELATION_WORDS]):
                continue  # "her real father is …" says no mother
            if any(f"{d} {t}" in pairs for d in doubts for t in ties) or (
                kin & asked and _SAYS_HIDDEN & set(said)
            ):
                return f"{_said_of(fact.entity_name, sentence)}. [{number}]", number
    return None
