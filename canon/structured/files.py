"""The files of one ingest: read and validated strictly, each with the content hash it is remembered by."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from canon.calendar import DEFAULT_RULES, CalendarRules
from canon.campaign_calendar import CampaignCalendar
from canon.errors import InvalidInput
from canon.structured.loader import DEFAULT_MAX_BYTES, load_lore_file
from canon.structured.result import LoadResult
from canon.visibility import visibility_of


@dataclass(frozen=True)
class LoadedFile:
    """One file of an ingest: its name, content hash, and the loader's result (None: unchanged, not loaded)."""

    name: str
    content_hash: str
    result: LoadResult | None


#: The version of how a file is read into facts, hashed with its bytes: a new reading (`died: unknown` became the
#: state dead from an unknown date) makes a file imported before read again once, writing only the difference.
READING = b"lore facts 3\n"


def content_hash(data: bytes) -> str:
    """Return the content hash a file is remembered by (sha256, hex, of the reading's version and the bytes)."""
    return hashlib.sha256(READING + data).hexdigest()


# `source: name` at the top level (column 0), plain or quoted, with an optional comment after it.
_SOURCE = re.compile(rb"""^source:[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^#\n]*?))[ \t]*(?:#[^\n]*)?\r?$""", re.M)


def declared_source(data: bytes) -> str | None:
    """Return the name a YAML file declares it is known by (its top-level `source:` key), or None.

    A file is remembered by the name it declares, else by its path within the campaign (a Discord attachment:
    its file name): two files both called `characters.yaml` in different folders are two files, and a file
    moved to another folder but declaring the same `source:` is still the same one.
    """
    match = _SOURCE.search(data[:65536])
    if match is None:
        return None
    raw = next((g for g in match.groups() if g is not None), b"")
    try:
        text = raw.decode().strip()
    except UnicodeDecodeError:
        return None  # the loader reports the bytes
    return text[:200] or None


def remembered_names(
    files: Sequence[tuple[str, bytes]], remembered: Mapping[str, str]
) -> list[tuple[str, bytes]]:
    """Return the files with one given from another folder than before known by the name it was imported under:
    a file of a name the campaign does not remember whose content is, word for word, that of one file it does
    (`folk.yaml` given from its own folder, imported before as `world/folk.yaml`; a Discord attachment of a file
    imported from the command line) is that file, unchanged. `remembered`: content hashes by file name."""
    given = {name for name, _ in files}
    hashes = file_hashes(files)
    known: list[tuple[str, bytes]] = []
    for name, data in files:
        same = [k for k, digest in remembered.items() if digest == hashes[name]]
        if name not in remembered and len(same) == 1 and same[0] not in given:
            name = same[0]
            given.add(name)
        known.append((name, data))
    return known


def file_hashes(files: Sequence[tuple[str, bytes]]) -> dict[str, str]:
    """Return each file's content hash by name."""
    return {name: content_hash(data) for name, data in files}


def load_files(
    files: Sequence[tuple[str, bytes]],
    *,
    skip: Iterable[str] = (),
    calendar_rules: CalendarRules = DEFAULT_RULES,
    max_bytes: int = DEFAULT_MAX_BYTES,
    hidden: bool = False,
    hashes: Mapping[str, str] | None = None,
    calendar: CampaignCalendar | None = None,
) -> list[LoadedFile]:
    """Load and validate each file strictly (CPU-bound: run it in a worker thread for big files).

    Files named in `skip` are not loaded (their content is known unchanged). `hidden` makes every entry and
    relation GM-only, whatever the file says. `hashes`: the files' content hashes by name, when the caller
    has them already (`file_hashes`). `calendar`: the campaign's, for dates in its words.
    """
    skipped = set(skip)
    loaded: list[LoadedFile] = []
    seen: dict[str, int] = Counter()
    for name, data in files:
        seen[name] += 1
        digest = hashes.get(name) if hashes is not None else None
        if digest is None:
            digest = content_hash(data)
        if name in skipped:
            loaded.append(LoadedFile(name, digest, None))
            continue
        result = load_lore_file(
            data, name, max_bytes=max_bytes, calendar_rules=calendar_rules, calendar=calendar
        )
        if hidden and result.ok:
            result = _hide(result)
        loaded.append(LoadedFile(name, digest, result))
    doubles = [name for name, count in seen.items() if count > 1]
    if doubles:
        raise InvalidInput(
            f"Two files of one import share the name {', '.join(doubles)}; a file is remembered by its name, "
            "so rename one of them."
        )
    return loaded


def _hide(result: LoadResult) -> LoadResult:
    hidden = {"visibility": visibility_of(True).value}
    entries = tuple(e.model_copy(update=hidden) for e in result.entries)
    relations = tuple(r.model_copy(update=hidden) for r in result.relations)
    # Nothing of a hidden file reaches players: no field of it gives a truth away (`kinds.leaks`).
    return result.model_copy(update={"entries": entries, "relations": relations, "warnings": ()})
