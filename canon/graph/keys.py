"""What the graph matches names by and orders statements by: a folded name, a place in story order."""

from __future__ import annotations

import unicodedata

from canon.models import Statement, Validity


def fold(name: str) -> str:
    """Return a name normalised for matching: NFKC, case-folded, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def statement_sort_key(statement: Statement) -> tuple[int, int, int]:
    """Order statements in story time: static canon (no scene) first by world date, then play by scene."""
    return validity_sort_key(statement.validity, statement.provenance.changeset_id)


def validity_sort_key(v: Validity, changeset_id: int) -> tuple[int, int, int]:
    """Return where a statement of this validity, written by this changeset, falls in story order."""
    return (
        v.story_from if v.story_from is not None else -1,
        v.world_from_key if v.world_from_key is not None else -(2**62),
        changeset_id,
    )
