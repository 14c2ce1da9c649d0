"""Stage 3 of loading a lore file: YAML parse events become a small positioned tree, under every strict rule.

No constructor, no resolver: YAML never guesses a type here, every scalar keeps its source text and style.
libyaml's C event parser (PyYAML's CSafeLoader) reads first, and ruamel.yaml's when libyaml refuses the text
or the text holds a tab, an anchor, an alias or a tag (see `build_tree`: the messages and positions
reported are ruamel's). Rejected with line and column: syntax errors, anchors and aliases (never expanded,
so an alias bomb costs nothing), tags (`!!str`, `!x`), duplicate keys at any depth, complex keys, nesting
deeper than `MAX_DEPTH`, an empty file, and more than one document where one is read (`build_tree`); a lore
file may hold several (`build_documents`: one tree each, every position the line and column in the file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.reader import ReaderError
from yaml import events as yaml_events

from canon.structured.problems import Problems, text_position
from canon.yaml_errors import syntax_problem

MAX_DEPTH = 64
# libyaml's C parser (PyYAML built with libyaml); without it, ruamel.yaml's pure-Python parser does everything.
LIBYAML_LOADER: Any = getattr(yaml, "CSafeLoader", None)
# A block scalar header directly followed by a comment: libyaml reads it, ruamel.yaml (YAML 1.2) refuses it.
_HEADER_COMMENT = re.compile(r"[|>][0-9+-]{0,2}#")


@dataclass(slots=True, eq=False)
class Scalar:
    value: str
    style: str | None
    line: int
    column: int

    @property
    def plain(self) -> bool:
        return self.style is None


def got(node: Node) -> str:
    """Return what a node is, as a problem says what it got: its text quoted, "a list" or "a mapping"."""
    if isinstance(node, Scalar):
        return f'"{node.value}"'
    return "a list" if isinstance(node, Seq) else "a mapping"


@dataclass(slots=True, eq=False)
class Map:
    pairs: list[tuple[Scalar, Node]]
    line: int
    column: int


@dataclass(slots=True, eq=False)
class Seq:
    items: list[Node]
    line: int
    column: int


@dataclass(slots=True, eq=False)
class Broken:
    """A node already reported (an alias); validation skips it silently."""

    line: int
    column: int


Node = Scalar | Map | Seq | Broken


@dataclass(slots=True, eq=False)
class _MapFrame:
    node: Map
    problems: Problems
    key: Scalar | None = None
    has_key: bool = False
    seen: dict[str, Scalar] = field(default_factory=dict)

    def add(self, node: Node) -> None:
        """Take the mapping's next key or value, reporting complex and duplicate keys."""
        if not self.has_key:
            self.has_key = True
            if type(node) is Scalar:
                self.key = node
            else:
                self.key = None
                if not isinstance(node, Broken):
                    self.problems.add(
                        node.line, node.column, "a key must be a simple name, not a list or a mapping"
                    )
            return
        self.has_key = False
        key = self.key
        if key is None:
            return
        first = self.seen.get(key.value)
        if first is not None:
            self.problems.add(key.line, key.column, _duplicate_key(key, first))
            return
        self.seen[key.value] = key
        if type(node) is Scalar and node.style is None and not node.value:
            # ruamel marks an empty value at the start of the next line; point at its key instead.
            node.line, node.column = key.line, key.column
        self.node.pairs.append((key, node))


def _duplicate_key(key: Scalar, first: Scalar) -> str:
    return f'duplicate key "{key.value}" (already given at line {first.line}, column {first.column})'


class _SeqFrame:
    __slots__ = ("add", "node")

    def __init__(self, node: Seq) -> None:
        self.node = node
        self.add = node.items.append  # items need no checks: straight into the list


def _mark(event: Any) -> tuple[int, int]:
    mark = event.start_mark
    return int(mark.line) + 1, int(mark.column) + 1


def _describe_tag(tag: object) -> str:
    text = str(tag)
    return "!!" + text.removeprefix("tag:yaml.org,2002:") if text.startswith("tag:yaml.org,2002:") else text


class _FastParserFailed(Exception):
    """libyaml refused the text: parse again with ruamel.yaml, whose messages and positions we report."""


@dataclass(frozen=True, slots=True)
class _EventKinds:
    """The event classes of ruamel.yaml's parser (libyaml's are read by `TreeBuilder._consume_libyaml`)."""

    document_start: type
    scalar: type
    collection_start: tuple[type, ...]
    mapping_start: type
    collection_end: tuple[type, ...]
    alias: type


# libyaml's event classes (through PyYAML), for `TreeBuilder.build_with_libyaml`.
_Y_SCALAR = yaml_events.ScalarEvent
_Y_MAPPING_START = yaml_events.MappingStartEvent
_Y_SEQUENCE_START = yaml_events.SequenceStartEvent
_Y_MAPPING_END = yaml_events.MappingEndEvent
_Y_SEQUENCE_END = yaml_events.SequenceEndEvent
_Y_ALIAS = yaml_events.AliasEvent
_Y_DOCUMENT_START = yaml_events.DocumentStartEvent
_NO_KEY: Any = object()  # in a mapping being read: its next node is a key

