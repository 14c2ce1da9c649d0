"""`lorekeeper voice ...`: the game-master's voice from the command line (the same services as the cogs).

    lorekeeper voice extract-scene SCENE_ID          proposals from a scene under review (needs an LLM)
    lorekeeper voice extract-source -c C SOURCE_ID   proposals from an imported document, in a batch
    lorekeeper voice memories -c C NPC               what an NPC remembers
    lorekeeper voice similar -c C TEXT               committed scenes like a described moment
    lorekeeper voice usage -c C                      LLM tokens per purpose
    lorekeeper voice reindex -c C                    rebuild NPC memory and summary indexes from SQL
    lorekeeper voice catch-up                        summaries and memories of scenes a crash left undone
    lorekeeper voice batch -c C BATCH                the proposals of an extraction batch
    lorekeeper voice commit-batch -c C BATCH         commit it (`--accept ID`/`--accept-all`, `--reject ID`)

`lorekeeper ingest --extract` (bot.cli.lore) calls `extract_imported` after each import.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, Typer, emit, run_async, settings_or_exit, with_services
from canon.errors import GameError

voice_app = Typer(help="The narrator, proposal extraction and NPC memory.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `lorekeeper voice ...` to the main app."""
    app.add_typer(voice_app, name="voice")


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "batch": report.batch,
        "skipped": report.skipped,
        "pieces": report.pieces,
        "items": report.items,
        "stored": report.stored,
        "dropped": report.dropped,
        "merged": report.merged,
        "failed_pieces": report.failed_pieces,
        "prompt_tokens": report.usage.prompt_tokens,
        "completion_tokens": report.usage.completion_tokens,
        "seconds": round(report.seconds, 3),
    }


def _describe(report: dict[str, Any]) -> str:
    from canon.wording.counts import counted

    if report["skipped"]:
        return str(report["skipped"])
    text = f"{counted(report['stored'], 'proposal')} stored from {counted(report['pieces'], 'piece')}"
    if report["batch"]:
        text += f" in batch {report['batch']} (review: lorekeeper canon review)"
    return text + f"; {len(report['dropped'])} dropped, {len(report['merged'])} merged."


async def extract_imported(services: Any, campaign: Any, report: Any, failed: list[Any]) -> dict[str, Any]:
    """Extract proposals from a freshly imported source; a failure is added to `failed` (never raised)."""
    from memory.knowledge.source_models import ImportFailure, ImportOutcome

    if report.outcome == ImportOutcome.DUPLICATE:
        return {}
    try:
        extraction = await services.voice.extract_source(campaign, report.source.id)
    except GameError as error:
        failed.append(ImportFailure(filename=report.filename, error=f"extraction: {error.message}"))
        return {}
    data = _report_json(extraction)
    return {"filename": report.filename, "source_id": report.source.id, **data, "text": _describe(data)}


@voice_app.command("extract-scene")
def extract_scene(
    scene_id: Annotated[int, typer.Argument(help="The scene (it should be under review)")],
    as_json: JsonOption = False,
) -> None:
    """Read a scene's transcript into proposals for its review card."""
    settings = settings_or_exit()
    report = run_async(lambda: with_services(settings, lambda s: s.voice.extract_scene(scene_id)))
    data = _report_json(report)
    emit(data, as_json=as_json, text=lambda: _describe(data))


@voice_app.command("extract-source")
def extract_source(
    source_id: Annotated[int, typer.Argument(help="The imported source")],
    campaign: CampaignOption,
    as_json: JsonOption = False,
) -> None:
    """Read an imported document into proposals (authority source, confidence 0.6) waiting for the GM."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        return await services.voice.extract_source(target, source_id)

    data = _report_json(run_async(lambda: with_services(settings, work)))
    emit(data, as_json=as_json, text=lambda: _describe(data))


@voice_app.command("memories")
def memories(
    npc: Annotated[str, typer.Argument(help="The NPC")], campaign: CampaignOption, as_json: JsonOption = False
) -> None:
    """List what an NPC remembers."""
    settings = settings_or_exit()

    async def work(services: Any) -> tuple[str, list[Any]]:
        target = await services.campaigns.by_name(campaign)
        result: tuple[str, list[Any]] = await services.voice.npc_memories(target, npc)
        return result

    name, found = run_async(lambda: with_services(settings, work))
    emit(
        {"npc": name, "memories": [m.model_dump(mode="json") for m in found]},
        as_json=as_json,
        text=lambda: (
            "\n".join(f"#{m.id} [{m.doc_type}] {m.content}" for m in found) or f"{name} remembers nothing."
        ),
    )


@voice_app.command("similar")
def similar(
    text: Annotated[str, typer.Argument(help="The moment")],
    campaign: CampaignOption,
    as_json: JsonOption = False,
) -> None:
    """Find committed scenes like a described moment."""
    settings = settings_or_exit()

    async def work(services: Any) -> list[Any]:
        target = await services.campaigns.by_name(campaign)
        found: list[Any] = await services.voice.similar_scenes(target, text)
        return found

    found = run_async(lambda: with_services(settings, work))
    emit(
        [m.model_dump(mode="json") for m in found],
        as_json=as_json,
        text=lambda: (
            "\n".join(f"scene {m.story_order} {m.title} ({m.similarity:.2f}): {m.summary}" for m in found)
            or "No committed scene is like that yet."
        ),
    )


@voice_app.command("usage")
def usage(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Show the LLM tokens a campaign used, per purpose."""
    settings = settings_or_exit()

    async def work(services: Any) -> list[Any]:
        target = await services.campaigns.by_name(campaign)
        lines: list[Any] = await services.ledger.usage(target.id)
        return lines

    lines = run_async(lambda: with_services(settings, work))
    emit(
        [line.model_dump(mode="json") | {"total_tokens": line.total_tokens} for line in lines],
        as_json=as_json,
        text=lambda: (
            "\n".join(
                f"{line.purpose:<18} {line.model:<24} {line.calls:>5} calls {line.total_tokens:>9} tokens"
                for line in lines
            )
            or "No LLM calls yet."
        ),
    )


