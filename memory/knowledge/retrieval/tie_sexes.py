"""Ties by rite, law or marriage a file states (a godparent, a step-parent, an in-law) asked by a word naming a sex:
"who is Wynn's godfather", "who are Osk's goddaughters", "who is Wynn's mother-in-law".

Each one found is said by their own sex, as canon says it to the asker, never by the word asked: a woman is a
godmother, however the question puts it. Those of the sex asked are named; one canon gives no sex is "godfather or
godmother; canon does not say which"; of none of the sex asked, that nothing names one, and who is of the other
("Nothing the table knows names Wynn Brann's stepfather; Wynn Brann's stepmother is Rena Dray"). Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from canon.wording.relations import kin_words, possessive, sex_of
from memory.knowledge.models import CanonFact

__all__ = ["gendered", "sexed_tie"]

#: The words of a tie's lower end by sex (male, female, not said): a godson, a stepdaughter, a son-in-law.
_BELOW: dict[str, tuple[str, str, str]] = {
    "GODPARENT_OF": ("godson", "goddaughter", "godchild"),
    "STEP_PARENT_OF": ("stepson", "stepdaughter", "stepchild"),
    "PARENT_IN_LAW_OF": ("son-in-law", "daughter-in-law", "child-in-law"),
    "SIBLING_IN_LAW_OF": ("brother-in-law", "sister-in-law", "sibling-in-law"),
}
_SEXES = ("male", "female", None)


def _nouns(predicate: str, end: str) -> tuple[str, str, str] | None:
    if predicate not in _BELOW:
        return None
    return _BELOW[predicate] if end == "object" else kin_words(predicate)


def gendered(predicate: str, end: str, singular: str) -> tuple[str | None, tuple[str, str, str]] | None:
    """Return the sex a tie's word asks ("godfather": male; "godparent": None) and the tie's words at that end by
    sex, or None for a tie whose words name no sex."""
    nouns = _nouns(predicate, end)
    if nouns is None or singular not in nouns:
        return None
    return _SEXES[nouns.index(singular)], nouns


def _sex(owner: CanonFact, facts: Sequence[CanonFact], name: str, nouns: tuple[str, str, str]) -> str | None:
    """Return one's sex as the asker reads it: by the word the owner's card says them by, their own card, or the
    family read beside the question."""
    leads = tuple(f"{name} {verb} {possessive(owner.entity_name)} " for verb in ("is", "was"))
    for line in owner.facts:
        if line.startswith(leads):
            word = line.split(f"{possessive(owner.entity_name)} ", 1)[1].split(" (")[0]
            if word in nouns[:2]:
                return _SEXES[nouns.index(word)]
    if name in owner.sexes:
        return owner.sexes[name]
    own = next((f for f in facts if f.entity_name == name), None)
    said = [line.split(": ", 1)[1] for line in own.facts if line.startswith(f"{name}'s sex: ")] if own else []
    if said:
        return sex_of(said[-1])
    return owner.kin.sexes.get(name) if owner.kin is not None else None


def sexed_tie(
    owner: CanonFact,
    facts: Sequence[CanonFact],
    found: Sequence[str],
    asked: tuple[str | None, tuple[str, str, str]],
    say: Callable[[Sequence[str], tuple[str, str]], str],
) -> str:
    """Return those of a tie found said by their sex (see the module docstring); `say` says names by a noun (one,
    several) as the tie's sentence does ("Wynn Brann's godfather is Osk Vell")."""
    sex, nouns = asked
    me = owner.entity_name
    sexes = {n: _sex(owner, facts, n, nouns) for n in found}
    mine = [n for n in found if sexes[n] == sex] if sex else list(found)
    unsure = [n for n in found if sexes[n] is None] if sex else []
    noun = nouns[_SEXES.index(sex)]
    if mine:
        text = say(mine, (noun, _plural(noun)))
        return text + "".join(f"; canon does not say whether {n} is a {noun}" for n in unsure)
    if unsure:
        either = f"{nouns[0]} or {nouns[1]}"
        return "; ".join(f"{n} is {possessive(me)} {either}; canon does not say which" for n in unsure)
    other = [n for n in found if sexes[n] not in (sex, None)]
    other_noun = nouns[1 - _SEXES.index(sex)]
    return f"Nothing the table knows names {possessive(me)} {noun}; " + say(
        other, (other_noun, _plural(other_noun))
    )


def _plural(noun: str) -> str:
    """Return a tie's word for several: "godfathers", "sons-in-law"."""
    head, dash, rest = noun.partition("-")
    return f"{head}s{dash}{rest}" if dash else f"{noun}s"