_RUAMEL_EVENTS = _EventKinds(
    document_start=DocumentStartEvent,
    scalar=ScalarEvent,
    collection_start=(MappingStartEvent, SequenceStartEvent),
    mapping_start=MappingStartEvent,
    collection_end=(MappingEndEvent, SequenceEndEvent),
    alias=AliasEvent,
)


def build_tree(text: str, problems: Problems, *, fast: bool = True) -> Node | None:
    """Build the positioned tree of a text of one YAML document (a second one is a problem at its `---`)."""
    roots = _build(text, problems, fast=fast, several=False)
    return roots[0] if roots else None


def build_documents(text: str, problems: Problems, *, fast: bool = True) -> list[Node] | None:
    """Build the positioned tree of each YAML document of the text (`---` between them), in file order."""
    return _build(text, problems, fast=fast, several=True)


def _build(text: str, problems: Problems, *, fast: bool, several: bool) -> list[Node] | None:
    """Build the positioned trees: libyaml's C event parser first, ruamel.yaml's when libyaml refuses the text.

    Both parsers emit the same events with the same 0-based line and column (in characters), and the
    builder applies every rule itself from the events (anchors, aliases, tags, duplicate keys, depth,
    documents), so the fast path loses nothing. A file libyaml cannot parse is parsed again by ruamel.yaml,
    whose error messages and positions are the ones reported (errors are rare; valid files stay fast).
    Text with a tab goes straight to ruamel.yaml: libyaml accepts a tab after `key:` where ruamel.yaml
    (and so this loader) refuses it; so does a block scalar header followed by `#` without a space (`|#`).
    `load_lore_file` also reads any file with problems again with ruamel.yaml alone, so that what a
    world-builder is told never depends on the parser.
    """
    if fast and LIBYAML_LOADER is not None and "\t" not in text and not _HEADER_COMMENT.search(text):
        scratch = Problems(problems.file)
        try:
            roots = TreeBuilder(scratch, several=several).build_with_libyaml(text)
        except _FastParserFailed:
            pass
        else:
            problems.extend(scratch)
            return roots
    return TreeBuilder(problems, several=several).build(text)


