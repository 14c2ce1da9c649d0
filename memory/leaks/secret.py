"""What the guard knows of one secret: its text, and what it says of whom (subjects, predicate, value)."""

from __future__ import annotations

import enum

from pydantic import BaseModel, ConfigDict

__all__ = ["Leak", "Secret", "SecretKind"]


class SecretKind(enum.StrEnum):
    """What a secret is, which decides how the guard matches it."""

    TEXT = "text"  # free text (a narrator-only passage): matched by its own distinctive words
    ENTITY = "entity"  # a GM-only entity: its names are the secret
    STATE = "state"  # an entity's state ("Brann is dead")
    FACT = "fact"  # an attribute and its value ("Mira's true allegiance: the Crimson Pact")
    RELATION = "relation"  # a relation between two entities ("Mira MEMBER_OF the Crimson Pact")


class Secret(BaseModel):
    """A GM-only piece of canon and a label saying where it comes from (shown to the GM, never to players).

    `subjects` holds each entity the secret is about by all its names (the name, then its aliases): a reply
    reveals the secret when it names every subject and says the `predicate`/`value` of them. `hidden_names`
    are names that are secret by themselves (a GM-only entity): naming one is a leak.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    label: str
    kind: SecretKind = SecretKind.TEXT
    subjects: tuple[tuple[str, ...], ...] = ()
    predicate: str | None = None
    value: str | None = None
    hidden_names: tuple[str, ...] = ()

    @classmethod
    def state(cls, names: tuple[str, ...], state: str, *, label: str, text: str | None = None) -> Secret:
        """Return the secret that an entity (by its names) is in a state (`text`: as a card says it)."""
        _named(names)
        return cls(
            text=text or f"{names[0]} is {state}",
            label=label,
            kind=SecretKind.STATE,
            subjects=(names,),
            predicate="state",
            value=state,
        )

    @classmethod
    def fact(
        cls, names: tuple[str, ...], attribute: str, value: str, *, label: str, text: str | None = None
    ) -> Secret:
        """Return the secret that an entity's attribute has a value (`text`: as a card says it)."""
        _named(names)
        return cls(
            text=text or f"{names[0]}'s {attribute.replace('_', ' ')}: {value}",
            label=label,
            kind=SecretKind.FACT,
            subjects=(names,),
            predicate=attribute,
            value=value,
        )

    @classmethod
    def relation(
        cls,
        subject: tuple[str, ...],
        relation: str,
        obj: tuple[str, ...],
        *,
        label: str,
        text: str | None = None,
    ) -> Secret:
        """Return the secret that a relation holds from one entity to another (`text`: as a card says it)."""
        _named(subject)
        _named(obj)
        return cls(
            text=text or f"{subject[0]} {relation.replace('_', ' ').lower()} {obj[0]}",
            label=label,
            kind=SecretKind.RELATION,
            subjects=(subject, obj),
            predicate=relation,
        )

    @classmethod
    def entity(cls, names: tuple[str, ...], text: str, *, label: str) -> Secret:
        """Return the secret that a GM-only entity exists: its names (and what canon says of it)."""
        _named(names)
        return cls(text=text, label=label, kind=SecretKind.ENTITY, hidden_names=names)


def _named(names: tuple[str, ...]) -> None:
    if not names:
        raise ValueError("A secret about an entity needs the entity's name.")


class Leak(BaseModel):
    """A secret a reply reveals, and the words that reveal it."""

    model_config = ConfigDict(frozen=True)

    label: str
    phrase: str
