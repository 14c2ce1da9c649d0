"""Ingest stage 1: every id the files define or use, found in the files, the campaign's other YAML files or canon.

An id a file uses must be defined in that file, in another file of the same import, by a YAML file imported
earlier into the campaign, or by an entity of the campaign's canon with that key; an entity made in play has no
key, but an id still finds it when it spells its name or an alias (`crimson_pact`: "The Crimson Pact"). Anything
else is an error at the line of the reference: an id defined nowhere or by two files, a reference to the wrong
type, an id this import removes while another entry still uses it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import or_, select

from canon.graph import fold, lineage_filter
from canon.structured.files import LoadedFile
from canon.structured.records import LoreEntry
from canon.structured.schemas import house_hint
from canon.structured.state import IngestState
from canon.structured.versions import CHUNK
from canon.tables import AliasRow, EntityRow


@dataclass(slots=True)
class Known:
    """An id the files may refer to: its entity (None: defined by this import), type, and where it is defined."""

    entity_id: int | None
    type: str
    where: str


@dataclass
class Index:
    """What the files define and use, and where each id they use is defined.

    - `defined`: the entries of the changed files, by id;
    - `owned`: ids the campaign's other YAML files define (their file and record entry), `owned_entities`: the
      entities of every YAML file's entries;
    - `old_entries`: what the changed files defined before, by id;
    - `canon_keys`: standing entities of canon with a key a file uses or defines anew (rows);
    - `known`: every id a file may refer to.
    """

    defined: dict[str, tuple[LoadedFile, LoreEntry]] = field(default_factory=dict)
    owned: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    owned_entities: set[int] = field(default_factory=set)
    old_entries: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    canon_keys: dict[str, Any] = field(default_factory=dict)
    known: dict[str, Known] = field(default_factory=dict)


async def build_index(state: IngestState) -> Index:
    """Find every id the files define or use: in the files, the campaign's other YAML files, or canon."""
    index = Index()
    _defined(state, index)
    _owned(state, index)
    # Keys to look up in canon: referenced ids no file defines, and defined ids no record knows.
    referenced = {
        u.target_id
        for f in state.changed
        for u in (f.result.unresolved if f.result is not None else ())
        if u.target_id not in index.defined and u.target_id not in index.owned
    }
    fresh = {k for k in index.defined if k not in index.old_entries}
    # Ids this import removes from their file are defined nowhere any more (their entities are retconned).
    leaving = {k: file for k, (file, _) in index.old_entries.items() if k not in index.defined}
    referenced -= set(leaving)
    # The names a text field ties to (`canon.structured.ties`): looked up as references, never refused.
    tied = {t.target_id for f in state.changed if f.result is not None for t in f.result.ties}
    tied -= set(index.defined) | set(index.owned)
    index.canon_keys = await _entities_by_key(state, referenced | fresh | tied)
    for key, (loaded, entry) in index.defined.items():
        index.known[key] = Known(None, entry.entity_type, f"{loaded.name} at line {entry.line}")
    for key, (file, info) in index.owned.items():
        index.known[key] = Known(
            int(info["e"]), str(info.get("t", "")), f"{file} (line {info.get('l', '?')})"
        )
    for key, row in index.canon_keys.items():
        index.known.setdefault(key, Known(row.id, row.type, f"the campaign's canon (entity #{row.id})"))
    by_name = await _entities_named_like(state, (referenced | tied) - set(index.known))
    for key, rows in by_name.items():
        if len(rows) == 1:
            row = rows[0]
            index.known[key] = Known(row.id, row.type, f"the campaign's canon (“{row.name}”, #{row.id})")
    missing = referenced - set(index.known) - set(leaving)
    named = await _canon_names(state) if missing else []
    _check_references(state, index, by_name, leaving, named)
    return index


async def _canon_names(state: IngestState) -> list[tuple[str, str]]:
    """Return the name and type of each standing entity of canon, for a reference that names none of them."""
    table = EntityRow.__table__
    query = select(table.c.id, table.c.name, table.c.type).where(lineage_filter(table.c, state.steps))
    rows = list((await state.session.execute(query)).all())
    retconned = await state.retconned("entity", [r.id for r in rows])
    return [(r.name, r.type) for r in rows if r.id not in retconned]


