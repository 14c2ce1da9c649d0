"""What every `lorekeeper` command shares: settings or a clear exit, errors as messages, JSON or text, services."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, NoReturn, TypeVar

import typer

from canon.errors import GameError
from config.settings import Settings, SettingsError, load_settings

T = TypeVar("T")

MISSING_TOKEN = """\
Lorekeeper cannot start: no Discord bot token is set.

The setting is LOREKEEPER_DISCORD_TOKEN. Put it in one of:
  * the environment:     export LOREKEEPER_DISCORD_TOKEN=...
  * a .env file here:    LOREKEEPER_DISCORD_TOKEN=...
  * lorekeeper.toml:     discord_token = "..."   (or the file named by LOREKEEPER_CONFIG)

To get a token: open https://discord.com/developers/applications, create an application,
open "Bot", press "Reset Token" and copy it. Under "Privileged Gateway Intents" turn on
MESSAGE CONTENT and SERVER MEMBERS. The README explains how to invite the bot to a server.
"""  # noqa: S105 (a help screen, not a password)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a message for a person on stderr and exit with `code`."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


def settings_or_exit() -> Settings:
    """Load the settings, or print the screen that says which one is wrong and exit."""
    try:
        return load_settings()
    except SettingsError as error:
        fail(str(error))


def configure_logging(settings: Settings) -> None:
    """Log to stderr at the configured level, with the campaign, scene and command when known."""
    from bot.ops.logs import install

    install(settings.log_level)


def run_async(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine, turning user-facing errors into a message and exit code 1."""
    try:
        return asyncio.run(factory())
    except GameError as error:
        fail(error.message, code=1)


def emit(payload: Any, *, as_json: bool, text: Callable[[], str]) -> None:
    """Print JSON for scripts or text for people."""
    if as_json:
        typer.echo(json.dumps(payload, ensure_ascii=False, default=str))
    else:
        typer.echo(text())


async def with_services(settings: Settings, work: Callable[[Any], Awaitable[T]]) -> T:
    """Build the services, run `work(services)`, and close them."""
    from bot.app import build_services

    services = await build_services(settings)
    try:
        return await work(services)
    finally:
        await services.close()
