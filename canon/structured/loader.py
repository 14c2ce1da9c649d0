"""Load one structured-lore YAML file strictly: a validated document and normalised records, or every problem.

`load_lore_file` reads, in one pass, collecting every problem it can find (it does not stop at the first):

1. Bytes: files larger than `max_bytes` are refused unread; bytes that are not UTF-8 are reported with their
   byte offset (a leading UTF-8 BOM is dropped).
2. Tabs used for indentation are reported per line (YAML forbids them; a tab inside a block scalar's text is
   content and allowed). The rest of the file is still checked, read with those tabs expanded to the first
   tab width (4, 2 or 8) under which it parses, whatever else it then holds (duplicate keys, anchors, unknown
   fields ...): those problems are reported with the tabs, at their place in the file as written (the line
   and column a message names too); when no width makes the structure clear, nothing further is checked.
3. YAML syntax, via a YAML event parser (no constructor, no resolver: we never let YAML guess types): libyaml's
   C parser (PyYAML's CSafeLoader), and ruamel.yaml's when libyaml refuses the text or the text holds a tab,
   an anchor, an alias or a tag (see `_build_tree`: the messages and positions reported are ruamel's).
   Rejected with line and column: syntax errors (ruamel's position), anchors and aliases (never expanded, so an
   alias bomb costs nothing), tags (`!!str`, `!x`), duplicate keys at any depth, complex keys, more than one
   document, a file that is not a mapping, an empty file.
4. Kind: `kind:` at the top, or recognised from the top-level keys (`schemas.KIND_KEYS`); keys of several
   kinds -> an error naming them.
5. Schema (pydantic models in `schemas`, every entry validated on its own so all entries' problems show):
   unknown fields (the message lists the allowed ones), missing required fields, wrong shapes and types,
   bad ids, bad dates. Scalars are read by field kind, from the scalar's source text:
     text             the text exactly as written: `NO`, `yes`, `on`, `off`, `1e3`, `012`, `0x1F`, `1:20`,
                      `~`, `null` and an empty value stay those strings (the Norway problem cannot happen).
     id / reference   a lowercase slug `[a-z0-9][a-z0-9_-]*` (hyphens allowed: the SRD bestiary uses them).
                      An optional single reference written as plain `null`, `~` or nothing means "none"
                      (`habitat: null`, `parent_era: null`).
     whole number     an unquoted decimal integer (`340`, `-100`). Quoted numbers (`"340"`) are refused:
                      quotes mean text, and a strict loader does not guess. `012`, `0x1F`, `1e3`, `1_000`,
                      `3.0` are refused too. Optional numbers accept plain `null`.
     number           (coordinates) an unquoted decimal: `12`, `-3.5`.
     boolean          only unquoted `true` / `false` (no schema field is boolean today).
     date             see `canon.calendar`; optional dates accept plain `null`.
     list             a YAML sequence; an optional list written as `null` or nothing means empty.
6. Cross-entry checks (when the file's top-level fields are valid): duplicate ids within the file (one
   namespace for all kinds), references to ids defined in the file but of the wrong type, self references,
   repeated items in a reference list, cycles (ancestry, PART_OF, parent eras), dates outside their era's
   bounds (eras defined in the same file), death before birth, an era ending before it starts, a sub-era
   outside its parent era, an event listed under one era but naming another. References to ids the file does
   not define are NOT errors: they come back as `LoadResult.unresolved` with line and column, for the caller
   to resolve against the campaign's canon (this includes the era of every date when the file defines no
   such era).

Normalised output (only when there are no problems): `LoreEntry` per entity, `LoreRelation` per edge,
`LifeEvent` per dated moment. Relations, with their direction (source -[TYPE]-> target); the table is
`schemas.RELATION_FIELDS`, whose endpoint types a test checks against config/ontology.yaml:

    file          YAML field                    relation
    timeline      era.parent_era: p             era -[SUB_ERA_OF]-> p
                  event.era (or enclosing era)  event -[OCCURRED_DURING]-> era     valid_from = event date
                                                (the last segment of a path such as 3rd_age.age_of_iron)
                  event.location: l             event -[OCCURRED_AT]-> l           valid_from = event date
                  event.participants: [x]       x -[PARTICIPATED_IN]-> event       valid_from = event date
    family_tree   (every member m)              m -[MEMBER_OF]-> lineage           valid m.born .. m.died
                  m.parents: [a, b]             a -[PARENT_OF]-> m, b -[PARENT_OF]-> m
                                                valid_from = m.born, valid_until = that parent's died
                  m.spouse_of: [s]              m -[SPOUSE_OF]-> s  (symmetric: one edge per pair)
                  m.culture: c                  m -[MEMBER_OF]-> c
                  founding_ancestor: a          no edge (the ontology has none): a Lineage attribute, and a
                                                reference checked like the others
    gazetteer     location.part_of: r           location -[PART_OF]-> r
                  location.culture_of: c        c -[CULTURE_OF]-> location
                  location.events_held: [e]     e -[OCCURRED_AT]-> location
                  region.parent_region: p       region -[PART_OF]-> p
                  region.contains: [x]          x -[PART_OF]-> region
    bestiary      creature.habitat: h           creature -[INHABITS]-> h
                  creature.defeated_by: [x]     x -[DEFEATED]-> creature
    magic_system  system.practitioners: [p]     p -[PRACTICES]-> system
                  spell.system: s               spell -[BELONGS_TO]-> s
                  spell.practitioners: [p]      p -[PRACTICES]-> spell
    culture       culture.language: l           l -[LANGUAGE_OF]-> culture
                  culture.homeland: h           h -[HOMELAND_OF]-> culture
                  language.speakers: [s]        s -[SPEAKS]-> language
                  deity.worshipped_by: [w]      w -[WORSHIPS]-> deity

Identical edges (same type, source and target, e.g. `part_of` plus `contains`) are emitted once, at the
first place they are written. A relation is `gm_only` when the entry declaring it or either end defined in
the file is `gm_only`; an entry without `visibility` takes its enclosing block's (an era's events, a
lineage's members), else `public`. Life events: person born/died, creature first_appeared, era
era_start/era_end (from its start/end years), event occurred.

Performance: parsing is libyaml's (C); what remains is building and checking the records in Python, about
1-2 s of CPU for a 10,000-person tree (ruamel.yaml's pure-Python parser alone took 10 s and more). The loader is
synchronous and CPU-bound, so callers should run big files off the event loop.
"""

from __future__ import annotations

import difflib
import gc
import itertools
import pathlib
import re
import types
import typing
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, JsonValue, ValidationError
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

from canon.calendar import (
    DEFAULT_RULES,
    CalendarRules,
    DateError,
    EraCalendar,
    EraSpan,
    WorldDate,
)
from canon.structured.schemas import (
    FILE_MODELS,
    KIND_KEYS,
    LORE_KINDS,
    REFERENCE_ONLY_FIELDS,
    RELATION_FIELDS,
    BestiaryFile,
    Creature,
    Culture,
    CultureFile,
    Deity,
    EntityType,
    Era,
    Event,
    FamilyTreeFile,
    FieldProblem,
    GazetteerFile,
    Language,
    LifeEvent,
    LifeEventKind,
    LoadResult,
    Location,
    LoreDocument,
    LoreEntry,
    LoreKind,
    LoreModel,
    LoreProblem,
    LoreRelation,
    MagicSystem,
    MagicSystemFile,
    Person,
    Region,
    RelationType,
    ScalarKind,
    Spell,
    TargetType,
    TimelineFile,
    UnresolvedReference,
    Visibility,
)

__all__ = ["DEFAULT_MAX_BYTES", "load_lore_file", "parse_yaml_as"]

DEFAULT_MAX_BYTES = 2 * 1024 * 1024
MAX_PROBLEMS = 1000
MAX_DEPTH = 64
MAX_ENCODING_REPORTS = 20

Loc = tuple[str | int, ...]
ModelT = TypeVar("ModelT", bound=LoreModel)

_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_LEADING_ZERO_INT = re.compile(r"[-+]?0[0-9]+")
_NUMBER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BLOCK_SCALAR_HEADER = re.compile(r"(?:^|[\s:?-])[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$")
_ERA: tuple[TargetType, ...] = ("Era",)
# libyaml's C parser (PyYAML built with libyaml); without it, ruamel.yaml's pure-Python parser does everything.
_LIBYAML_LOADER: Any = getattr(yaml, "CSafeLoader", None)
# A block scalar header directly followed by a comment: libyaml reads it, ruamel.yaml (YAML 1.2) refuses it.
_HEADER_COMMENT = re.compile(r"[|>][0-9+-]{0,2}#")


