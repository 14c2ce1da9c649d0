"""What an ingest reports: per file, counts of what it created, changed and kept, the warnings, or the errors."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from canon.structured.records import LoreProblem
from canon.wording.counts import counted, listed, plural_of
from canon.wording.findings import kind_words
from canon.wording.proposals import type_words

if TYPE_CHECKING:
    from canon.structured.files import LoadedFile
    from canon.structured.state import IngestState
    from canon.structured.versions import FileVersion


class ChangeCounts(BaseModel):
    """How many entities or statements an ingest created, changed, kept, carried over and retconned.

    `superseded`: facts of prose or play a YAML fact contradicted and prevailed over (kept, retconned).
    """

    model_config = ConfigDict(frozen=True)

    created: int = 0
    changed: int = 0
    unchanged: int = 0
    retconned: int = 0
    adopted: int = 0
    carried_over: int = 0
    shared: int = 0
    superseded: int = 0


class IngestWarning(BaseModel):
    """A continuity finding about the ingested facts: kind, sentence, the facts on each side.

    `superseded_ids`: the facts of lower authority this ingest superseded by the prevailing YAML fact.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    message: str
    sides: tuple[str, ...] = ()
    statement_ids: tuple[int, ...] = ()
    entity_ids: tuple[int, ...] = ()
    prevailing_id: int | None = None
    superseded_ids: tuple[int, ...] = ()
    new: bool = True


FileStatus = Literal["created", "updated", "unchanged", "failed"]
_FILE_STATUS: dict[str, str] = {
    "created": "a new file",
    "updated": "changed since it was imported",
    "unchanged": "unchanged",
    "failed": "not imported",
}


class FileReport(BaseModel):
    """What became of one file: its kind, whether it changed, and its entries by entity type."""

    model_config = ConfigDict(frozen=True)

    file: str
    kind: str | None
    status: FileStatus
    content_hash: str
    entries: int = 0
    counts: dict[str, int] = {}


