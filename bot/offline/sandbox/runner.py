"""Run the sandbox: the real bot against the Discord emulator, its state in a data folder, and the web page."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from bot.offline.emulator import DiscordEmulator, InteractionResult, StoredMessage
from config.settings import ChromaSettings, Settings, WikiSettings

from .hub import LiveHub
from .state import SandboxStore
from .world import SandboxWorld, build_world

log = logging.getLogger(__name__)

#: Seconds a burst of changes is collected before the state file is written once.
SAVE_DELAY = 0.5
#: Seconds between trims of what the emulator logs for tests (requests, gateway events) and a sandbox never reads.
TRIM_SECONDS = 60.0
#: The first start loads the embedding model and may migrate the database: give it time.
START_TIMEOUT = 180.0


def is_loopback(host: str) -> bool:
    """Return whether binding to ``host`` keeps the sandbox on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def loopback_warning(host: str) -> str | None:
    """Return the warning printed when the sandbox listens beyond this machine, else None."""
    if is_loopback(host):
        return None
    return (
        f"Warning: the sandbox listens on {host}, not only on this machine. Anyone who can reach it can act as "
        "the GM or any player, read everything, and upload files. Use --host 127.0.0.1 unless you mean it."
    )


def sandbox_settings(settings: Settings, data_dir: Path) -> Settings:
    """Return the settings the sandbox runs with: everything in its own data folder, never a real database.

    The language model settings are kept (narration and NPC speech use them); the database, the Chroma server,
    the development guild and sharding are not: a sandbox must not write into a real bot's campaign. The campaign
    wiki is on, on 127.0.0.1 at a port the system picks (`/wiki` gives its links).
    """
    return settings.model_copy(
        update={
            "data_dir": data_dir,
            "database_url": None,
            "chroma": ChromaSettings(),
            "dev_guild_id": None,
            "shard_count": None,
            "shard_ids": None,
            "discord_token": None,
            "wiki": WikiSettings(enabled=True, host="127.0.0.1", port=0),
        }
    )


@dataclass(eq=False)
class Sandbox:
    """The running sandbox: the emulator with its people and channels, the bot, the live updates."""

    emu: DiscordEmulator
    world: SandboxWorld
    settings: Settings
    store: SandboxStore
    hub: LiveHub
    #: Forms the bot opened, by interaction id, until they are submitted.
    modals: dict[int, InteractionResult] = field(default_factory=dict)
    url: str = ""
    sample_task: asyncio.Task[None] | None = None
    _save_handle: asyncio.TimerHandle | None = None

    @property
    def llm_configured(self) -> bool:
        """Return whether narration and NPC speech have a language model to use."""
        return self.settings.llm.configured

    def on_message(self, event: str, message: StoredMessage) -> None:
        """Remember which command a message answered, and save soon (an emulator observer)."""
        metadata = message.data.get("interaction_metadata")
        if event == "MESSAGE_CREATE" and metadata:
            record = self.emu.interactions.get(int(metadata.get("id", 0)))
            if record is not None and record.label.startswith("/"):
                self.world.labels[message.id] = record.label
                if record.label == "/lore import" and not self.world.lore_imported:
                    self.world.lore_imported = True
                    self.schedule_save()
        if not message.ephemeral:
            self.schedule_save()

    def schedule_save(self) -> None:
        """Write the state once the current burst of changes is over."""
        if self._save_handle is None:
            self._save_handle = asyncio.get_running_loop().call_later(SAVE_DELAY, self._save_now)

    def _save_now(self) -> None:
        self._save_handle = None
        try:
            self.store.save(self.emu, self.world)
        except OSError:
            log.exception("the sandbox's state could not be written to %s", self.store.path)

    def save(self) -> None:
        """Write the state now (at shutdown)."""
        if self._save_handle is not None:
            self._save_handle.cancel()
        self._save_now()

    def start_sample(self) -> asyncio.Task[None]:
        """Import the sample world in the background, unless it is already there or on its way."""
        from .sample import load_sample

        if self.sample_task is None or self.sample_task.done():
            self.sample_task = asyncio.create_task(load_sample(self), name="sandbox: sample world")
        return self.sample_task

    def trim(self) -> None:
        """Forget what the emulator keeps for tests' assertions: a sandbox runs for hours."""
        self.emu.requests.clear()
        self.emu.errors.clear()
        for session in self.emu.sessions:
            session.events.clear()
        answered = [i for i, r in self.emu.interactions.items() if r.done.is_set() and i not in self.modals]
        for interaction_id in answered[:-200]:
            record = self.emu.interactions.pop(interaction_id)
            self.emu.interactions_by_token.pop(record.token, None)


async def _trim_forever(sandbox: Sandbox) -> None:
    while True:
        await asyncio.sleep(TRIM_SECONDS)
        sandbox.trim()


@asynccontextmanager
async def open_sandbox(
    settings: Settings, *, host: str = "127.0.0.1", port: int = 8080, sample: bool = False
) -> AsyncIterator[Sandbox]:
    """Start the sandbox on ``settings.data_dir`` (use `sandbox_settings`) and serve the page; stop it after.

    ``port=0`` picks a free port (``sandbox.url`` says which). With ``sample``, the sample world is imported
    in the background the first time (``sandbox.sample_task``).
    """
    from bot.app import build_services
    from bot.client.client import INVITE_PERMISSIONS, Lorekeeper
    from bot.ops.backup import RunLock

    from .web import build_app

    with RunLock(settings.data_dir):
        store = SandboxStore(settings.data_dir)
        async with DiscordEmulator(bot_permissions=INVITE_PERMISSIONS) as emu:
            world = store.load(emu) if store.exists() else build_world(emu, settings.gm_role)
            sandbox = Sandbox(emu, world, settings, store, LiveHub(emu, world))
            emu.observers.extend([sandbox.on_message, sandbox.hub.on_message])
            # The page's port first: a port in use is said at once, not after the bot's start.
            runner = web.AppRunner(build_app(sandbox, host), access_log=None, handle_signals=False)
            await runner.setup()
            try:
                await web.TCPSite(runner, host, port).start()
                services = await build_services(settings)
                await emu.start_bot(Lorekeeper(services), timeout=START_TIMEOUT)
            except BaseException:
                await runner.cleanup()
                raise
            sandbox.save()
            bound = runner.addresses[0]
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host  # noqa: S104 (only a display name)
            sandbox.url = f"http://{shown if ':' not in shown else f'[{shown}]'}:{bound[1]}"
            trimmer = asyncio.create_task(_trim_forever(sandbox), name="sandbox: trim")
            if sample and not world.sample_loaded:
                sandbox.start_sample()
            try:
                yield sandbox
            finally:
                trimmer.cancel()
                if sandbox.sample_task is not None and not sandbox.sample_task.done():
                    sandbox.sample_task.cancel()
                    with contextlib.suppress(BaseException):
                        await sandbox.sample_task
                sandbox.hub.close()
                await runner.cleanup()
                sandbox.save()
