"""Kin asked on one side of a family: "Who is Lark's paternal grandmother?", "who are Corin's cousins on his
mother's side?", "Corin's grandfather on the father's side".

The side is the parent a grandparent, an uncle or aunt, a cousin or a great-grandparent is reached through
(`Kin.sides`, walked by `kin_far` through the parents the asker may see): "paternal" and "father's side" keep
those reached through a father, "maternal" and "mother's side" through a mother. The answer says the side after
the tie ("Lark Brannock's grandfather on her father's side is Bram Brannock"). A parent the asker may not see
leads to nobody, so a player asking of the side of a GM-only father reads what a family with no father written
would give. Kin asked as adopted ("Fenn's adoptive grandfather", "Corin's adopted son") are those whose chain runs
through an adoption (`Kin.via`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.kin_nouns import NOUNS

__all__ = ["ADOPTED", "Side", "asked_side", "on_side", "said_on_side"]

_PARENT = r"(?P<parent>father|mother|dad|da|mum|mom|mam|ma)"
_SIDE = re.compile(
    rf"\s+(?:on|from)\s+(?:(?:his|her|their|the)\s+|[\w' -]+?(?:'s|s'|')\s+)?{_PARENT}(?:'s|s'|s)?\s+side"
    r"(?:\s+of\s+(?:the|his|her|their)\s+family)?\b"
    r"|\b(?P<adjective>paternal|maternal)\b",
    re.I,
)
_MALE = frozenset({"father", "dad", "da", "paternal"})
#: Kin asked as taken in by adoption: "Fenn's adoptive grandfather", "Corin's adopted son" (a parent who adopted is
#: `answer_fates`' to say).
_ADOPTIVE = re.compile(
    r"\b(?:adoptive|adopted)\s+(?=(?:great[\s-]*)*grand|aunt|uncle|sibling|brother|sister|cousin|nephew|niece|son"
    r"|daughter|child|kid)",
    re.I,
)
#: The `Side.sex` of kin asked as taken in by adoption.
ADOPTED = "adopted"


class Side(NamedTuple):
    """The question without its side, and the sex of the parent the side is through."""

    question: str
    sex: str


def asked_side(question: str) -> Side | None:
    """Return the side of a family a question asks ("paternal", "on his mother's side"), or None."""
    adopted = _ADOPTIVE.search(question)
    if adopted is not None:
        return Side(f"{question[: adopted.start()]}{question[adopted.end() :]}", ADOPTED)
    found = _SIDE.search(question.replace("’", "'"))
    if found is None:
        return None
    word = (found["parent"] or found["adjective"]).casefold()
    rest = question.replace("’", "'")
    return Side(f"{rest[: found.start()]}{rest[found.end() :]}", "male" if word in _MALE else "female")


def on_side(kin: Kin, sex: str) -> Kin:
    """Return a family with each tie walked through a parent kept to those through a parent of the sex asked."""
    ties = dict(kin.ties)
    if sex == ADOPTED:  # those reached through an adoption, as their chain says
        for tie, names in kin.ties.items():
            via = kin.via.get(tie, {})
            ties[tie] = tuple(n for n in names if "adopt" in via.get(n, ""))
        return kin.model_copy(update={"ties": {t: names for t, names in ties.items() if names}})
    for tie, through in kin.sides.items():
        ties[tie] = tuple(n for n in kin.ties.get(tie, ()) if kin.sexes.get(through.get(n, "")) == sex)
    return kin.model_copy(update={"ties": {t: names for t, names in ties.items() if names}})


def said_on_side(text: str, owner: str, kin: Kin, tie: str, sex: str) -> str:
    """Return an answer with the side said after the tie's noun ("grandfather on her father's side"), or after the
    owner's name in a sentence saying nobody is known ("… names a grandmother of Lark Brannock on her mother's
    side")."""
    pronoun = {"male": "his", "female": "her"}.get(kin.sexes.get(owner, ""), possessive(owner))
    phrase = f" on {pronoun} {'father' if sex == 'male' else 'mother'}'s side"
    if sex == ADOPTED:  # a chain found says its adoption itself
        phrase = " by adoption"
        if not text.startswith("Nothing"):
            return text
    if text.startswith("Nothing"):
        at = text.find(f" of {owner}")
        if at >= 0:
            end = at + len(f" of {owner}")
            return f"{text[:end]}{phrase}{text[end:]}"
    nouns = sorted({n for pair in NOUNS[tie][:3] for n in pair}, key=len, reverse=True)
    found = re.search(r"\b(?:" + "|".join(re.escape(n) for n in nouns) + r")\b", text)
    if found is None:
        return text
    return f"{text[: found.end()]}{phrase}{text[found.end() :]}"
