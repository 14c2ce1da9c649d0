"""What every `lorekeeper` command shares: settings or a clear exit, errors as messages, JSON or text, services.

The command modules import only this, typer and the standard library when the program starts: everything else
is imported by the command that uses it, so `lorekeeper --help` and a mistyped command answer at once.
"""

from __future__ import annotations

import enum
import functools
import gc
import json
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar, get_args, get_origin

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup
from typer.models import CommandFunctionType

from canon.errors import GameError

if TYPE_CHECKING:
    from config.settings import Settings
    from memory.scenes import Actor

T = TypeVar("T")

#: An in-world date option's help: the same for every campaign, so no example date of one (`--read` shows one).
IN_WORLD_DATE_HELP = (
    "In-world date in the campaign calendar's words (lorekeeper canon calendar -c NAME shows them)"
)


#: The options most commands share: the campaign by its name, and JSON output.
CampaignOption = Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON")]


class ViewerChoice(enum.StrEnum):
    """Who the command line reads as: a player (public canon; the default of every command that reads) or the GM."""

    PLAYER = "player"
    GM = "gm"


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


_WORDS: dict[Any, str] = {str: "TEXT", int: "N", float: "NUMBER"}


def plain_type(param: Any, ctx: Any = None) -> str:
    """Return how help shows a parameter's value: a word a person reads (TEXT, N, FILE, player|gm), not a type.

    Flags and arguments show nothing more: `--json` says all there is to say, and an argument is named
    (`NAME`) already.
    """
    descriptor = param.type_descriptor
    if getattr(param, "is_flag", False) or descriptor.annotation is bool or isinstance(param, TyperArgument):
        return ""  # a flag says it all; an argument's name is its metavar
    if descriptor.is_choice:
        return "|".join(str(getattr(choice, "value", choice)) for choice in descriptor.choices or ())
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, Path):
        info = descriptor.parameter_info
        if not getattr(info, "file_okay", True):
            return "FOLDER"
        return "FILE" if not getattr(info, "dir_okay", True) else "PATH"
    return _WORDS.get(annotation, "TEXT")


def _plain(param: Any) -> Any:
    if param is None:
        return None
    setattr(param, "display_type", functools.partial(plain_type, param))  # noqa: B010 (this one's, not the class's)
    if isinstance(param, TyperArgument) and param.metavar is None and param.name:
        param.metavar = param.name.upper()
    if isinstance(param, TyperArgument):
        # The usage line names a required argument as it is (`NAME`), an optional one in brackets: Typer's
        # own braces (`{NAME}`) read as something to type.
        setattr(param, "_usage_display_name", functools.partial(_usage_name, param))  # noqa: B010
    return param


def _usage_name(param: Any) -> str:
    name = str(param.metavar or param.name or "").upper()
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def _help_option(option: Any) -> Any:
    """Return `--help` shown without a type, and read without converting its value.

    Typer converts a flag that was not given through pydantic, which `--help` alone would load for nothing;
    its own pass-through conversion takes a flag's value as it is.
    """
    return _pass_through(option, bool)


def _pass_through(option: Any, annotation: type) -> Any:
    """Return `option` read as it is typed (`annotation`: a flag's bool, an option's text), not through pydantic."""
    from typer._coercion import PassThroughRuntimeParam

    if option is not None and getattr(option, "_runtime_param", None) is None:
        info = option.type_descriptor.parameter_info
        option._runtime_param = PassThroughRuntimeParam(parameter_info=info, annotation=annotation)
    return _plain(option)


class PlainCommand(TyperCommand):
    """A command whose help names values in words (`--campaign TEXT`, `PATHS...`), never as Python types."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _plain(param)

    def get_help_option(self, ctx: Any) -> Any:
        """Return `--help`, shown without a type."""
        return _help_option(super().get_help_option(ctx))


class PlainGroup(TyperGroup):
    """A command group whose options and `--help` show no type (see `PlainCommand`).

    Its own options (`--version`, `--data-dir`) are read as typed, like `--help`: converting them through
    pydantic would load it for every command, a help screen included.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            _pass_through(param, bool if getattr(param, "is_flag", False) else str)

    def get_help_option(self, ctx: Any) -> Any:
        """Return `--help`, shown without a type."""
        return _help_option(super().get_help_option(ctx))


class Typer(typer.Typer):
    """`typer.Typer` whose groups and commands show plain help (`PlainGroup`, `PlainCommand`).

    Help is plain text, as most command-line tools print it: a help screen that loads no terminal styling
    library answers sooner.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("rich_markup_mode", None)
        super().__init__(cls=kwargs.pop("cls", PlainGroup), **kwargs)

    def command(
        self, name: str | None = None, *, cls: type[TyperCommand] | None = None, **kwargs: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        """Register a command (see `typer.Typer.command`), as a `PlainCommand` by default."""
        return super().command(name, cls=cls or PlainCommand, **kwargs)


#: Whether the running command is the whole process (the console script's `main`), not a call from a test or a
#: script that goes on after it: such a command may leave its tidying to the process's end. And whether `main`
#: paused the cyclic garbage collector for the command to decide about.
_WHOLE_PROCESS = {"on": False, "paused": False}


def command_is_whole_process(on: bool = True, *, pause_collector: bool = False) -> None:
    """Say that the command about to run is the whole process (`bot.cli.main.main`). `pause_collector`: turn the
    cyclic garbage collector off meanwhile (it would walk the modules being imported, again and again), until the
    command takes the decision (`take_paused_collector`)."""
    _WHOLE_PROCESS["on"] = on
    if on and pause_collector and gc.isenabled():
        gc.disable()
        _WHOLE_PROCESS["paused"] = True


def command_ends_process() -> bool:
    """Tell whether the process ends when the running command does."""
    return _WHOLE_PROCESS["on"]


def take_paused_collector() -> bool:
    """Return whether the collector was on before `main` paused it (the caller now turns it back on or not)."""
    paused = _WHOLE_PROCESS["paused"]
    _WHOLE_PROCESS["paused"] = False
    return paused


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a message for a person on stderr and exit with `code`."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


def settings_or_exit() -> Settings:
    """Load the settings, or print the screen that says which one is wrong and exit."""
    from config.settings import SettingsError, load_settings

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
    import asyncio

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


def cli_actor() -> Actor:
    """Return who acts from the command line: the GM, by no Discord id."""
    from memory.scenes import Actor

    return Actor(id=None, name="command line", is_gm=True)


def checked(build: Callable[[], T]) -> T:
    """Return `build()`, or print a malformed option's message and exit 1 (as `run_async` does)."""
    try:
        return build()
    except GameError as error:
        fail(error.message, code=1)


def with_campaign(campaign: str, work: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run `work(services, campaign)` for a campaign named on the command line."""
    settings = settings_or_exit()

    async def run(services: Any) -> T:
        found = await services.campaigns.by_name(campaign)
        return await work(services, found)

    return run_async(lambda: with_services(settings, run))
