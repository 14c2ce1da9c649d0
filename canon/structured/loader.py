"""Load one structured-lore YAML file strictly: a validated document and normalised records, or every problem.

`load_lore_file` reads in one pass, collecting every problem it can find (it does not stop at the first), by
stage:

1. `source`: the bytes (refused unread when too large), decoded as UTF-8.
2. `tabs`: tabs used for indentation, reported per line; the rest of the file is still read.
3. `tree`: YAML events become a positioned tree per YAML document (libyaml's C parser, ruamel.yaml's for its
   messages), with anchors, aliases, tags, duplicate keys, complex keys and deep nesting refused.
4. `root`: each document's kind (`kind:` or its top-level keys), and its top level read as that kind's
   document. A file may hold several documents (`---` between them), of one kind or several: they are one
   file's entries (one namespace of ids; a reference finds an entry of any of them).
5. `validate`: each entry checked on its own against its model, every scalar read by its field's kind.
6. `normalise` and the kind's own module (`kinds`): cross-entry checks (duplicate ids, wrong-type
   references, self references, cycles, dates against eras, death before birth ...) and the records:
   `LoreEntry` per entity, `LoreRelation` per edge, `LifeEvent` per dated moment, `UnresolvedReference`
   per id the file uses without defining it (not an error: the caller resolves it against canon).

Records come back only when there is no problem. The loader is synchronous and CPU-bound (a 10,000-person tree
takes about a second): callers run big files off the event loop.
"""

from __future__ import annotations

import gc
import pathlib
from typing import TypeVar

from canon.calendar import DEFAULT_RULES, CalendarRules
from canon.campaign_calendar import CampaignCalendar
from canon.structured import tree
from canon.structured.file_checks import first_name, report_duplicate_ids
from canon.structured.kinds import IDENTITIES, KINDS, RELATION_FIELDS, LoreDocument, LoreKind
from canon.structured.normalise import Normaliser
from canon.structured.problems import Problems
from canon.structured.records import LoreProblem
from canon.structured.result import LoadResult
from canon.structured.root import read_root
from canon.structured.scalars import NULLS
from canon.structured.schemas import LoreModel
from canon.structured.source import DEFAULT_MAX_BYTES, read_source
from canon.structured.tabs import TAB_INDENTATION, expand_tabs, indentation_tabs, report_as_written
from canon.structured.tree import Map, Node, Scalar, build_documents, build_tree
from canon.structured.validate import Validator

__all__ = ["DEFAULT_MAX_BYTES", "load_lore_file", "parse_yaml_as"]

ModelT = TypeVar("ModelT", bound=LoreModel)


def load_lore_file(
    source: pathlib.Path | str | bytes,
    filename: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    kind: LoreKind | None = None,
    calendar_rules: CalendarRules = DEFAULT_RULES,
    calendar: CampaignCalendar | None = None,
) -> LoadResult:
    """Load and validate one structured-lore file; return its document and records, or every problem.

    `source` is a `pathlib.Path` to read, `bytes` (must be UTF-8), or `str` holding the YAML text itself.
    `filename` names the file in problems (default: the path's name, or "<text>"). `kind` insists on a kind.
    `calendar`, the campaign's, lets dates be written in its words ("3 Frostmoot 363 TA").
    """
    if filename is None:
        filename = source.name if isinstance(source, pathlib.Path) else "<text>"
    # A big file allocates hundreds of thousands of small objects and no cycles; the cyclic collector would
    # rescan them over and over (a third of the time on a 10,000-person tree), so it waits until the end.
    collecting = gc.isenabled()
    gc.disable()
    try:
        result = _load(source, filename, max_bytes, kind, calendar_rules, calendar, fast=True)
        if result.problems and tree.LIBYAML_LOADER is not None:
            # Problems are reported as ruamel.yaml reads the file (libyaml is more lenient in corners).
            result = _load(source, filename, max_bytes, kind, calendar_rules, calendar, fast=False)
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
    calendar: CampaignCalendar | None,
    *,
    fast: bool,
) -> LoadResult:
    problems = Problems(filename)
    text = read_source(source, max_bytes, problems)
    if text is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    tabs = indentation_tabs(text)
    if not tabs:
        return _check_text(text, filename, problems, kind, calendar_rules, calendar, fast=fast)
    for line, column in tabs:
        problems.add(line, column, TAB_INDENTATION)
    expanded = expand_tabs(text, tabs, filename, fast=fast, several=True)
    if expanded is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    checked = _check_documents(expanded.roots, filename, expanded.problems, kind, calendar_rules, calendar)
    report_as_written(problems, checked.problems, expanded)
    unresolved = tuple(
        u.model_copy(update={"column": expanded.column(u.line, u.column)}) for u in checked.unresolved
    )
    return LoadResult(
        file=filename, kind=checked.kind, document=None, unresolved=unresolved, problems=problems.result()
    )


