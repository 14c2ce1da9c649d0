"""Stage 4 of loading a lore file: its kind (said with `kind:` or recognised by its top-level keys), then its
top level read as that kind's document."""

from __future__ import annotations

import typing

from canon.structured.kinds import KIND_KEYS, KINDS, LORE_KINDS, LoreDocument, LoreKind
from canon.structured.tree import Broken, Map, Node, Scalar
from canon.structured.validate import NULLS, Validator, got


def read_root(
    root: Node, validator: Validator, requested: LoreKind | None
) -> tuple[LoreKind | None, LoreDocument | None]:
    """Return the file's kind and its document (None where it cannot be read: the problems say why)."""
    if isinstance(root, Broken):
        return None, None
    if isinstance(root, Scalar) and root.plain and root.value in NULLS:
        validator.at(root, "the file is empty; a lore file is a mapping such as `creatures: [...]`")
        return None, None
    if not isinstance(root, Map):
        kinds_hint = ", ".join(f"{k}:" for keys in KIND_KEYS.values() for k in keys[:1])
        validator.at(
            root,
            f"a lore file must be a mapping of top-level fields (such as {kinds_hint}); "
            f"this file is {got(root) if not isinstance(root, Scalar) else 'a single value'}",
        )
        return None, None
    validator.positions[()] = root
    declared: LoreKind | None = None
    body: list[tuple[Scalar, Node]] = []
    kind_node: Scalar | None = None
    for key, value in root.pairs:
        if key.value == "source":  # the name the campaign knows the file by (`files.declared_source`)
            _check_source(value, validator)
            continue
        if key.value == "kind":
            kind_node = key
            if isinstance(value, Scalar) and value.value in LORE_KINDS:
                declared = value.value
            elif not isinstance(value, Broken):
                validator.at(value, f'"kind" must be one of: {", ".join(LORE_KINDS)}; got {got(value)}')
                return None, None
        else:
            body.append((key, value))
    kind = declared or _detect_kind(body, root, validator)
    if kind is None:
        return None, None
    if requested is not None and kind != requested:
        where = kind_node or root
        validator.at(where, f"this file is a {kind} file, but a {requested} file was expected")
        return None, None
    node = Map(body, root.line, root.column)
    spec = KINDS[kind]
    if spec.read_root is not None:
        return kind, typing.cast(LoreDocument | None, spec.read_root(node, validator))
    data = validator.fields(node, spec.model, ())
    return kind, typing.cast(LoreDocument | None, validator.document(spec.model, data))


#: The longest name a file may declare with `source:`.
MAX_SOURCE = 200


def _check_source(value: Node, validator: Validator) -> None:
    if isinstance(value, Broken):
        return
    text = value.value.strip() if isinstance(value, Scalar) else ""
    if not isinstance(value, Scalar) or not text or "\n" in text or len(text) > MAX_SOURCE:
        validator.at(
            value,
            f'"source" must be the name this file is known by, on one line, at most {MAX_SOURCE} characters '
            f"(like world/npcs.yaml); got {got(value)}",
        )


def _detect_kind(body: list[tuple[Scalar, Node]], root: Map, validator: Validator) -> LoreKind | None:
    hits: dict[LoreKind, list[str]] = {}
    for key, _ in body:
        for kind, keys in KIND_KEYS.items():
            if key.value in keys:
                hits.setdefault(kind, []).append(key.value)
    if len(hits) == 1:
        return next(iter(hits))
    if not hits:
        validator.at(
            root,
            "cannot tell what kind of lore file this is: add `kind:` (one of "
            + ", ".join(LORE_KINDS)
            + ") or use the top-level keys of one kind ("
            + "; ".join(f"{kind}: {', '.join(keys)}" for kind, keys in KIND_KEYS.items())
            + ")",
        )
        return None
    found = "; ".join(f"{kind} ({', '.join(keys)})" for kind, keys in hits.items())
    validator.at(
        root,
        f"this file mixes the top-level keys of several kinds: {found}; put each kind in its own file, "
        "or add `kind:` to say which one this is",
    )
    return None
