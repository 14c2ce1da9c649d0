"""Ingest: a tie this import keeps for the GM that a file imported before says openly, or the reverse.

Within one import, a tie one file keeps for the GM is the GM's in every file saying it (`facts.py`). A file
imported earlier is not read again: its open statement of the tie stands, and players read it there. The GM is
told, with the files on each side and what to do: hide it in the other file too, or import the two together.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import select

from canon.models import StatementKind
from canon.structured.facts import Fact, statement_fingerprint
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState
from canon.tables import EntityRow
from canon.visibility import gm_only, visibility_of
from canon.wording import relation_sentence

#: The kind of the warning (`canon.wording.findings.KIND_WORDS` says it in words).
HIDDEN_TIE_TOLD = "secret_told"


async def secrets_told_elsewhere(
    state: IngestState, facts: Mapping[str, Mapping[str, Fact]]
) -> list[IngestWarning]:
    """Return a warning for each tie a changed file states with one visibility and a file imported before (not
    in this import) with the other."""
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
            twin = statement_fingerprint(
                "relation",
                fact.subject_id,
                fact.predicate,
                fact.object_id,
                None,
                fact.validity,
                visibility_of(not gm_only(fact.visibility)).value,
            )
            said = state.versions[other].statements.get(slot)
            if said is not None and said[1] == twin:
                found.append((name, other, fact))
    if not found:
        return []
    ids = {i for _, _, f in found for i in (f.subject_id, f.object_id) if i is not None}
    rows = await state.session.execute(select(EntityRow.id, EntityRow.name).where(EntityRow.id.in_(ids)))
    names = {int(i): str(n) for i, n in rows.all()}
    warnings: list[IngestWarning] = []
    for name, other, fact in found:
        tie = relation_sentence(fact.predicate, names[fact.subject_id], names.get(fact.object_id or 0, "?"))
        hidden, told = (name, other) if gm_only(fact.visibility) else (other, name)
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
