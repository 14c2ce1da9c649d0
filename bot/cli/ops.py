"""`lorekeeper backup | restore | doctor`: the host's commands (registered by `bot.cli.main`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the operations commands to the CLI."""
    from bot.cli.common import fail, settings_or_exit

    @app.command()
    def backup(
        to: Annotated[Path | None, typer.Option("--to", help="Write the backup to this file")] = None,
    ) -> None:
        """Back up the SQLite database while the bot runs (SQLite's backup API, never a file copy)."""
        from bot.ops.backup import BackupError, backup_dir, backup_file, backup_to, prune, sqlite_path

        settings = settings_or_exit()
        database = sqlite_path(settings)
        if database is None:
            fail("The database is PostgreSQL: back it up with pg_dump (see the README).")
        try:
            if to is not None:
                target = backup_file(database, to)
            else:
                folder = backup_dir(settings)
                target = backup_to(database, folder)
                prune(folder, settings.ops.backup_keep)
        except BackupError as error:
            fail(f"Backup failed: {error}", code=1)
        typer.echo(f"Backed up {database} to {target} ({target.stat().st_size:,} bytes).")

    @app.command()
    def restore(
        file: Annotated[Path, typer.Argument(help="A backup made by `lorekeeper backup`")],
        force: Annotated[bool, typer.Option("--force", help="Replace the existing database")] = False,
    ) -> None:
        """Restore the SQLite database from a backup (stop the bot first)."""
        from bot.ops.backup import BackupError
        from bot.ops.backup import restore as do_restore

        settings = settings_or_exit()
        try:
            revisions, saved = do_restore(settings, file, force=force)
        except BackupError as error:
            fail(f"Restore refused: {error}.", code=1)
        kept = f" The previous database was saved to {saved}." if saved else ""
        typer.echo(
            f"Restored {file} (revision {', '.join(sorted(revisions))}).{kept} "
            "The bot upgrades it to the newest schema when it starts."
        )

    @app.command()
    def doctor(
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing; exit code only")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
        live: Annotated[
            bool,
            typer.Option("--live", help="Also fail unless the bot is running and connected (healthchecks)"),
        ] = False,
    ) -> None:
        """Check the configuration and every connection (database, data directory, Chroma, model, LLM, token)."""
        from bot.ops.doctor import exit_code, render, run_checks

        try:
            from config.settings import SettingsError, load_settings

            settings = load_settings()
        except SettingsError as error:
            if not quiet:
                typer.echo(str(error), err=True)
            raise typer.Exit(2) from None  # a setting to fix, as for every command
        import asyncio

        checks = asyncio.run(run_checks(settings, live=live))
        if as_json:
            typer.echo(json.dumps([c.__dict__ for c in checks]))
        elif not quiet:
            typer.echo(render(checks))
        raise typer.Exit(exit_code(checks))