class TreeBuilder:
    """Turn YAML parse events into `Node`s, reporting anchors, aliases, tags, duplicate keys, documents
    (`several`: a stream of documents is read, each its own tree; else a second one is a problem)."""

    def __init__(self, problems: Problems, *, several: bool = False) -> None:
        self.problems = problems
        self.several = several
        self.stack: list[_MapFrame | _SeqFrame] = []
        self.roots: list[Node] = []

    def build_with_libyaml(self, text: str) -> list[Node] | None:
        """Build from libyaml's events; raise `_FastParserFailed` on any error libyaml reports."""
        loader = LIBYAML_LOADER(text)
        try:
            # The parser's events straight from `get_event` (None after the last): `yaml.parse` would wrap
            # each of the ~200,000 events of a big tree in a generator step and a `check_event` call.
            return self._consume_libyaml(iter(loader.get_event, None))
        except (yaml.YAMLError, UnicodeError) as exc:
            raise _FastParserFailed from exc
        finally:
            loader.dispose()

    def build(self, text: str) -> list[Node] | None:
        """Build from ruamel.yaml's events, reporting syntax errors with ruamel's message and position."""
        parser = YAML(typ="safe", pure=True)
        try:
            return self._consume(parser.parse(text), _RUAMEL_EVENTS)
        except MarkedYAMLError as exc:
            self._syntax_error(exc, text)
            return None
        except ReaderError as exc:
            line, column = text_position(text, int(exc.position))
            character = exc.character
            code = ord(character) if isinstance(character, str) else int(character)
            self.problems.add(
                line, column, f"the file contains the character U+{code:04X}, which YAML does not allow"
            )
            return None
        except YAMLError as exc:
            self.problems.add(1, 1, f"the file is not valid YAML: {exc}")
            return None

    def _consume(self, events: Iterable[Any], kinds: _EventKinds) -> list[Node] | None:
        documents = 0
        scalar, alias, document_start = kinds.scalar, kinds.alias, kinds.document_start
        collection_start, collection_end = kinds.collection_start, kinds.collection_end
        mapping_start = kinds.mapping_start
        stack = self.stack
        node: Node
        for event in events:
            cls = type(event)
            if cls is scalar:
                if event.anchor is not None or event.tag is not None:
                    self._check_properties(event)
                mark = event.start_mark
                # libyaml says "" for a plain scalar's style, ruamel None; Scalar.plain means None.
                node = Scalar(str(event.value), event.style or None, mark.line + 1, mark.column + 1)
            elif cls in collection_start:
                if event.anchor is not None or event.tag is not None:
                    self._check_properties(event)
                line, column = _mark(event)
                if len(stack) >= MAX_DEPTH:
                    self.problems.add(line, column, f"the file nests deeper than {MAX_DEPTH} levels")
                    return None
                if cls is mapping_start:
                    stack.append(_MapFrame(Map([], line, column), self.problems))
                else:
                    stack.append(_SeqFrame(Seq([], line, column)))
                continue
            elif cls in collection_end:
                node = stack.pop().node
            elif cls is alias:
                line, column = _mark(event)
                self.problems.add(
                    line,
                    column,
                    f'aliases ("*{event.anchor}") are not allowed in lore files; write the value out in full',
                )
                node = Broken(line, column)
            else:
                if cls is document_start:
                    documents += 1
                    if documents > 1 and not self.several:
                        self._second_document(event)
                        break
                continue
            if stack:
                stack[-1].add(node)
            else:
                self.roots.append(node)
        return self._finished(documents)

    def _consume_libyaml(self, events: Iterable[Any]) -> list[Node] | None:
        """`_consume` for libyaml's events, the same rules with the innermost collection's state in locals
        (a big tree has ~200,000 events). Anchors, aliases and tags hand over to ruamel.yaml: the two
        disagree on where an anchor's name ends (YAML 1.2 lets it contain ":")."""
        problems = self.problems
        saved: list[tuple[Map | Seq | None, Scalar | None, dict[str, Scalar] | None]] = []
        container: Map | Seq | None = None  # the innermost open collection (None: the top level)
        key: Scalar | None = _NO_KEY  # in a mapping, the key awaiting its value (None: a complex key)
        seen: dict[str, Scalar] | None = None  # in a mapping, its keys so far
        documents = 0
        node: Node
        for event in events:
            cls = type(event)
            if cls is _Y_SCALAR:
                if event.anchor is not None or event.tag is not None:
                    raise _FastParserFailed
                mark = event.start_mark
                # libyaml says "" for a plain scalar's style; Scalar.plain means None.
                node = Scalar(event.value, event.style or None, mark.line + 1, mark.column + 1)
            elif cls is _Y_MAPPING_START or cls is _Y_SEQUENCE_START:
                if event.anchor is not None or event.tag is not None:
                    raise _FastParserFailed
                mark = event.start_mark
                line, column = mark.line + 1, mark.column + 1
                if len(saved) >= MAX_DEPTH:
                    problems.add(line, column, f"the file nests deeper than {MAX_DEPTH} levels")
                    return None
                saved.append((container, key, seen))
                if cls is _Y_MAPPING_START:
                    container, key, seen = Map([], line, column), _NO_KEY, {}
                else:
                    container, seen = Seq([], line, column), None
                continue
            elif cls is _Y_MAPPING_END or cls is _Y_SEQUENCE_END:
                node = container  # type: ignore[assignment]
                container, key, seen = saved.pop()
            elif cls is _Y_ALIAS:
                raise _FastParserFailed
            else:
                if cls is _Y_DOCUMENT_START:
                    documents += 1
                    if documents > 1 and not self.several:
                        self._second_document(event)
                        break
                continue
            if seen is None:  # in a list, or at the top level
                if container is None:
                    self.roots.append(node)
                else:
                    container.items.append(node)  # type: ignore[union-attr]
            elif key is _NO_KEY:
                if type(node) is Scalar:
                    key = node
                else:
                    key = None
                    problems.add(
                        node.line, node.column, "a key must be a simple name, not a list or a mapping"
                    )
            else:
                if key is not None:
                    first = seen.get(key.value)
                    if first is not None:
                        problems.add(key.line, key.column, _duplicate_key(key, first))
                    else:
                        seen[key.value] = key
                        if type(node) is Scalar and node.style is None and not node.value:
                            node.line, node.column = key.line, key.column  # see `_MapFrame.add`
                        container.pairs.append((key, node))  # type: ignore[union-attr]
                key = _NO_KEY
        return self._finished(documents)

    def _finished(self, documents: int) -> list[Node] | None:
        if documents == 0 or not self.roots:
            self.problems.add(1, 1, "the file is empty; a lore file is a mapping such as `creatures: [...]`")
            return None
        return self.roots

    def _second_document(self, event: Any) -> None:
        line, column = _mark(event)
        self.problems.add(
            line,
            column,
            "a second YAML document starts here; this file holds exactly one document "
            "(remove the extra `---` or split the file)",
        )

    def _check_properties(self, event: Any) -> None:
        line, column = _mark(event)
        if event.anchor is not None:
            self.problems.add(
                line,
                column,
                f'anchors ("&{event.anchor}") are not allowed in lore files; write the value out in full',
            )
        if event.tag is not None:
            self.problems.add(
                line,
                column,
                f'tags ("{_describe_tag(event.tag)}") are not allowed in lore files; write the plain value '
                "(put quotes around it if it must be text)",
            )

    def _syntax_error(self, exc: MarkedYAMLError, text: str) -> None:
        problem = str(exc.problem or "")
        if "'\\t'" in problem or "\t" in problem:
            mark = exc.problem_mark or exc.context_mark
            line, column = (int(mark.line) + 1, int(mark.column) + 1) if mark is not None else (1, 1)
            self.problems.add(
                line, column, "a tab character is not allowed here; YAML needs spaces (replace the tab)"
            )
            return
        found = syntax_problem(exc, text)
        self.problems.add(found.line, found.column, found.message)
