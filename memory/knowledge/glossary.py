"""The table's glossary: abbreviations and slang read as the words the books write.

A glossary maps a term the table uses ("AC", "hp", "knocked out", "gobbo") to the words a source writes
("armor class", "hit points", "unconscious", "goblin"). The project ships one for fantasy roleplaying games
(`SHIPPED`); a campaign adds its own world's terms (kept in the campaign's settings, exported with it), and a
campaign's term outranks a shipped one of the same spelling, and a campaign's term meaning itself switches the
shipped one off (another game's "armour" is read as written, not as "armor"). Questions are read through it
before they are searched and answered (`expand`).

The campaign's calendar outranks the shipped glossary: a word the calendar gives (an era's name or abbreviation,
a month, a season) is never read as a shipped term ("499 LR" is a year of the Lantern Reckoning where the calendar
abbreviates an era "LR", not "499 long rest"; "12 AC" a year After the Crowning, not armor class). A term the GM
added to the campaign's glossary outranks the calendar: the GM chose it, and can remove it (`merged`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Mapping

# The key of a campaign's settings holding its glossary (`{term: meaning}`), exported with the campaign; the
# calendar reads it too (a term meaning an era is read in dates as that era).
from canon.campaign_calendar import GLOSSARY_SETTINGS, fold

__all__ = [
    "GLOSSARY_SETTINGS",
    "MAX_TERMS",
    "RELATED",
    "SHIPPED",
    "checked_entry",
    "clean_term",
    "expand",
    "merged",
]


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
    "tanky": "hit points",
    "squishy": "hit points",
    "aoe": "area of effect",
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
    "auto": "automatically",
    "ko": "unconscious",
    "ko'd": "unconscious",
    "passed out": "unconscious",
    "out cold": "unconscious",
    "gobbo": "goblin",
    "gobbos": "goblin",
    "gob": "goblin",
    # A natural 20 is a roll the books write as such ("roll a 20 on the attack roll"); what it does is theirs.
    # A fraction the books write in words ("three-quarters cover"); "1/2" and "1/4" stay: books print them so
    # ("challenge 1/2").
    "3/4": "three-quarters",
    "nat 20": "roll a 20",
    "natural 20": "roll a 20",
    "nat 1": "roll a 1",
    "natural 1": "roll a 1",
    "crit": "critical hit",
    "crits": "critical hit",
    "aoo": "opportunity attack",
    "attack of opportunity": "opportunity attack",
    "conc": "concentration",
    "lvl": "level",
    "#": "number",
    "max": "maximum",
    # "What counts as a success": what a success is.
    "counts as": "is",
    # A track filled to its end, as the table says it: the books say it reaches its limit.
    "maxes out": "is at its limit",
    "maxed out": "at its limit",
    "max out": "be at its limit",
    "maxing out": "at its limit",
    "normal weapons": "nonmagical weapons",
    "regular weapons": "nonmagical weapons",
    "mundane weapons": "nonmagical weapons",
    "min": "minimum",
    "temp hp": "temporary hit points",
    "thp": "temporary hit points",
    "regen": "regeneration",
    "stack": "add together",
    "stacks": "add together",
    "stacking": "adding together",
    "turn order": "initiative order",
    "bbeg": "villain",
    "pc": "player character",
    "npc": "nonplayer character",
    # The table's shorthand for classes, rolls and times, as typed in chat.
    "barb": "barbarian",
    "barbs": "barbarian",
    "pally": "paladin",
    "pallies": "paladin",
    "sorc": "sorcerer",
    "wiz": "wizard",
    "adv": "advantage",
    "disadv": "disadvantage",
    "disad": "disadvantage",
    "init": "initiative",
    "prof": "proficiency",
    "mod": "modifier",
    "mods": "modifiers",
    "atk": "attack",
    "attk": "attack",
    "perc": "perception",
    "invis": "invisible",
    "oa": "opportunity attack",
    "lr": "long rest",
    "sr": "short rest",
    "temp": "temporary",
    "vuln": "vulnerability",
    "lvls": "levels",
    "hr": "hour",
    "hrs": "hours",
    "mins": "minutes",
    "secs": "seconds",
    "rds": "rounds",
    "thru": "through",
    "u": "you",
    "ur": "your",
    "r": "are",
    "cuz": "because",
    "hw": "how",
    "wut": "what",
    "wasnt": "was not",
    "isnt": "is not",
    "werent": "were not",
    # Conditions as players say them.
    "scared": "frightened",
    "afraid": "frightened",
    "terrified": "frightened",
    "knocked down": "prone",
    "turned to stone": "petrified",
    "turned into stone": "petrified",
    # Tiredness as players say it: the books count it in levels of exhaustion.
    "fatigue": "exhaustion",
    "fatigued": "exhausted",
    "paralysed": "paralyzed",
    "blind": "blinded",
    "deaf": "deafened",
}

#: A player's word for a rule and the words the books say it in, any game's: a sentence saying one of them says
#: the player's word when an answer's sentence is chosen ("a short rest is at least 1 hour long" answers "the
#: minimum short rest"). Never searched for, never replacing the question's word: the books may say it too.
#: Who lives in a place, as a gazetteer counts them ("home to 9,000 souls", "about 150 folk").
_DWELLERS = ("souls", "folk", "inhabitants", "residents", "population", "citizens", "townsfolk", "villagers")

RELATED: dict[str, tuple[str, ...]] = {
    "minimum": ("at least", "no less than", "no fewer than"),
    "maximum": ("at most", "no more than", "up to"),
    "pass": ("succeed", "success", "successful", "succeeds"),
    "beat": ("succeed", "success", "successful", "equals or exceeds", "meets or exceeds"),
    "fail": ("failure", "failed", "failures"),
    "walk": ("speed", "move", "movement"),
    "run": ("speed", "move", "movement", "dash"),
    "leave": ("speed", "move", "movement"),
    "cost": ("spend", "expend", "price", "pay"),
    "pay": ("cost", "spend", "expend", "price"),
    "fight": ("combat", "battle"),
    "battle": ("combat", "fight"),
    "decides": ("determine", "determines"),
    "decide": ("determine", "determines"),
    "kill": ("dies", "die", "dead", "death", "slay"),
    "killing": ("dies", "die", "dead", "death", "slay"),
    "heal": ("regain", "regains", "restore", "restores"),
    "healing": ("regain", "regains", "restore", "restores"),
    "hurt": ("damage",),
    "restore": ("regain", "regains", "heal", "heals"),
    "regeneration": ("regain", "regains"),
    # Who a rule counts, as the table says it: the books count creatures.
    "people": ("creature", "creatures", *_DWELLERS),
    "persons": ("creature", "creatures", *_DWELLERS),
    "person": ("creature", "creatures"),
    "character": ("creature", "creatures"),
    "characters": ("creature", "creatures"),
    "pc": ("creature", "creatures", "character", "characters"),
    "pcs": ("creature", "creatures", "character", "characters"),
    "enemy": ("creature", "creatures", "target", "targets", "foe"),
    "enemies": ("creature", "creatures", "target", "targets", "foes"),
    "opponent": ("creature", "creatures", "target", "targets", "foe"),
    # How far a thing reaches, and what a container holds, as the books say them.
    "range": ("distance",),
    "inside": ("contents", "contain", "contains"),
    "stop": ("end", "ends", "until", "cease", "ceases"),
    "money": ("coin", "coins", "currency", "coinage"),
    # Getting rid of a condition, as the books say it: "removed by", "ends when", "cured by".
    "rid": ("remove", "removed", "removes", "end", "ends", "cure", "cured", "cures"),
    # A rate, as the books say it: "one ration for every two legs", "1 gp each day".
    "per": ("each", "every"),
    # How a value is worked out: the books give the sum ("equals 10 + ...").
    "formula": ("equal to", "equals"),
    "calculate": ("equal to", "equals"),
    "calculated": ("equal to", "equals"),
    "make": ("create", "creates"),
}

_SPACE = re.compile(r"\s+")
_TERM = re.compile(r"^[^\W_][\w' -]*$")
_MEANING = re.compile(r"^[^\W_][\w' ,-]*$")


def clean_term(term: str) -> str:
    """Return a glossary term as it is matched: folded, single spaces (empty when it is not a term)."""
    folded = _SPACE.sub(" ", unicodedata.normalize("NFKC", term).casefold()).strip()
    return folded if _TERM.match(folded) and len(folded) <= MAX_TERM_CHARS else ""


def merged(
    campaign: Mapping[str, str] | None = None,
    calendar: Collection[str] = (),
    book: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Return the glossary a campaign's questions are read through: the shipped one without the words its calendar
    gives (`calendar`, folded as `canon.date_words.calendar_words` gives them), under the plain words the books
    define their own terms by (`book`: {"vacuum": "cold"}, `memory.knowledge.retrieval.book_terms`), with the
    campaign's own terms over all (a term the GM added outranks the calendar). A shipped term whose meaning, or
    whose own spelling, the books define is read as the books' term ("armor" as "plate" where the books say
    "PLATE. Armour."); the initials of a term the books name ("sr" read as their "spell reserve") leave the shipped
    meaning as it is."""
    terms = {term: meaning for term, meaning in SHIPPED.items() if fold(term) not in calendar}
    for phrase, term in (book or {}).items():
        if fold(phrase) in calendar:
            continue
        for shipped, meaning in SHIPPED.items():
            if meaning == phrase and shipped not in book:  # type: ignore[operator]
                terms[shipped] = term
            elif shipped == phrase and meaning not in book and not _initials_of(phrase, term):  # type: ignore[operator]
                terms[meaning] = term
        terms[phrase] = term
    for term, meaning in (campaign or {}).items():
        key = clean_term(term)
        if key and clean_term(meaning) == key:  # read as written: a shipped meaning switched off
            terms.pop(key, None)
        elif key:
            terms[key] = meaning
    return terms


