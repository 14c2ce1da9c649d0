"""Warn where one entry gives away a truth another entry tells the table otherwise: an event's public `deaths:`
naming someone players are told is alive or missing (`public_status:`), or a public `killed_by:` of one whose
told `public_status` says they live. The entries may be in different files of one import; the warning names
the line that gives it away and what to write there."""

from __future__ import annotations

from collections.abc import Iterable

from canon.structured.files import LoadedFile
from canon.structured.reports import IngestWarning
from canon.structured.standing import TRUTH_SHOWN
from canon.visibility import entity_hidden
from canon.wording import in_prose

_DEAD = frozenset({"dead", "undead"})


def told_across(files: Iterable[LoadedFile]) -> list[IngestWarning]:
    """Return a warning for each public `deaths:` item naming someone players are told lives."""
    loaded = [f for f in files if f.result is not None and f.result.ok]
    entries = {e.id: e for f in loaded for e in f.result.entries}  # type: ignore[union-attr]
    warnings: list[IngestWarning] = []
    for f in loaded:
        for tie in f.result.relations:  # type: ignore[union-attr]
            if tie.type != "DIED_IN" or entity_hidden(tie.visibility):
                continue
            person, event = entries.get(tie.source_id), entries.get(tie.target_id)
            if person is None or event is None or entity_hidden(person.visibility):
                continue
            told = person.attributes.get("status_public")
            if not isinstance(told, str) or told in _DEAD:
                continue
            where = f"{f.name}, line {tie.line}"
            named = in_prose(event.name, "Event")
            warnings.append(
                IngestWarning(
                    kind=TRUTH_SHOWN,
                    message=(
                        f'{where}: Players are told {person.name} is {told}, but the "deaths" of {named} '
                        f"names {person.name} openly: they read that {person.name} died in {named}. To keep it "
                        f"yours, write it there as `{{name: {person.name}, gm_only: true}}`."
                    ),
                    sides=(where,),
                )
            )
    return warnings
