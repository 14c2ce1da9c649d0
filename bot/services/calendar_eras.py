"""The eras a calendar file given with the world's files names (`/lore import`, `lorekeeper ingest`), made eras of
canon with those files.

A calendar file that lists `eras:` (name, abbreviation, start, end) defines them for the import it is given with:
the dates of the timeline and of every other file of that import may name them, as if a timeline of the import
defined them. An era of the calendar that a timeline of the import defines too, or that canon already has, is
the timeline's or canon's (the calendar only names it further). `visibility: gm_only` on a calendar's era keeps it
for the GM: players never read its name, and a date in it reads to them as a date nobody knows. The eras are
imported as a timeline part of the calendar file itself (its name, each era at its own line), so a problem is
reported where the GM wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

import yaml

__all__ = ["calendar_block", "calendar_eras", "folded_name"]

#: The keys of a calendar's era that a timeline's era takes as they are.
_ERA_KEYS = ("name", "abbreviation", "start", "end", "parent_era", "description", "visibility")
#: The keys of a calendar's era that are canon's, not the calendar's: the era `calendar_eras` imports says them.
_CANON_KEYS = ("visibility", "parent_era", "description")


def folded_name(name: str) -> str:
    """Return an era's name as names are matched: without a leading \"the\", in one case, spaced once."""
    return re.sub(r"^the\s+", "", " ".join(str(name).split()).casefold())


def calendar_block(text: str) -> str:
    """Return a calendar file's text as the calendar block takes it: without `kind: calendar`, and without what
    of its eras is canon's (who may see one, its parent era, its description: the era `calendar_eras` imports
    says them)."""
    lines = [line for line in text.splitlines() if line.strip().casefold() != "kind: calendar"]
    if not any(key in text for key in _CANON_KEYS):
        return "\n".join(lines)
    data = yaml.safe_load("\n".join(lines))
    for era in data.get("eras") or () if isinstance(data, dict) else ():
        if isinstance(era, dict):
            for key in _CANON_KEYS:
                era.pop(key, None)
    return str(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


def _defined_eras(texts: Sequence[bytes]) -> set[str]:
    """Return the names of the eras the world's other YAML files define (a timeline's `eras:` or `era:`)."""
    names: set[str] = set()
    for data in texts:
        try:
            documents = list(yaml.safe_load_all(data.decode("utf-8")))
        except (UnicodeDecodeError, yaml.YAMLError):
            continue  # the importer says what is wrong with it
        for document in documents:
            if not isinstance(document, dict):
                continue
            listed = document.get("eras")
            eras: list[Any] = listed if isinstance(listed, list) else []
            for era in [*eras, document]:
                named = era.get("name") or era.get("era") if isinstance(era, dict) else None
                if named:
                    names.add(folded_name(str(named)))
    return names


def calendar_eras(
    text: str, name: str, others: Sequence[bytes], known: Collection[str]
) -> tuple[str, bytes] | None:
    """Return the timeline part that defines the eras a calendar file lists (named `name`, as the calendar file
    is known), each at the line it is written on, leaving out those the world's `others` files or canon
    (`known`: era names; those the calendar file itself defined before are its own again) define; None when
    there is none to define."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    found = next(((k, v) for k, v in root.value if getattr(k, "value", None) == "eras"), None)
    if found is None or not isinstance(found[1], yaml.SequenceNode):
        return None
    key, eras_node = found
    taken = _defined_eras(others) | {folded_name(n) for n in known}
    items = eras_node.value
    # Each era at the line it is written on (a problem is reported there), unless they share the key's line.
    aligned = all(item.start_mark.line > key.start_mark.line for item in items)
    lines = [""] * (max((item.start_mark.line for item in items), default=0) + 1) if aligned else []
    if aligned:
        lines[key.start_mark.line] = "eras:"
    else:
        lines.append("eras:")
    written = 0
    for item in items:
        era: Any = yaml.safe_load(yaml.serialize(item))
        if not isinstance(era, dict) or not era.get("name") or folded_name(era["name"]) in taken:
            continue
        said = {k: era[k] for k in _ERA_KEYS if k in era}
        flow = yaml.safe_dump(said, default_flow_style=True, allow_unicode=True, sort_keys=False, width=10**6)
        if aligned:
            lines[item.start_mark.line] = f"  - {flow.strip()}"
        else:
            lines.append(f"  - {flow.strip()}")
        written += 1
    if not written:
        return None
    return name, ("\n".join(lines) + "\nkind: timeline\n").encode("utf-8")
