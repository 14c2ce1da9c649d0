"""What every stage of one ingest shares: where it writes, what the campaign remembers, what went wrong."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.forks import LineageStep
from canon.graph import CanonReader, lineage_filter
from canon.ontology import Ontology
from canon.structured.files import LoadedFile
from canon.structured.records import LoreProblem
from canon.structured.versions import CHUNK, FileVersion
from canon.tables import StatusChangeRow


@dataclass
class IngestState:
    """One ingest's inputs and what its stages report along the way.

    `versions`: what each YAML file of the campaign produced, as the campaign sees it; `changed`: the files
    of this ingest whose content differs from it (the only ones written for).
    """

    session: AsyncSession
    campaign_id: int
    ontology: Ontology
    files: Sequence[LoadedFile]
    steps: Sequence[LineageStep]
    reader: CanonReader
    versions: dict[str, FileVersion]
    changed: list[LoadedFile]
    actor_id: int | None = None
    actor_name: str | None = None
    started: float = field(default_factory=time.perf_counter)
    errors: list[LoreProblem] = field(default_factory=list)
    entity_counts: Counter[str] = field(default_factory=Counter)
    statement_counts: Counter[str] = field(default_factory=Counter)
    # The names of the entities this import retcons (entries gone from their file).
    retconned_names: list[str] = field(default_factory=list)
    # Per file imported before and changed now, each fact slot it changed: (replaced, added or gone, slot).
    slot_changes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # The sentences saying what each such file changed, by name (`canon.structured.changes`).
    change_sentences: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.changed_names = {f.name for f in self.changed}

    def error(self, file: str, line: int, column: int, message: str) -> None:
        """Note a problem that stops the ingest (nothing is written when there is one)."""
        self.errors.append(LoreProblem(file=file, line=line, column=column, message=message))

    async def retconned(self, kind: str, ids: Iterable[int]) -> set[int]:
        """Return which of these entities or statements are retconned (as seen from the campaign)."""
        id_list = sorted(set(ids))
        found: set[int] = set()
        sc = StatusChangeRow.__table__.c
        for start in range(0, len(id_list), CHUNK):
            query = select(sc.target_id).where(
                sc.target_kind == kind,
                sc.target_id.in_(id_list[start : start + CHUNK]),
                lineage_filter(sc, self.steps),
            )
            found |= set((await self.session.execute(query)).scalars())
        return found
