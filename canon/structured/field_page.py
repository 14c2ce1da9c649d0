"""Write the one-page cheat-sheet of structured lore (docs/lore-fields.md) from the kinds' own field definitions:
every kind, its top-level keys, each entry's fields with what they take, and which may be hidden one by one
(`gm_only: [field]`). `scripts/lore_fields.py` writes the page; a test keeps it in step with the code."""

from __future__ import annotations

from canon.structured.kinds import IDENTITIES, KINDS
from canon.structured.kinds.hidden import NOT_HIDEABLE
from canon.structured.kinds.timeline import Event, event_hideable
from canon.structured.schemas import LoreModel, ScalarKind
from canon.structured.shapes import Shape, field_table, shapes_of

_SCALARS = {
    ScalarKind.TEXT: "text",
    ScalarKind.ID: "an id (leave it out: the name makes it)",
    ScalarKind.REF: "a name",
    ScalarKind.ERA_REF: "an era's name",
    ScalarKind.DATE: "a date",
    ScalarKind.INT: "a whole number",
    ScalarKind.NUMBER: "a number",
    ScalarKind.BOOL: "true or false",
}
_HEAD = """# Lore fields at a glance

Every kind of YAML lore file, its top-level keys, and each entry's fields: what a field takes, and whether
`gm_only: [field]` may hide it alone (yes), or only the whole entry may be hidden (`visibility: gm_only`).
A name in a list of names may be kept for the GM alone: `{name: Old Harl, gm_only: true}`. A title held for a
span is written `{title: High Steward, from: 690, to: 731}` in `titles`. Dates are written in the calendar's
words (`3 Thaw, 610 CY`) or as a year. The details of each field are in [structured-lore.md](structured-lore.md);
hiding things is in [for-the-gm.md](for-the-gm.md).

This page is written from the code (`python scripts/lore_fields.py`); a test checks it is up to date.
"""


def takes(shape: Shape) -> str:
    """Return what a field takes, in words: "a name", "a list of names", "one of: alive, dead"."""
    if shape.kind == "list" and shape.item is not None:
        if shape.item.model is not None and shape.item.model in IDENTITIES:
            return f"a list of {shape.item.model.__name__} entries (below)"
        if shape.item.model is not None:
            return "a list of mappings of " + _keys(shape.item.model)
        item = takes(shape.item)
        plural = {"a name": "names", "text": "texts", "a date": "dates", "an id": "ids"}.get(item, item)
        return f"{item} or a list of {plural}" if shape.lone else f"a list of {plural}"
    if shape.kind == "model" and shape.model is not None:
        return "a mapping of " + _keys(shape.model)
    if shape.scalar is ScalarKind.CHOICE:
        return "one of: " + ", ".join(shape.choices)
    return _SCALARS.get(shape.scalar, "text") if shape.scalar is not None else "text"


def _keys(model: type[LoreModel]) -> str:
    """Return a mapping's keys in words, each with the other words it is written by ("`tie` (or `is`)")."""
    return ", ".join(f"`{name}`{_also(model, name)}" for name in shapes_of(model))


def _also(model: type[LoreModel], field: str) -> str:
    written = [key for key, name in model.yaml_aliases.items() if name == field]
    return f" (or {', '.join(f'`{w}`' for w in written)})" if written else ""


def _hideable(model: type[LoreModel], field: str) -> str:
    lists_hidden = (
        model.model_fields.get("gm_only") is not None
    )  # the entry's field `gm_only:`, no visibility
    if not lists_hidden or field in NOT_HIDEABLE or field == "gm_notes":
        return "no" if field != "gm_notes" else "always the GM's"
    if model is Event and field not in event_hideable():
        return "no"
    return "yes"


def _table(model: type[LoreModel]) -> list[str]:
    rows = ["| field | takes | hide alone |", "|---|---|---|"]
    for field, shape in shapes_of(model).items():
        rows.append(f"| `{field}`{_also(model, field)} | {takes(shape)} | {_hideable(model, field)} |")
    return rows


def field_page() -> str:
    """Return the cheat-sheet's Markdown."""
    lines = [_HEAD]
    for name, spec in KINDS.items():
        lines.append(f"## {name.replace('_', ' ').capitalize()} (`kind: {name}`)")
        lines.append("")
        keys = [*field_table(spec.model), *(k for k in spec.also_top if k not in field_table(spec.model))]
        lines.append(f"Top-level keys: {', '.join(f'`{k}`' for k in keys)}.")
        for model, (entity_type, _) in spec.entries.items():
            title = "The file itself" if model is spec.model else model.__name__
            lines += ["", f"### {title} ({entity_type})", "", *_table(model)]
        lines.append("")
    return "\n".join(lines)
