"""`lorekeeper vault check | prune | copy`: the originals of imported files (registered by `bot.cli.main`).

Where the originals are kept is a setting (`vault.*`: a folder of the data directory, or an S3-compatible store);
`memory.vault` says what is kept and why an orphan is harmless.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import JsonOption, Typer, emit, fail, run_async, settings_or_exit, with_services

vault_app = Typer(help="The originals of imported files: check, prune, copy one out.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add `lorekeeper vault ...` to the main app."""
    app.add_typer(vault_app, name="vault")


def _size(count: int) -> str:
    from memory.knowledge.files import size_text

    return size_text(count)


@vault_app.command("check")
def vault_check(as_json: JsonOption = False) -> None:
    """Say where the originals are, and find sources whose original is gone and originals no source names."""
    from memory.knowledge.originals import check_vault

    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        return await check_vault(services.db, services.knowledge.vault)

    report = run_async(lambda: with_services(settings, work))

    def text() -> str:
        lines = [f"{report.originals} originals ({_size(report.bytes)}) in {report.where}."]
        if report.orphans:
            lines.append(
                f"{report.orphans} of them ({_size(report.orphan_bytes)}) belong to no source (an import that "
                "stopped half-way leaves one): harmless; `lorekeeper vault prune` removes them."
            )
        for item in report.missing:
            lines.append(
                f"The original of {item.filename} (campaign “{item.campaign}”) is missing: it still answers, "
                "but cannot be re-read or exported; import the file again."
            )
        return "\n".join(lines)

    emit(report.model_dump(mode="json"), as_json=as_json, text=text)
    if report.missing:
        raise typer.Exit(1)


@vault_app.command("prune")
def vault_prune(as_json: JsonOption = False) -> None:
    """Remove the originals no source names any more (those stored within the last hour stay)."""
    from memory.knowledge.originals import prune_vault

    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        return await prune_vault(services.db, services.knowledge.vault)

    report = run_async(lambda: with_services(settings, work))
    recent = (
        f" {report.kept_recent} stored within the last hour stay (an import may still be writing them)."
        if report.kept_recent
        else ""
    )
    emit(
        report.model_dump(mode="json"),
        as_json=as_json,
        text=lambda: f"Removed {report.removed} originals no source names ({_size(report.bytes)}).{recent}",
    )


@vault_app.command("copy")
def vault_copy(
    filename: Annotated[str, typer.Argument(help="The source's file name, as `lorekeeper sources` lists it")],
    to: Annotated[Path, typer.Option("--to", help="Where to write the original")],
    campaign: Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")],
) -> None:
    """Write the original of one of a campaign's sources to a file, as it was imported."""
    import asyncio

    from canon.errors import NotFound

    settings = settings_or_exit()

    async def work(services: Any) -> bytes:
        found = await services.campaigns.by_name(campaign)
        for source in await services.knowledge.list_sources(found.id):
            if source.filename == filename:
                return await asyncio.to_thread(services.knowledge.read_original, source)
        raise NotFound(f"Campaign “{found.name}” has no source named {filename}.")

    try:
        data = run_async(lambda: with_services(settings, work))
    except FileNotFoundError:
        fail(f"The original of {filename} is missing from the vault: import the file again.", code=1)
    to.write_bytes(data)
    typer.echo(f"Wrote the original of {filename} to {to} ({_size(len(data))}).")
