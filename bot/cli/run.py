"""`lorekeeper run`: the bot on Discord until a signal stops it, or one screen saying why it cannot start.

Discord is asked first whether it accepts the token, before the migrations, Chroma and the embedding model:
a token Discord rejects, or a machine that cannot reach Discord, is told in a second, in a few lines that
say what to do, never as a traceback.
"""

from __future__ import annotations

import asyncio
import signal
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from config.settings import Settings

LOGIN_REFUSED = (
    "Discord refused the token in LOREKEEPER_DISCORD_TOKEN: it is not a bot token, or it was reset.\n"
    "Copy the bot's token again in the developer portal (Bot > Reset Token) and run `lorekeeper run` again."
)
INTENTS_REFUSED = (
    "Discord refused the connection: the bot needs two privileged intents.\n"
    "Turn on MESSAGE CONTENT and SERVER MEMBERS under Bot > Privileged Gateway Intents in the developer "
    "portal, then run `lorekeeper run` again."
)
#: How much of a network error's own words the screen shows.
_REASON_CHARS = 200


def unreachable(reason: str) -> str:
    """Return the screen for a machine that cannot reach Discord (`reason`: the error's own words)."""
    reason = " ".join(reason.split())[:_REASON_CHARS] or "no answer"
    return (
        f"Lorekeeper could not reach Discord ({reason}).\n"
        "Check this machine's internet connection (a proxy or a firewall may block discord.com), "
        "then run `lorekeeper run` again. `lorekeeper doctor` checks the rest of the configuration."
    )


async def discord_refusal(token: str) -> tuple[int, str] | None:
    """Ask Discord who the token belongs to; return (exit code, screen) when it cannot be used, else None."""
    import aiohttp
    import discord

    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    except discord.LoginFailure:
        return 2, LOGIN_REFUSED
    except discord.HTTPException as error:
        return 1, f"Discord answered with an error (HTTP {error.status}). Try again in a few minutes."
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        return 1, unreachable(str(error) or type(error).__name__)
    finally:
        await http.close()
    return None


async def run_bot(settings: Settings) -> int:
    """Run the bot until a signal stops it; return the process's exit code (0 after a clean stop)."""
    import aiohttp
    import discord

    from bot.app import build_services
    from bot.client.client import create_bot
    from bot.ops.backup import BackupError, RunLock, sqlite_path
    from bot.ops.collections import refusal
    from memory import chroma_apart

    # The embedded index's writes hold the interpreter: the bot keeps them in a process of their own.
    chroma_apart.keep_apart()
    try:  # before the migrations: a restore refuses while a bot holds it, and no bot starts during one
        lock = RunLock(settings.data_dir) if sqlite_path(settings) is not None else None
    except BackupError as error:
        typer.echo(f"Not starting: {error}.", err=True)
        return 1
    token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
    try:
        refused = await discord_refusal(token)
        if refused is not None:
            typer.echo(refused[1], err=True)
            return refused[0]
        services = await build_services(settings)
        clash = await refusal(settings, services.installation)
        if clash is not None:
            await services.close()
            typer.echo(f"Not starting: {clash}", err=True)
            if lock is not None:
                lock.release()
            return 1
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    bot = create_bot(services)
    loop = asyncio.get_running_loop()
    closing: list[asyncio.Future[None]] = []

    def stop() -> None:
        # One close, awaited below: a second signal must not start a racing shutdown.
        if not closing:
            closing.append(asyncio.ensure_future(bot.close()))

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)
    try:
        async with bot:
            await bot.start(token)
    except discord.LoginFailure:
        typer.echo(LOGIN_REFUSED, err=True)
        return 2
    except discord.PrivilegedIntentsRequired:
        typer.echo(INTENTS_REFUSED, err=True)
        return 2
    except (aiohttp.ClientError, OSError, discord.GatewayNotFound) as error:
        typer.echo(unreachable(str(error) or type(error).__name__), err=True)
        return 1
    finally:
        for task in closing:
            await asyncio.gather(task, return_exceptions=True)
        await services.close()
        if lock is not None:
            lock.release()
    return 0
