"""Questions of marriage, answered from a person's family as the asker may see it (`CanonFact.kin`).

- "When did Bram and Ilsa get married?", "When did Bram marry?": the marriage's start or the wedding both took
  part in, in the calendar's words, or that canon does not say when;
- "Who did Bettany marry?", "Who is Hesk married to?", "Is Hesk married?": the spouse, or that nothing the table
  knows says one; several, each dated, in the order they married ("married twice: first to A, in year 252 …,
  then to B, …").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.counts import in_words
from canon.wording.relations import relation_sentence
from memory.knowledge.answer_models import Kin
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_born_wed import born_by_marriage
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_kin import people_named
from memory.knowledge.retrieval.answer_nth_spouse import nth_spouse_answer
from memory.knowledge.retrieval.kin import MARRIAGE

__all__ = ["marriage_answer"]


def marriage_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when a marriage asked began ("When did Bram and Ilsa get married?"), or whom someone married ("who
    did Bettany marry", "who did Hesk wed": the spouse, never a wedding's guests), or None."""
    nth = nth_spouse_answer(question, facts)  # "who was Aldous's second wife": by the order they married
    if nth is not None:
        return nth
    born = born_by_marriage(question, facts)  # "was Ilse born before her parents married": two dates
    if born is not None:
        return born
    if _WHOM.match(question):
        return _whom(question, facts)
    if _IS_MARRIED.match(question) or _MARRIED_TO.match(question):
        return _spouse_answer(question, facts, yes_no=_IS_MARRIED.match(question) is not None)
    when = re.match(r"^\s*(?:when|what\s+(?:year|day|date))\b", question, re.I) or _AND_WHEN.search(question)
    if not when or not MARRIAGE.search(question):
        return None
    people = people_named(question, facts)
    if not people:
        return None
    me = people[0]
    kin = me.kin
    assert kin is not None
    number = facts.index(me) + 1
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    if len(people) > 1:
        other = people[1].entity_name
        if other not in spouses:
            text = f"Nothing the table knows says {me.entity_name} and {other} married"
            if spouses:
                text += f"; {me.entity_name} is married to {names_list(spouses)}"
            return f"{text}. [{number}]", number
        spouses = [other]
    if not spouses:
        return None
    said = [_married(me.entity_name, spouse, kin) for spouse in spouses]
    return " ".join(f"{s}." for s in said) + f" [{number}]", number


#: "who did Aveline marry and when": whom and when, as "when did Aveline marry" says both.
_AND_WHEN = re.compile(r"\b(?:marry|wed|married|wedded)\b.*\band\s+when\b", re.I)
#: "Is X married?", "was X married to Y?", "is X wed": yes or no, by the spouses canon names.
_IS_MARRIED = re.compile(
    r"^\s*(?:is|was|are|were)\s+.+?\s+(?:married|wed|wedded)(?:\s+(?:to|with)\s+.+?)?\s*\??\s*$", re.I
)


def _spouse_answer(question: str, facts: Sequence[CanonFact], *, yes_no: bool) -> tuple[str, int] | None:
    """Return whom the one asked is married to ("was" for the dead), "Yes: …" first for a yes/no question, or
    that nothing the table knows says they are married (to the other one named): never a "no" canon does not
    say. None when the question names nobody whose family was read."""
    people = people_named(question, facts)
    if not people or people[0].kin is None:
        return None
    me, kin = people[0], people[0].kin
    number = facts.index(me) + 1
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    said = f"{me.entity_name} {'was' if me.state == 'dead' else 'is'} married"
    if yes_no and len(people) > 1 and people[1].entity_name not in spouses:
        text = f"Nothing the table knows says {said} to {people[1].entity_name}"
        if spouses:
            text += f"; canon says {said} to {names_list(spouses)}"
        return f"{text}. [{number}]", number
    if not spouses:
        return f"Nothing the table knows says {said}. [{number}]", number
    turns = _in_turn(kin, spouses, "to ")
    if turns is not None:  # "… was married twice: first to A, in year 252 …, then to B, on 4 Emberrise, …"
        return f"{'Yes: ' if yes_no else ''}{said} {turns}. [{number}]", number
    widowed = me.state != "dead" and not re.match(r"^\s*(?:who\s+)?(?:was|were)\b", question, re.I)
    if widowed and all(
        s in me.deaths for s in spouses
    ):  # "is X married?" of a widow: to one now dead, no verdict
        late = [f"{s} (died {me.deaths[s]})" if me.deaths[s] else f"the late {s}" for s in spouses]
        return f"{me.entity_name} was married to {names_list(late)}. [{number}]", number
    return f"{'Yes: ' if yes_no else ''}{said} to {names_list(spouses)}. [{number}]", number


#: "Who is X married to?", "who was X wed to?": the spouse, "was" for the dead.
_MARRIED_TO = re.compile(r"^\s*who(?:m)?\s+(?:is|was)\s+.+?\s+(?:married|wed|wedded)\s+to\s*\??\s*$", re.I)


#: "Who did X marry?", "who did X wed?", "who has X married?": whom, not when.
_WHOM = re.compile(
    r"^\s*who(?:m)?\s+(?:did|does|has|had|will|would)\s+.+?\s+(?:marry|wed|married|wedded)\s*\??\s*$", re.I
)


def _whom(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return whom the one asked married: the spouses canon names, else the one other of a wedding."""
    people = people_named(question, facts)
    kin = people[0].kin if people else None
    if kin is None:
        return None
    me = people[0]
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    if not spouses:
        return None
    number = facts.index(me) + 1
    turns = _in_turn(kin, spouses)
    if turns is not None:  # "Cole married twice: first Lida, in year 270 …, then Mave, …"
        return f"{me.entity_name} married {turns}. [{number}]", number
    return f"{relation_sentence('SPOUSE_OF', me.entity_name, names_list(spouses))}. [{number}]", number


def _in_turn(kin: Kin, spouses: Sequence[str], to: str = "") -> str | None:
    """Return several spouses in the order they married, each with when ("twice: first to A, in year 252 …,
    then to B, …"), or None for one spouse or any marriage the asker sees no date of."""
    if len(spouses) < 2 or not set(spouses) <= set(kin.married_order):
        return None
    turns = [f"{to}{s}, {kin.married[s]}" for s in kin.married_order if s in spouses]
    times = "twice" if len(turns) == 2 else f"{in_words(len(turns))} times"
    return f"{times}: first {', then '.join(turns)}"


def _married(name: str, spouse: str, kin: Kin) -> str:
    """Return when and where a marriage began: the wedding's place when canon says it, the wedding by name after it
    ("…, at Highfold (the Wedding of Cole and Neve)"): a wedding's name is no place."""
    when, wedding, place = kin.married.get(spouse), kin.weddings.get(spouse), kin.wedded_at.get(spouse)
    if wedding and place:
        wedding = f"{place} ({wedding})"
    at = f", at {wedding}" if wedding else ""
    if when:
        return f"{name} married {spouse} {when}{at}"
    if wedding:
        return f"{name} married {spouse} at {wedding}; nothing the table knows says when"
    return f"{name} is married to {spouse}; nothing the table knows says when they married"
