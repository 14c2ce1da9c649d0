"""`lorekeeper wiki link | serve`: a personal wiki link for operators and scripts, and the wiki served alone.

    lorekeeper wiki link -c "Shattered Isles" --as gm
    lorekeeper wiki link -c "Shattered Isles" --as player --user 123456789012345678
    lorekeeper wiki serve --host 0.0.0.0 --port 8765

`serve` runs the wiki without Discord: on PostgreSQL several such processes may serve one database behind a
reverse proxy (links and their revocations live in the database).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer

from bot.cli.common import Typer, configure_logging, emit, fail, run_async, settings_or_exit, with_campaign

wiki_app = Typer(
    help="The campaign wiki: personal links, and the wiki served without Discord.", no_args_is_help=True
)

#: Whose generation a link made on the command line without `--user` counts in (no Discord member has it).
COMMAND_LINE_USER = -1


def register(app: typer.Typer) -> None:
    """Add the wiki commands to the main app."""
    app.add_typer(wiki_app, name="wiki")


@wiki_app.command("link")
def wiki_link(
    campaign: Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")],
    as_: Annotated[
        str,
        typer.Option("--as", help="gm: everything, GM-only parts marked; player: what that player may see"),
    ],
    user: Annotated[
        int | None,
        typer.Option(
            "--user", help="The Discord member's id (a player's link shows what their character knows)"
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Print a personal link to a campaign's wiki."""
    role: Literal["gm", "player"]
    if as_ not in ("gm", "player"):
        fail(f"--as is gm or player, not “{as_}”.")
    role = "gm" if as_ == "gm" else "player"

    async def work(services: Any, found: Any) -> dict[str, Any]:
        links = services.wiki.links
        token = await links.issue(found.id, COMMAND_LINE_USER if user is None else user, gm=role == "gm")
        return {
            "campaign": found.name,
            "as": role,
            "url": links.url(token),
            "days": services.settings.wiki.link_days,
        }

    made = with_campaign(campaign, work)
    emit(made, as_json=as_json, text=lambda: made["url"])


@wiki_app.command("revoke")
def wiki_revoke(
    campaign: Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")],
    user: Annotated[
        int | None, typer.Option("--user", help="The Discord member whose links stop working")
    ] = None,
    everyone: Annotated[
        bool, typer.Option("--everyone", help="Every link to the campaign stops working")
    ] = False,
) -> None:
    """Make wiki links stop working: one member's, or everyone's."""
    if (user is None) == (not everyone):
        fail("Name one member with --user ID, or revoke every link with --everyone.")

    async def work(services: Any, found: Any) -> str:
        links = services.wiki.links
        if everyone:
            await links.revoke_everyone(found.id)
            return f"Every wiki link to {found.name} stops working now; new ones work."
        await links.revoke(found.id, user)
        return f"The wiki links member {user} had to {found.name} stop working now."

    typer.echo(with_campaign(campaign, work))


@wiki_app.command("serve")
def wiki_serve(
    host: Annotated[
        str | None, typer.Option("--host", help="The address to listen on (default: wiki.host)")
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", help="The port (default: wiki.port)", min=0, max=65535)
    ] = None,
) -> None:
    """Serve the campaign wiki alone, without Discord, until Ctrl-C."""
    settings = settings_or_exit()
    configure_logging(settings)
    code = run_async(lambda: _serve(settings, host, port))
    raise typer.Exit(code)


async def _serve(settings: Any, host: str | None, port: int | None) -> int:
    import asyncio
    import signal
    import sys

    from bot.app import build_services
    from bot.wiki.server import WikiServer

    services = await build_services(settings)
    try:
        server = WikiServer(services.wiki)
        try:
            await server.start(host, port)
        except OSError as error:
            where = f"{host or settings.wiki.host}:{settings.wiki.port if port is None else port}"
            print(f"Not starting: the wiki cannot listen on {where}: {error.strerror}.", file=sys.stderr)
            return 1
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        public = settings.wiki.base_url or server.url
        print(
            f"The campaign wiki is served on {server.url} (links open {public}). Ctrl-C stops it.", flush=True
        )
        await stop.wait()
        await server.stop()
        return 0
    finally:
        await services.close()
