"""What a lore model's fields look like to the validator: each field's shape (a scalar of some kind, a list, a
nested model), read once from the model's annotations and kept per model, with the words that describe it."""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from canon.structured.schemas import LoreModel, OneOrMore, ScalarKind, id_from_name
from canon.structured.tree import Node, Scalar, Seq


@dataclass(frozen=True, slots=True)
class Shape:
    kind: Literal["scalar", "list", "model"]
    scalar: ScalarKind | None = None
    item: Shape | None = None
    model: type[LoreModel] | None = None
    nullable: bool = False
    choices: tuple[str, ...] = ()
    #: A list that takes one value as well as several (`OneOrMore`): a lone value is a list of one.
    lone: bool = False


def shape_of(annotation: Any, metadata: Sequence[Any] = ()) -> Shape:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        return shape_of(inner, [*metadata, *extra])
    marker = next((m for m in metadata if isinstance(m, ScalarKind)), None)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(options) < len(typing.get_args(annotation))
        if len(options) == 1:
            return replace(shape_of(options[0], metadata), nullable=nullable)
        if marker is not None:
            return Shape("scalar", scalar=marker, nullable=nullable)
        raise TypeError(f"unsupported union in a lore schema: {annotation!r}")
    if origin is Literal:
        choices = tuple(str(a) for a in typing.get_args(annotation))
        return Shape("scalar", scalar=ScalarKind.CHOICE, choices=choices)
    if marker is not None:
        return Shape("scalar", scalar=marker)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return Shape("list", item=shape_of(item), lone=any(isinstance(m, OneOrMore) for m in metadata))
    if isinstance(annotation, type) and issubclass(annotation, LoreModel):
        return Shape("model", model=annotation)
    if annotation is bool:
        return Shape("scalar", scalar=ScalarKind.BOOL)
    if annotation is int:
        return Shape("scalar", scalar=ScalarKind.INT)
    if annotation is float:
        return Shape("scalar", scalar=ScalarKind.NUMBER)
    if annotation is str:
        return Shape("scalar", scalar=ScalarKind.TEXT)
    raise TypeError(f"unsupported type in a lore schema: {annotation!r}")


_SHAPES: dict[type[LoreModel], dict[str, Shape]] = {}
#: The plain scalars that mean nothing: an optional field's "none", a list's no items.
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
# Scalar kinds read as the scalar's own text: any quoted scalar, and a plain one unless it spells null.
VERBATIM = frozenset(
    {ScalarKind.TEXT, ScalarKind.ID, ScalarKind.REF, ScalarKind.ERA_REF, ScalarKind.DATE, ScalarKind.CHOICE}
)


def shapes_of(model: type[LoreModel]) -> dict[str, Shape]:
    cached = _SHAPES.get(model)
    if cached is None:
        cached = {name: shape_of(info.annotation, info.metadata) for name, info in model.model_fields.items()}
        _SHAPES[model] = cached
    return cached


# Per model, each key a file may write: (the field's name, its shape, whether its scalar is read verbatim, and
# whether it is text: then even a plain null-looking scalar is its own text).
FieldSpec = tuple[str, Shape, bool, bool]
_FIELD_TABLES: dict[type[LoreModel], dict[str, FieldSpec]] = {}


def field_table(model: type[LoreModel]) -> dict[str, FieldSpec]:
    table = _FIELD_TABLES.get(model)
    if table is None:
        shapes = shapes_of(model)
        names = {**{name: name for name in shapes}, **model.yaml_aliases}
        table = _FIELD_TABLES[model] = {
            key: (name, shapes[name], is_verbatim(shapes[name]), shapes[name].scalar is ScalarKind.TEXT)
            for key, name in names.items()
            if name in shapes
        }
    return table


def is_verbatim(shape: Shape) -> bool:
    return shape.kind == "scalar" and shape.scalar in VERBATIM


