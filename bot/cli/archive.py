"""`lorekeeper export | import`: a whole campaign to one archive file, and back as a new campaign.

Registered on the main app by `bot.cli.main`; the archive is described in `bot.archive` (`campaign_archive`, its file in `file`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, emit, run_async, settings_or_exit, with_services


def register(app: typer.Typer) -> None:
    """Add the export and import commands to the main app."""
    app.command("export")(export_campaign)
    app.command("import")(import_campaign)


def _archive(services: Any) -> Any:
    from bot.archive.campaign_archive import CampaignArchive

    return CampaignArchive(services.db, services.knowledge, voice=services.voice)


def export_campaign(
    file: Annotated[Path, typer.Argument(help="The archive to write (a .zip file)")],
    campaign: CampaignOption,
    with_library: Annotated[
        bool,
        typer.Option(
            "--with-library", help="Also carry the originals of the shared library sources it reads"
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write a campaign to one archive: sources, canon, proposals, scenes, turns, NPC memories (no embeddings).

    The shared library sources it reads are named (and, with --with-library, carried).
    """
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        target = await services.campaigns.by_name(campaign, allow_abandoned=True)
        return await _archive(services).export_campaign(target.id, file, with_library=with_library)

    report = run_async(lambda: with_services(settings, work))
    emit(
        report.to_json(),
        as_json=as_json,
        text=lambda: (
            f"Exported campaign “{report.campaign}” to {report.path} ({report.bytes:,} bytes): "
            + ", ".join(f"{n} {name}" for name, n in report.tables.items() if n)
            + f"; {report.files} source files."
        ),
    )


def import_campaign(
    file: Annotated[Path, typer.Argument(help="An archive made by `lorekeeper export`")],
    new_name: Annotated[
        str | None, typer.Option("--as", help="The new campaign's name (default: the archived one)")
    ] = None,
    guild: Annotated[
        int | None,
        typer.Option("--guild", help="Bind the new campaign to this Discord server id (if it has none yet)"),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Restore an archive into a NEW campaign (fresh ids; embeddings rebuilt); all or nothing."""
    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        return await _archive(services).import_campaign(file, name=new_name, guild_id=guild)

    report = run_async(lambda: with_services(settings, work))

    def text() -> str:
        lines = [
            f"Imported campaign #{report.campaign.id} “{report.campaign.name}”: "
            + (", ".join(f"{n} {name}" for name, n in report.tables.items() if n) or "empty")
            + "."
        ]
        lines += [f"  ! {w}" for w in report.warnings]
        return "\n".join(lines)

    emit(report.to_json(), as_json=as_json, text=text)
