"""Checks over a whole lore file rather than one entry: ids given twice, and a name for the examples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from canon.structured.schemas import EntityType, house_hint
from canon.structured.tree import Map, Node, Scalar, Seq

if TYPE_CHECKING:
    from canon.structured.validate import Validator


def report_duplicate_ids(validators: Sequence[Validator]) -> None:
    """Report every id given twice in the file (all kinds, and all its documents, share one namespace), at the
    later place."""
    given = [
        (v.pos(loc), entity_id, entity_type, v, loc)
        for v in validators
        for entity_id, entity_type, loc in v.ids
    ]
    first: dict[str, tuple[EntityType, tuple[int, int]]] = {}
    for position, entity_id, entity_type, validator, loc in sorted(given, key=lambda item: item[0]):
        earlier = first.get(entity_id)
        if earlier is None:
            first[entity_id] = (entity_type, position)
            continue
        validator.report(
            loc,
            f'duplicate id "{entity_id}": already used for the {earlier[0]} at line {earlier[1][0]}, '
            f"column {earlier[1][1]}{house_hint(earlier[0], entity_type)}",
        )


def first_name(root: Node) -> str | None:
    """Return the first `name:` the file gives (depth first, in file order), for examples in its problems."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Map):
            for key, value in node.pairs:
                if (
                    key.value == "name"
                    and isinstance(value, Scalar)
                    and value.value.strip()
                    and "\n" not in value.value
                ):
                    return value.value.strip()[:60]
            stack.extend(reversed([value for _, value in node.pairs]))
        elif isinstance(node, Seq):
            stack.extend(reversed(node.items))
    return None
