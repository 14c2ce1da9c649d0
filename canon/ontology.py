"""The ontology: entity types, relation types with their rules, and state tags with their transitions.

Loaded from `config/ontology.yaml` and validated at startup; a campaign may extend it with more types,
relations and states (never removing or loosening the base).
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from canon.attribute_names import close_names, read_attribute
from canon.errors import InvalidInput
from canon.validation_words import problem_sentence
from canon.wording.relation_names import find_relation, unknown_relation
from canon.wording.relations import relation_words

#: The types a player may play (and their subtypes: PC, NPC...): a character is a person or a creature.
PLAYABLE_TYPES = ("Person", "Creature")


class EntityKind(enum.StrEnum):
    """Concrete things (this city) or axioms (a law of the world, an archetype)."""

    CONCRETE = "concrete"
    AXIOMATIC = "axiomatic"


class ValueType(enum.StrEnum):
    """What an attribute's value is: words, a number, the name of an entity, or an in-world date."""

    TEXT = "text"
    NUMBER = "number"
    ENTITY = "entity"
    DATE = "date"


class AttributeSpec(BaseModel):
    """An attribute a type declares: its value type, single or multi-valued, other spellings, whether it changes.

    A single-valued attribute (a title, an eye colour) has one value at a time: a second one at the same time
    is a continuity conflict. `changes: false` (a birth date, an eye colour) makes any other value a conflict,
    whenever it is dated.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: ValueType = ValueType.TEXT
    many: bool = False
    changes: bool = True
    aliases: tuple[str, ...] = ()
    description: str = ""


class EntityType(BaseModel):
    """A type of entity, with the attributes it declares (its parent's and the common ones apply too)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: EntityKind = EntityKind.CONCRETE
    parent: str | None = None
    description: str = ""
    attributes: dict[str, AttributeSpec] = Field(default_factory=dict)


class RelationType(BaseModel):
    """A type of relation and the rules it obeys."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_types: tuple[str, ...] = Field(alias="from")
    to_types: tuple[str, ...] = Field(alias="to")
    symmetric: bool = False
    temporal: bool = True
    exclusive_with: tuple[str, ...] = ()
    max_incoming: int | None = Field(default=None, ge=1)
    max_outgoing: int | None = Field(default=None, ge=1)
    single_place: bool = False


class StateTag(BaseModel):
    """A state an entity can be in."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    applies_to: tuple[str, ...]
    description: str = ""
    terminal: bool = False


class TransitionVia(BaseModel):
    """An event kind that legitimises otherwise forbidden transitions (a resurrection)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_states: tuple[str, ...] = Field(alias="from")
    to_states: tuple[str, ...] = Field(alias="to")


class States(BaseModel):
    """State tags, the transitions allowed between them, and the events that allow more."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tags: dict[str, StateTag]
    transitions: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    via: dict[str, TransitionVia] = Field(default_factory=dict)


class Ontology(BaseModel):
    """The whole ontology, validated for internal consistency."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    common_attributes: dict[str, AttributeSpec] = Field(default_factory=dict)
    entity_types: dict[str, EntityType]
    relation_types: dict[str, RelationType]
    states: States
    # type -> spelling (names and aliases, folded) -> (attribute name, its declaration); built once.
    _attribute_index: dict[str, dict[str, tuple[str, AttributeSpec]]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Ontology:
        problems: list[str] = []
        types = self.entity_types
        for name, etype in types.items():
            if etype.parent is not None and etype.parent not in types:
                problems.append(f"entity type {name}: unknown parent {etype.parent}")
        for name, rel in self.relation_types.items():
            for endpoint in (*rel.from_types, *rel.to_types):
                if endpoint not in types:
                    problems.append(f"relation {name}: unknown endpoint type {endpoint}")
            for other in rel.exclusive_with:
                if other not in self.relation_types:
                    problems.append(f"relation {name}: exclusive with unknown relation {other}")
                elif name not in self.relation_types[other].exclusive_with:
                    problems.append(f"relation {name}: exclusive with {other}, but not the other way round")
        tags = self.states.tags
        for tag, spec in tags.items():
            problems += [f"state {tag}: unknown type {t}" for t in spec.applies_to if t not in types]
        for source, targets in self.states.transitions.items():
            problems += [f"transition from unknown state {source}"] if source not in tags else []
            problems += [f"transition {source} -> unknown state {t}" for t in targets if t not in tags]
        for via, rule in self.states.via.items():
            problems += [
                f"via {via}: unknown state {t}" for t in (*rule.from_states, *rule.to_states) if t not in tags
            ]
        problems += self._index_attributes()
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _index_attributes(self) -> list[str]:
        """Index every type's attributes by name and alias; return the spellings two attributes share."""
        problems: list[str] = []
        for type_name in self.entity_types:
            index: dict[str, tuple[str, AttributeSpec]] = {}
            declared = dict(self.common_attributes)
            for ancestor in reversed(self.ancestors(type_name)):
                if ancestor in self.entity_types:  # an unknown parent is reported on its own
                    declared.update(self.entity_types[ancestor].attributes)
            for name, spec in declared.items():
                for spelling in (name, *spec.aliases):
                    folded = attribute_key(spelling)
                    owner = index.get(folded)
                    if owner is not None and owner[0] != name:
                        problems.append(
                            f"entity type {type_name}: “{spelling}” names both {owner[0]} and {name}"
                        )
                    index.setdefault(folded, (name, spec))
            self._attribute_index[type_name] = index
        return problems

    # -- questions the rest of canon asks -------------------------------------------------------------

    def ancestors(self, type_name: str) -> list[str]:
        """Return a type followed by its parents up to the root."""
        chain: list[str] = []
        current: str | None = type_name
        while current is not None and current not in chain:
            chain.append(current)
            current = self.entity_types[current].parent if current in self.entity_types else None
        return chain

    def is_a(self, type_name: str, wanted: Iterable[str]) -> bool:
        """Return whether a type is one of `wanted` or a subtype of one."""
        wanted_set = set(wanted)
        return any(t in wanted_set for t in self.ancestors(type_name))

    def can_play(self, type_name: str) -> bool:
        """Return whether a player may play beings of a type: a person or a creature (PCs and NPCs included)."""
        return self.is_a(type_name, PLAYABLE_TYPES)

    def can_speak(self, type_name: str) -> bool:
        """Return whether beings of a type can speak: the living ones (a person, a creature, a deity), which are
        the types the `alive` state applies to; never an era, an event or a region."""
        alive = self.states.tags.get("alive")
        return alive is not None and self.is_a(type_name, alive.applies_to)

    def entity_type(self, name: str) -> str:
        """Return the canonical spelling of an entity type, or raise `InvalidInput` listing the allowed ones."""
        found = _lookup(name, self.entity_types)
        if found is None:
            raise InvalidInput(
                f"“{name}” is not an entity type. Allowed types: {', '.join(sorted(self.entity_types))}."
            )
        return found

    def relation_type(self, name: str) -> str:
        """Return the key of the relation `name` says (its key, its phrase like "is an ally of", or a synonym
        like "hates"), or raise `InvalidInput` offering the nearest ones in words."""
        found = _lookup(name.replace(" ", "_").replace("-", "_"), self.relation_types)
        found = found or find_relation(name, self.relation_types)
        if found is None:
            raise InvalidInput(unknown_relation(name, self.relation_types))
        return found

    def state_tag(self, name: str) -> str:
        """Return the canonical spelling of a state tag, or raise `InvalidInput` listing the allowed ones."""
        found = _lookup(name, self.states.tags)
        if found is None:
            raise InvalidInput(
                f"“{name}” is not a state. Allowed states: {', '.join(sorted(self.states.tags))}."
            )
        return found

    def attribute(self, type_name: str, name: str) -> tuple[str, AttributeSpec | None]:
        """Return an attribute's declared name (an alias resolved) and declaration, or its folded name and None.

        `titles` on a Person is `title`; an attribute the type does not declare keeps its own name, folded
        (lower case, words joined by `_`), and has no declaration.
        """
        folded = attribute_key(name)
        index = self._attribute_index.get(type_name)
        found = read_attribute(index, folded) if index is not None else None  # "birthyear", "born in": born
        if found is None:
            return folded, None
        return found

    def declared_attributes(self, type_name: str | None = None) -> list[str]:
        """Return the attribute names a type declares (its parent's and the common ones included), in order;
        without a type, those of every type."""
        types = [type_name] if type_name is not None else list(self._attribute_index)
        names = [name for t in types for name, _ in (self._attribute_index.get(t) or {}).values()]
        return list(dict.fromkeys(names))

    def close_attributes(self, type_name: str, name: str, limit: int = 3) -> list[str]:
        """Return the declared attributes of a type an undeclared typed name is close to, to ask the GM about
        (`canon.attribute_names.close_names`: a typo, a shared word, a name within it), closest first."""
        return close_names(self._attribute_index.get(type_name) or {}, name, limit)

    def nearest_attributes(self, type_name: str, name: str, limit: int = 3) -> list[str]:
        """Return the declared attributes of a type whose names or aliases are nearest to `name`."""
        index = self._attribute_index.get(type_name) or {}
        close = difflib.get_close_matches(attribute_key(name), list(index), n=limit * 2, cutoff=0.5)
        return list(dict.fromkeys(index[c][0] for c in close))[:limit]

    def check_endpoints(self, relation: str, source_type: str, target_type: str) -> None:
        """Raise `InvalidInput` when a relation may not join entities of these types."""
        rel = self.relation_types[relation]
        if not self.is_a(source_type, rel.from_types):
            raise InvalidInput(
                f"“{relation_words(relation)}” cannot start from a {source_type}; "
                f"it starts from {', '.join(rel.from_types)}."
            )
        if not self.is_a(target_type, rel.to_types):
            raise InvalidInput(
                f"“{relation_words(relation)}” cannot point at a {target_type}; "
                f"it points at {', '.join(rel.to_types)}."
            )

    def check_state_applies(self, state: str, entity_type: str) -> None:
        """Raise `InvalidInput` when a state tag does not apply to an entity type."""
        spec = self.states.tags[state]
        if not self.is_a(entity_type, spec.applies_to):
            raise InvalidInput(
                f"A {entity_type} cannot be “{state}”; that state applies to {', '.join(spec.applies_to)}."
            )

    def transition_allowed(self, old: str, new: str, *, via: str | None = None) -> bool:
        """Return whether a state may change from `old` to `new` (optionally through a named event)."""
        if old == new or new in self.states.transitions.get(old, ()):
            return True
        if via is not None and via in self.states.via:
            spec = self.states.via[via]
            return old in spec.from_states and new in spec.to_states
        return False

    def extended(self, extension: dict[str, Any]) -> Ontology:
        """Return this ontology with a campaign's additions, or raise `InvalidInput` naming every problem.

        An extension adds entity types, relation types, state tags, transitions and `via` events. It never
        redefines what exists, and never loosens it: a transition between two states of this ontology that it
        does not allow (dead -> alive) stays forbidden, and no transition may leave a terminal state; leaving
        one takes an event, so an extension adds a `via` entry (like resurrection) instead. `attributes` adds
        attributes to types that exist (`{Person: {favourite_song: {}}}`), never one a type already has.
        """
        if not isinstance(extension, dict):
            raise InvalidInput(
                "An ontology extension is a mapping with entity_types, relation_types, states."
            )
        problems = _unknown_keys(extension, EXTENSION_SECTIONS, "the extension")
        data = self.model_dump(by_alias=True)
        for section in ("entity_types", "relation_types"):
            for name, spec in _section(extension, section, problems).items():
                if name in data[section]:
                    problems.append(f"{name} is already defined; an extension can only add")
                else:
                    data[section][name] = spec
        for type_name, added in _section(extension, "attributes", problems).items():
            if type_name not in data["entity_types"]:
                problems.append(f"attributes of {type_name}: there is no such entity type")
                continue
            own = data["entity_types"][type_name].setdefault("attributes", {})
            for name, spec in (added if isinstance(added, dict) else {}).items():
                if self.attribute(type_name, name)[1] is not None or name in own:
                    problems.append(
                        f"{type_name} already has the attribute {name}; an extension can only add"
                    )
                else:
                    own[name] = spec
        states = _section(extension, "states", problems)
        problems += _unknown_keys(states, STATE_SECTIONS, "states")
        for section, what in (("tags", "the state"), ("via", "the event kind")):
            for name, spec in _section(states, section, problems).items():
                if name in data["states"][section]:
                    problems.append(f"{what} {name} is already defined; an extension can only add")
                else:
                    data["states"][section][name] = spec
        tags = data["states"]["tags"]
        for source, targets in _section(states, "transitions", problems).items():
            merged = list(data["states"]["transitions"].get(source, ()))
            for target in targets if isinstance(targets, list) else [targets]:
                if target in merged:
                    continue
                if isinstance(tags.get(source), dict) and tags[source].get("terminal"):
                    problems.append(
                        f"{source} -> {target}: {source} is terminal, so leaving it takes an event; "
                        f"add a `via` entry (like resurrection: from [{source}] to [{target}]) instead"
                    )
                elif source in self.states.tags and target in self.states.tags:
                    problems.append(
                        f"{source} -> {target}: the base ontology does not allow it, and an extension "
                        "cannot loosen the base (a `via` event can allow it)"
                    )
                merged.append(target)
            data["states"]["transitions"][source] = merged
        if not problems:
            try:
                return Ontology.model_validate(data)
            except ValidationError as error:
                problems += [_describe(e) for e in error.errors()]
        raise InvalidInput("The ontology extension is invalid: " + "; ".join(problems) + ".")


EXTENSION_SECTIONS = ("entity_types", "relation_types", "attributes", "states")
STATE_SECTIONS = ("tags", "transitions", "via")


def _unknown_keys(data: dict[str, Any], allowed: tuple[str, ...], where: str) -> list[str]:
    return [
        f"{key!r} is not a section of {where} (allowed: {', '.join(allowed)})"
        for key in data
        if key not in allowed
    ]


def _section(data: dict[str, Any], name: str, problems: list[str]) -> dict[str, Any]:
    value = data.get(name) or {}
    if not isinstance(value, dict):
        problems.append(f"{name} must be a mapping of names")
        return {}
    return value


def _describe(error: Any) -> str:
    return problem_sentence(error)


def attribute_key(name: str) -> str:
    """Return an attribute name folded: lower case, its words joined by `_` (`Eye colour` -> `eye_colour`)."""
    return "_".join(name.replace("-", " ").replace("_", " ").casefold().split())


def _lookup(name: str, table: dict[str, Any]) -> str | None:
    if name in table:
        return name
    folded = name.strip().casefold()
    return next((key for key in table if key.casefold() == folded), None)


def parse_ontology(text: str, *, bundled: bool = False) -> Ontology:
    """Parse and validate an ontology document, raising `InvalidInput` naming every problem.

    A GM's document is read as YAML 1.2 (ruamel's safe loader); the bundled one (`bundled`), whose reading both
    loaders agree on (a test keeps them in step), by PyYAML's C loader: a tenth of a second less at every start.
    """
    try:
        if bundled:
            import yaml

            loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
        else:
            from ruamel.yaml import YAML

            loaded = YAML(typ="safe", pure=True).load(text)
        return Ontology.model_validate(loaded)
    except ValidationError as error:
        raise InvalidInput(
            "The ontology is invalid: " + "; ".join(_describe(e) for e in error.errors()) + "."
        ) from None


@cache
def base_ontology() -> Ontology:
    """Return the bundled ontology (`config/ontology.yaml`), parsed once."""
    text = resources.files("config").joinpath("ontology.yaml").read_text(encoding="utf-8")
    return parse_ontology(text, bundled=True)
