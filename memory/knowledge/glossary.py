"""The table's glossary: abbreviations and slang read as the words the books write.

A glossary maps a term the table uses ("AC", "hp", "knocked out", "gobbo") to the words a source writes
("armor class", "hit points", "unconscious", "goblin"). The project ships one for fantasy roleplaying games
(`SHIPPED`); a campaign adds its own world's terms (kept in the campaign's settings, exported with it), and a
campaign's term outranks a shipped one of the same spelling. Questions are read through it before they are
searched and answered (`expand`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

__all__ = ["MAX_TERMS", "SHIPPED", "clean_term", "expand", "merged"]

#: How many terms a campaign's glossary holds at most.
MAX_TERMS = 500
#: A term's and a meaning's longest length.
MAX_TERM_CHARS = 60
MAX_MEANING_CHARS = 120

SHIPPED: dict[str, str] = {
    "ac": "armor class",
    "armour class": "armor class",
    "armour": "armor",
    "hp": "hit points",
    "hit point": "hit points",
    "health": "hit points",
    "beefy": "hit points",
    "cr": "challenge",
    "challenge rating": "challenge",
    "dmg": "damage",
    "xp": "experience",
    "exp": "experience",
    "str": "strength",
    "dex": "dexterity",
    "con": "constitution",
    "int": "intelligence",
    "wis": "wisdom",
    "cha": "charisma",
    "asi": "ability score increase",
    "hd": "hit die",
    "hit dice": "hit die",
    "saves": "saving throws",
    "save": "saving throw",
    "casting stat": "spellcasting ability",
    "spell list": "classes",
    "price": "cost",
    "costs": "cost",
    "weigh": "weight",
    "weighs": "weight",
    "alphabet": "script",
    "knocked out": "unconscious",
    "knocked out cold": "unconscious",
    "ko": "unconscious",
    "ko'd": "unconscious",
    "passed out": "unconscious",
    "out cold": "unconscious",
    "gobbo": "goblin",
    "gobbos": "goblin",
    "gob": "goblin",
    "nat 20": "critical hit",
    "crit": "critical hit",
    "crits": "critical hit",
    "aoo": "opportunity attack",
    "attack of opportunity": "opportunity attack",
    "conc": "concentration",
    "lvl": "level",
    "temp hp": "temporary hit points",
    "thp": "temporary hit points",
    "bbeg": "villain",
    "pc": "player character",
    "npc": "nonplayer character",
}

_SPACE = re.compile(r"\s+")
_TERM = re.compile(r"^[^\W_][\w' -]*$")


def clean_term(term: str) -> str:
    """Return a glossary term as it is matched: folded, single spaces (empty when it is not a term)."""
    folded = _SPACE.sub(" ", unicodedata.normalize("NFKC", term).casefold()).strip()
    return folded if _TERM.match(folded) and len(folded) <= MAX_TERM_CHARS else ""


def merged(campaign: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the shipped glossary with a campaign's terms over it."""
    terms = dict(SHIPPED)
    for term, meaning in (campaign or {}).items():
        key = clean_term(term)
        if key:
            terms[key] = meaning
    return terms


def expand(question: str, glossary: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """Return a question with its glossary terms replaced by their meanings, and the terms replaced.

    Terms are matched as whole words, longest first ("knocked out cold" before "knocked out"), case ignored;
    a meaning is put in once even when the term is repeated.
    """
    terms = SHIPPED if glossary is None else glossary
    text = unicodedata.normalize("NFKC", question).replace("’", "'")
    used: dict[str, str] = {}
    for term in sorted(terms, key=len, reverse=True):
        pattern = re.compile(r"(?<![\w'])" + re.escape(term) + r"(?![\w'])", re.IGNORECASE)
        if pattern.search(text):
            meaning = terms[term]
            used[term] = meaning
            text = pattern.sub(meaning, text)
    return text, used