def _initials_of(phrase: str, term: str) -> bool:
    """Return whether a phrase is a term's initials ("sr" of "spell reserve"): the books' reading of the
    shipped term's spelling, which says nothing of its shipped meaning."""
    return phrase == "".join(
        word[0] for word in term.replace("-", " ").split() if word not in ("the", "a", "an")
    )


def expand(question: str, glossary: Mapping[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """Return a question with its glossary terms replaced by their meanings, and the terms replaced.

    Terms are matched as whole words, longest first ("knocked out cold" before "knocked out"), case ignored;
    a meaning is put in once even when the term is repeated.
    """
    text, used = _expanded(question, tuple((SHIPPED if glossary is None else glossary).items()))
    return text, dict(used)


@functools.lru_cache(maxsize=256)
def _expanded(
    question: str, glossary: tuple[tuple[str, str], ...]
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Return `expand`'s answer, kept: one question is read through the glossary several times."""
    terms = dict(glossary)
    text = unicodedata.normalize("NFKC", question).replace("’", "'")
    used: dict[str, str] = {}
    for term, pattern in _patterns(tuple(terms)):
        if pattern.search(text):
            meaning = terms[term]
            used[term] = meaning
            text = pattern.sub(meaning, text)
    return text, tuple(used.items())


@functools.lru_cache(maxsize=64)
def _patterns(terms: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    """Return a glossary's terms, longest first, each with the pattern finding it as a whole word (compiled once
    per set of terms: a question is read through the glossary several times)."""
    return [(term, _pattern(term)) for term in sorted(terms, key=len, reverse=True)]


@functools.lru_cache(maxsize=8192)
def _pattern(term: str) -> re.Pattern[str]:
    """Return the pattern finding a term as a whole word (each compiled once: a question's glossary is read as
    several sets of terms, the whole one and those its question used)."""
    return re.compile(r"(?<![\w'])" + re.escape(term) + r"(?![\w'])", re.IGNORECASE)


def checked_entry(term: str, meaning: str, terms: Mapping[str, str]) -> tuple[str, str]:
    """Return a glossary entry as stored (term folded, meaning in single spaces), or raise `InvalidInput`.

    A term and a meaning are plain words (letters, digits, spaces, apostrophes, hyphens; a meaning may hold
    commas): never markup or a mention, since both are searched and shown back to the table.
    """
    from canon.errors import InvalidInput

    key = clean_term(term)
    if not key:
        raise InvalidInput(
            "A glossary term is a word or a few words (letters, digits, spaces, apostrophes, hyphens), "
            f"at most {MAX_TERM_CHARS} characters: for example `gobbo`."
        )
    said = _SPACE.sub(" ", unicodedata.normalize("NFKC", meaning)).strip()
    if not said or len(said) > MAX_MEANING_CHARS or not _MEANING.match(said):
        raise InvalidInput(
            f"A meaning is plain words, at most {MAX_MEANING_CHARS} characters: for example `goblin`."
        )
    if key not in terms and len(terms) >= MAX_TERMS:
        raise InvalidInput(
            f"This campaign's glossary already holds {MAX_TERMS} terms: remove one first "
            "(`/lore glossary remove`)."
        )
    return key, said
