"""Who among some people is dead as a reader's viewer reads them, and when: a card's or an answer's ties to the
dead read in the past (`canon.wording.dead_ties`).

One is dead whose current state (`reader.current_state`, as a card reads it) is `dead`, or who has no state but
birth's `alive` (or none) and whose last `status` says dead (a roster's `status: dead` with no date). A death or a
status kept for the GM is no death to a player: the reader's viewer reads only what they may.
"""

from __future__ import annotations

from collections.abc import Iterable

from canon.calendar import UNKNOWN
from canon.graph.reader import current_state
from canon.graph.reads import LineageReader
from canon.models import NOW, AsOf, StatementKind

__all__ = ["deaths_of"]

_DEAD = "dead"


async def deaths_of(
    reader: LineageReader, ids: Iterable[int], as_of: AsOf = NOW
) -> dict[int, tuple[str, int | None]]:
    """Return those of `ids` dead as the reader's viewer reads them (at `as_of`), each with when they died (stored,
    as a key; `unknown`, no key, when nobody knows or only a status says it)."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    statements = await reader.statements(
        subject_ids=wanted, predicates=["state", "status"], as_of=as_of, with_evidence=False
    )
    found: dict[int, tuple[str, int | None]] = {}
    for person in wanted:
        own = [s for s in statements if s.subject_id == person]
        state = current_state(own, (_DEAD,) if as_of.world_key is None else ())
        value = (state.value or "").strip().casefold() if state is not None else None
        if value == _DEAD and state is not None:
            found[person] = (state.validity.world_from or UNKNOWN, state.validity.world_from_key)
            continue
        said = [s for s in own if s.kind == StatementKind.ATTRIBUTE]
        if value in (None, "alive") and said and (said[-1].value or "").strip().casefold() == _DEAD:
            found[person] = (UNKNOWN, None)
    return found
