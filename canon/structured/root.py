"""Stage 4 of loading a lore file: each YAML document's kind (said with `kind:` or recognised by its top-level
keys), then its top level read as that kind's document. A document holding the keys of several kinds is told
where to put the `---` that splits it."""

from __future__ import annotations

import re
import typing

from canon.structured.kinds import KIND_KEYS, KINDS, LORE_KINDS, LoreDocument, LoreKind
from canon.structured.scalars import NULLS
from canon.structured.tree import Broken, Map, Node, Scalar, got
from canon.structured.validate import Validator


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
    spec = KINDS[kind]
    body = [(key, value) for key, value in body if not _another_kinds(key, kind, validator)]
    node = Map(body, root.line, root.column)
    if spec.read_root is not None:
        return kind, typing.cast(LoreDocument | None, spec.read_root(node, validator))
    data = validator.fields(node, spec.model, ())
    return kind, typing.cast(LoreDocument | None, validator.document(spec.model, data))


def _another_kinds(key: Scalar, kind: LoreKind, validator: Validator) -> bool:
    """Report a top-level key of another kind in a document of `kind` (`factions:` under `kind: characters`),
    saying how to split it off; tell whether it was one."""
    if key.value in KINDS[kind].top_level:
        return False
    other = next((k for k, keys in KIND_KEYS.items() if key.value in keys), None)
    if other is None:
        return False
    validator.at(
        key,
        f"“{key.value}:” is a key of a {KINDS[other].words} file, and this part of the file is a "
        f"{KINDS[kind].words} one: {_SPLIT} before `{key.value}:`, or move it to a file of its own",
    )
    return True


#: How a file holding several kinds is split, in the words of its problems.
_SPLIT = "put a line `---` (three dashes alone on the line, at its left edge)"


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


#: What a GM may call a kind otherwise: objects are items.
_OTHER_WORDS = {"artifact": "items", "artifacts": "items", "artefacts": "items", "objects": "items"}


def kind_named(text: str) -> LoreKind | None:
    """Return the kind a `kind:` value names, as a GM writes it ("family tree", "Family-Tree", "character")."""
    folded = re.sub(r"[\s_-]+", "_", text.strip().casefold())
    folded = _OTHER_WORDS.get(folded, folded)
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


def _kind_starts(body: list[tuple[Scalar, Node]]) -> list[Scalar]:
    """Return the keys where a kind's keys begin, in file order: the first kind's first key, then each key of
    another kind that the kind before it has no field of."""
    starts: list[Scalar] = []
    current: LoreKind | None = None
    for key, _ in body:
        kind = next((k for k, keys in KIND_KEYS.items() if key.value in keys), None)
        if kind is not None and (current is None or key.value not in KINDS[current].top_level):
            starts.append(key)
            current = kind
    return starts


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
        starts = [f"before `{key.value}:` (line {key.line})" for key in _kind_starts(body)[1:]]
        where = " and ".join([", ".join(starts[:-1]), starts[-1]] if len(starts) > 1 else starts)
        validator.at(
            root,
            f"this file holds the top-level keys of several kinds: {found}; each kind needs a part of its "
            f"own: {_SPLIT} {where}, or put each kind in its own file",
        )
        return None
    keys = [key.value for key, _ in body]
    if "months" in keys:  # the campaign's calendar, given as lore
        validator.at(
            root,
            "this file looks like the campaign's calendar (it lists months), which is not imported as lore: set "
            "it with /calendar set in Discord; on the command line, `lorekeeper ingest` sets it first when it is "
            "given with the world's files (or `lorekeeper canon calendar --set FILE`)",
        )
        return None
    shown = ", ".join(keys[:6]) + (", ..." if len(keys) > 6 else "")
    validator.at(
        root,
        f"this file has no `kind:` line, and its top-level keys ({shown or 'none'}) do not say which kind of "
        f"world file it is: {kinds_sentence(example)}",
    )
    return None
