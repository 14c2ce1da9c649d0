"""Whether a character can take part at the story's present: one who is dead, destroyed or absent cannot.

The rule behind `/npc talk`'s refusal: a state the ontology calls terminal (dead, destroyed, dissolved) or one of
absence (missing) keeps a character out of the present, unless the GM allows it (a flashback, a ghost).
"""

from __future__ import annotations

from canon.ontology import Ontology

#: States that keep a character away from the present scene without ending it.
ABSENT_STATES = frozenset({"missing"})
#: How a GM may let a character speak anyway.
ALLOWANCES = ("flashback", "ghost")


def out_of_story(ontology: Ontology, state: str | None) -> bool:
    """Return whether a character in `state` (None: unknown) cannot take part at the story's present."""
    if state is None:
        return False
    tag = ontology.states.tags.get(state)
    return state in ABSENT_STATES or (tag is not None and tag.terminal)


def refusal(name: str, state: str, description: str) -> str:
    """Return why a character cannot answer now, in plain words, with the GM's way around it."""
    how = description if description and description != state else state
    return (
        f"{name} cannot answer: at this point of the story {name} is {state}"
        + (f" ({how})" if how != state else "")
        + ". A GM can let them speak anyway, as a flashback or a ghost, with the allow option."
    )
