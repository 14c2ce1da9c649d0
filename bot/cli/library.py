"""`lorekeeper library import | list | attach | detach`: shared library sources (registered by `bot.cli.main`).

The bot's operator imports rules once for every campaign of the installation (or, with `--server ID`, for one
Discord server's campaigns); a GM's attach and detach are the same as `/lore library attach|detach`. The same
`SharedLibrary` methods as the Discord commands (`memory.knowledge.library`).
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, Typer, emit, run_async, settings_or_exit, with_services

library_app = Typer(
    help="Shared library sources: imported once, read by many campaigns.", no_args_is_help=True
)
SourceArgument = Annotated[str, typer.Argument(help="The library source's file name or title")]


class SharedClass(enum.StrEnum):
    """The classes a shared source may have (never Canon: that is a campaign's own story)."""

    REFERENCE = "reference"
    INSPIRATION = "inspiration"


def register(app: typer.Typer) -> None:
    """Add `lorekeeper library ...` to the main app."""
    app.add_typer(library_app, name="library")


def _scope(guild_id: int | None) -> str:
    return "every campaign" if guild_id is None else f"the campaigns of server {guild_id}"


def _item(item: Any) -> dict[str, Any]:
    source = item.source
    return {
        "filename": source.filename,
        "title": source.title,
        "class": source.knowledge_class.value,
        "server": item.guild_id,
        "attached": item.attached,
        "campaigns": item.campaigns,
        "chunks": source.chunk_count,
        "vector_status": source.vector_status.value,
    }


@library_app.command("import")
def library_import(
    files: Annotated[
        list[Path], typer.Argument(help="Files to import (Markdown, text, PDF, DOCX, EPUB, HTML)")
    ],
    server: Annotated[
        int | None, typer.Option("--server", help="Only for this Discord server's campaigns (its id)")
    ] = None,
    knowledge_class: Annotated[
        SharedClass | None, typer.Option("--class", help="reference (default)")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import files into the shared library, for every campaign (or one server's): public, never Canon."""
    from canon.errors import InvalidInput
    from memory.knowledge.files import size_text
    from memory.knowledge.models import KnowledgeClass

    settings = settings_or_exit()
    limit = settings.lore.max_file_bytes
    chosen = KnowledgeClass(knowledge_class.value) if knowledge_class else None

    async def work(services: Any) -> list[Any]:
        reports = []
        for path in files:
            if not path.is_file():
                raise InvalidInput(f"{path} is not a file.")
            if path.stat().st_size > limit:
                raise InvalidInput(
                    f"{path.name} is {size_text(path.stat().st_size)}; the import limit is {size_text(limit)}."
                )
            reports.append(
                await services.knowledge.library.import_bytes(
                    path.name, path.read_bytes(), guild_id=server, knowledge_class=chosen
                )
            )
        return reports

    reports = run_async(lambda: with_services(settings, work))
    emit(
        [r.model_dump(mode="json") for r in reports],
        as_json=as_json,
        text=lambda: (
            "\n".join(
                f"{r.filename}: {r.outcome.value}, {r.chunk_count} passages, for {_scope(server)}"
                + (" (the same text is already in the library)" if r.duplicate_of else "")
                for r in reports
            )
            + "\nA GM attaches it to a campaign with /lore library attach, or `lorekeeper library attach`."
        ),
    )


@library_app.command("list")
def library_list(
    campaign: Annotated[
        str | None, typer.Option("--campaign", "-c", help="What this campaign may read and reads")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the shared library: every source (or those one campaign may read, and which it reads)."""
    from canon.wording.counts import counted

    settings = settings_or_exit()

    async def work(services: Any) -> list[Any]:
        if campaign is None:
            found: list[Any] = await services.knowledge.library.everything()
            return found
        target = await services.campaigns.by_name(campaign)
        listed: list[Any] = await services.knowledge.library.available(target.id)
        return listed

    items = run_async(lambda: with_services(settings, work))

    def text() -> str:
        if not items:
            return "The shared library is empty: `lorekeeper library import FILE` adds to it."
        lines = []
        for item in items:
            state = ("attached" if item.attached else "not attached") + " · " if campaign else ""
            lines.append(
                f"{item.source.title} ({item.source.filename}) — {item.source.knowledge_class.label} · "
                f"for {_scope(item.guild_id)} · {state}read by {counted(item.campaigns, 'campaign')}"
            )
        return "\n".join(lines)

    emit([_item(i) for i in items], as_json=as_json, text=text)


@library_app.command("attach")
def library_attach(source: SourceArgument, campaign: CampaignOption) -> None:
    """Let a campaign's answers cite a shared library source (at once: nothing is copied)."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        return await services.knowledge.library.attach(target.id, source, by="command line")

    item = run_async(lambda: with_services(settings, work))
    typer.echo(f"Attached {item.source.title} to campaign “{campaign}”: its answers cite it from now on.")


@library_app.command("detach")
def library_detach(source: SourceArgument, campaign: CampaignOption) -> None:
    """Stop a campaign's answers citing a shared library source (it stays in the library)."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign)
        return await services.knowledge.library.detach(target.id, source)

    item = run_async(lambda: with_services(settings, work))
    typer.echo(f"Detached {item.source.title} from campaign “{campaign}”; it stays in the library.")


@library_app.command("delete")
def library_delete(
    source: SourceArgument,
    server: Annotated[int | None, typer.Option("--server", help="From this Discord server's library")] = None,
) -> None:
    """Delete a library source for every campaign that reads it (its original too, unless another names it)."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        return await services.knowledge.library.delete(source, guild_id=server)

    report = run_async(lambda: with_services(settings, work))
    typer.echo(
        f"Deleted {report.title} from the shared library ({report.chunks_removed} passages); the campaigns that "
        "read it no longer cite it."
    )


@library_app.command("reindex")
def library_reindex(as_json: JsonOption = False) -> None:
    """Rebuild the shared libraries' indexes and vectors from their sources (after a model change, say)."""
    settings = settings_or_exit()

    async def work(services: Any) -> list[Any]:
        reports: list[Any] = await services.knowledge.library.reindex()
        return reports

    reports = run_async(lambda: with_services(settings, work))
    emit(
        [r.model_dump(mode="json") for r in reports],
        as_json=as_json,
        text=lambda: (
            "\n".join(
                f"Rebuilt a library's indexes: {r.sources} sources, {r.chunks} passages, vectors {r.vector_status.value}"
                for r in reports
            )
            or "There is no shared library yet."
        ),
    )