class IngestReport(BaseModel):
    """The outcome of one ingest: per file, counts, warnings, or the errors (and then nothing was written)."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    # `confirm`: the import would replace files imported before and retcon what they said; nothing was
    # written, the counts say what it would do (`replaced_files`, `retconned_entities`).
    status: Literal["ingested", "unchanged", "failed", "confirm"]
    changeset_id: int | None = None
    files: tuple[FileReport, ...] = ()
    counts: dict[str, int] = {}
    entities: ChangeCounts = ChangeCounts()
    statements: ChangeCounts = ChangeCounts()
    warnings: tuple[IngestWarning, ...] = ()
    errors: tuple[LoreProblem, ...] = ()
    error: str | None = None
    seconds: float = 0.0
    #: Files of this import that replace an earlier import of the same name (their old content retconned
    #: where the new one no longer says it), and the entities the import retcons (by name).
    replaced_files: tuple[str, ...] = ()
    retconned_entities: tuple[str, ...] = ()
    #: What each file imported before and changed now changed, a sentence each, by name.
    changes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Tell whether the files were ingested (or were already, unchanged)."""
        return self.status != "failed"

    def written(self) -> str:
        """Return what the import wrote (or would write), by entity type: "6 places and 12 people from 2 YAML files"."""
        return f"{listed(kinds_in_words(self.counts)) or 'no entries'} from {counted(len(self.files), 'YAML file')}"

    def headline(self) -> str:
        """Return what the import did in one clause: "wrote 6 places from 2 YAML files", or for files imported
        again "changed 3 facts of house.yaml and left chronicle.yaml and folk.yaml unchanged"."""
        new = [f for f in self.files if f.status == "created"]
        if len(new) == len(self.files):
            return f"wrote {self.written()}"
        updated = [f.file for f in self.files if f.status == "updated"]
        same = [f.file for f in self.files if f.status == "unchanged"]
        s = self.statements
        parts: list[str] = []
        if new:
            kinds: Counter[str] = Counter()
            for f in new:
                kinds.update(f.counts)
            parts.append(f"wrote {listed(kinds_in_words(kinds))} from {listed([f.file for f in new])}")
        if updated:
            gone = s.retconned - s.changed
            e = self.entities
            did = [
                *([f"{counted(s.changed, 'fact')} changed"] if s.changed else []),
                *([f"{counted(e.created, 'entry', 'entries')} added"] if e.created and not new else []),
                *([f"{counted(s.created, 'fact')} added"] if s.created and not new else []),
                *([f"{counted(e.retconned, 'entry', 'entries')} retconned"] if e.retconned else []),
                *([f"{counted(gone, 'fact')} no longer said, retconned"] if gone > 0 else []),
            ]
            parts.append(f"changed {listed(updated)} ({listed(did) or 'the same facts'})")
        if same:
            parts.append(f"left {listed(same)} unchanged")
        return listed(parts)

    def retcon_text(self) -> str:
        """Return what replacing the earlier files retcons, as sentences (empty when nothing)."""
        e, s = self.entities, self.statements
        if not (e.retconned or e.changed or s.retconned or s.changed):
            return ""
        named = listed(list(self.retconned_entities[:10]))
        more = len(self.retconned_entities) - 10
        said = list(self.changes)
        if e.retconned:
            gone = f" ({named}{f' and {more} more' if more > 0 else ''})" if named else ""
            them = "it" if e.retconned == 1 else "them"
            said.append(
                f"It retcons {counted(e.retconned, 'entry', 'entries')}{gone}: no file says {them} any more."
            )
        if e.changed:
            said.append(
                f"{counted(e.changed, 'entry', 'entries')} whose name, kind or visibility changed "
                f"{'is' if e.changed == 1 else 'are'} replaced by a new one, which keeps what was said of it."
            )
        if not said:
            said.append(
                f"It changes {counted(s.changed, 'fact')} and retcons {counted(s.retconned, 'fact')}."
            )
        return " ".join(said)

    def changes_text(self) -> str:
        """Return how many entities and facts the import made, changed or retconned, zeros left out."""
        e, s = self.entities, self.statements
        entities = _changes(e.created, e.changed, e.adopted, e.unchanged, e.retconned)
        facts = _changes(s.created, s.changed, 0, s.unchanged, s.retconned)
        said = [
            f"{counted(e.created + e.changed + e.adopted + e.unchanged, 'entity')} ({entities})"
            if entities
            else "",
            f"{counted(s.created + s.changed + s.unchanged, 'fact')} ({facts})" if facts else "",
        ]
        text = (
            f"In all: {listed([part for part in said if part])}." if any(said) else "Nothing new was written."
        )
        if s.carried_over:
            text += f" {counted(s.carried_over, 'fact')} of replaced entries moved to what replaced them."
        if s.superseded:
            text += f" {counted(s.superseded, 'fact')} of prose or play superseded by the YAML."
        return text

    def summary(self) -> str:
        """Return the report as lines for a person: what was written, the warnings, or the errors."""
        names = ", ".join(f.file for f in self.files) or "no file"
        if self.status == "confirm":
            replaced = ", ".join(self.replaced_files)
            return (
                f"Nothing was written yet: {replaced} replaces the file of that name imported before. "
                f"{self.retcon_text()} Confirm to replace it."
            )
        if self.status == "failed":
            bad = sorted({e.file for e in self.errors})
            where = ", ".join(bad) or names
            either = not_imported_either(bad, [f.file for f in self.files])
            lines = [f"Nothing was written: {counted(len(self.errors), 'problem')} in {where}.{either}"]
            lines += [str(e) for e in self.errors]
            return "\n".join(lines)
        kinds = listed(kinds_in_words(self.counts)) or "no entries"
        if self.status == "unchanged":
            return "\n".join(
                [f"{names}: unchanged ({kinds}); nothing new was written.", *self.warning_lines()]
            )
        again = [f.file for f in self.files if f.status != "created"]
        if again:
            same = [f.file for f in self.files if f.status == "unchanged"]
            created = [f.file for f in self.files if f.status == "created"]
            lines = [
                *([f"Imported {listed(created)} for the first time."] if created else []),
                *self.changes,
                *([f"{listed(same)} {'is' if len(same) == 1 else 'are'} unchanged."] if same else []),
                self.changes_text(),
            ]
        else:
            lines = [f"Imported {names}: {kinds}.", self.changes_text()]
        for f in self.files:
            kind = (f.kind or "world file").replace("_", " ")
            lines.append(f"  {f.file} ({kind}): {counted(f.entries, 'entry')}, {_FILE_STATUS[f.status]}")
        return "\n".join([*lines, *self.warning_lines()])

    def warning_lines(self) -> list[str]:
        """Return the warnings as lines, or "No warnings." (the checks ran, and found nothing)."""
        if not self.warnings:
            return ["No warnings."]
        return [
            f"{counted(len(self.warnings), 'warning')}:",
            *(f"  ! {kind_words(w.kind)}: {w.message}" for w in self.warnings),
        ]


def _changes(new: int, replaced: int, adopted: int, unchanged: int, retconned: int) -> str:
    parts = [
        (new, "new"),
        (replaced, "replaced"),
        (adopted, "already known from play"),
        (unchanged, "unchanged"),
    ]
    said = [f"{n:,} {what}" for n, what in [*parts, (retconned, "retconned")] if n]
    return "all new" if said == [f"{new:,} new"] else ", ".join(said)


