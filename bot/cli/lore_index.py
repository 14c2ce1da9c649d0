"""`lorekeeper reindex`: rebuild a campaign's indexes, say how far its search index is, add its names view."""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer

from bot.cli.common import JsonOption, emit, fail, run_async, settings_or_exit, with_services
from bot.cli.progress import Progress


def reindex(
    campaign: Annotated[
        str | None, typer.Option("--campaign", "-c", help="The campaign's name (to rebuild its indexes)")
    ] = None,
    rechunk: Annotated[
        bool, typer.Option("--rechunk", help="Re-chunk every source from its stored copy")
    ] = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Remove this installation's vector collections whose campaign is gone, and unclaimed ones of an "
            "older version (other installations' are left alone)",
        ),
    ] = False,
    status: Annotated[
        bool,
        typer.Option("--status", help="Say how far the search index is (names being added), rebuild nothing"),
    ] = False,
    views: Annotated[
        bool,
        typer.Option(
            "--views",
            help="Add the names view to vectors made before it, now (from where it was left; the bot does "
            "it in the background)",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Rebuild a campaign's full-text and vector indexes from its sources (the sources are not touched)."""
    settings = settings_or_exit()
    if campaign is None and not prune:
        fail(
            "Name the campaign to reindex with --campaign NAME, or give --prune to remove orphaned collections."
        )
    if campaign is not None and (status or views):
        _view_build(settings, campaign, build=views, as_json=as_json)
        return
    if prune:
        _prune(settings, as_json=as_json)
    if campaign is None:
        return

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        progress = None if as_json else Progress()
        try:
            callback = progress.callback("reindex") if progress else None
            return await services.knowledge.reindex(target.id, rechunk=rechunk, progress=callback)
        finally:
            if progress:
                progress.stop()

    report = run_async(lambda: with_services(settings, work))
    emit(
        report.model_dump(mode="json"),
        as_json=as_json,
        text=lambda: reindex_text(report),
    )
    if report.vector_error:
        raise typer.Exit(1)


def reindex_text(report: Any) -> str:
    """Return what a reindex rebuilt (`ReindexReport`), in words: sources, passages, how they are found now."""
    from bot.ops.search_index import search_state
    from canon.wording.counts import counted

    cut = (
        f", {counted(report.rechunked_sources, 'source')} cut into passages again"
        if report.rechunked_sources
        else ""
    )
    said = (
        f"Rebuilt the search index of {counted(report.sources, 'source')} ({counted(report.chunks, 'passage')}"
        f"{cut}) in {report.seconds:.1f} s: "
    )
    if report.vector_error:
        return (
            said
            + f"found by words only, search by meaning failed ({report.vector_error}). Run it again later."
        )
    state = search_state(report.vector_status.value)
    return said + ("each " + state if report.vector_status.value == "indexed" else state) + "."


def _view_build(settings: Any, campaign: str, *, build: bool, as_json: bool) -> None:
    """Say how far a campaign's search index is (its names views, the sources it misses); with `build`, add
    the missing names views first."""

    async def work(services: Any) -> tuple[Any, dict[str, int]]:
        from memory.knowledge.index_state import WAITING

        target = await services.campaigns.by_name(campaign)
        knowledge = services.knowledge
        if build:
            shown = (
                (lambda state: typer.echo(view_build_text(state, target.name), err=True))
                if not as_json
                else None
            )
            state = await knowledge.view_builder.build(target.id, progress=shown)
        else:
            state = await knowledge.view_build(target.id)
        counts = (await knowledge.index_status(target.id))["sources_by_vector_status"]
        return state, {k: v for k, v in counts.items() if k in WAITING}

    state, waiting = run_async(lambda: with_services(settings, work))
    payload = state.model_dump(mode="json") if state is not None else {"state": "none"}
    emit(
        payload | ({"sources_missed": waiting} if state is not None else {}),
        as_json=as_json,
        text=lambda: view_build_text(state, campaign, waiting),
    )


def view_build_text(state: Any, campaign: str, waiting: dict[str, int] | None = None) -> str:
    """Return how far a campaign's search index is (`ViewBuild` or None), and the sources it misses."""
    from bot.ops.search_index import missed_words

    missed = missed_words(waiting or {}, campaign)
    rebuild = f"`lorekeeper reindex --campaign {shlex.quote(campaign)}`"
    if state is None:
        return (
            "The campaign is searched by words alone: search by meaning is switched off, or nothing is "
            "imported yet."
        )
    if state.state == "stale":
        return (
            "The search index was made by another embedding model or before the passages were cut another way: "
            f"run {rebuild} to rebuild it (words find everything meanwhile)."
        )
    if state.state == "done":
        if missed:
            return f"The search index is not complete. {missed}"
        return f"The search index is complete: {state.total:,} passages, each found by meaning and by words."
    building = (
        f"Adding the passages' names to the search index: {state.done:,} of {state.total:,} done "
        f"({state.percent}%). Lookups work meanwhile; the bot finishes it in the background, "
        f"or run {rebuild[:-1]} --views`."
    )
    return f"{building} {missed}" if missed else building


def _prune(settings: Any, *, as_json: bool) -> None:
    """Remove this installation's orphaned vector collections and an older version's unclaimed ones."""
    from bot.ops.collections import prune_collections
    from canon.wording.counts import counted

    if not settings.embedding.enabled:
        fail("Semantic search is switched off (embedding.enabled = false): there are no vector collections.")
    pruned = run_async(lambda: with_services(settings, lambda s: prune_collections(settings, s.db)))
    emit(
        {"pruned": pruned},
        as_json=as_json,
        text=lambda: (
            f"Removed {counted(len(pruned), 'vector collection')}: {', '.join(pruned)}."
            if pruned
            else "No orphaned vector collections: nothing to remove."
        ),
    )
