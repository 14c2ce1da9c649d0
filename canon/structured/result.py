"""The outcome of loading one lore file: a validated document and its records, or every problem."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from canon.structured.kinds import LoreDocument, LoreKind
from canon.structured.records import (
    LifeEvent,
    LoreEntry,
    LoreProblem,
    LoreRelation,
    RosterPlayer,
    UnresolvedReference,
)


class LoadResult(BaseModel):
    """The outcome of loading one lore file: a validated document and its records, or every problem.

    When `problems` is non-empty, `document`, `documents`, `entries`, `relations` and `life_events` are empty;
    `unresolved` is still filled when the file got far enough to tell.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    #: The kind of the file's first document, and of each (a file may hold several YAML documents, `---` between
    #: them, of one kind or several).
    kind: LoreKind | None
    kinds: tuple[LoreKind, ...] = ()
    document: LoreDocument | None
    documents: tuple[LoreDocument, ...] = ()
    entries: tuple[LoreEntry, ...] = ()
    relations: tuple[LoreRelation, ...] = ()
    life_events: tuple[LifeEvent, ...] = ()
    #: Who plays the roster's player characters (`player:`), linked by the importing service.
    players: tuple[RosterPlayer, ...] = ()
    unresolved: tuple[UnresolvedReference, ...] = ()
    #: Edges a text field makes when an entity of that name exists (a faction's `worships`: WORSHIPS the god),
    #: their target the id the name makes; the import keeps those it finds (`canon.structured.ties`).
    ties: tuple[LoreRelation, ...] = ()
    problems: tuple[LoreProblem, ...] = ()
    #: What the import warns of without refusing the file (a public field giving away a truth told otherwise).
    warnings: tuple[LoreProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """Tell whether the file loaded without problems."""
        return not self.problems
