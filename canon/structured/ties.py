"""The ties a text field makes: a faction's `worships: Saint Orla` WORSHIPS the Deity called Saint Orla.

A faction's faith and tongue are words as written ("the old gods", "Reefspeak"). When the import (any of its
files) or the campaign's canon holds an entity of that name, and of the type the tie names (`TIE_TARGETS`: a Deity
for WORSHIPS, a Language for SPEAKS), the faction is tied to it as well, so "who worships Saint Orla" finds it;
otherwise the words stand alone and nothing is refused. A tie a file already states (a god's `worshipped_by`)
is written once. The ties found join their file's relations before the plan, so they are checked, written,
and retconned with the file, as any other edge.
"""

from __future__ import annotations

from dataclasses import replace

from canon.structured.normalise import TIE_TARGETS
from canon.structured.resolve import Index
from canon.structured.schemas import fits, id_from_name
from canon.structured.state import IngestState


def keep_ties(state: IngestState, index: Index) -> None:
    """Add to each changed file's relations the ties whose entity exists, of the type the tie names."""
    by_name = {id_from_name(entry.name): key for key, (_, entry) in index.defined.items()}
    stated = {
        (r.type, r.source_id, r.target_id)
        for f in state.changed
        if f.result is not None
        for r in f.result.relations
    }
    for number, loaded in enumerate(state.changed):
        result = loaded.result
        if result is None or not result.ties:
            continue
        kept = []
        for tie in result.ties:
            key = tie.target_id if tie.target_id in index.known else by_name.get(tie.target_id)
            target = index.known.get(key) if key is not None else None
            if target is None or key is None or not fits(target.type, TIE_TARGETS[tie.type]):
                continue
            if (tie.type, tie.source_id, key) not in stated:
                stated.add((tie.type, tie.source_id, key))
                kept.append(tie.model_copy(update={"target_id": key}))
        if kept:
            relations = (*result.relations, *kept)
            state.changed[number] = replace(loaded, result=result.model_copy(update={"relations": relations}))
