"""Ingest: a tie this import says that a file imported before says too, one of them keeping it for the GM.

Within one import, a tie one file keeps for the GM is the GM's in every file saying it (`facts.py`). Across
imports the same holds where it can: a tie this import says openly that a file imported before keeps for the
GM is the GM's here too (one statement, the other file's). A file imported earlier is not read again, though:
when this import keeps for the GM a tie that file says openly, its open statement stands and players read it
there. The GM is told, with the files on each side and what to do: hide it in that file too, or import the two
files together.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import select

from canon.models import StatementKind
from canon.structured.facts import Fact, tie_fingerprint
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState
from canon.tables import EntityRow
from canon.visibility import gm_only, visibility_of
from canon.wording import relation_sentence

#: The kind of the warning (`canon.wording.findings.KIND_WORDS` says it in words).
HIDDEN_TIE_TOLD = "secret_told"


async def secrets_told_elsewhere(
    state: IngestState, facts: dict[str, dict[str, Fact]]
) -> list[IngestWarning]:
    """Make the GM's each tie a changed file states openly that a file imported before (not in this import)
    keeps for the GM; return a warning for each tie a changed file keeps for the GM that such a file states
    openly."""
    others = {
        slot: version.file
        for version in state.versions.values()
        if version.file not in state.changed_names
        for slot in version.statements
        if slot.startswith("rel|")
    }
    if not others:
        return []
    found: list[tuple[str, str, Fact]] = []  # (this import's file, the other file, the fact)
    for name, own in facts.items():
        for slot, fact in own.items():
            other = others.get(slot)
            if other is None or fact.kind is not StatementKind.RELATION:
                continue
            twin = tie_fingerprint(fact, visibility_of(not gm_only(fact.visibility)).value)
            said = state.versions[other].statements.get(slot)
            if said is None or said[1] != twin:
                continue
            if gm_only(fact.visibility):
                found.append((name, other, fact))
            else:  # kept for the GM by the other file: the GM's here too, the same statement
                own[slot] = dataclasses.replace(fact, visibility=visibility_of(True), fp=twin)
    if not found:
        return []
    ids = {i for _, _, f in found for i in (f.subject_id, f.object_id) if i is not None}
    rows = await state.session.execute(select(EntityRow.id, EntityRow.name).where(EntityRow.id.in_(ids)))
    names = {int(i): str(n) for i, n in rows.all()}
    warnings: list[IngestWarning] = []
    for hidden, told, fact in found:
        tie = relation_sentence(fact.predicate, names[fact.subject_id], names.get(fact.object_id or 0, "?"))
        warnings.append(
            IngestWarning(
                kind=HIDDEN_TIE_TOLD,
                message=(
                    f"{tie}: {hidden} keeps it for the GM, but {told} says it openly, and players read it there. "
                    f"Hide it in {told} too, or import the two files together."
                ),
                sides=(hidden, told),
            )
        )
    return warnings
