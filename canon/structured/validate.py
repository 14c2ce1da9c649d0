"""Stage 5 of loading a lore file: the positioned tree becomes model instances, every problem at its place.

Each field's shape comes from its model's annotations (`ScalarKind` markers, lists, nested models), and each
scalar is read by its field's kind, from the scalar's source text (`canon.structured.scalars`).

Every entry is validated on its own, so that all entries' problems show; unknown fields name the allowed
ones and a close match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from canon.calendar import CalendarRules, DateError, WorldDate
from canon.campaign_calendar import CampaignCalendar, era_key_for
from canon.structured.items import SPAN_FIELDS, is_marriage, named_item
from canon.structured.problems import Problems
from canon.structured.scalars import FAILED, NULLS, read_scalar
from canon.structured.schemas import (
    ID_PATTERN,
    EntityType,
    FieldProblem,
    LoreModel,
    ScalarKind,
    id_from_name,
)
from canon.structured.shapes import (
    FieldSpec,
    Shape,
    expected,
    field_list,
    field_table,
    is_verbatim,
    pairs_read,
    reference_lists,
    unknown_field,
)
from canon.structured.title_spans import TitleSpan, title_item
from canon.structured.tree import Broken, Map, Node, Scalar, Seq, got

Loc = tuple[str | int, ...]
ModelT = TypeVar("ModelT", bound=LoreModel)
# The entity type of each entry model and the field holding its id.
Identities = Mapping[type[LoreModel], tuple[EntityType, str]]


class Validator:
    """Convert the positioned tree into model instances, reporting every problem with its position."""

    def __init__(
        self,
        problems: Problems,
        rules: CalendarRules,
        identities: Identities | None = None,
        calendar: CampaignCalendar | None = None,
    ) -> None:
        self.problems = problems
        # Entry models whose ids are collected (for duplicates and references) with their entity type.
        self.identities: Identities = identities or {}
        # `calendar`: the campaign's, so that a date may be written in its words ("3 Frostmoot 363 TA").
        self.context: dict[str, Any] = {"calendar_rules": rules, "calendar": calendar}
        self.rules = rules
        # The node at each place (its line and column are asked for far less often than places are noted).
        self.positions: dict[Loc, Node] = {}
        self.labels: dict[Loc, str] = {}
        # The key (as written) of each list of scalars: its items' labels ("item 2 of "parents"") are made
        # when asked for, and kept here only for items after one that could not be read.
        self.item_keys: dict[Loc, str] = {}
        self.unit_locs: dict[int, Loc] = {}
        self.failed_ids: set[str] = set()
        self.reported: set[Loc] = set()
        self.ids: list[tuple[str, EntityType, Loc]] = []
        #: Items of reference lists kept for the GM (`parents: [Ann, {name: Bo, gm_only: true}]`), by place.
        self.secret_items: set[Loc] = set()
        #: The dates of marriages written with their spouse (`spouses: [{name: Bo, married: 640}]`), by place.
        self.item_dates: dict[Loc, WorldDate] = {}
        self.title_spans: dict[Loc, TitleSpan] = {}  # `titles: [{title: X, from: 702}]`, by place
        #: A name the file itself gives (`first_name`), for the examples of its problems.
        self.example_name: str | None = None

    def name_example(self) -> str:
        """Return how to write a name, with a name from the GM's own file where it has one."""
        if self.example_name:
            return f"written like `name: {self.example_name}` (the id comes from the name)"
        return "written `name:` and the name the table calls it (the id comes from the name)"

    # -- positions and labels --

    def pos(self, loc: Loc) -> tuple[int, int]:
        found = self.positions.get(loc)
        if found is not None:
            return found.line, found.column
        for end in range(len(loc) - 1, -1, -1):
            found = self.positions.get(loc[:end])
            if found is not None:
                return found.line, found.column
        return 1, 1

    def label(self, loc: Loc) -> str:
        found = self.labels.get(loc)
        if found:
            return found
        if not loc:
            return "this value"
        last = loc[-1]
        if isinstance(last, str):
            return f'"{last}"'
        key = self.item_keys.get(loc[:-1])
        return f'item {last + 1} of "{key}"' if key is not None else "this value"

    def _item_label(self, loc: Loc) -> str | None:
        if loc and not isinstance(loc[-1], str):
            key = self.item_keys.get(loc[:-1])
            if key is not None:
                return f'item {loc[-1] + 1} of "{key}"'
        return None

    def report(self, loc: Loc, message: str) -> None:
        line, column = self.pos(loc)
        self.problems.add(line, column, message)

    def at(self, node: Node | Scalar, message: str) -> None:
        self.problems.add(node.line, node.column, message)

    # -- conversion --

    def unit(self, node: Node, model: type[ModelT], loc: Loc, label: str) -> ModelT | None:
        """Validate one mapping as `model` on its own, so other entries' problems are still found."""
        if isinstance(node, Broken):
            return None
        if not isinstance(node, Map):
            self.at(node, f"{label} must be a mapping of fields ({field_list(model)}); got {got(node)}")
            return None
        self.positions[loc] = node
        data = self.fields(node, model, loc)
        return self.validate(model, data, loc)

    def fields(
        self, node: Map, model: type[LoreModel], loc: Loc, skip: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        table = field_table(model)
        positions = self.positions
        data: dict[str, Any] = {}
        written: dict[str, Scalar] = {}
        for key, value in pairs_read(node.pairs, table):
            written_key = key.value
            if written_key in skip:
                continue
            spec = table.get(written_key)
            if spec is None:
                self.at(key, unknown_field(written_key, model))
                continue
            name, shape, verbatim, text = spec
            other = written.get(name)
            if other is not None:
                self.at(
                    key,
                    f'"{written_key}" and "{other.value}" mean the same field (line {other.line}); give only one',
                )
                continue
            written[name] = key
            field_loc = (*loc, name)
            positions[field_loc] = value
            if written_key != name:  # `label` names any other field by its name, as written
                self.labels[field_loc] = f'"{written_key}"'
            if (
                verbatim
                and type(value) is Scalar
                and (value.style is not None or text or value.value not in NULLS)
            ):
                data[name] = value.value  # what `scalar` returns for it, without the checks it cannot fail
                continue
            if (
                type(value) is Map and name == "spouse" and is_marriage(value)
            ):  # `spouse: {name: .., married: ..}`
                value = named_item(self, value, field_loc, f'"{written_key}"')
            elif isinstance(value, Seq | Map) and _several_for_one(self, value, shape, table, field_loc):
                continue
            converted = self.convert(value, shape, field_loc, written_key)
            if converted is FAILED:
                self.reported.add(field_loc)
            else:
                data[name] = converted
        return data

    def convert(self, node: Node, shape: Shape, loc: Loc, key: str) -> Any:
        if isinstance(node, Broken):
            return FAILED
        label = self.labels.get(loc) or self._item_label(loc) or f'"{key}"'
        if shape.kind == "list":
            if isinstance(node, Scalar) and node.plain and node.value in NULLS:
                return []
            if not isinstance(node, Seq):
                hint = f" (write [{node.value}] for a single item)" if isinstance(node, Scalar) else ""
                self.at(node, f"{label} must be {expected(shape, self.example_name)}; got {got(node)}{hint}")
                return FAILED
            assert shape.item is not None
            item_shape = shape.item
            if item_shape.kind == "model":
                assert item_shape.model is not None
                units = (
                    self.unit(item, item_shape.model, (*loc, index), f'item {index + 1} of "{key}"')
                    for index, item in enumerate(node.items)
                )
                return [unit for unit in units if unit is not None]
            return self._scalar_items(node, item_shape, loc, key)
        if shape.kind == "model":
            assert shape.model is not None
            if shape.nullable and isinstance(node, Scalar) and node.plain and node.value in NULLS:
                return None
            unit = self.unit(node, shape.model, loc, label)
            return FAILED if unit is None else unit
        return self.scalar(node, shape, label)

    def _scalar_items(self, node: Seq, shape: Shape, loc: Loc, key: str) -> list[Any]:
        """Convert the items of a list of scalars (the places of items that fail are left out)."""
        self.item_keys[loc] = key
        positions = self.positions
        verbatim, text = is_verbatim(shape), shape.scalar is ScalarKind.TEXT
        items: list[Any] = []
        for index, item in enumerate(node.items):
            item_loc = (*loc, len(items))
            if len(items) != index:  # after an item that failed: its own index no longer is its place
                self.labels[item_loc] = f'item {index + 1} of "{key}"'
            if type(item) is Map and (shape.scalar is ScalarKind.REF or loc[-1] == "aliases"):
                item = named_item(self, item, item_loc, f'item {index + 1} of "{key}"')
            elif type(item) is Map and loc[-1] == "titles":  # a title held for a span
                item = title_item(self, item, item_loc, f'item {index + 1} of "{key}"')
            if (
                verbatim
                and type(item) is Scalar
                and (item.style is not None or text or item.value not in NULLS)
            ):
                positions[item_loc] = item
                items.append(item.value)
                continue
            converted = self.convert(item, shape, item_loc, key)
            if converted is not FAILED:
                positions[item_loc] = item
                items.append(converted)
        return items

    def scalar(self, node: Node, shape: Shape, label: str) -> Any:
        return read_scalar(node, shape, label, self.at, self.example_name)

    def validate(self, model: type[ModelT], data: dict[str, Any], loc: Loc) -> ModelT | None:
        identity = self.identities.get(model)
        if identity is not None:
            _name_for_id(data, model, identity[1], self.positions, loc)
        if identity is not None and identity[1] not in data and isinstance(data.get("name"), str):
            # An entry the GM named and gave no id: its name gives it (an era's as the calendar keys it).
            made = (
                era_key_for(data["name"], self.context["calendar"])
                if identity[0] == "Era"
                else id_from_name(data["name"])
            )
            if made and ID_PATTERN.fullmatch(made):
                data[identity[1]] = made
                self.positions[(*loc, identity[1])] = self.positions.get((*loc, "name"), Map([], 1, 1))
        raw_id = data.get(identity[1]) if identity is not None else None
        if identity is not None and isinstance(raw_id, str):
            self.ids.append((raw_id, identity[0], (*loc, identity[1])))
        try:
            instance = model.model_validate(data, context=self.context)
        except ValidationError as exc:
            self._report_validation(exc, loc, model)
            if isinstance(raw_id, str):
                self.failed_ids.add(raw_id)
            return None
        self.unit_locs[id(instance)] = loc
        self._check_reference_lists(instance, loc)
        return instance

    def document(self, model: type[ModelT], data: dict[str, Any]) -> ModelT | None:
        """Validate a file's top-level fields; when only optional ones are broken, drop them, so that the
        cross-entry checks still run (the problems are reported either way)."""
        document = self.validate(model, data, ())
        if document is not None:
            return document
        probe = {k: v for k, v in data.items() if isinstance(v, list)}
        for name, info in model.model_fields.items():
            if info.is_required() and name in data:
                probe[name] = data[name]
        try:
            return model.model_validate(probe, context=self.context)
        except ValidationError:
            return None

    def loc_of(self, instance: BaseModel) -> Loc:
        return self.unit_locs[id(instance)]

    def _report_validation(self, exc: ValidationError, loc: Loc, model: type[LoreModel]) -> None:
        for error in exc.errors(include_url=False):
            error_loc = (*loc, *error["loc"])
            if any(error_loc[:end] in self.reported for end in range(len(loc) + 1, len(error_loc) + 1)):
                continue
            label = self.label(error_loc)
            kind = error["type"]
            if kind == "missing":
                name = str(error_loc[-1])
                identity = self.identities.get(model)
                if name == "name" or (
                    identity is not None and name == identity[1] and "name" in model.model_fields
                ):
                    if error_loc[:-1] not in self.reported:  # one sentence for a missing id and name
                        self.reported.add(error_loc[:-1])
                        self.report(error_loc[:-1], f"this entry needs a name, {self.name_example()}")
                    continue
                spellings = [name, *(a for a, target in model.yaml_aliases.items() if target == name)]
                self.report(
                    error_loc[:-1], "missing required field " + " or ".join(f'"{n}"' for n in spellings)
                )
                continue
            ctx = error.get("ctx") or {}
            value = error.get("input")
            if kind == "value_error":
                cause = ctx.get("error")
                if isinstance(cause, DateError):
                    message = cause.describe(label)
                elif isinstance(cause, FieldProblem):
                    message = f"{label} {cause}"
                else:
                    message = str(cause) if cause is not None else error["msg"]
            elif kind == "literal_error":
                expected = str(ctx.get("expected", "")).replace("'", "").replace(" or ", ", ")
                message = f'{label} must be one of: {expected}; got "{value}"'
            elif kind == "string_too_short":
                message = f"{label} must not be empty"
            elif kind == "greater_than_equal":
                message = f"{label} must be at least {ctx.get('ge')}; got {value}"
            else:
                message = f"{label}: {error['msg']}"
            self.report(error_loc, message)

    def _check_reference_lists(self, instance: LoreModel, loc: Loc) -> None:
        for name in reference_lists(type(instance)):
            targets = getattr(instance, name)
            if len(targets) < 2 or len(set(targets)) == len(targets):
                continue
            seen: set[str] = set()
            for index, target in enumerate(targets):
                if target in seen and not spans_apart(self.item_dates, (*loc, name), targets, target):
                    self.report(
                        (*loc, name, index), f'{self.label((*loc, name))} lists "{target}" more than once'
                    )
                seen.add(target)


def spans_apart(dated: Mapping[Loc, WorldDate], at: Loc, targets: list[str], target: str) -> bool:
    """Tell whether a name a faction's `leaders` (an item's `holders`) lists again is given a span each time:
    one who led twice, with others between, is two spans (`kinds.spans` checks that they do not overlap)."""
    if at[-1] not in SPAN_FIELDS:
        return False
    return all(
        (*at, index) in dated or (*at, index, "end") in dated
        for index, said in enumerate(targets)
        if said == target
    )


def _name_for_id(
    data: dict[str, Any], model: type[LoreModel], field: str, positions: dict[Loc, Node], loc: Loc
) -> None:
    """Read a name written where the id goes (`lineage: House Sarrane`, no `name:`) as the entry's name (its id
    then comes from it)."""
    written = data.get(field)
    if not isinstance(written, str) or "name" not in model.model_fields or "name" in data:
        return
    if not ID_PATTERN.fullmatch(written):
        data["name"] = data.pop(field)
        positions[(*loc, "name")] = positions.get((*loc, field), Map([], 1, 1))


def _several_for_one(
    validator: Validator, value: Seq | Map, shape: Shape, table: dict[str, FieldSpec], loc: Loc
) -> bool:
    """Report a list given to a field of one (`spouse: [Ann, Bo]`) whose list spelling holds several
    (`spouses`, `factions`), or a name kept for the GM there (`home: {name: .., gm_only: true}`: the entry's
    `gm_only` hides it); tell whether it was."""
    name = str(loc[-1])
    written = validator.labels.get(loc, f'"{name}"')
    if type(value) is Map and shape.scalar is ScalarKind.REF and table.get("gm_only") is not None:
        validator.at(
            value, f"{written} names one; to keep it for the GM, list it in the entry's gm_only: [{name}]"
        )
    elif type(value) is Seq and shape.kind == "scalar" and f"{name}s" in table:
        validator.at(value, f'{written} names one; write several as "{name}s: [...]" instead')
    else:
        return False
    validator.reported.add(loc)
    return True