def _defined(state: IngestState, index: Index) -> None:
    """Collect the entries of the changed files; an id defined by two of them is an error."""
    for loaded in state.changed:
        assert loaded.result is not None
        for entry in loaded.result.entries:
            first = index.defined.get(entry.id)
            if first is not None:
                state.error(
                    loaded.name,
                    entry.line,
                    entry.column,
                    f'"{entry.id}" is already defined in {first[0].name} at line {first[1].line}; an id '
                    f"is defined in one file only{house_hint(first[1].entity_type, entry.entity_type)}",
                )
                continue
            index.defined[entry.id] = (loaded, entry)


def _owned(state: IngestState, index: Index) -> None:
    """Collect the ids the campaign's other YAML files define, and what the changed files defined before."""
    for version in state.versions.values():
        for key, info in version.entries.items():
            index.owned_entities.add(int(info["e"]))
            if version.file in state.changed_names:
                continue
            index.owned[key] = (version.file, info)
            if key in index.defined:
                loaded, entry = index.defined[key]
                state.error(
                    loaded.name,
                    entry.line,
                    entry.column,
                    f'"{key}" is already defined in {version.file} (line {info.get("l", "?")}), imported '
                    "earlier; an id is defined in one file only (if this is that file, changed, import it under "
                    f"that name: from the folder it was imported from, or with a line `source: {version.file}`)",
                )
    for name in state.changed_names:
        previous = state.versions.get(name)
        if previous is not None:
            for key, info in previous.entries.items():
                index.old_entries[key] = (name, info)


def _check_references(
    state: IngestState,
    index: Index,
    by_name: dict[str, list[Any]],
    leaving: dict[str, str],
    named: list[tuple[str, str]],
) -> None:
    """Report each reference the files could not resolve: to nothing (with the closest name of the import or of
    canon that fits, `named`), to several entities, or the wrong type."""
    fitting: dict[tuple[str, tuple[str, ...]], bool] = {}

    def fits(type_name: str, expected: tuple[str, ...]) -> bool:
        # Answered once per question: the thousands of dates of a big tree all ask it about one era.
        key = (type_name, expected)
        found = fitting.get(key)
        if found is None:
            found = fitting[key] = state.ontology.is_a(type_name, expected)
        return found

    names = {e.id: e.name for f in state.changed if f.result is not None for e in f.result.entries}

    def said(u: Any) -> tuple[str, str]:
        """Return the field's owner and the reference in words: "Mira Vyr", "“Tobin”"."""
        return names.get(u.source_id, f"“{u.source_id}”"), f"“{_spelled(u.target_id)}”"

    def known_like(expected: tuple[str, ...], written: str) -> str:
        """Return, in the import's own names, what could be named instead: "; its Persons: Ser Aldric ..."."""
        fitting = [
            e.name
            for f in state.changed
            if f.result is not None
            for e in f.result.entries
            if not expected or fits(e.entity_type, expected)
        ]
        in_canon = [name for name, type_name in named if not expected or fits(type_name, expected)]
        close = difflib.get_close_matches(
            _spelled(written.strip('“”"')), [*fitting, *in_canon], n=1, cutoff=0.6
        )
        if close:
            return f' (did you mean "{close[0]}"?)'
        if not fitting:
            return ""
        shown = ", ".join(fitting[:3]) + (" ..." if len(fitting) > 3 else "")
        return f"; this import names {shown}"

    for loaded in state.changed:
        assert loaded.result is not None
        for u in loaded.result.unresolved:
            owner, written = said(u)
            target = index.known.get(u.target_id)
            if target is None and len(by_name.get(u.target_id, ())) > 1:
                listed = ", ".join(f"{r.name} ({r.type} #{r.id})" for r in by_name[u.target_id][:5])
                message = (
                    f"{_field_said(u.field)} of {owner} names {written}, which could be several entities of the "
                    f"campaign's canon: {listed}"
                )
            elif target is None and u.target_id in leaving:
                message = (
                    f"{_field_said(u.field)} of {owner} names {written}, which this import removes from "
                    f"{leaving[u.target_id]}"
                )
            elif target is None:
                kinds = " or ".join(u.expected_types) or "entity"
                message = (
                    f"{_field_said(u.field)} of {owner} names {written}, which is no entry of this file, of the other "
                    f"files of this import, or of the campaign's canon (expected {article(kinds)} {kinds})"
                    f"{known_like(u.expected_types, written)}{_lineage_hint(u.field, written)}"
                )
            elif u.expected_types and not fits(target.type, u.expected_types):
                message = (
                    f"{_field_said(u.field)} of {owner} must name {article(u.expected_types[0])} "
                    f"{' or '.join(u.expected_types)}; {written} is the {target.type} of {target.where}"
                )
            else:
                continue
            state.error(u.file, u.line, u.column, message)


