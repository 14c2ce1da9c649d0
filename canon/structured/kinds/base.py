"""What makes one kind of lore file, so that adding a kind is one module and its registration."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from canon.structured.schemas import EntityType, LoreModel, RelationField, TargetType

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.tree import Map
    from canon.structured.validate import Validator


@dataclass(frozen=True)
class KindSpec:
    """One kind of lore file: its model, how it is recognised, its entries and edges, how it normalises.

    - `keys`: the top-level keys that identify the kind when the file has no `kind:`;
    - `entries`: each entry model (the file model too when its top level is an entry, as a lineage) with its
      entity type and the field holding its id;
    - `relations`: the reference fields that become edges (`RELATION_FIELDS`); `references`: reference
      fields checked (and possibly unresolved) that write no edge;
    - `normalise(normaliser, document)`: define the entries, link the references, note the dated moments;
    - `read_root(node, validator)`: read the top level another way than as `model` (a timeline's one-era
      form), or None; `also_top`: the top-level fields that other way accepts besides `model`'s.
    """

    name: str
    keys: tuple[str, ...]
    model: type[LoreModel]
    entries: Mapping[type[LoreModel], tuple[EntityType, str]]
    normalise: Callable[[Normaliser, Any], None]
    relations: tuple[RelationField, ...] = ()
    references: Mapping[tuple[EntityType, str], tuple[TargetType, ...]] = field(default_factory=dict)
    read_root: Callable[[Map, Validator], LoreModel | None] | None = None
    also_top: tuple[str, ...] = ()

    @property
    def top_level(self) -> frozenset[str]:
        """Return every top-level field a file of this kind may have (its model's, their aliases, `also_top`)."""
        return frozenset({*self.model.model_fields, *self.model.yaml_aliases, *self.also_top})

    @property
    def words(self) -> str:
        """Return the kind's name in words, as a GM says and may write it: "family tree", "bestiary"."""
        return self.name.replace("_", " ")