#: An entity type as a person counts it ("6 places", "12 people"); other types read as their own name.
_NOUNS = {"Location": "place", "Person": "person", "NPC": "person", "PC": "person"}


def kinds_of(kinds: Sequence[str]) -> str | None:
    """Return a file's kinds as its report names them: one, or several (a file of several YAML documents)."""
    return ", ".join(kinds) or None


def kinds_in_words(counts: Mapping[str, int]) -> list[str]:
    """Return counts by entity type as a person says them: ["2 eras", "6 places", "12 people"]."""
    merged: dict[str, int] = {}
    for kind, n in sorted(counts.items()):
        words = type_words(kind)
        noun = _NOUNS.get(kind) or (words if words.isupper() else words.lower())
        merged[noun] = merged.get(noun, 0) + n
    return [
        counted(n, noun, plural_of(noun) if not noun.isupper() else noun + "s") for noun, n in merged.items()
    ]


def not_imported_either(bad: Sequence[str], files: Sequence[str]) -> str:
    """Return the sentence saying which files of a failed import had no problem and were not imported either
    (empty when every file had one)."""
    others = [name for name in files if name not in bad]
    if not others:
        return ""
    if len(others) == 1:
        return f" The other file of this import, {others[0]}, was not imported either."
    return f" The other files of this import ({listed(others)}) were not imported either."


def failed_report(
    campaign_id: int,
    files: Sequence[LoadedFile],
    versions: Mapping[str, FileVersion],
    errors: Sequence[LoreProblem],
    started: float,
) -> IngestReport:
    """Return the report of an ingest that wrote nothing: every error, sorted by file and position."""
    ordered = tuple(sorted(errors, key=lambda p: (p.file, p.line, p.column)))
    bad = sorted({p.file for p in ordered})
    # Every file of the import is left out, not only those with problems: an import is all or nothing.
    failed: dict[str, FileStatus] = {f.name: "failed" for f in files}
    either = not_imported_either(bad, [f.name for f in files])
    return IngestReport(
        campaign_id=campaign_id,
        status="failed",
        files=tuple(_file_reports(files, versions, failed)),
        errors=ordered,
        error=f"{counted(len(ordered), 'problem')} in {', '.join(bad)}; nothing was written.{either}",
        seconds=round(time.perf_counter() - started, 4),
    )


def done_report(
    state: IngestState,
    status: Literal["ingested", "unchanged"],
    changeset_id: int | None,
    warnings: Sequence[IngestWarning],
) -> IngestReport:
    """Return the report of an ingest that wrote what changed (or found nothing changed)."""
    status_of: dict[str, FileStatus] = {}
    if status == "ingested":
        for loaded in state.changed:
            status_of[loaded.name] = "updated" if loaded.name in state.versions else "created"
    files = _file_reports(state.files, state.versions, status_of)
    counts: Counter[str] = Counter()
    for f in files:
        counts.update(f.counts)
    e, s = state.entity_counts, state.statement_counts
    replaced = (
        tuple(f.name for f in state.changed if f.name in state.versions) if status == "ingested" else ()
    )
    return IngestReport(
        replaced_files=replaced,
        retconned_entities=tuple(state.retconned_names),
        campaign_id=state.campaign_id,
        status=status,
        changeset_id=changeset_id,
        files=tuple(files),
        counts=dict(sorted(counts.items())),
        entities=ChangeCounts(
            created=e["create"],
            changed=e["replace"],
            unchanged=e["keep"],
            adopted=e["adopt"],
            retconned=e["retconned"],
        ),
        statements=ChangeCounts(
            created=s["created"],
            changed=s["changed"],
            unchanged=s["unchanged"],
            retconned=s["retconned"],
            carried_over=s["carried_over"],
            shared=s["shared"],
            superseded=s["superseded"],
        ),
        warnings=tuple(warnings),
        seconds=round(time.perf_counter() - state.started, 4),
        changes=tuple(state.change_sentences),
    )


def _file_reports(
    files: Sequence[LoadedFile], versions: Mapping[str, FileVersion], status_of: Mapping[str, FileStatus]
) -> list[FileReport]:
    reports: list[FileReport] = []
    for loaded in files:
        counts: Counter[str] = Counter()
        kind: str | None = None
        if loaded.result is not None:
            counts.update(e.entity_type for e in loaded.result.entries)
            kind = kinds_of(loaded.result.kinds) or loaded.result.kind
        else:
            version = versions.get(loaded.name)
            if version is not None:
                counts.update(str(info.get("t")) for info in version.entries.values())
                kind = version.kind
        reports.append(
            FileReport(
                file=loaded.name,
                kind=kind,
                status=status_of.get(loaded.name, "unchanged"),
                content_hash=loaded.content_hash,
                entries=sum(counts.values()),
                counts=dict(sorted(counts.items())),
            )
        )
    return reports
