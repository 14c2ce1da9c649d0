"""Stage 4 of loading a lore file: its kind (said with `kind:` or recognised by its top-level keys), then its
top level read as that kind's document."""

from __future__ import annotations

import re
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
            named = kind_named(value.value) if isinstance(value, Scalar) else None
            if named is not None:
                declared = named
            elif not isinstance(value, Broken):
                validator.at(
                    value,
                    f"“kind: {value.value if isinstance(value, Scalar) else got(value)}” is not a kind of world "
                    f"file: {kinds_sentence(_example(body, root))}",
                )
                return None, None
        else:
            body.append((key, value))
    kind = declared or _detect_kind(body, root, validator)
    if kind is None:
        return None, None
    if requested is not None and kind != requested:
        where = kind_node or root
        validator.at(
            where,
            f"this file is a {KINDS[kind].words} file, but a {KINDS[requested].words} file was expected",
        )
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


def kind_named(text: str) -> LoreKind | None:
    """Return the kind a `kind:` value names, as a GM writes it ("family tree", "Family-Tree", "character")."""
    folded = re.sub(r"[\s_-]+", "_", text.strip().casefold())
    for candidate in (folded, f"{folded}s", folded.removesuffix("s")):
        if candidate in LORE_KINDS:
            return candidate
    return None


def kinds_sentence(example: LoreKind) -> str:
    """Return the kinds of world file in words, and a `kind:` line to copy."""
    words = [KINDS[k].words for k in LORE_KINDS]
    return (
        f"say which one in a line such as `kind: {KINDS[example].words}` at the top; the kinds are "
        f"{', '.join(words[:-1])} and {words[-1]}"
    )


def _hits(body: list[tuple[Scalar, Node]]) -> dict[LoreKind, list[str]]:
    hits: dict[LoreKind, list[str]] = {}
    for key, _ in body:
        for kind, keys in KIND_KEYS.items():
            if key.value in keys:
                hits.setdefault(kind, []).append(key.value)
    return hits


def _example(body: list[tuple[Scalar, Node]], root: Map) -> LoreKind:
    """Return the kind to show in an example: the one the file's keys point to most, else a timeline."""
    hits = _hits(body or [(k, v) for k, v in root.pairs if k.value not in ("kind", "source")])
    return max(hits, key=lambda k: len(hits[k])) if hits else LORE_KINDS[0]


def _detect_kind(body: list[tuple[Scalar, Node]], root: Map, validator: Validator) -> LoreKind | None:
    """Return the kind the top-level keys say, only when they say it alone: every key one kind's own."""
    hits = _hits(body)
    if len(hits) == 1:
        kind = next(iter(hits))
        if all(key.value in KINDS[kind].top_level for key, _ in body):
            return kind
    example = _example(body, root)
    if len(hits) > 1:
        found = ", ".join(f"{', '.join(keys)} ({KINDS[kind].words})" for kind, keys in hits.items())
        validator.at(
            root,
            f"this file has no `kind:` line and holds the top-level keys of several kinds: {found}; put each "
            f"kind in its own file, or add a line such as `kind: {KINDS[example].words}` at the top",
        )
        return None
    keys = [key.value for key, _ in body]
    if "months" in keys:  # the campaign's calendar, given as lore
        validator.at(
            root,
            "this file looks like the campaign's calendar (it lists months), which is not imported as lore: set "
            "it with /calendar set in Discord or `lorekeeper canon calendar --set FILE` on the command line",
        )
        return None
    shown = ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "")
    validator.at(
        root,
        f"this file has no `kind:` line, and its top-level keys ({shown or 'none'}) do not say which kind of "
        f"world file it is: {kinds_sentence(example)}",
    )
    return None