def _check_text(
    text: str,
    filename: str,
    problems: Problems,
    kind: LoreKind | None,
    calendar_rules: CalendarRules,
    calendar: CampaignCalendar | None,
    *,
    fast: bool,
) -> LoadResult:
    """Parse and validate text free of indentation tabs; see `load_lore_file`."""
    roots = build_documents(text, problems, fast=fast)
    if roots is None:
        return LoadResult(file=filename, kind=None, document=None, problems=problems.result())
    return _check_documents(roots, filename, problems, kind, calendar_rules, calendar)


def _check_documents(
    roots: list[Node],
    filename: str,
    problems: Problems,
    kind: LoreKind | None,
    calendar_rules: CalendarRules,
    calendar: CampaignCalendar | None = None,
) -> LoadResult:
    """Validate the built trees of a file's documents (`problems` holds what building them reported), as one
    file's entries; see `load_lore_file`."""
    roots = _lore_documents(roots, problems)
    example = next((name for name in map(first_name, roots) if name), None)
    validators: list[Validator] = []
    read: list[tuple[Validator, LoreKind, LoreDocument]] = []
    for root in roots:
        validator = Validator(problems, calendar_rules, IDENTITIES, calendar)
        validator.example_name = first_name(root) or example
        validators.append(validator)
        detected, document = read_root(root, validator, kind)
        if detected is not None and document is not None:
            read.append((validator, detected, document))
    report_duplicate_ids(validators)
    normaliser = Normaliser(validators[0], filename, RELATION_FIELDS)
    # Eras first, whichever document defines them: the other documents' dates are checked against them.
    for validator, detected, document in sorted(read, key=lambda r: r[1] != "timeline"):
        normaliser.use(validator)
        KINDS[detected].normalise(normaliser, document)
    if read:
        normaliser.resolve()
    unresolved = tuple(sorted(normaliser.unresolved, key=lambda u: (u.line, u.column)))
    kinds = tuple(dict.fromkeys(detected for _, detected, _ in read))
    first = kinds[0] if kinds else None
    if problems.items or len(read) < len(roots):
        return LoadResult(
            file=filename,
            kind=first,
            kinds=kinds,
            document=None,
            unresolved=unresolved,
            problems=problems.result(),
        )
    # Every record is already validated: construct, do not walk ~100,000 of them again.
    return LoadResult.model_construct(
        file=filename,
        kind=first,
        kinds=kinds,
        document=read[0][2],
        documents=tuple(document for _, _, document in read),
        entries=tuple(normaliser.entries),
        relations=tuple(normaliser.final_relations()),
        life_events=tuple(normaliser.life_events),
        players=tuple(normaliser.players),
        unresolved=unresolved,
        ties=tuple(normaliser.ties),
        problems=(),
        warnings=tuple(sorted(normaliser.warnings, key=lambda w: (w.line, w.column))),
    )


def _lore_documents(roots: list[Node], problems: Problems) -> list[Node]:
    """Return the file's documents that hold something (an empty one, as a `---` at the very end makes, is
    none: a file of nothing but empty documents is one, reported empty); report a second `source:`."""
    held = [root for root in roots if not (isinstance(root, Scalar) and root.plain and root.value in NULLS)]
    sources = [
        key for root in held if isinstance(root, Map) for key, _ in root.pairs if key.value == "source"
    ]
    for key in sources[1:]:
        problems.add(
            key.line,
            key.column,
            f'"source" is given again: a file has one name, given once (at line {sources[0].line}); remove this '
            "one",
        )
    return held or roots[:1]


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
    if problems and tree.LIBYAML_LOADER is not None:  # as ruamel.yaml reads it (see load_lore_file)
        instance, problems = _parse_as(model, text, filename, calendar_rules, fast=False)
    return instance, problems


def _parse_as(
    model: type[ModelT], text: str, filename: str, calendar_rules: CalendarRules, *, fast: bool
) -> tuple[ModelT | None, tuple[LoreProblem, ...]]:
    problems = Problems(filename)
    tabs = indentation_tabs(text)
    for line, column in tabs:
        problems.add(line, column, TAB_INDENTATION)
    instance: ModelT | None = None
    if not tabs:
        root = build_tree(text, problems, fast=fast)
        if root is not None:
            instance = Validator(problems, calendar_rules).unit(root, model, (), "the document")
    else:
        expanded = expand_tabs(text, tabs, filename, fast=fast)
        if expanded is not None:
            Validator(expanded.problems, calendar_rules).unit(expanded.roots[0], model, (), "the document")
            report_as_written(problems, expanded.problems.result(), expanded)
    if problems.items:
        return None, problems.result()
    return instance, ()
