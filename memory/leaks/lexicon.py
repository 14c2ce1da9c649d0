"""Words that say the same thing as a fact's value or relation: "dead" is also "slain", "perished", "the late".

A hidden fact is matched by its subject and by what it says of the subject; a reply rarely repeats the
canon's own word, so each common state and each relation of the ontology comes with the words a narrator
would use instead. A phrase of several words matches as a run of words. Unknown values and predicates match
by their own words only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from canon.wording.relations import PHRASES, kin_words
from memory.leaks.normalize import fold_word

__all__ = ["RELATION_WORDS", "STATE_WORDS", "cue_phrases", "state_adjectives", "wording_phrases"]

#: Words a relation's sentence begins with that say nothing of the relation ("is an ally of").
_LEADING = frozenset({"is", "a", "an", "the"})

_DEATH = (
    "dead died dies dying death killed slain slew murdered deceased perished perish fallen lifeless corpse "
    "buried grave late|deceased passed|away no|longer|alive no|longer|breathes breathed|his|last "
    "breathed|her|last in|the|grave among|the|dead executed beheaded hanged drowned assassinated fell"
)

STATE_WORDS: dict[str, str] = {
    "dead": _DEATH,
    "alive": "alive living lives survived survives breathing",
    "wounded": "wounded injured hurt bleeding maimed stabbed crippled",
    "missing": "missing vanished disappeared gone lost unaccounted whereabouts|unknown nowhere|to|be|found",
    "imprisoned": (
        "imprisoned a|prisoner prisoner|of captive captured jailed chained locked|up held|captive dungeon shackled in|chains"
    ),
    "cursed": "cursed hexed bewitched accursed under|a|curse doomed",
    "undead": "undead risen|from|the|dead revenant ghoul lich vampire walks|again",
    "destroyed": "destroyed ruined razed demolished shattered burned|down wrecked",
    "damaged": "damaged broken cracked battered",
    "dissolved": "dissolved disbanded no|longer|exists broken|up",
    "traitor": "traitor betrayed betrayer turncoat spy double|agent",
    "pregnant": "pregnant with|child expecting",
    "exiled": "exiled banished outcast",
    "possessed": "possessed demon|inside",
    "poisoned": "poisoned poison venom",
    "married": "married wed wedded spouse husband wife",
    # Debts: "owes the smugglers" is said "is in debt to the smugglers", and the other way round.
    "owes": "owes owe owed owing in|debt indebted debtor beholden|to",
    "debt": "debt debts in|debt indebted debtor owes owe owed owing beholden|to",
}

RELATION_WORDS: dict[str, str] = {
    "parent_of": "parent father mother sire son daughter child fathered mothered bore",
    "spouse_of": "spouse married wed wedded husband wife",
    "sibling_of": "sibling brother sister twin",
    "step_parent_of": "stepparent stepfather stepmother stepchild stepson stepdaughter",
    "godparent_of": "godparent godfather godmother godchild godson goddaughter",
    "parent_in_law_of": "parent-in-law father-in-law mother-in-law child-in-law son-in-law daughter-in-law",
    "sibling_in_law_of": "sibling-in-law brother-in-law sister-in-law",
    "ally_of": "ally allied allies friend sides|with works|with serves",
    "enemy_of": "enemy enemies foe hates rival against plots|against betrayed",
    "member_of": "member belongs sworn serves joined agent one|of in|league allegiance loyal",
    "leads": "leads leader head commands chief master heads",
    "rules": "rules ruler reigns lord lady governs king queen",
    "claims_title": "claims title heir",
    "located_in": "in at hides hiding lives dwells located",
    "possesses": "has holds owns possesses carries keeps",
    "killed": "killed slew murdered slain assassinated poisoned death",
    "defeated": "defeated beat bested vanquished overcame",
    "worships": "worships prays devoted priest follower",
    "caused": "caused started behind",
    "witnessed": "witnessed saw watched",
    "participated_in": "took|part fought joined",
}


def wording_phrases(predicate: str) -> list[str]:
    """Return the words a card says a relation in (`canon.wording`'s sentence for it, names left out).

    "{s} took place at {o}" gives "took place at"; "{s} is {o}'s {parent}" gives the kin word for a man, a woman
    and either ("father", "mother", "parent"; "father-in-law", "mother-in-law", "parent-in-law"). A relation is
    matched by these as well as by its synonyms, so a change of the card's wording cannot leave the guard behind.
    """
    template = PHRASES.get(predicate.upper())
    if template is None:
        return []
    found = []
    for kin in kin_words(predicate) if "{parent}" in template else ("",):
        for part in re.split(r"\{[so]\}", template.replace("{parent}", kin)):
            words = part.replace("'s", " ").split()
            while words and words[0].lower() in _LEADING:
                words = words[1:]
            if words:
                found.append(" ".join(words))
    return list(dict.fromkeys(found))


@functools.cache
def _folded(table: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {fold_word(key): value for key, value in table}


def cue_phrases(words: Iterable[str], table: dict[str, str]) -> list[str]:
    """Return the phrases (space-separated words) that say what `words` say, by `table`, the words included.

    A word is looked up in its comparable form (`fold_word`), so "Dead", "dead" and "d34d" find the same row.
    """
    folded = _folded(tuple(table.items()))
    phrases: list[str] = []
    for word in words:
        phrases.append(word)
        phrases += [p.replace("|", " ") for p in folded.get(fold_word(word), "").split()]
    return list(dict.fromkeys(phrases))


@functools.cache
def state_adjectives() -> frozenset[str]:
    """Return the one-word states and their synonyms (compared folded): after "the" they name a crowd."""
    words = {fold_word(key) for key in STATE_WORDS}
    for synonyms in STATE_WORDS.values():
        words.update(fold_word(w) for w in synonyms.split() if "|" not in w)
    return frozenset(words)
