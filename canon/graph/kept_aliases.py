"""The names an entity is found by beside its name and aliases. The aliases a file keeps for the GM (`aliases:
[.., {name: The Voice Below, gm_only: true}]`): stored as the entity's GM-only `secret_aliases` fact, never as a
name everyone finds it by; the GM's reader finds by them. A birth name (`birth_name: Margaret Quinn`): asking
"who is Margaret Quinn?" finds the one born so, by whoever may read that fact."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.forks import LineageStep
from canon.graph.lineage import lineage_filter
from canon.models import NOW, AsOf
from canon.tables import StatementRow

#: The attribute holding the aliases a file keeps for the GM.
KEPT_ALIASES = "secret_aliases"
#: The attribute holding the name one was born with (`birth_name`, `born_as`, `maiden_name`).
BIRTH_NAME = "birth_name"

Retcons = Callable[[str, Iterable[int], AsOf], Awaitable[dict[int, Any]]]


async def kept_aliases(
    session: AsyncSession, steps: Sequence[LineageStep], retcons: Retcons
) -> list[tuple[str, int]]:
    """Return the standing aliases files keep for the GM through a lineage, one (alias, entity id) pair each."""
    query = select(StatementRow.id, StatementRow.value, StatementRow.subject_id).where(
        StatementRow.predicate == KEPT_ALIASES, lineage_filter(StatementRow, steps)
    )
    rows = (await session.execute(query)).all()
    gone = await retcons("statement", [int(i) for i, _, _ in rows], NOW)
    return [
        (alias, int(e))
        for i, value, e in rows
        if i not in gone
        for alias in str(value or "").split(", ")
        if alias
    ]


async def birth_names(
    session: AsyncSession, steps: Sequence[LineageStep], retcons: Retcons
) -> list[tuple[str, int, str]]:
    """Return the standing birth names through a lineage: (name, entity id, the fact's visibility) each."""
    query = select(
        StatementRow.id, StatementRow.value, StatementRow.subject_id, StatementRow.visibility
    ).where(StatementRow.predicate == BIRTH_NAME, lineage_filter(StatementRow, steps))
    rows = (await session.execute(query)).all()
    gone = await retcons("statement", [int(i) for i, _, _, _ in rows], NOW)
    return [(str(value), int(e), str(seen)) for i, value, e, seen in rows if i not in gone and value]