class _Problems:
    """Collect problems for one file, capped so a pathological file cannot exhaust memory."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[LoreProblem] = []
        self.dropped = 0

    def add(self, line: int, column: int, message: str) -> None:
        if len(self.items) >= MAX_PROBLEMS:
            self.dropped += 1
            return
        self.items.append(LoreProblem(file=self.file, line=line, column=column, message=message))

    def extend(self, other: _Problems) -> None:
        for problem in other.items:
            self.add(problem.line, problem.column, problem.message)
        self.dropped += other.dropped

    def result(self) -> tuple[LoreProblem, ...]:
        ordered = sorted(self.items, key=lambda p: (p.line, p.column))
        if self.dropped:
            last = ordered[-1]
            ordered.append(
                LoreProblem(
                    file=self.file,
                    line=last.line,
                    column=last.column,
                    message=f"... and {self.dropped} more problems (only the first {MAX_PROBLEMS} are listed)",
                )
            )
        return tuple(ordered)


# --- stage 1 and 2: bytes, encoding, tabs -----------------------------------------------------------------


def _read_source(source: pathlib.Path | str | bytes, max_bytes: int, problems: _Problems) -> str | None:
    if isinstance(source, str):
        try:
            size = len(source.encode("utf-8"))
        except UnicodeEncodeError as exc:
            line, column = _text_position(source, exc.start)
            problems.add(line, column, "the text contains a character that cannot be stored as UTF-8")
            return None
        if size > max_bytes:
            problems.add(1, 1, _too_large(size, max_bytes))
            return None
        text = source
    else:
        if isinstance(source, pathlib.Path):
            try:
                size = source.stat().st_size
                if size > max_bytes:
                    problems.add(1, 1, _too_large(size, max_bytes))
                    return None
                with source.open("rb") as handle:
                    data = handle.read(max_bytes + 1)
            except OSError as exc:
                problems.add(1, 1, f"the file cannot be read: {exc.strerror or exc}")
                return None
        else:
            data = source
        if len(data) > max_bytes:
            problems.add(1, 1, _too_large(len(data), max_bytes))
            return None
        decoded = _decode(data, problems)
        if decoded is None:
            return None
        text = decoded
    return text.removeprefix("\ufeff")


def _too_large(size: int, max_bytes: int) -> str:
    return (
        f"the file is {size:,} bytes; a lore file may be at most {max_bytes:,} bytes "
        "(split it into several files)"
    )


def _decode(data: bytes, problems: _Problems) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    offset = 0
    reported = 0
    while reported < MAX_ENCODING_REPORTS:
        try:
            data[offset:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            bad = offset + exc.start
            line = data.count(b"\n", 0, bad) + 1
            column = bad - (data.rfind(b"\n", 0, bad) + 1) + 1
            problems.add(
                line,
                column,
                f"the file is not valid UTF-8: byte 0x{data[bad]:02X} at byte offset {bad} cannot be "
                "decoded (save the file as UTF-8)",
            )
            reported += 1
            offset = offset + exc.end
    return None


def _text_position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _indentation_tabs(text: str) -> list[tuple[int, int]]:
    """Find tabs in the leading whitespace of lines, except inside a block scalar's text."""
    found: list[tuple[int, int]] = []
    if "\t" not in text:
        return found
    block_parent: int | None = None
    block_indent: int | None = None
    for number, line in enumerate(_LINE_BREAK.split(text), 1):
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        lead = line[: len(line) - len(stripped)]
        spaces = len(line) - len(line.lstrip(" "))
        if block_parent is not None:
            if spaces > block_parent:
                if block_indent is None:
                    block_indent = spaces
                tab = lead.find("\t")
                if tab != -1 and tab < block_indent:
                    found.append((number, tab + 1))
                continue
            block_parent = block_indent = None
        if "\t" in lead and not stripped.startswith("#"):
            found.append((number, lead.index("\t") + 1))
        if _BLOCK_SCALAR_HEADER.search(line):
            block_parent = spaces
            block_indent = None
    return found


_TAB_INDENTATION = "a tab character is used for indentation; YAML needs spaces"
# Tab widths tried, in turn, to read a file indented with tabs as its author meant it.
_TAB_WIDTHS = (4, 2, 8)
_LINES_AND_BREAKS = re.compile(r"(\r\n|\r|\n)")


