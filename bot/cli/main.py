"""The `lorekeeper` command line: run the bot, manage the database and campaigns, script everything else."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.main import get_command_name
from typer.models import CommandInfo

from bot.cli.common import (
    MISSING_TOKEN,
    Typer,
    command_is_whole_process,
    configure_logging,
    emit,
    fail,
    run_async,
    settings_or_exit,
    with_services,
)

app = Typer(
    name="lorekeeper",
    help="Lorekeeper: a Discord game-master bot that keeps your campaign's canon straight.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = Typer(help="Manage the database schema.", no_args_is_help=True)
campaign_app = Typer(help="Create and list campaigns without Discord.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(campaign_app, name="campaign")


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"lorekeeper {version('lorekeeper')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("lorekeeper (not installed: no version)")
        raise typer.Exit(0)


@app.callback()
def options(
    data_dir: Annotated[
        str | None,
        typer.Option(
            "--data-dir",
            metavar="FOLDER",
            help="The data folder to use (its database, vectors, backups), e.g. a sandbox's ./data/sandbox; "
            "the same as LOREKEEPER_DATA_DIR",
        ),
    ] = None,
    show_version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit", callback=_version, is_eager=True),
    ] = False,
) -> None:
    """Lorekeeper: a Discord game-master bot that keeps your campaign's canon straight."""
    import os

    del show_version
    if data_dir is not None:
        os.environ["LOREKEEPER_DATA_DIR"] = data_dir


@app.command()
def run() -> None:
    """Run the bot on Discord (SQLite and embedded Chroma in ./data unless configured otherwise)."""
    settings = settings_or_exit()
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        fail(MISSING_TOKEN)
    import asyncio

    from bot.cli.run import run_bot

    configure_logging(settings)
    raise typer.Exit(asyncio.run(run_bot(settings)))


@app.command()
def sandbox(
    sample: Annotated[bool, typer.Option("--sample", help="Import the sample world (once)")] = False,
    host: Annotated[str, typer.Option(help="The address the page listens on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The page's port (0: any free one)", min=0, max=65535)] = 8080,
    data_dir: Annotated[
        Path, typer.Option("--data-dir", help="Where the sandbox keeps its state", file_okay=False)
    ] = Path("./data/sandbox"),
) -> None:
    """Try the whole bot in a browser, without Discord: the GM and three players in a local server."""
    import asyncio

    from bot.offline.sandbox.serve import serve

    settings = settings_or_exit()
    configure_logging(settings)
    raise typer.Exit(asyncio.run(serve(settings, data_dir=data_dir, host=host, port=port, sample=sample)))


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending database migration."""
    from sqlalchemy.engine import make_url

    from bot.schema import database
    from canon.storage import Database

    settings = settings_or_exit()
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    async def work() -> set[str]:
        db = Database.from_url(settings.resolved_database_url)
        try:
            await database.upgrade(db)
            return await database.current_revisions(db)
        finally:
            await db.dispose()

    revisions = run_async(work)
    shown = make_url(settings.resolved_database_url).render_as_string(hide_password=True)
    typer.echo(f"Database at revision {', '.join(sorted(revisions))}: {shown}")


@db_app.command("new-installation")
def db_new_installation() -> None:
    """Give this database a new installation id: for a copy of another database that shares its Chroma."""
    from bot.ops.installation import Installation
    from bot.schema import database
    from canon.storage import Database

    settings = settings_or_exit()

    async def work() -> tuple[str, str]:
        db = Database.from_url(settings.resolved_database_url)
        try:
            await database.upgrade(db)
            installation = Installation(db)
            old = await installation.id()
            return old, await installation.renew()
        finally:
            await db.dispose()

    old, new = run_async(work)
    typer.echo(
        f"This database is now installation {new} (it was {old}); its vector collections start empty: run "
        "`lorekeeper reindex --campaign NAME` for each campaign to rebuild them from the database."
    )


@campaign_app.command("create")
def campaign_create(
    name: Annotated[str, typer.Argument(help="A unique name for the campaign")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Create a campaign (Discord servers get theirs automatically on first use)."""
    settings = settings_or_exit()
    campaign = run_async(lambda: with_services(settings, lambda s: s.campaigns.create(name)))
    emit(
        campaign.model_dump(mode="json"),
        as_json=as_json,
        text=lambda: f"Created campaign #{campaign.id} “{campaign.name}”.",
    )


