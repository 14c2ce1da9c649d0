"""The warnings an import's files have, whether or not it wrote anything: so a GM who imports the same files
again still reads them ("unchanged" never means "no warnings").

Two kinds: what the loader warns of in a file (`LoadResult.warnings`: a public field giving away a truth the
file tells the table otherwise, at its line), and the continuity conflicts still open about the files' entries
(found when they were written, recorded in the conflicts table until the GM resolves or dismisses them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select

from canon.structured.files import LoadedFile
from canon.structured.records import LoreProblem
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState
from canon.tables import ConflictRow

#: The kind of a loader's warning (`canon.wording.findings.KIND_WORDS` says it in words).
TRUTH_SHOWN = "truth_shown"


def file_warnings(files: Iterable[LoadedFile]) -> list[IngestWarning]:
    """Return what the loader warned of in each loaded file, at its file and line."""
    return [loader_warning(w) for f in files if f.result is not None for w in f.result.warnings]


def loader_warning(problem: LoreProblem) -> IngestWarning:
    """Return one of the loader's warnings as the import reports it, its file and line first."""
    where = f"{problem.file}, line {problem.line}"
    return IngestWarning(kind=TRUTH_SHOWN, message=f"{where}: {problem.message}", sides=(where,))


async def open_conflicts(state: IngestState, files: Sequence[LoadedFile]) -> list[IngestWarning]:
    """Return the continuity conflicts still open about the entries of the given files (as remembered)."""
    ids = {
        int(info["e"])
        for f in files
        if (version := state.versions.get(f.name)) is not None
        for info in version.entries.values()
        if info.get("e") is not None
    }
    if not ids:
        return []
    rows = await state.session.execute(
        select(ConflictRow.kind, ConflictRow.message, ConflictRow.details)
        .where(ConflictRow.campaign_id == state.campaign_id, ConflictRow.status == "open")
        .order_by(ConflictRow.id)
    )
    return [
        IngestWarning(kind=kind, message=message, new=False)
        for kind, message, details in rows.all()
        if ids.intersection((details or {}).get("entity_ids") or ())
    ]