@dataclass(frozen=True, slots=True)
class _Expanded:
    """A text with the tabs of some lines' indentation expanded, and how to find a column of it as written.

    `root` is the tree built from `text`, `problems` what building it reported (duplicate keys, anchors,
    aliases, tags ...), at their place in `text`.
    """

    text: str
    leads: dict[int, tuple[str, int]]  # line -> (its leading whitespace as written, the tab width)
    root: _Node
    problems: _Problems

    def column(self, line: int, column: int) -> int:
        """Return the column, in the text as written, of a column of the expanded text."""
        found = self.leads.get(line)
        if found is None:
            return column
        lead, width = found
        wide = len(lead.expandtabs(width))
        if column > wide:
            return column - wide + len(lead)
        position = 0
        for index, char in enumerate(lead):
            position = (position // width + 1) * width if char == "\t" else position + 1
            if column <= position:
                return index + 1
        return len(lead)  # pragma: no cover - column <= wide is inside the lead


def _expand_tabs(text: str, tabs: list[tuple[int, int]], filename: str, *, fast: bool) -> _Expanded | None:
    """Return the text with indentation tabs expanded at the first width under which it parses, or None.

    A width is taken once the tree builds, whatever problems it holds: they are the file's own (a duplicate
    key, an alias ...), to be reported with the tabs, not a sign that the width is wrong.
    """
    pieces = _LINES_AND_BREAKS.split(text)  # lines at even indexes, their breaks between
    lines = {line for line, _ in tabs}
    for width in _TAB_WIDTHS:
        leads: dict[int, tuple[str, int]] = {}
        expanded = list(pieces)
        for line in lines:
            row = pieces[2 * (line - 1)]
            lead = row[: len(row) - len(row.lstrip(" \t"))]
            leads[line] = (lead, width)
            expanded[2 * (line - 1)] = lead.expandtabs(width) + row[len(lead) :]
        candidate = "".join(expanded)
        probe = _Problems(filename)
        root = _build_tree(candidate, probe, fast=fast)
        if root is not None:
            return _Expanded(candidate, leads, root, probe)
    return None


# A message naming another place ends with it: `... (already given at line 3, column 5)`, `... at line 4,
# column 9` (duplicate keys and ids).
_PLACE_AT_END = re.compile(r"line (\d+), column (\d+)(\)?)$")


def _report_as_written(problems: _Problems, found: Sequence[LoreProblem], expanded: _Expanded) -> None:
    """Add problems found in the expanded text at their columns in the text as written (messages' too)."""
    for problem in found:
        message = problem.message
        place = _PLACE_AT_END.search(message)
        if place is not None:
            line = int(place[1])
            column = expanded.column(line, int(place[2]))
            message = f"{message[: place.start()]}line {line}, column {column}{place[3]}"
        problems.add(problem.line, expanded.column(problem.line, problem.column), message)


# --- stage 3: YAML events -> a small positioned tree --------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Scalar:
    value: str
    style: str | None
    line: int
    column: int

    @property
    def plain(self) -> bool:
        return self.style is None


@dataclass(slots=True, eq=False)
class _Map:
    pairs: list[tuple[_Scalar, _Node]]
    line: int
    column: int


@dataclass(slots=True, eq=False)
class _Seq:
    items: list[_Node]
    line: int
    column: int


@dataclass(slots=True, eq=False)
class _Broken:
    """A node already reported (an alias); validation skips it silently."""

    line: int
    column: int


_Node = _Scalar | _Map | _Seq | _Broken


@dataclass(slots=True, eq=False)
class _MapFrame:
    node: _Map
    problems: _Problems
    key: _Scalar | None = None
    has_key: bool = False
    seen: dict[str, _Scalar] = field(default_factory=dict)

    def add(self, node: _Node) -> None:
        """Take the mapping's next key or value, reporting complex and duplicate keys."""
        if not self.has_key:
            self.has_key = True
            if type(node) is _Scalar:
                self.key = node
            else:
                self.key = None
                if not isinstance(node, _Broken):
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
            self.problems.add(
                key.line,
                key.column,
                f'duplicate key "{key.value}" (already given at line {first.line}, column {first.column})',
            )
            return
        self.seen[key.value] = key
        if type(node) is _Scalar and node.style is None and not node.value:
            # ruamel marks an empty value at the start of the next line; point at its key instead.
            node.line, node.column = key.line, key.column
        self.node.pairs.append((key, node))


class _SeqFrame:
    __slots__ = ("add", "node")

    def __init__(self, node: _Seq) -> None:
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
    """The event classes of one YAML parser (libyaml through PyYAML, or ruamel.yaml)."""

    document_start: type
    scalar: type
    collection_start: tuple[type, ...]
    mapping_start: type
    collection_end: tuple[type, ...]
    alias: type
    # Anchors, aliases and tags are errors either way; libyaml and ruamel.yaml disagree on where an anchor's
    # name ends (YAML 1.2 lets it contain ":"), so on the fast path the first one hands over to ruamel.yaml.
    hand_over_properties: bool = False


_LIBYAML_EVENTS = _EventKinds(
    document_start=yaml_events.DocumentStartEvent,
    scalar=yaml_events.ScalarEvent,
    collection_start=(yaml_events.MappingStartEvent, yaml_events.SequenceStartEvent),
    mapping_start=yaml_events.MappingStartEvent,
    collection_end=(yaml_events.MappingEndEvent, yaml_events.SequenceEndEvent),
    alias=yaml_events.AliasEvent,
    hand_over_properties=True,
)
_RUAMEL_EVENTS = _EventKinds(
    document_start=DocumentStartEvent,
    scalar=ScalarEvent,
    collection_start=(MappingStartEvent, SequenceStartEvent),
    mapping_start=MappingStartEvent,
    collection_end=(MappingEndEvent, SequenceEndEvent),
    alias=AliasEvent,
)


def _build_tree(text: str, problems: _Problems, *, fast: bool = True) -> _Node | None:
    """Build the positioned tree: libyaml's C event parser first, ruamel.yaml's when libyaml refuses the text.

    Both parsers emit the same events with the same 0-based line and column (in characters), and the
    builder applies every rule itself from the events (anchors, aliases, tags, duplicate keys, depth,
    documents), so the fast path loses nothing. A file libyaml cannot parse is parsed again by ruamel.yaml,
    whose error messages and positions are the ones reported (errors are rare; valid files stay fast).
    Text with a tab goes straight to ruamel.yaml: libyaml accepts a tab after `key:` where ruamel.yaml
    (and so this loader) refuses it; so does a block scalar header followed by `#` without a space (`|#`).
    `load_lore_file` also reads any file with problems again with ruamel.yaml alone, so that what a
    world-builder is told never depends on the parser.
    """
    if fast and _LIBYAML_LOADER is not None and "\t" not in text and not _HEADER_COMMENT.search(text):
        scratch = _Problems(problems.file)
        try:
            root = _TreeBuilder(scratch).build_with_libyaml(text)
        except _FastParserFailed:
            pass
        else:
            problems.extend(scratch)
            return root
    return _TreeBuilder(problems).build(text)


class _TreeBuilder:
    """Turn YAML parse events into `_Node`s, reporting anchors, aliases, tags, duplicate keys, documents."""

    def __init__(self, problems: _Problems) -> None:
        self.problems = problems
        self.stack: list[_MapFrame | _SeqFrame] = []
        self.root: _Node | None = None

    def build_with_libyaml(self, text: str) -> _Node | None:
        """Build from libyaml's events; raise `_FastParserFailed` on any error libyaml reports."""
        try:
            return self._consume(yaml.parse(text, Loader=_LIBYAML_LOADER), _LIBYAML_EVENTS)
        except (yaml.YAMLError, UnicodeError) as exc:
            raise _FastParserFailed from exc

    def build(self, text: str) -> _Node | None:
        """Build from ruamel.yaml's events, reporting syntax errors with ruamel's message and position."""
        parser = YAML(typ="safe", pure=True)
        try:
            return self._consume(parser.parse(text), _RUAMEL_EVENTS)
        except MarkedYAMLError as exc:
            self._syntax_error(exc)
            return None
        except ReaderError as exc:
            line, column = _text_position(text, int(exc.position))
            character = exc.character
            code = ord(character) if isinstance(character, str) else int(character)
            self.problems.add(
                line, column, f"the file contains the character U+{code:04X}, which YAML does not allow"
            )
            return None
        except YAMLError as exc:
            self.problems.add(1, 1, f"the file is not valid YAML: {exc}")
            return None

    def _consume(self, events: Iterable[Any], kinds: _EventKinds) -> _Node | None:
        documents = 0
        scalar, alias, document_start = kinds.scalar, kinds.alias, kinds.document_start
        collection_start, collection_end = kinds.collection_start, kinds.collection_end
        mapping_start = kinds.mapping_start
        hand_over = kinds.hand_over_properties
        stack = self.stack
        node: _Node
        for event in events:
            cls = type(event)
            if cls is scalar:
                if event.anchor is not None or event.tag is not None:
                    if hand_over:
                        raise _FastParserFailed
                    self._check_properties(event)
                mark = event.start_mark
                # libyaml says "" for a plain scalar's style, ruamel None; _Scalar.plain means None.
                node = _Scalar(str(event.value), event.style or None, mark.line + 1, mark.column + 1)
            elif cls in collection_start:
                if event.anchor is not None or event.tag is not None:
                    if hand_over:
                        raise _FastParserFailed
                    self._check_properties(event)
                line, column = _mark(event)
                if len(stack) >= MAX_DEPTH:
                    self.problems.add(line, column, f"the file nests deeper than {MAX_DEPTH} levels")
                    return None
                if cls is mapping_start:
                    stack.append(_MapFrame(_Map([], line, column), self.problems))
                else:
                    stack.append(_SeqFrame(_Seq([], line, column)))
                continue
            elif cls in collection_end:
                node = stack.pop().node
            elif cls is alias:
                if hand_over:
                    raise _FastParserFailed
                line, column = _mark(event)
                self.problems.add(
                    line,
                    column,
                    f'aliases ("*{event.anchor}") are not allowed in lore files; write the value out in full',
                )
                node = _Broken(line, column)
            else:
                if cls is document_start:
                    documents += 1
                    if documents > 1:
                        line, column = _mark(event)
                        self.problems.add(
                            line,
                            column,
                            "a second YAML document starts here; a lore file holds exactly one document "
                            "(remove the extra `---` or split the file)",
                        )
                        break
                continue
            if stack:
                stack[-1].add(node)
            else:
                self.root = node
        if documents == 0 or self.root is None:
            self.problems.add(1, 1, "the file is empty; a lore file is a mapping such as `creatures: [...]`")
            return None
        return self.root

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

    def _syntax_error(self, exc: MarkedYAMLError) -> None:
        mark = exc.problem_mark or exc.context_mark
        line, column = (int(mark.line) + 1, int(mark.column) + 1) if mark is not None else (1, 1)
        problem = str(exc.problem or "the text is not valid YAML")
        if "'\\t'" in problem or "\t" in problem:
            self.problems.add(
                line, column, "a tab character is not allowed here; YAML needs spaces (replace the tab)"
            )
            return
        message = f"YAML syntax error: {problem}"
        if exc.context and exc.context_mark is not None:
            message += (
                f" ({exc.context} that starts at line {int(exc.context_mark.line) + 1}, "
                f"column {int(exc.context_mark.column) + 1})"
            )
        self.problems.add(line, column, message)


# --- stage 5: schema-driven conversion and validation ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Shape:
    kind: Literal["scalar", "list", "model"]
    scalar: ScalarKind | None = None
    item: _Shape | None = None
    model: type[LoreModel] | None = None
    nullable: bool = False
    choices: tuple[str, ...] = ()


def _shape_of(annotation: Any, metadata: Sequence[Any] = ()) -> _Shape:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        return _shape_of(inner, [*metadata, *extra])
    marker = next((m for m in metadata if isinstance(m, ScalarKind)), None)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(options) < len(typing.get_args(annotation))
        if len(options) == 1:
            return replace(_shape_of(options[0], metadata), nullable=nullable)
        if marker is not None:
            return _Shape("scalar", scalar=marker, nullable=nullable)
        raise TypeError(f"unsupported union in a lore schema: {annotation!r}")
    if origin is Literal:
        choices = tuple(str(a) for a in typing.get_args(annotation))
        return _Shape("scalar", scalar=ScalarKind.CHOICE, choices=choices)
    if marker is not None:
        return _Shape("scalar", scalar=marker)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return _Shape("list", item=_shape_of(item))
    if isinstance(annotation, type) and issubclass(annotation, LoreModel):
        return _Shape("model", model=annotation)
    if annotation is bool:
        return _Shape("scalar", scalar=ScalarKind.BOOL)
    if annotation is int:
        return _Shape("scalar", scalar=ScalarKind.INT)
    if annotation is float:
        return _Shape("scalar", scalar=ScalarKind.NUMBER)
    if annotation is str:
        return _Shape("scalar", scalar=ScalarKind.TEXT)
    raise TypeError(f"unsupported type in a lore schema: {annotation!r}")


_SHAPES: dict[type[LoreModel], dict[str, _Shape]] = {}
# Scalar kinds read as the scalar's own text: any quoted scalar, and a plain one unless it spells null.
_VERBATIM = frozenset(
    {ScalarKind.TEXT, ScalarKind.ID, ScalarKind.REF, ScalarKind.ERA_REF, ScalarKind.DATE, ScalarKind.CHOICE}
)


def _shapes(model: type[LoreModel]) -> dict[str, _Shape]:
    cached = _SHAPES.get(model)
    if cached is None:
        cached = {
            name: _shape_of(info.annotation, info.metadata) for name, info in model.model_fields.items()
        }
        _SHAPES[model] = cached
    return cached


def _expected(shape: _Shape) -> str:
    if shape.kind == "list":
        return 'a list like ["a", "b"]'
    if shape.kind == "model":
        return "a mapping of fields"
    return {
        ScalarKind.TEXT: "text",
        ScalarKind.ID: "an id like house_vyr",
        ScalarKind.REF: "an id like house_vyr",
        ScalarKind.ERA_REF: "an era id like 3rd_age",
        ScalarKind.DATE: "a date like 3rd_age.year_300",
        ScalarKind.INT: "a whole number like 340",
        ScalarKind.NUMBER: "a number like 12 or 12.5",
        ScalarKind.BOOL: "true or false",
        ScalarKind.CHOICE: "one of: " + ", ".join(shape.choices),
    }[shape.scalar or ScalarKind.TEXT]


def _got(node: _Node) -> str:
    if isinstance(node, _Scalar):
        return f'"{node.value}"'
    return "a list" if isinstance(node, _Seq) else "a mapping"


class _Failed:
    """Marker for a value that could not be converted (already reported)."""


_FAILED = _Failed()


class _Validator:
    """Convert the positioned tree into model instances, reporting every problem with its position."""

    def __init__(self, problems: _Problems, rules: CalendarRules) -> None:
        self.problems = problems
        self.context = {"calendar_rules": rules}
        self.rules = rules
        self.positions: dict[Loc, tuple[int, int]] = {}
        self.labels: dict[Loc, str] = {}
        self.unit_locs: dict[int, Loc] = {}
        self.failed_ids: set[str] = set()
        self.reported: set[Loc] = set()
        self.ids: list[tuple[str, EntityType, Loc]] = []

    # -- positions and labels --

    def pos(self, loc: Loc) -> tuple[int, int]:
        found = self.positions.get(loc)
        if found is not None:
            return found
        for end in range(len(loc) - 1, -1, -1):
            found = self.positions.get(loc[:end])
            if found is not None:
                return found
        return 1, 1

    def label(self, loc: Loc) -> str:
        return self.labels.get(loc) or (f'"{loc[-1]}"' if loc and isinstance(loc[-1], str) else "this value")

    def report(self, loc: Loc, message: str) -> None:
        line, column = self.pos(loc)
        self.problems.add(line, column, message)

    def at(self, node: _Node | _Scalar, message: str) -> None:
        self.problems.add(node.line, node.column, message)

    # -- conversion --

    def unit(self, node: _Node, model: type[ModelT], loc: Loc, label: str) -> ModelT | None:
        """Validate one mapping as `model` on its own, so other entries' problems are still found."""
        if isinstance(node, _Broken):
            return None
        if not isinstance(node, _Map):
            self.at(node, f"{label} must be a mapping of fields ({_field_list(model)}); got {_got(node)}")
            return None
        self.positions[loc] = (node.line, node.column)
        data = self.fields(node, model, loc)
        return self.validate(model, data, loc)

    def fields(
        self, node: _Map, model: type[LoreModel], loc: Loc, skip: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        shapes = _shapes(model)
        aliases = model.yaml_aliases
        data: dict[str, Any] = {}
        written: dict[str, _Scalar] = {}
        for key, value in node.pairs:
            if key.value in skip:
                continue
            name = aliases.get(key.value, key.value)
            if name not in shapes:
                self.at(key, _unknown_field(key.value, model))
                continue
            other = written.get(name)
            if other is not None:
                self.at(
                    key,
                    f'"{key.value}" and "{other.value}" mean the same field (line {other.line}); give only one',
                )
                continue
            written[name] = key
            field_loc = (*loc, name)
            self.positions[field_loc] = (value.line, value.column)
            if key.value != name:  # `label` names any other field by its name, as written
                self.labels[field_loc] = f'"{key.value}"'
            shape = shapes[name]
            if (
                type(value) is _Scalar
                and shape.scalar in _VERBATIM
                and (value.style is not None or shape.scalar is ScalarKind.TEXT or value.value not in _NULLS)
            ):
                data[name] = value.value  # what `scalar` returns for it, without the checks it cannot fail
                continue
            converted = self.convert(value, shape, field_loc, key.value)
            if converted is _FAILED:
                self.reported.add(field_loc)
            else:
                data[name] = converted
        return data

    def convert(self, node: _Node, shape: _Shape, loc: Loc, key: str) -> Any:
        if isinstance(node, _Broken):
            return _FAILED
        label = self.labels.get(loc) or f'"{key}"'
        if shape.kind == "list":
            if isinstance(node, _Scalar) and node.plain and node.value in _NULLS:
                return []
            if not isinstance(node, _Seq):
                hint = f" (write [{node.value}] for a single item)" if isinstance(node, _Scalar) else ""
                self.at(node, f"{label} must be {_expected(shape)}; got {_got(node)}{hint}")
                return _FAILED
            assert shape.item is not None
            items: list[Any] = []
            for index, item in enumerate(node.items):
                item_label = f'item {index + 1} of "{key}"'
                if shape.item.kind == "model":
                    assert shape.item.model is not None
                    unit = self.unit(item, shape.item.model, (*loc, index), item_label)
                    if unit is not None:
                        items.append(unit)
                    continue
                item_loc = (*loc, len(items))
                self.labels[item_loc] = item_label
                converted = self.convert(item, shape.item, item_loc, key)
                if converted is not _FAILED:
                    self.positions[item_loc] = (item.line, item.column)
                    items.append(converted)
            return items
        if shape.kind == "model":
            assert shape.model is not None
            if shape.nullable and isinstance(node, _Scalar) and node.plain and node.value in _NULLS:
                return None
            unit = self.unit(node, shape.model, loc, label)
            return _FAILED if unit is None else unit
        return self.scalar(node, shape, label)

    def scalar(self, node: _Node, shape: _Shape, label: str) -> Any:
        if not isinstance(node, _Scalar):
            self.at(node, f"{label} must be {_expected(shape)}; got {_got(node)}")
            return _FAILED
        kind = shape.scalar
        text = node.value
        if shape.nullable and node.plain and text in _NULLS and kind is not ScalarKind.TEXT:
            return None
        if kind in (ScalarKind.ID, ScalarKind.REF, ScalarKind.ERA_REF) and node.plain and text in _NULLS:
            written = f'"{text}"' if text else "nothing"
            self.at(
                node,
                f"{label} must be {_expected(shape)}; got {written} (write it in quotes if it really is the id)",
            )
            return _FAILED
        if kind in (ScalarKind.INT, ScalarKind.NUMBER):
            pattern = _INT if kind is ScalarKind.INT else _NUMBER
            if not node.plain:
                if pattern.fullmatch(text):
                    self.at(
                        node,
                        f"{label} must be {_expected(shape)} written without quotes; got {_got(node)} "
                        "in quotes",
                    )
                else:
                    self.at(node, f"{label} must be {_expected(shape)}; got {_got(node)}")
                return _FAILED
            if pattern.fullmatch(text):
                return int(text) if _INT.fullmatch(text) else float(text)
            hint = ""
            if _LEADING_ZERO_INT.fullmatch(text):
                hint = f" (leading zeros are not allowed: write {int(text)})"
            self.at(node, f"{label} must be {_expected(shape)}; got {_got(node)}{hint}")
            return _FAILED
        if kind is ScalarKind.BOOL:
            if node.plain and text in ("true", "false"):
                return text == "true"
            self.at(node, f"{label} must be true or false (without quotes); got {_got(node)}")
            return _FAILED
        # Text, ids, references, choices and dates: the scalar's own text, never a resolved value.
        return text

    def validate(self, model: type[ModelT], data: dict[str, Any], loc: Loc) -> ModelT | None:
        identity = _IDENTITY.get(model)
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

    def loc_of(self, instance: BaseModel) -> Loc:
        return self.unit_locs[id(instance)]

    def report_duplicate_ids(self) -> None:
        """Report every id given twice in the file (all kinds share one namespace), at the later place."""
        first: dict[str, tuple[EntityType, tuple[int, int]]] = {}
        for entity_id, entity_type, loc in sorted(self.ids, key=lambda item: self.pos(item[2])):
            position = self.pos(loc)
            earlier = first.get(entity_id)
            if earlier is None:
                first[entity_id] = (entity_type, position)
                continue
            self.report(
                loc,
                f'duplicate id "{entity_id}": already used for the {earlier[0]} at line {earlier[1][0]}, '
                f"column {earlier[1][1]}",
            )

    def _report_validation(self, exc: ValidationError, loc: Loc, model: type[LoreModel]) -> None:
        for error in exc.errors(include_url=False):
            error_loc = (*loc, *error["loc"])
            if any(error_loc[:end] in self.reported for end in range(len(loc) + 1, len(error_loc) + 1)):
                continue
            label = self.label(error_loc)
            kind = error["type"]
            if kind == "missing":
                name = str(error_loc[-1])
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
        for name in _reference_lists(type(instance)):
            targets = getattr(instance, name)
            if len(targets) < 2 or len(set(targets)) == len(targets):
                continue
            seen: set[str] = set()
            for index, target in enumerate(targets):
                if target in seen:
                    self.report(
                        (*loc, name, index), f'{self.label((*loc, name))} lists "{target}" more than once'
                    )
                seen.add(target)


_REFERENCE_LISTS: dict[type[LoreModel], tuple[str, ...]] = {}


def _reference_lists(model: type[LoreModel]) -> tuple[str, ...]:
    """Return the fields of `model` that list references (cached)."""
    found = _REFERENCE_LISTS.get(model)
    if found is None:
        found = _REFERENCE_LISTS[model] = tuple(
            name
            for name, shape in _shapes(model).items()
            if shape.kind == "list" and shape.item is not None and shape.item.scalar is ScalarKind.REF
        )
    return found


def _field_list(model: type[LoreModel]) -> str:
    # The inherited `visibility` reads better last.
    names = sorted(model.model_fields, key=lambda name: name == "visibility")
    aliases = [f"{alias} (= {target})" for alias, target in model.yaml_aliases.items()]
    return ", ".join([*names, *aliases])


def _unknown_field(key: str, model: type[LoreModel]) -> str:
    allowed = [*model.model_fields, *model.yaml_aliases]
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    return f'unknown field "{key}"{hint}; allowed fields: {_field_list(model)}'


# --- stage 4: kind detection and the root --------------------------------------------------------------------


_ERA_HEADER_FIELDS = frozenset(Era.model_fields) - {"events"}

# The entity type of each entry model and the field holding its id.
_IDENTITY: dict[type[LoreModel], tuple[EntityType, str]] = {
    Era: ("Era", "era"),
    Event: ("Event", "id"),
    FamilyTreeFile: ("Lineage", "lineage"),
    Person: ("Person", "id"),
    Location: ("Location", "id"),
    Region: ("Region", "id"),
    Creature: ("Creature", "id"),
    MagicSystem: ("MagicSystem", "id"),
    Spell: ("Spell", "id"),
    Culture: ("Culture", "id"),
    Language: ("Language", "id"),
    Deity: ("Deity", "id"),
}


def _validate_root(
    root: _Node, validator: _Validator, requested: LoreKind | None
) -> tuple[LoreKind | None, LoreDocument | None]:
    if isinstance(root, _Broken):
        return None, None
    if isinstance(root, _Scalar) and root.plain and root.value in _NULLS:
        validator.at(root, "the file is empty; a lore file is a mapping such as `creatures: [...]`")
        return None, None
    if not isinstance(root, _Map):
        kinds_hint = ", ".join(f"{k}:" for keys in KIND_KEYS.values() for k in keys[:1])
        validator.at(
            root,
            f"a lore file must be a mapping of top-level fields (such as {kinds_hint}); "
            f"this file is {_got(root) if not isinstance(root, _Scalar) else 'a single value'}",
        )
        return None, None
    validator.positions[()] = (root.line, root.column)
    declared: LoreKind | None = None
    body: list[tuple[_Scalar, _Node]] = []
    kind_node: _Scalar | None = None
    for key, value in root.pairs:
        if key.value == "kind":
            kind_node = key
            if isinstance(value, _Scalar) and value.value in LORE_KINDS:
                declared = value.value
            elif not isinstance(value, _Broken):
                validator.at(value, f'"kind" must be one of: {", ".join(LORE_KINDS)}; got {_got(value)}')
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
    node = _Map(body, root.line, root.column)
    keys = {key.value for key, _ in body}
    if kind == "timeline":
        return kind, _timeline(node, keys, validator)
    model = FILE_MODELS[kind]
    data = validator.fields(node, model, ())
    return kind, typing.cast(LoreDocument | None, _validate_document(model, data, validator))


def _detect_kind(body: list[tuple[_Scalar, _Node]], root: _Map, validator: _Validator) -> LoreKind | None:
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


def _timeline(node: _Map, keys: set[str], validator: _Validator) -> TimelineFile | None:
    header = keys & _ERA_HEADER_FIELDS
    if "eras" in keys or not header:
        for key, _ in node.pairs:
            if key.value in header:
                validator.at(
                    key,
                    f'"{key.value}" describes a single era; with "eras:" put it inside each era\'s entry, '
                    'or drop "eras:" and describe one era at the top level',
                )
        data = validator.fields(node, TimelineFile, (), skip=frozenset(header))
        return _validate_document(TimelineFile, data, validator)
    era = validator.unit(node, Era, (), "the timeline")
    if era is None:
        return None
    return TimelineFile(eras=[era])


def _validate_document(model: type[ModelT], data: dict[str, Any], validator: _Validator) -> ModelT | None:
    document = validator.validate(model, data, ())
    if document is not None:
        return document
    # The top-level fields are broken; if only optional ones are, drop them so cross-entry checks still run.
    probe = {k: v for k, v in data.items() if isinstance(v, list)}
    for name, info in model.model_fields.items():
        if info.is_required() and name in data:
            probe[name] = data[name]
    try:
        return model.model_validate(probe, context=validator.context)
    except ValidationError:
        return None


# --- stage 6: cross-entry checks and normalisation ----------------------------------------------------------


@dataclass(slots=True)
class _Defined:
    type: EntityType
    loc: Loc
    visibility: Visibility


_LINKED_FIELDS: dict[tuple[str, type[LoreModel]], tuple[str, ...]] = {}


def _linked_fields(entity_type: EntityType, model: type[LoreModel]) -> tuple[str, ...]:
    """Return the fields of `model` that `RELATION_FIELDS` turns into edges for `entity_type` (cached)."""
    key = (entity_type, model)
    found = _LINKED_FIELDS.get(key)
    if found is None:
        names = set(model.model_fields)
        found = tuple(f for (t, f) in RELATION_FIELDS if t == entity_type and f in names)
        _LINKED_FIELDS[key] = found
    return found


class _Normaliser:
    """Check what spans entries and build the kind-independent records."""

    def __init__(self, validator: _Validator, file: str) -> None:
        self.v = validator
        self.file = file
        self.defined: dict[str, _Defined] = {}
        self.entries: list[LoreEntry] = []
        # A relation's record values (its visibility still to decide) and the entry declaring it.
        self.relations: list[tuple[dict[str, Any], str]] = []
        self.relation_keys: set[tuple[str, str, str]] = set()
        self.life_events: list[LifeEvent] = []
        self.unresolved: list[UnresolvedReference] = []
        self.calendar = EraCalendar()
        self.reference_checks: list[tuple[str, Loc, str, str, tuple[TargetType, ...]]] = []
        # Dates as text, by identity (the date kept with it): the models share one WorldDate per date written,
        # and a tree repeats each year hundreds of times.
        self.date_texts: dict[int, tuple[WorldDate, str]] = {}

    # -- shared helpers --

    # Records below are built with _record (no validation): every value comes from validated models, and
    # re-validating ~100k records per 10k-person tree costs seconds.

    def define(
        self,
        entity_type: EntityType,
        entity_id: str,
        name: str,
        attributes: dict[str, JsonValue],
        visibility: Visibility,
        entry_loc: Loc,
    ) -> None:
        if entity_id in self.defined:
            return  # reported by _Validator.report_duplicate_ids
        self.defined[entity_id] = _Defined(entity_type, entry_loc, visibility)
        line, column = self.v.pos(entry_loc)
        clean: dict[str, JsonValue] = {k: v for k, v in attributes.items() if v is not None and v != []}
        self.entries.append(
            _record(
                LoreEntry,
                id=entity_id,
                entity_type=entity_type,
                name=name,
                attributes=clean,
                visibility=visibility,
                file=self.file,
                line=line,
                column=column,
            )
        )

    def refer(
        self,
        source: str,
        loc: Loc,
        field_name: str,
        target: str,
        expected: tuple[TargetType, ...],
    ) -> tuple[int, int]:
        """Note a reference to check once every id is known; return its position."""
        self.reference_checks.append((source, loc, field_name, target, expected))
        return self.v.pos(loc)

    def relate(
        self,
        relation: RelationType,
        source: str,
        target: str,
        field_name: str,
        declared_by: str,
        position: tuple[int, int],
        valid_from: WorldDate | None = None,
        valid_until: WorldDate | None = None,
    ) -> None:
        key = (
            (relation, target, source)
            if relation == "SPOUSE_OF" and target < source
            else (relation, source, target)
        )
        if key in self.relation_keys:
            return
        self.relation_keys.add(key)
        values = {
            "type": relation,
            "source_id": source,
            "target_id": target,
            "field": field_name,
            "visibility": "public",
            "valid_from": valid_from,
            "valid_until": valid_until,
            "file": self.file,
            "line": position[0],
            "column": position[1],
        }
        self.relations.append((values, declared_by))

    def link(
        self,
        entity_type: EntityType,
        field_name: str,
        owner: str,
        loc: Loc,
        target: str,
        *,
        valid_from: WorldDate | None = None,
        valid_until: WorldDate | None = None,
    ) -> None:
        """Record the edge `RELATION_FIELDS` assigns to this field, and check the reference."""
        spec = RELATION_FIELDS[(entity_type, field_name)]
        position = self.refer(owner, loc, field_name, target, spec.target_types)
        if target == owner:
            self.v.report(loc, f'{self.v.label(loc)} refers to "{owner}" itself')
            return
        source, dest = (owner, target) if spec.outgoing else (target, owner)
        self.relate(spec.relation, source, dest, field_name, owner, position, valid_from, valid_until)

    def link_fields(
        self, entity_type: EntityType, entry: LoreModel, loc: Loc, *, skip: tuple[str, ...] = ()
    ) -> None:
        """Record the edges of every reference field of `entry` that carries no dates."""
        for field_name in _linked_fields(entity_type, type(entry)):
            if field_name in skip:
                continue
            value = getattr(entry, field_name)
            owner = getattr(entry, "id")  # noqa: B009 - every linked entry has an id
            if isinstance(value, list):
                for index, target in enumerate(value):
                    self.link(entity_type, field_name, owner, (*loc, field_name, index), target)
            elif value is not None:
                self.link(entity_type, field_name, owner, (*loc, field_name), value)

    def date_text(self, date: WorldDate | None) -> str | None:
        """Return a date as text (None for none)."""
        if date is None:
            return None
        found = self.date_texts.get(id(date))
        if found is None:
            found = self.date_texts[id(date)] = (date, str(date))
        return found[1]

    def life(self, entity_id: str, event: LifeEventKind, date: WorldDate, loc: Loc) -> None:
        line, column = self.v.pos(loc)
        self.life_events.append(
            _record(
                LifeEvent,
                entity_id=entity_id,
                event=event,
                date=date,
                file=self.file,
                line=line,
                column=column,
            )
        )

    def check_date(self, owner: str, date: WorldDate | None, loc: Loc, field_name: str) -> None:
        if date is None or date.era is None:
            return
        self.refer(owner, loc, field_name, date.era, _ERA)
        reason = self.calendar.check(date)
        if reason is not None:
            self.v.report(loc, f"{self.v.label(loc)} is {date}, but {reason}")

    # -- per kind --

    def timeline(self, document: TimelineFile) -> None:
        eras = document.eras
        self.calendar = EraCalendar(
            {
                era.era: EraSpan(id=era.era, start=era.start, end=era.end, parent=era.parent_era)
                for era in eras
            }.values()
        )
        parents: dict[str, list[tuple[str, Loc]]] = {}
        by_id = {era.era: era for era in eras}
        for era in eras:
            loc = self.v.loc_of(era)
            attributes: dict[str, JsonValue] = {
                "start": era.start,
                "end": era.end,
                "description": era.description,
            }
            self.define(
                "Era",
                era.era,
                era.name or era.era,
                attributes,
                era.visibility or "public",
                loc,
            )
            if era.start is not None and era.end is not None and era.end < era.start:
                self.v.report((*loc, "end"), f'"end" ({era.end}) is before "start" ({era.start})')
            if era.start is not None:
                self.life(era.era, "era_start", WorldDate(era=era.era, year=era.start), (*loc, "start"))
            if era.end is not None:
                self.life(era.era, "era_end", WorldDate(era=era.era, year=era.end), (*loc, "end"))
            if era.parent_era is not None:
                parent_loc = (*loc, "parent_era")
                position = self.refer(era.era, parent_loc, "parent_era", era.parent_era, _ERA)
                if era.parent_era == era.era:
                    self.v.report(parent_loc, f'"parent_era" refers to "{era.era}" itself')
                else:
                    self.relate("SUB_ERA_OF", era.era, era.parent_era, "parent_era", era.era, position)
                    parents.setdefault(era.era, []).append((era.parent_era, parent_loc))
                parent = by_id.get(era.parent_era)
                if parent is not None:
                    self._check_sub_era(era, parent, loc)
        self._report_cycles(
            parents, lambda cycle: f'era "{cycle[0]}" would be inside itself: {" -> ".join(cycle)}'
        )
        for era in eras:
            for event in era.events:
                self._event(event, era, by_id)
        for event in document.events:
            self._event(event, None, by_id)

    def _check_sub_era(self, era: Era, parent: Era, loc: Loc) -> None:
        bounds = self.calendar.bounds(parent.era)
        if bounds is None:
            return
        start, end = bounds
        if era.start is not None and start is not None and era.start < start:
            self.v.report(
                (*loc, "start"),
                f'"start" ({era.start}) is before the start of its parent era {parent.era} ({start})',
            )
        if era.end is not None and end is not None and era.end > end:
            self.v.report(
                (*loc, "end"), f'"end" ({era.end}) is after the end of its parent era {parent.era} ({end})'
            )

    def _event(self, event: Event, enclosing: Era | None, eras: dict[str, Era]) -> None:
        loc = self.v.loc_of(event)
        visibility: Visibility = event.visibility or (enclosing.visibility if enclosing else None) or "public"
        path = event.era.split(".") if event.era else []
        era_loc = (*loc, "era")
        if enclosing is not None and path and enclosing.era not in path:
            self.v.report(
                era_loc, f'"era" is {event.era}, but this event is listed under era {enclosing.era}'
            )
        for outer, inner in itertools.pairwise(path):
            inner_era = eras.get(inner)
            if inner_era is not None and inner_era.parent_era != outer:
                self.v.report(
                    era_loc,
                    f'"era" is {event.era}, but era {inner} is not inside {outer} (its parent_era is '
                    f"{inner_era.parent_era or 'not set'})",
                )
        era_id = path[-1] if path else (enclosing.era if enclosing else None)
        date: WorldDate | None = None
        if era_id is None:
            self.v.report(loc, 'an event listed outside an era needs "era:" (the era it happened in)')
        else:
            date = self._event_date(event, era_id, path[:-1], loc)
        attributes: dict[str, JsonValue] = {
            "date": self.date_text(date),
            "in_fiction_date": event.in_fiction_date,
            "description": event.description,
            "significance": event.significance,
        }
        self.define("Event", event.id, event.name, attributes, visibility, loc)
        if era_id is not None:
            self.link("Event", "era", event.id, era_loc if path else loc, era_id, valid_from=date)
        if date is not None:
            self.life(event.id, "occurred", date, loc)
        if event.location is not None:
            self.link("Event", "location", event.id, (*loc, "location"), event.location, valid_from=date)
        for index, participant in enumerate(event.participants):
            self.link(
                "Event", "participants", event.id, (*loc, "participants", index), participant, valid_from=date
            )

    def _event_date(self, event: Event, era_id: str, outer_eras: list[str], loc: Loc) -> WorldDate | None:
        broken = False
        if event.month is not None and event.year is None:
            self.v.report((*loc, "month"), '"month" needs a "year"')
            broken = True
        if event.day is not None and event.month is None:
            self.v.report((*loc, "day"), '"day" needs a "month"')
            broken = True
        rules = self.v.rules
        if event.month is not None and event.month > rules.months_per_year:
            self.v.report(
                (*loc, "month"),
                f'"month" must be 1 to {rules.months_per_year} (the months of the calendar); got {event.month}',
            )
            broken = True
        if event.day is not None and event.day > rules.days_per_month:
            self.v.report((*loc, "day"), f'"day" must be 1 to {rules.days_per_month}; got {event.day}')
            broken = True
        if broken:
            return None
        date = WorldDate(era=era_id, year=event.year, month=event.month, day=event.day)
        # A path such as 3rd_age.age_of_iron also promises the year lies inside 3rd_age.
        for era in [era_id, *reversed(outer_eras)]:
            reason = self.calendar.check(date.model_copy(update={"era": era}))
            if reason is not None:
                self.v.report((*loc, "year"), f'"year": {reason}')
                break
        return date

    def family_tree(self, document: FamilyTreeFile) -> None:
        lineage = document.lineage
        lineage_visibility: Visibility = document.visibility or "public"
        attributes: dict[str, JsonValue] = {
            "description": document.description,
            "founding_ancestor": document.founding_ancestor,
        }
        name = document.name or lineage
        self.define("Lineage", lineage, name, attributes, lineage_visibility, ("lineage",))
        if document.founding_ancestor is not None:
            expected = REFERENCE_ONLY_FIELDS[("Lineage", "founding_ancestor")]
            self.refer(
                lineage, ("founding_ancestor",), "founding_ancestor", document.founding_ancestor, expected
            )
        people = {person.id: person for person in document.members}
        ancestry: dict[str, list[tuple[str, Loc]]] = {}
        for person in document.members:
            loc = self.v.loc_of(person)
            person_attributes: dict[str, JsonValue] = {
                "born": self.date_text(person.born),
                "died": self.date_text(person.died),
                "titles": list(person.titles),
                "description": person.description,
            }
            visibility = person.visibility or lineage_visibility
            self.define("Person", person.id, person.name, person_attributes, visibility, loc)
            self.link(
                "Person", "members", person.id, loc, lineage, valid_from=person.born, valid_until=person.died
            )
            for field_name, date in (("born", person.born), ("died", person.died)):
                if date is not None:
                    self.check_date(person.id, date, (*loc, field_name), field_name)
                    self.life(person.id, typing.cast(LifeEventKind, field_name), date, (*loc, field_name))
            if (
                person.born is not None
                and person.died is not None
                and self.calendar.compare(person.died, person.born) == "before"
            ):
                self.v.report((*loc, "died"), f'"died" ({person.died}) is before "born" ({person.born})')
            for index, parent in enumerate(person.parents):
                parent_loc = (*loc, "parents", index)
                parent_person = people.get(parent)
                until = parent_person.died if parent_person is not None else None
                self.link(
                    "Person",
                    "parents",
                    person.id,
                    parent_loc,
                    parent,
                    valid_from=person.born,
                    valid_until=until,
                )
                if parent != person.id:
                    ancestry.setdefault(person.id, []).append((parent, parent_loc))
            self.link_fields("Person", person, loc, skip=("parents",))
        self._report_cycles(
            ancestry,
            lambda cycle: (
                f'"{cycle[0]}" would be their own ancestor: {" -> ".join(cycle)} '
                "(each followed by one of their parents)"
            ),
        )

    def gazetteer(self, document: GazetteerFile) -> None:
        containment: dict[str, list[tuple[str, Loc]]] = {}
        for place in document.locations:
            loc = self.v.loc_of(place)
            attributes: dict[str, JsonValue] = {
                "type": place.type,
                "coordinates": place.coordinates.model_dump() if place.coordinates else None,
                "description": place.description,
            }
            self.define("Location", place.id, place.name, attributes, place.visibility or "public", loc)
            self.link_fields("Location", place, loc)
            if place.part_of is not None and place.part_of != place.id:
                containment.setdefault(place.id, []).append((place.part_of, (*loc, "part_of")))
        for region in document.regions:
            loc = self.v.loc_of(region)
            attributes = {"description": region.description}
            self.define("Region", region.id, region.name, attributes, region.visibility or "public", loc)
            self.link_fields("Region", region, loc)
            if region.parent_region is not None and region.parent_region != region.id:
                containment.setdefault(region.id, []).append((region.parent_region, (*loc, "parent_region")))
            for index, member in enumerate(region.contains):
                if member != region.id:
                    containment.setdefault(member, []).append((region.id, (*loc, "contains", index)))
        self._report_cycles(
            containment, lambda cycle: f'"{cycle[0]}" would be part of itself: {" -> ".join(cycle)}'
        )

    def bestiary(self, document: BestiaryFile) -> None:
        for creature in document.creatures:
            loc = self.v.loc_of(creature)
            attributes: dict[str, JsonValue] = {
                "species": creature.species,
                "alignment": creature.alignment,
                "first_appeared": self.date_text(creature.first_appeared),
                "description": creature.description,
            }
            visibility = creature.visibility or "public"
            self.define("Creature", creature.id, creature.name, attributes, visibility, loc)
            self.link_fields("Creature", creature, loc)
            if creature.first_appeared is not None:
                appeared_loc = (*loc, "first_appeared")
                self.check_date(creature.id, creature.first_appeared, appeared_loc, "first_appeared")
                self.life(creature.id, "first_appeared", creature.first_appeared, appeared_loc)

    def magic_system(self, document: MagicSystemFile) -> None:
        for system in document.systems:
            loc = self.v.loc_of(system)
            attributes: dict[str, JsonValue] = {"source": system.source, "description": system.description}
            self.define(
                "MagicSystem",
                system.id,
                system.name,
                attributes,
                system.visibility or "public",
                loc,
            )
            self.link_fields("MagicSystem", system, loc)
        for spell in document.spells:
            loc = self.v.loc_of(spell)
            attributes = {"level": spell.level, "school": spell.school, "description": spell.description}
            self.define("Spell", spell.id, spell.name, attributes, spell.visibility or "public", loc)
            self.link_fields("Spell", spell, loc)

    def culture(self, document: CultureFile) -> None:
        for culture in document.cultures:
            loc = self.v.loc_of(culture)
            attributes: dict[str, JsonValue] = {"description": culture.description}
            self.define(
                "Culture",
                culture.id,
                culture.name,
                attributes,
                culture.visibility or "public",
                loc,
            )
            self.link_fields("Culture", culture, loc)
        for language in document.languages:
            loc = self.v.loc_of(language)
            attributes = {"script": language.script, "description": language.description}
            self.define(
                "Language",
                language.id,
                language.name,
                attributes,
                language.visibility or "public",
                loc,
            )
            self.link_fields("Language", language, loc)
        for deity in document.deities:
            loc = self.v.loc_of(deity)
            attributes = {
                "domain": list(deity.domain),
                "alignment": deity.alignment,
                "symbol": deity.symbol,
                "description": deity.description,
            }
            self.define("Deity", deity.id, deity.name, attributes, deity.visibility or "public", loc)
            self.link_fields("Deity", deity, loc)

    # -- after every entry is known --

    def resolve(self) -> None:
        for source, loc, field_name, target, expected in self.reference_checks:
            defined = self.defined.get(target)
            if defined is not None:
                if expected and defined.type not in expected:
                    line, column = self.v.pos(defined.loc)
                    self.v.report(
                        loc,
                        f'{self.v.label(loc)} must refer to {_a(expected)}; "{target}" is the '
                        f"{defined.type} at line {line}",
                    )
                continue
            if target in self.v.failed_ids:
                continue
            line, column = self.v.pos(loc)
            self.unresolved.append(
                _record(
                    UnresolvedReference,
                    file=self.file,
                    line=line,
                    column=column,
                    source_id=source,
                    field=field_name,
                    target_id=target,
                    expected_types=expected,
                )
            )

    def final_relations(self) -> list[LoreRelation]:
        hidden = {key for key, defined in self.defined.items() if defined.visibility == "gm_only"}
        found: list[LoreRelation] = []
        for values, declared_by in self.relations:
            if hidden and (
                declared_by in hidden or values["source_id"] in hidden or values["target_id"] in hidden
            ):
                values["visibility"] = "gm_only"
            found.append(_from_values(LoreRelation, values))
        return found

    def _report_cycles(
        self, edges: dict[str, list[tuple[str, Loc]]], describe: typing.Callable[[list[str]], str]
    ) -> None:
        for cycle, loc in _find_cycles(edges):
            self.v.report(loc, describe(cycle))


RecordT = TypeVar("RecordT", bound=BaseModel)


def _record(cls: type[RecordT], **values: Any) -> RecordT:
    """Build a record from already-validated values, every field given: `model_construct` without its cost.

    A 10,000-person tree makes ~100,000 records; pydantic's `model_construct` alone would cost seconds.
    """
    return _from_values(cls, values)


_set_attribute = object.__setattr__
# The fields set of each frozen record model, shared by its records that give every field (nothing can add to
# it: the records are frozen, and `model_copy` copies it): one set per model instead of one per record.
_ALL_FIELDS: dict[type[BaseModel], set[str]] = {}


def _from_values(cls: type[RecordT], values: dict[str, Any]) -> RecordT:
    """Build a record from a dict of already-validated values (it becomes the record's own); see `_record`."""
    record = cls.__new__(cls)
    _set_attribute(record, "__dict__", values)
    fields = _ALL_FIELDS.get(cls)
    if fields is None:
        fields = set(cls.model_fields)
        if cls.model_config.get("frozen"):
            _ALL_FIELDS[cls] = fields
        else:  # pragma: no cover - every record model is frozen
            fields = set(values)
    if len(values) != len(fields):  # pragma: no cover - records give every field
        fields = set(values)
    _set_attribute(record, "__pydantic_fields_set__", fields)
    _set_attribute(record, "__pydantic_extra__", None)
    _set_attribute(record, "__pydantic_private__", None)
    return record


def _a(types_: tuple[str, ...]) -> str:
    words = " or ".join(types_)
    return ("an " if words[:1] in "AEIOU" else "a ") + words


def _find_cycles(edges: dict[str, list[tuple[str, Loc]]]) -> Iterator[tuple[list[str], Loc]]:
    """Yield each cycle once (as the ids along it, first repeated last) with the edge that closes it."""
    white, grey, black = 0, 1, 2
    colour: dict[str, int] = {}
    for start in edges:
        if colour.get(start, white) != white:
            continue
        colour[start] = grey
        path = [start]
        stack: list[Iterator[tuple[str, Loc]]] = [iter(edges.get(start, ()))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                colour[path.pop()] = black
                continue
            target, loc = step
            state = colour.get(target, white)
            if state == grey:
                cycle = [*path[path.index(target) :], target]
                yield cycle, loc
            elif state == white:
                colour[target] = grey
                path.append(target)
                stack.append(iter(edges.get(target, ())))


# --- the public API --------------------------------------------------------------------------------------------


def load_lore_file(
    source: pathlib.Path | str | bytes,
    filename: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kind: LoreKind | None = None,
    calendar_rules: CalendarRules = DEFAULT_RULES,
) -> LoadResult:
    """Load and validate one structured-lore file; return its document and records, or every problem.

    `source` is a `pathlib.Path` to read, `bytes` (must be UTF-8), or `str` holding the YAML text itself.
    `filename` names the file in problems (default: the path's name, or "<text>"). `kind` insists on a kind.
    """
    if filename is None:
        filename = source.name if isinstance(source, pathlib.Path) else "<text>"
    # A big file allocates hundreds of thousands of small objects and no cycles; the cyclic collector would
    # rescan them over and over (a third of the time on a 10,000-person tree), so it waits until the end.
    collecting = gc.isenabled()
    gc.disable()
    try:
        result = _load(source, filename, max_bytes, kind, calendar_rules, fast=True)
        if result.problems and _LIBYAML_LOADER is not None:
            # Problems are reported as ruamel.yaml reads the file (libyaml is more lenient in corners).
            result = _load(source, filename, max_bytes, kind, calendar_rules, fast=False)
        return result
    finally:
        if collecting:
            gc.enable()


def _load(
    source: pathlib.Path | str | bytes,
    filename: str,
    max_bytes: int,
    kind: LoreKind | None,
    calendar_rules: CalendarRules,
    *,
    fast: bool,
) -> LoadResult:
    problems = _Problems(filename)
    text = _read_source(source, max_bytes, problems)
    if text is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    tabs = _indentation_tabs(text)
    if not tabs:
        return _check_text(text, filename, problems, kind, calendar_rules, fast=fast)
    for line, column in tabs:
        problems.add(line, column, _TAB_INDENTATION)
    expanded = _expand_tabs(text, tabs, filename, fast=fast)
    if expanded is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    checked = _check_tree(expanded.root, filename, expanded.problems, kind, calendar_rules)
    _report_as_written(problems, checked.problems, expanded)
    unresolved = tuple(
        u.model_copy(update={"column": expanded.column(u.line, u.column)}) for u in checked.unresolved
    )
    return LoadResult(
        file=filename, kind=checked.kind, document=None, unresolved=unresolved, problems=problems.result()
    )


def _check_text(
    text: str,
    filename: str,
    problems: _Problems,
    kind: LoreKind | None,
    calendar_rules: CalendarRules,
    *,
    fast: bool,
) -> LoadResult:
    """Parse and validate text free of indentation tabs; see `load_lore_file`."""
    root = _build_tree(text, problems, fast=fast)
    if root is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    return _check_tree(root, filename, problems, kind, calendar_rules)


def _check_tree(
    root: _Node,
    filename: str,
    problems: _Problems,
    kind: LoreKind | None,
    calendar_rules: CalendarRules,
) -> LoadResult:
    """Validate a built tree (`problems` holds what building it reported); see `load_lore_file`."""
    validator = _Validator(problems, calendar_rules)
    detected, document = _validate_root(root, validator, kind)
    validator.report_duplicate_ids()
    normaliser = _Normaliser(validator, filename)
    if document is not None:
        _normalise(document, normaliser)
        normaliser.resolve()
    unresolved = tuple(sorted(normaliser.unresolved, key=lambda u: (u.line, u.column)))
    if problems.items or document is None:
        return LoadResult(
            file=filename,
            kind=detected,
            document=None,
            unresolved=unresolved,
            problems=problems.result(),
        )
    # Every record is already validated: construct, do not walk ~100,000 of them again.
    return LoadResult.model_construct(
        file=filename,
        kind=detected,
        document=document,
        entries=tuple(normaliser.entries),
        relations=tuple(normaliser.final_relations()),
        life_events=tuple(normaliser.life_events),
        unresolved=unresolved,
        problems=(),
    )


def _normalise(document: LoreDocument, normaliser: _Normaliser) -> None:
    if isinstance(document, TimelineFile):
        normaliser.timeline(document)
    elif isinstance(document, FamilyTreeFile):
        normaliser.family_tree(document)
    elif isinstance(document, GazetteerFile):
        normaliser.gazetteer(document)
    elif isinstance(document, BestiaryFile):
        normaliser.bestiary(document)
    elif isinstance(document, MagicSystemFile):
        normaliser.magic_system(document)
    else:
        normaliser.culture(document)


def parse_yaml_as(
    model: type[ModelT],
    text: str,
    filename: str = "<text>",
    *,
    calendar_rules: CalendarRules = DEFAULT_RULES,
) -> tuple[ModelT | None, tuple[LoreProblem, ...]]:
    """Read YAML text into any `LoreModel` under the same strict rules as lore files (no cross-entry checks).

    Useful for other strict YAML inputs and for testing the scalar rules on a small model.
    """
    instance, problems = _parse_as(model, text, filename, calendar_rules, fast=True)
    if problems and _LIBYAML_LOADER is not None:  # as ruamel.yaml reads it (see load_lore_file)
        instance, problems = _parse_as(model, text, filename, calendar_rules, fast=False)
    return instance, problems


def _parse_as(
    model: type[ModelT], text: str, filename: str, calendar_rules: CalendarRules, *, fast: bool
) -> tuple[ModelT | None, tuple[LoreProblem, ...]]:
    problems = _Problems(filename)
    tabs = _indentation_tabs(text)
    for line, column in tabs:
        problems.add(line, column, _TAB_INDENTATION)
    instance: ModelT | None = None
    if not tabs:
        root = _build_tree(text, problems, fast=fast)
        if root is not None:
            instance = _Validator(problems, calendar_rules).unit(root, model, (), "the document")
    else:
        expanded = _expand_tabs(text, tabs, filename, fast=fast)
        if expanded is not None:
            _Validator(expanded.problems, calendar_rules).unit(expanded.root, model, (), "the document")
            _report_as_written(problems, expanded.problems.result(), expanded)
    if problems.items:
        return None, problems.result()
    return instance, ()
