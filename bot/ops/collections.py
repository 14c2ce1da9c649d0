"""The Chroma collections of this installation, as `doctor` reports them and `lorekeeper reindex --prune` tidies.

A collection is this installation's when its name carries the installation id (`memory.chroma_client`); it is
an orphan when its campaign is gone from the database (a wiped benchmark, a deleted copy). Collections named by
an older version (`lk_c12`) are claimed by the first installation that uses the campaign; those left over are
listed too. Other installations' collections (another database sharing the server) are never touched.
"""

from __future__ import annotations

from bot.ops.checks import Check
from bot.ops.installation import Installation
from canon.campaigns import list_campaigns
from canon.storage import Database
from canon.wording.counts import counted
from config.settings import Settings
from memory.chroma_client import Survey
from memory.vector_index import ChromaVectorIndex, VectorIndexError

__all__ = ["check_collections", "prune_collections", "survey_collections"]


def _index(settings: Settings, installation: Installation) -> ChromaVectorIndex:
    return ChromaVectorIndex.from_settings(
        settings.data_dir,
        settings.chroma.host,
        settings.chroma.port,
        settings.embedding.batch_size,
        installation.owner,
    )


async def survey_collections(settings: Settings, db: Database) -> tuple[str, Survey]:
    """Return this database's installation id and the survey of its Chroma (raises `VectorIndexError`)."""
    installation = Installation(db)
    async with db.session() as session:
        campaign_ids = {c.id for c in await list_campaigns(session, include_libraries=True)}
    return await installation.id(), await _index(settings, installation).survey(campaign_ids)


async def prune_collections(settings: Settings, db: Database) -> list[str]:
    """Drop this installation's orphaned collections and the older version's unclaimed ones; return their names."""
    installation = Installation(db)
    index = _index(settings, installation)
    async with db.session() as session:
        campaign_ids = {c.id for c in await list_campaigns(session, include_libraries=True)}
    found = await index.survey(campaign_ids)
    doomed = found.orphans + found.legacy
    await index.prune(doomed)
    return doomed


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


async def check_collections(settings: Settings) -> Check:
    """Report this installation's collections: in use, orphaned, left by an older version, shared with others."""
    if not settings.embedding.enabled:
        return Check("vector collections", True, "semantic search switched off", warning=True)
    db = Database.from_url(settings.resolved_database_url)
    try:
        installation, found = await survey_collections(settings, db)
    except VectorIndexError as error:
        return Check("vector collections", False, str(error))
    except Exception as error:  # no schema yet, an unreachable database: the database check says so
        return Check("vector collections", True, f"not checked ({type(error).__name__})", warning=True)
    finally:
        await db.dispose()
    parts = [f"installation {installation}: {counted(found.owned, 'collection')} in use"]
    if found.others:
        parts.append(f"shared with {counted(len(found.others), 'other installation')}, left alone")
    problems = []
    if found.orphans:
        problems.append(f"{len(found.orphans)} orphaned (their campaign is gone): {_listed(found.orphans)}")
    if found.legacy:
        problems.append(f"{len(found.legacy)} left by an older version, unclaimed: {_listed(found.legacy)}")
    if problems:
        parts += problems
        parts.append("`lorekeeper reindex --prune` removes them")
    return Check("vector collections", True, "; ".join(parts), warning=bool(problems))


async def refusal(settings: Settings, installation: Installation) -> str | None:
    """Return why a process must not start against the configured Chroma (another database's vectors), or None.

    An unreachable Chroma is no reason: `/lore` answers by words until it is back.
    """
    if not settings.embedding.enabled:
        return None
    try:
        return await _index(settings, installation).clash()
    except VectorIndexError:
        return None