@campaign_app.command("list")
def campaign_list(as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
    """List every campaign as a tree: each campaign, then its what-if branches with their fork points."""
    from bot.cli.branches import gm_dates, node_payload, tree_lines

    settings = settings_or_exit()

    async def work(services: Any) -> Any:
        nodes = await services.branches.tree()
        # A fork's world date in its campaign calendar's words (the command line reads as the GM).
        dates = {
            n.campaign.id: await gm_dates(services, n.campaign) for n in nodes if n.fork and n.fork.world_date
        }
        return nodes, dates

    found, dates = run_async(lambda: with_services(settings, work))
    emit(
        [node_payload(node, dates.get(node.campaign.id, str)) for node in found],
        as_json=as_json,
        text=lambda: "\n".join(tree_lines(found, dates)) or "No campaigns yet.",
    )


def _register_branches() -> None:
    """Add `lorekeeper campaign fork | info | rebase | promote | ...` (defined in `bot.cli.branches`)."""
    from bot.cli.branches import register

    register(campaign_app)


_register_branches()


def _register_canon() -> None:
    """Add `lorekeeper canon ...` (defined in `bot.cli.canon`, which uses the helpers above)."""
    from bot.cli.canon import canon_app
    from bot.cli.canon_list import canon_list

    canon_app.command("list")(canon_list)
    app.add_typer(canon_app, name="canon")


_register_canon()


def _register_lore() -> None:
    """Add `lorekeeper ingest | lore | reindex | sources` (defined in `bot.cli.lore`)."""
    from bot.cli.lore import register

    register(app)


_register_lore()


def _register_glossary() -> None:
    """Add `lorekeeper glossary list | add | remove` (defined in `bot.cli.glossary`)."""
    from bot.cli.glossary import register

    register(app)


_register_glossary()


def _register_ops() -> None:
    """Add `lorekeeper backup | restore | doctor` (defined in `bot.cli.ops`)."""
    from bot.cli.ops import register

    register(app)


_register_ops()


def _register_voice() -> None:
    """Add `lorekeeper voice ...` (defined in `bot.cli.voice`)."""
    from bot.cli.voice import register

    register(app)


_register_voice()


def _register_memory() -> None:
    """Add `lorekeeper memory ...` (defined in `bot.cli.memory`)."""
    from bot.cli.memory import register

    register(app)


_register_memory()


def _register_render() -> None:
    """Add `lorekeeper render tree|timeline` (defined in `bot.cli.render`)."""
    from bot.cli.render import register

    register(app)


_register_render()


def _register_archive() -> None:
    """Add `lorekeeper export | import` (defined in `bot.cli.archive`)."""
    from bot.cli.archive import register

    register(app)


_register_archive()


def _register_vault() -> None:
    """Add `lorekeeper vault check | prune | copy` (defined in `bot.cli.vault`)."""
    from bot.cli.vault import register

    register(app)


_register_vault()


def _register_library() -> None:
    """Add `lorekeeper library import | list | attach | detach` (defined in `bot.cli.library`)."""
    from bot.cli.library import register

    register(app)


_register_library()


def _register_wiki() -> None:
    """Add `lorekeeper wiki link | serve` (defined in `bot.cli.wiki`)."""
    from bot.cli.wiki import register

    register(app)


_register_wiki()


def main() -> None:
    """Run the command line."""
    import logging
    import os

    # numpy does element-wise work here only (pooling an embedding); OpenBLAS would start a thread per core as
    # numpy is imported, about 0.05 s of CPU that a one-question process pays for nothing.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    logging.captureWarnings(True)
    asking = sys.argv[1:2] == ["lore"]
    if asking:
        # pydantic looks for plugins in every installed package's entry points as its first model is built
        # (about 0.05 s of a cold question's CPU); Lorekeeper uses none, and a question has no use for them.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # `lore` decides about the garbage collector itself (off for one question); off until then.
    command_is_whole_process(pause_collector=asking)
    try:
        only_asked(sys.argv[1:])()
    except KeyboardInterrupt:
        sys.exit(130)


def only_asked(args: list[str]) -> typer.Typer:
    """Return the app holding only the command or group that `args` name first, when they start with one of its
    names: typer builds the parser of every command it holds before it reads the arguments (about 0.04 s for all
    of them), and a process runs one. The whole app otherwise (no arguments, an option first, an unknown name)."""
    if not args or args[0].startswith("-"):
        return app
    commands = [c for c in app.registered_commands if _name(c) == args[0]]
    groups = [g for g in app.registered_groups if g.name == args[0]]
    if not commands and not groups:
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, groups
    return only


def _name(command: CommandInfo) -> str | None:
    """Return a registered command's name as typer gives it (its function's name, when it was given none)."""
    if command.name:
        return command.name
    return get_command_name(command.callback.__name__) if command.callback is not None else None
