"""How a source is found, and the sources search by meaning misses, in a GM's words: for `ingest`, `sources`,
`reindex --status` and `doctor`.

A source's passages are always found by their words; search by meaning needs their vectors. Those can be out of
date (made by another embedding model, or before the passages were cut another way), have failed, or not be made
yet. A reindex makes them again, and a running bot does it by itself (`bot.ops.recovery`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from bot.ops.checks import Check
from canon.wording.counts import counted, listed
from config.settings import Settings

#: How a source is found, by the state of its vectors, as `ingest` and `sources` say it.
SEARCH_STATES = {
    "indexed": "found by meaning and by words",
    "stale": "found by words only (its search by meaning is out of date)",
    "failed": "found by words only (its search by meaning failed)",
    "pending": "found by words only (its search by meaning is not built yet)",
    "disabled": "found by words (search by meaning is switched off)",
}

#: The states that search by meaning misses, in the order they are told.
_MISSED = (("stale", "out of date"), ("failed", "failed"), ("pending", "not built yet"))


def search_state(status: str) -> str:
    """Return how a source is found, in words, from its vector status ("indexed", "stale", ...)."""
    return SEARCH_STATES.get(status, status)


def missed_words(counts: Mapping[str, int], campaign: str) -> str | None:
    """Return the sentences on a campaign's sources that search by meaning misses, or None when it misses none.

    `counts` are the campaign's sources by vector status (other states are left out).
    """
    parts = [f"{counts[status]:,} {said}" for status, said in _MISSED if counts.get(status)]
    total = sum(counts.get(status, 0) for status, _ in _MISSED)
    if not total:
        return None
    return (
        f"Search by meaning misses {counted(total, 'source')} of “{campaign}” ({listed(parts)}); words still "
        f"find {'it' if total == 1 else 'them'}. Run `lorekeeper reindex --campaign {shlex.quote(campaign)}` to rebuild "
        "the search index (a running bot does it by itself)."
    )


async def check_search_index(settings: Settings) -> Check:
    """Check that search by meaning finds every source of every campaign (a note names those it misses)."""
    from canon.campaigns import list_campaigns
    from canon.storage import Database
    from memory.knowledge.index_state import sources_waiting

    db = Database.from_url(settings.resolved_database_url)
    try:
        async with db.session() as session:
            waiting = await sources_waiting(session)
            names = {c.id: c.name for c in await list_campaigns(session, include_libraries=True)}
    except Exception as error:  # no schema yet, an unreachable database: the database check says so
        return Check("search index", True, f"not checked ({type(error).__name__})", warning=True)
    finally:
        await db.dispose()
    said = [missed_words(counts, names.get(cid, f"#{cid}")) for cid, counts in sorted(waiting.items())]
    told = [s for s in said if s]
    if not told:
        return Check("search index", True, "every imported source is found by meaning and by words")
    return Check("search index", True, " ".join(told), warning=True)
