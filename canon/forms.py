"""Build proposal content from the flat options a command takes (a Discord slash command or the CLI).

Every builder raises `InvalidInput` with a message for people: a turn range that is not one, a name too long.
Names of types, relations and states are checked later against the campaign's ontology (the gate does it),
so the messages that list the allowed ones come from one place.
"""

from __future__ import annotations

import re
from typing import Any

from canon.errors import InvalidInput
from canon.models import Visibility
from canon.proposals import ProposalContent, parse_content

TURNS_FORM = "a turn number like 12, or a range like 12-15"
_TURNS = re.compile(r"^\s*#?(\d{1,9})\s*(?:[-–—]|\.\.)\s*#?(\d{1,9})\s*$|^\s*#?(\d{1,9})\s*$")


def parse_turns(text: str | None) -> tuple[int, int] | None:
    """Return a turn range from `12-15` or `12` (None when empty), or raise `InvalidInput` showing the form."""
    if text is None or not text.strip():
        return None
    match = _TURNS.match(text)
    if match is None:
        raise InvalidInput(f"“{text.strip()[:60]}” is not a turn range; use {TURNS_FORM}.")
    if match[3] is not None:
        single = int(match[3])
        return single, single
    first, last = int(match[1]), int(match[2])
    if first > last:
        raise InvalidInput(f"The turn range {first}-{last} runs backwards; use {TURNS_FORM}.")
    return first, last


FACTS_FORM = "the facts' words, picked from the suggestions"
# "(fact 12)" as the GM's views show it after the words; "fact 12", "#12" and "12" are read the same.
_FACT_ID = re.compile(r"^\(?\s*(?:fact\s*)?#?\s*(\d{1,15})\s*\)?$", re.IGNORECASE)


def parse_fact_ids(text: str | None) -> tuple[int, ...]:
    """Return the fact numbers of `#12, 15` (none when empty), or raise `InvalidInput` showing the form."""
    found: dict[int, None] = {}
    for part in (text or "").replace(";", ",").split(","):
        item = part.strip()
        if not item:
            continue
        match = _FACT_ID.match(item)
        if match is None or int(match[1]) < 1:
            raise InvalidInput(f"“{item[:30]}” is not a fact number; use {FACTS_FORM}.")
        found[int(match[1])] = None
    return tuple(found)


def split_names(text: str | None) -> tuple[str, ...]:
    """Return the names of a comma-separated list, blanks dropped, duplicates (case-insensitive) once."""
    if not text:
        return ()
    seen: dict[str, str] = {}
    for part in text.split(","):
        name = " ".join(part.split())
        if name and name.casefold() not in seen:
            seen[name.casefold()] = name
    return tuple(seen.values())


def _required(text: str | None, what: str) -> str:
    clean = " ".join((text or "").split())
    if not clean:
        raise InvalidInput(f"The {what} is empty; give one.")
    return clean


def _ref(name: str | None) -> dict[str, str] | None:
    clean = " ".join((name or "").split())
    return {"name": clean} if clean else None


def _blank_to_none(text: str | None) -> str | None:
    return text.strip() if text and text.strip() else None


def _visibility(gm_only: bool) -> str:
    return (Visibility.GM_ONLY if gm_only else Visibility.PUBLIC).value


def _build(data: dict[str, Any]) -> ProposalContent:
    return parse_content({k: v for k, v in data.items() if v is not None})


def fact_content(
    *,
    subject: str,
    attribute: str,
    value: str,
    when: str | None = None,
    gm_only: bool = False,
    relies_on: str | None = None,
) -> ProposalContent:
    """Return a fact: `subject.attribute = value`, from an in-world date when given."""
    return _build(
        {
            "type": "fact",
            "subject": _ref(_required(subject, "subject")),
            "attribute": _required(attribute, "attribute"),
            "value": _required(value, "value"),
            "when": _blank_to_none(when),
            "visibility": _visibility(gm_only),
            "relies_on": list(parse_fact_ids(relies_on)),
        }
    )


def entity_content(
    *,
    name: str,
    entity_type: str,
    description: str | None = None,
    aliases: str | None = None,
    gm_only: bool = False,
) -> ProposalContent:
    """Return a new entity of an ontology type, with optional comma-separated aliases."""
    return _build(
        {
            "type": "entity",
            "name": _required(name, "name"),
            "entity_type": _required(entity_type, "entity type"),
            "description": _blank_to_none(description),
            "aliases": list(split_names(aliases)),
            "visibility": _visibility(gm_only),
        }
    )


def relationship_content(
    *,
    subject: str,
    relation: str,
    target: str,
    since: str | None = None,
    until: str | None = None,
    gm_only: bool = False,
    relies_on: str | None = None,
) -> ProposalContent:
    """Return a relation `subject RELATION target`, over an in-world interval when given."""
    return _build(
        {
            "type": "relationship",
            "subject": _ref(_required(subject, "subject")),
            "relation": _required(relation, "relation"),
            "object": _ref(_required(target, "object")),
            "since": _blank_to_none(since),
            "until": _blank_to_none(until),
            "visibility": _visibility(gm_only),
            "relies_on": list(parse_fact_ids(relies_on)),
        }
    )


def state_content(
    *,
    subject: str,
    state: str,
    via: str | None = None,
    when: str | None = None,
    gm_only: bool = False,
    relies_on: str | None = None,
) -> ProposalContent:
    """Return a state change (`dead`, `wounded`...), through an event kind (`resurrection`) when given."""
    return _build(
        {
            "type": "state_change",
            "subject": _ref(_required(subject, "subject")),
            "state": _required(state, "state"),
            "via": _blank_to_none(via),
            "when": _blank_to_none(when),
            "visibility": _visibility(gm_only),
            "relies_on": list(parse_fact_ids(relies_on)),
        }
    )


def event_content(
    *,
    name: str,
    when: str | None = None,
    location: str | None = None,
    era: str | None = None,
    participants: str | None = None,
    description: str | None = None,
    gm_only: bool = False,
    relies_on: str | None = None,
) -> ProposalContent:
    """Return an event with its date, place, era and comma-separated participants."""
    return _build(
        {
            "type": "event",
            "name": _required(name, "name"),
            "when": _blank_to_none(when),
            "location": _ref(location),
            "era": _ref(era),
            "participants": [{"name": n} for n in split_names(participants)],
            "description": _blank_to_none(description),
            "visibility": _visibility(gm_only),
            "relies_on": list(parse_fact_ids(relies_on)),
        }
    )
