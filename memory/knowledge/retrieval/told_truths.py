"""What players are told beside a truth the GM keeps, added to the GM's answer: the GM, who reads the truth (a
cause of death, an event's outcome), is told the public version too ("Players are told Ysolt Dunmere's cause of
death was a winter fever"). A player's card holds no such line: what they are told reads as the truth itself
(`canon.visibility.as_told`), so a player's answer is never changed here."""

from __future__ import annotations

import re

from canon.wording import in_prose
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.lives import typed_held

__all__ = ["kept_fate", "killed_by", "told_beside"]


def told_beside(answer: tuple[str, int] | None, fact: CanonFact, noun: str) -> tuple[str, int] | None:
    """Return an answer with what players are told of its subject's `noun` ("cause of death", "outcome") after
    it, when the card holds it (only the GM's does): "… Players are told Ysolt Dunmere's cause of death was a
    winter fever." The answer as it is otherwise."""
    if answer is None:
        return None
    head = f"Players are told {possessive(fact.entity_name)} {noun}: "
    told = next((line.removeprefix(head) for line in fact.facts if line.startswith(head)), None)
    if told is None:
        return answer
    text, number = answer
    cited = re.match(r"^(?P<text>.*?)\s*(?P<cite>\[\d+\])?$", text, re.S)
    body, cite = (cited["text"], cited["cite"]) if cited else (text, None)
    value = told.strip().rstrip(".")
    value = value[:1].lower() + value[1:] if re.match(r"^(?:The|A|An)\b", value) else value
    subject = possessive(in_prose(fact.entity_name, "Event" if noun == "outcome" else None))
    said = f"{body} Players are told {subject} {noun} was {value}."
    return (f"{said} {cite}" if cite else said), number


def killed_by(fact: CanonFact) -> str | None:
    """Return who killed someone as their card ties it ("Hob Greave killed Sef Rook"), or None."""
    killers = fact.tied("KILLED")
    if not killers:
        return None
    names = ", ".join(killers[:-1]) + " and " + killers[-1] if len(killers) > 1 else killers[0]
    return f"{names} killed {fact.entity_name}"


#: What players are told of a fate on the GM's card: "Players are told Ysolt Dunmere's cause of death: a fever".
_TOLD_FATE = ("status", "cause of death", "place of death", "fate")


def kept_fate(fact: CanonFact) -> list[str] | None:
    """Return, for the GM, the truth of a fate players are told otherwise, then what they are told: "Ysolt
    Dunmere is alive.", "Ysolt Dunmere is held at the Salt Gaol.", "Players are told Ysolt Dunmere is dead; her
    cause of death was a fever." None when the card holds nothing told (a player's card never does)."""
    name = fact.entity_name
    told = {
        noun: line.removeprefix(head)
        for noun in _TOLD_FATE
        for line in fact.facts
        if line.startswith(head := f"Players are told {possessive(name)} {noun}: ")
    }
    if not told:
        return None
    truth = [f"{name} is {fact.state}"] if fact.state else []
    truth += [held] if (held := typed_held(fact)) else []
    said = [f"is {told.pop('status')}"] if "status" in told else []
    if "cause of death" in told and not said:
        said.append("is dead")
    for noun, value in told.items():  # "she drowned in the Ashmere", "her cause of death was a fever"
        value = value.strip().rstrip(".")
        verb = noun == "cause of death" and re.match(r"^[a-z]+ed\b", value)
        said.append(f"{name} {value}" if verb else f"{possessive(name)} {noun} was {value}")
    return [*truth, f"Players are told {name} {'; '.join(said)}"]