@voice_app.command("reindex")
def reindex(campaign: CampaignOption, as_json: JsonOption = False) -> None:
    """Rebuild a campaign's NPC memory and scene summary indexes from the database."""
    settings = settings_or_exit()

    async def work(services: Any) -> tuple[int, int]:
        target = await services.campaigns.by_name(campaign)
        counts: tuple[int, int] = await services.voice.rebuild_indexes(target.id)
        return counts

    memories_count, summaries = run_async(lambda: with_services(settings, work))
    emit(
        {"memories": memories_count, "summaries": summaries},
        as_json=as_json,
        text=lambda: f"Reindexed {memories_count} NPC memories and {summaries} scene summaries.",
    )


@voice_app.command("catch-up")
def catch_up(as_json: JsonOption = False) -> None:
    """Write the summaries and NPC memories of completed scenes that have none."""
    from canon.wording.counts import counted

    settings = settings_or_exit()
    done = run_async(lambda: with_services(settings, lambda s: s.voice.catch_up()))
    emit({"scenes": done}, as_json=as_json, text=lambda: f"Finished {counted(done, 'scene')}.")


@voice_app.command("batch")
def batch(
    name: Annotated[str, typer.Argument(help="The batch (printed by ingest --extract or extract-source)")],
    campaign: CampaignOption,
    as_json: JsonOption = False,
) -> None:
    """List the proposals of an extraction batch, as the GM reviews them."""
    from canon.wording import describe

    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        return await services.reviews.review(None, campaign_id=target.id, batch=name)

    review = run_async(lambda: with_services(settings, work))
    emit(
        [p.model_dump(mode="json") for p in review.proposals],
        as_json=as_json,
        text=lambda: (
            "\n".join(
                f"#{p.id} [{p.status}] {describe(p.content, review.words)} ({p.authority}, {p.confidence})"
                for p in review.proposals
            )
            or "No proposal in that batch."
        ),
    )


@voice_app.command("commit-batch")
def commit_batch(
    name: Annotated[str, typer.Argument(help="The batch")],
    campaign: CampaignOption,
    reject: Annotated[list[int] | None, typer.Option("--reject", help="A proposal to reject; repeat")] = None,
    accept: Annotated[list[int] | None, typer.Option("--accept", help="A proposal to accept; repeat")] = None,
    accept_all: Annotated[bool, typer.Option("--accept-all", help="Accept every undecided proposal")] = False,
    as_json: JsonOption = False,
) -> None:
    """Decide the proposals named, then commit the batch as the GM; undecided ones are rejected.

    Prose extractions (confidence 0.6) are never accepted by the authority policy alone: accept them here.
    """
    from memory.scenes import Actor

    settings = settings_or_exit()
    actor = Actor(id=None, name="command line", is_gm=True)

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        for proposal_id in reject or []:
            await services.reviews.decide(
                proposal_id, accept=False, actor=actor, rationale="rejected at the command line"
            )
        for proposal_id in accept or []:
            await services.reviews.decide(proposal_id, accept=True, actor=actor)
        if accept_all:
            await services.reviews.accept_all(None, actor, campaign_id=target.id, batch=name)
        return (await services.canon.commit_batch(target, name, actor)).result

    result = run_async(lambda: with_services(settings, work))
    emit(
        {
            "changeset_id": result.changeset_id,
            "accepted": [p.id for p in result.accepted],
            "rejected": sorted(set(reject or []) | {p.id for p in result.rejected}),
            "entity_ids": {str(k): v for k, v in result.entity_ids.items()},
            "statement_ids": result.statement_ids,
        },
        as_json=as_json,
        text=lambda: (
            f"Committed {len(result.accepted)} proposals; {len(reject or []) + len(result.rejected)} rejected."
        ),
    )
