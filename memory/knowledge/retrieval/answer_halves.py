"""Siblings as canon makes them, full or half: two people who share both parents canon names of each are full
siblings, two who share one of them half-siblings ("Merrit Penhallow's half-brother is Rook Tanner"; "is Rook
Merrit's full brother": "No: Rook Tanner is Merrit Penhallow's half-brother: they share one parent, Aldous
Penhallow"). Of one whose other parent the asker does not see (canon names none, or the GM keeps it), nothing is
said either way: the asker reads what the parents they see imply, as if the hidden one were never written
(`kin.kin_of` reads each card as the asker may see it).
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.kin_far_words import with_via
from memory.knowledge.retrieval.kin_nouns import tie_noun

__all__ = ["adopted_sibling", "died", "listing", "marked", "undecided", "which_sibling"]


def listing(name: str, kin: Kin, tie: str, sex: str | None, names: Sequence[str]) -> str:
    """Return "X's <tie> is/are <names>": siblings canon makes half-siblings said so ("Merrit Penhallow's
    half-brother is Rook Tanner"; among others, "Rook Tanner (a half-brother)")."""
    halves = set(kin.ties.get("half-siblings", ())) if tie == "siblings" else set()
    if halves and all(n in halves for n in names):
        tie = "half-siblings"
    said = with_via(kin, tie, names, died(kin, marked(kin, tie, names), names))  # a far tie with its chain
    verb = _be(names) if not all(n in kin.deaths for n in names) else "was" if len(names) == 1 else "were"
    return f"{possessive(name)} {tie_noun(tie, sex, len(names) > 1)} {verb} {said}"


def died(kin: Kin, shown: Sequence[str], names: Sequence[str]) -> list[str]:
    """Return names as said (`shown`) with when each of the dead died: "Aldric Thorne (died in year 340 of …)"."""
    said: list[str] = []
    for name, text in zip(names, shown, strict=True):
        when = kin.deaths.get(name)
        if when is None:
            said.append(text)
        elif text.endswith(")"):  # "Rook Tanner (a half-brother, died in …)"
            said.append(f"{text[:-1]}, died{' ' + when if when else ''})")
        else:
            said.append(f"{text} (died{' ' + when if when else ''})")
    return said


def marked(kin: Kin, tie: str, names: Sequence[str]) -> list[str]:
    """Return siblings' names, those canon makes half-siblings among others marked so."""
    halves = set(kin.ties.get("half-siblings", ())) if tie == "siblings" else set()
    if not halves or all(n in halves for n in names):
        return list(names)
    return [
        f"{n} (a {tie_noun('half-siblings', kin.sexes.get(n), False)})" if n in halves else n for n in names
    ]


def undecided(kin: Kin, tie: str, sex: str | None) -> list[str]:
    """Return, of a question of half or full siblings, that canon does not say which the others are."""
    if tie not in ("half-siblings", "full-siblings"):
        return []
    decided = {*kin.ties.get("half-siblings", ()), *kin.ties.get("full-siblings", ())}
    rest = [
        n
        for n in kin.ties.get("siblings", ())
        if n not in decided
        and not adopted_sibling(kin, n)
        and (sex is None or kin.sexes.get(n) in (sex, None))
    ]
    return [f"canon does not say whether {n} is a full or a half {_sibling(kin, n)}" for n in rest]


def adopted_sibling(kin: Kin, name: str) -> str:
    """Return the chain a sibling by adoption is through ("her father Edric Corrow's adopted son"; `kin_far`
    walks only those by adoption among siblings), or "" of a sibling by birth."""
    via = kin.via.get("siblings", {}).get(name, "")
    return via if "adopt" in via else ""


def _sibling(kin: Kin, name: str) -> str:
    return tie_noun("siblings", kin.sexes.get(name), False)


def which_sibling(name: str, them: str, kin: Kin, tie: str) -> str:
    """Return whether a sibling is a full or a half one, as far as canon names both parents of each: the parents
    they share, or that canon does not say which."""
    shared = list(kin.shared.get(them, ()))
    if them in kin.ties.get("half-siblings", ()):
        noun = tie_noun("half-siblings", kin.sexes.get(them), False)
        lead = "No: " if tie == "full-siblings" else "Yes: " if tie == "half-siblings" else ""
        return f"{lead}{them} is {possessive(name)} {noun}: they share one parent, {shared[0]}"
    if them in kin.ties.get("full-siblings", ()):
        noun = tie_noun("full-siblings", kin.sexes.get(them), False)
        lead = "No: " if tie == "half-siblings" else "Yes: "
        return f"{lead}{them} is {possessive(name)} {noun}: both are children of {names_list(shared)}"
    said = f"{them} is {possessive(name)} {_sibling(kin, them)}"
    by_adoption = adopted_sibling(kin, them)
    if by_adoption and tie != "siblings":  # no parent shared by birth: neither a full nor a half sibling
        lead = "No: " if tie in ("half-siblings", "full-siblings") else ""
        said = f"{them} is {possessive(name)} adoptive {_sibling(kin, them)} ({by_adoption})"
        return f"{lead}{said}: they share no parent by birth"
    if tie == "siblings":
        return f"Yes: {said}"
    return f"{said}; canon does not say whether a full or a half {_sibling(kin, them)}"


def _be(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"