def expected(shape: Shape, example: str | None = None) -> str:
    """Say what a field takes; `example`, a name from the GM's own file, makes the examples theirs."""
    if shape.kind == "scalar" and shape.scalar in (ScalarKind.ID, ScalarKind.REF, ScalarKind.ERA_REF):
        if example and (made := id_from_name(example)):
            if shape.scalar is ScalarKind.ID:
                return f"an id like {made} (made of a name such as “{example}”)"
            return f"a name like “{example}” (or its id, {made})"
        return "an id made of a name" if shape.scalar is ScalarKind.ID else "the name of an entry"
    if shape.kind == "list":
        return 'a list like ["a", "b"]'
    if shape.kind == "model":
        return "a mapping of fields"
    return {
        ScalarKind.TEXT: "text",
        ScalarKind.DATE: "a date, as the campaign's calendar writes one",
        ScalarKind.INT: "a whole number like 340",
        ScalarKind.NUMBER: "a number like 12 or 12.5",
        ScalarKind.BOOL: "true or false",
        ScalarKind.CHOICE: "one of: " + ", ".join(shape.choices),
    }[shape.scalar or ScalarKind.TEXT]


_REFERENCE_LISTS: dict[type[LoreModel], tuple[str, ...]] = {}


def reference_lists(model: type[LoreModel]) -> tuple[str, ...]:
    """Return the fields of `model` that list references (cached)."""
    found = _REFERENCE_LISTS.get(model)
    if found is None:
        found = _REFERENCE_LISTS[model] = tuple(
            name
            for name, shape in shapes_of(model).items()
            if shape.kind == "list" and shape.item is not None and shape.item.scalar is ScalarKind.REF
        )
    return found


def field_list(model: type[LoreModel]) -> str:
    # The inherited `visibility` reads better last.
    names = sorted(model.model_fields, key=lambda name: name == "visibility")
    aliases = [f"{alias} (= {target})" for alias, target in model.yaml_aliases.items()]
    return ", ".join([*names, *aliases])


#: Words world-builders use for a field under another name: a hint only, never read as the field.
_SAID_AS = {
    "nickname": "aliases",
    "nicknames": "aliases",
    "alias": "aliases",
    "aka": "aliases",
    "title": "titles",
    "parent": "parents",
    "child": "children",
    "kids": "children",
    "offspring": "children",
    "wife": "spouse",
    "husband": "spouse",
    "married_to": "spouse",
    "wives": "spouses",
    "husbands": "spouses",
    "birth": "born",
    "death": "died",
    "material": "made_of",
    "materials": "made_of",
    "maker": "made_by",
    "creator": "made_by",
    "forged_by": "made_by",
    "holder": "held_by",
    "wielder": "held_by",
    "bearer": "held_by",
}


def unknown_field(key: str, model: type[LoreModel]) -> str:
    allowed = [*model.model_fields, *model.yaml_aliases]
    said_as = _SAID_AS.get(key.casefold())
    close = [said_as] if said_as in allowed else difflib.get_close_matches(key, allowed, n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    return f'unknown field "{key}"{hint}; allowed fields: {field_list(model)}'


def pairs_read(pairs: list[tuple[Scalar, Node]], table: dict[str, FieldSpec]) -> list[tuple[Scalar, Node]]:
    """Return a mapping's pairs as its fields read them: each date written on one line whole again (of `{name: Cade
    Harrow, from: 3 Thaw, 612 TR}`, YAML reads the year as a key of its own with no value, on the date's line: it
    is the date's rest), and the lone value of a list that takes one (`OneOrMore`: `worships: The Tide Mother`) a
    list of one."""
    joined: list[tuple[Scalar, Node]] = []
    for key, value in pairs:
        spec = table.get(key.value)
        if (
            spec is not None
            and spec[1].lone
            and type(value) is Scalar
            and not (value.plain and value.value in NULLS)
        ):
            value = Seq([value], value.line, value.column)
        if joined and key.plain and type(value) is Scalar and value.plain and not value.value:
            last_key, last = joined[-1]
            spec = table.get(last_key.value)
            dated = spec is not None and spec[1].scalar is ScalarKind.DATE
            if dated and type(last) is Scalar and last.plain and last.value and key.line == last.line:
                joined[-1] = (last_key, Scalar(f"{last.value}, {key.value}", None, last.line, last.column))
                continue
        joined.append((key, value))
    return joined
