"""`lorekeeper render tree|timeline ...`: draw the canon's family trees and timelines as PNG files, offline.

Registered on the main app by `bot.cli.main`. Reads as a player unless `--as gm` is given, so GM-only people,
events and eras are only drawn on request, as on Discord.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.common import (
    CampaignOption,
    JsonOption,
    Typer,
    ViewerChoice,
    emit,
    run_async,
    settings_or_exit,
    with_services,
)

if TYPE_CHECKING:
    from bot.app import Services
    from canon.render import Picture

render_app = Typer(help="Draw family trees and timelines as PNG images.", no_args_is_help=True)


OutputOption = Annotated[Path, typer.Option("--output", "-o", help="The PNG file to write")]
AsOption = Annotated[
    ViewerChoice, typer.Option("--as", help="Draw for a player (public canon) or for the GM (everything)")
]


def register(app: typer.Typer) -> None:
    """Add `render` to the main app."""
    app.add_typer(render_app, name="render")


def _write(picture: Picture, output: Path, as_json: bool) -> None:
    from canon.render import TreeLayout

    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(picture.png)
    layout = picture.layout
    shown = len(layout.boxes) if isinstance(layout, TreeLayout) else len(layout.events)
    what = "people" if isinstance(layout, TreeLayout) else "events"
    emit(
        {
            "file": str(output),
            "title": picture.title,
            "width": layout.width,
            "height": layout.height,
            what: shown,
        },
        as_json=as_json,
        text=lambda: f"Wrote {output} ({layout.width}×{layout.height}): {picture.title}, {shown} {what}.",
    )


@render_app.command("tree")
def tree(
    name: Annotated[str, typer.Argument(help="A person (their ancestors and descendants) or a lineage")],
    campaign: CampaignOption,
    output: OutputOption,
    viewer: AsOption = ViewerChoice.PLAYER,
    up: Annotated[int, typer.Option("--up", min=0, max=10, help="Generations of ancestors")] = 3,
    down: Annotated[int, typer.Option("--down", min=0, max=10, help="Generations of descendants")] = 3,
    as_json: JsonOption = False,
) -> None:
    """Draw a family tree: generations in rows, spouses side by side, parents joined to their children."""
    settings = settings_or_exit()

    async def work(services: Services) -> Picture:
        from canon.models import Viewer

        target = await services.campaigns.by_name(campaign)
        pictures = services.pictures
        return await pictures.family_tree(target, name, viewer=Viewer(viewer.value), up=up, down=down)

    _write(run_async(lambda: with_services(settings, work)), output, as_json)


@render_app.command("timeline")
def timeline(
    campaign: CampaignOption,
    output: OutputOption,
    era: Annotated[str | None, typer.Argument(help="Only this era (and its sub-eras)")] = None,
    viewer: AsOption = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """Draw the timeline: eras as bands on a year axis, events placed by date."""
    settings = settings_or_exit()

    async def work(services: Services) -> Picture:
        from canon.models import Viewer

        target = await services.campaigns.by_name(campaign)
        pictures = services.pictures
        return await pictures.timeline(target, era, viewer=Viewer(viewer.value))

    _write(run_async(lambda: with_services(settings, work)), output, as_json)