def _field_said(field: str) -> str:
    """Return how an error names the field a reference is written in: "born_in" as itself, quoted; a tie by its
    word, as the file writes ties ("the "apprentice" tie", never the "ties:apprentice" it is kept as)."""
    kind, tie, word = field.partition(":")
    if kind == "ties" and tie:
        return f'the "{word.replace("_", " ")}" tie'
    return f'"{field}"'


def _lineage_hint(field: str, written: str) -> str:
    """Say how a member's own lineage comes to be when nothing defines it: a family tree of its own."""
    if field != "lineage":
        return ""
    name = written.strip("“”")
    return (
        f"; give {written} a family tree of its own (it may be a part of this file after a line `---`: "
        f"`name: {name}` and `members: []`), or write `lineage: null` for none"
    )


async def _entities_by_key(state: IngestState, keys: set[str]) -> dict[str, Any]:
    """Return the standing entities (visible through the lineage) with these keys, by key."""
    found: dict[str, Any] = {}
    key_list = sorted(keys)
    table = EntityRow.__table__
    for start in range(0, len(key_list), CHUNK):
        chunk = key_list[start : start + CHUNK]
        query = select(table).where(table.c.key.in_(chunk), lineage_filter(table.c, state.steps))
        rows = list((await state.session.execute(query)).all())
        retconned = await state.retconned("entity", [r.id for r in rows])
        for row in sorted(rows, key=lambda r: r.id):
            if row.id not in retconned:
                found[row.key] = row
    return found


async def _entities_named_like(state: IngestState, keys: set[str]) -> dict[str, list[Any]]:
    """Return standing entities whose name or alias is what a key spells (`crimson_pact`: Crimson Pact).

    Entities made in play or with `/canon add` have no key; a YAML file may still name them by id.
    "The" in front of the name counts too (`crimson_pact`: The Crimson Pact).
    """
    spelled: dict[str, str] = {}
    for key in keys:
        words = fold(key.replace("_", " ").replace("-", " "))
        spelled[words] = key
        spelled[f"the {words}"] = key
    if not spelled:
        return {}
    table = EntityRow.__table__
    aliases = AliasRow.__table__
    found: dict[str, dict[int, Any]] = {}
    names = sorted(spelled)
    for start in range(0, len(names), CHUNK):
        chunk = names[start : start + CHUNK]
        by_alias = select(aliases.c.entity_id, aliases.c.alias_folded).where(
            aliases.c.alias_folded.in_(chunk), lineage_filter(aliases.c, state.steps)
        )
        alias_of = {entity_id: folded for entity_id, folded in (await state.session.execute(by_alias)).all()}
        query = select(table).where(
            or_(table.c.name_folded.in_(chunk), table.c.id.in_(list(alias_of))),
            lineage_filter(table.c, state.steps),
        )
        rows = list((await state.session.execute(query)).all())
        retconned = await state.retconned("entity", [r.id for r in rows])
        for row in rows:
            if row.id in retconned:
                continue
            folded = row.name_folded if row.name_folded in spelled else alias_of.get(row.id)
            if folded in spelled:
                found.setdefault(spelled[folded], {})[row.id] = row
    return {key: sorted(rows.values(), key=lambda r: r.id) for key, rows in found.items()}


def article(word: str) -> str:
    """Return "an" before a word starting with a vowel's capital, else "a"."""
    return "an" if word[:1] in "AEIOU" else "a"


def _spelled(key: str) -> str:
    """Return an id as the name it spells: `ser_aldric` reads "Ser Aldric"."""
    return " ".join(word[:1].upper() + word[1:] for word in key.replace("-", " ").replace("_", " ").split())
