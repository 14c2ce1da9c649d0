"""A proposal as one line of words for the review card, the commit card and the answer to /propose."""

from __future__ import annotations

import re
from collections.abc import Callable

from canon.models import Viewer
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    ProposalContent,
    RelationshipContent,
    StateChangeContent,
    citations,
)
from canon.wording.context import PLAIN, Wording
from canon.wording.relations import attribute_words, fact_sentence, relation_sentence


def type_words(entity_type: str) -> str:
    """Return an entity type as the ontology names it, in words: "MagicSystem" reads "Magic System"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", entity_type).replace("_", " ")


def proposal_sentence(
    content: ProposalContent, words: Wording = PLAIN, viewer: Viewer = Viewer.PLAYER
) -> str:
    """Return what a proposal would make true, in words, and what the facts it relies on say (from
    `words.facts`, never their ids): the GM reads them all, a player those players may read, the rest being
    "earlier canon"."""
    sentence = _sentence(content, words)
    cited = citations(content)
    if not cited:
        return sentence
    shown = [i for i in cited if i in words.facts and (viewer == Viewer.GM or i not in words.hidden_facts)]
    named = list(dict.fromkeys(f"“{words.escape(words.facts[i])}”" for i in shown))
    if len(shown) < len(cited):
        named.append("an earlier fact" if viewer == Viewer.GM else "earlier canon")
    if viewer != Viewer.GM and not shown:
        return sentence + " (building on earlier canon)"
    return sentence + " (relies on " + _joined(list(dict.fromkeys(named))) + ")"


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def describe(content: ProposalContent, words: Wording) -> str:
    """Return a proposal as one plain sentence without ids (the line of a list, a menu or a recap), its dates
    in the campaign calendar's `words` (there is no default: a date said without the calendar loses its
    months' and eras' names)."""
    return proposal_sentence(content, words)


def _becomes(state: str, via: str, dated: bool, name: Callable[[str], str]) -> str:
    """Return the verb of a change of state: "dies", "is born", "becomes wounded".

    Alive on a world date and not through a resurrection is a birth (continuity reads a first dated `alive` so);
    undated, it may be a recovery, so it stays "becomes alive"."""
    folded = state.strip().casefold()
    if folded == "dead":
        return "dies"
    if folded == "alive" and dated and not via:
        return "is born"
    return f"becomes {name(state)}"


def _sentence(content: ProposalContent, words: Wording) -> str:
    name = words.name
    match content:
        case EntityContent():
            return f"New {type_words(content.entity_type)}: {name(content.name)}" + (
                f" — {name(content.description)}" if content.description else ""
            )
        case FactContent():
            attribute = name(attribute_words(content.attribute))  # in words, then escaped (never "a\ b")
            text = fact_sentence(name(content.subject.name), attribute, name(content.value))
            return text + (f", from {words.date(content.when)}" if content.when else "")
        case RelationshipContent():
            text = relation_sentence(content.relation, name(content.subject.name), name(content.object.name))
            if content.since and content.until:
                return text + f", from {words.date(content.since)} to {words.date(content.until)}"
            if content.since:
                return text + f", since {words.date(content.since)}"
            return text + (f", until {words.date(content.until)}" if content.until else "")
        case StateChangeContent():
            via = f" through a {name(content.via)}" if content.via else ""
            when = f" {words.when(content.when)}" if content.when else ""
            return f"{name(content.subject.name)} {_becomes(content.state, via, bool(content.when), name)}{via}{when}"
        case EventContent():
            bits = [f"Event: {name(content.name)}"]
            if content.when:
                bits.append(words.date(content.when))
            if content.location:
                bits.append(f"at {name(content.location.name)}")
            if content.participants:
                people = [name(p.name) for p in content.participants]
                bits.append(
                    "with "
                    + (", ".join(people[:-1]) + " and " + people[-1] if len(people) > 1 else people[0])
                )
            return ", ".join(bits)
    raise AssertionError(content)  # pragma: no cover
