"""`lorekeeper sandbox`: start the sandbox, say where it is, and run until Ctrl-C."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

from bot.ops.backup import BackupError
from config.settings import Settings

from .runner import loopback_warning, open_sandbox, sandbox_settings
from .state import SandboxStateError


def _say(text: str) -> None:
    print(text, flush=True)


async def serve(settings: Settings, *, data_dir: Path, host: str, port: int, sample: bool) -> int:
    """Run the sandbox until SIGINT or SIGTERM; return the exit status."""
    settings = sandbox_settings(settings, data_dir)
    warning = loopback_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    _say(f"Starting the sandbox in {data_dir} (the first start loads the search model: a few seconds)…")
    try:
        async with open_sandbox(settings, host=host, port=port, sample=sample) as sandbox:
            _say(f"Lorekeeper sandbox ready: open {sandbox.url}")
            if not sandbox.llm_configured:
                _say(
                    "No language model is configured: narration and NPC speech are off (the page says which "
                    "features need one). Set LOREKEEPER_LLM__BASE_URL and LOREKEEPER_LLM__MODEL to turn them on."
                )
            if sandbox.sample_task is not None:
                _say("Importing the sample world in the background; watch #lore-library.")
            _say(
                f"The command line works on this sandbox's campaigns too: lorekeeper --data-dir {data_dir} "
                "campaign list (or set LOREKEEPER_DATA_DIR)."
            )
            _say("Press Ctrl-C to stop; everything is kept for next time.")
            await stop.wait()
            _say("Stopping the sandbox…")
    except (BackupError, SandboxStateError) as error:
        print(f"Not starting: {error}", file=sys.stderr, flush=True)
        return 1
    except OSError as error:
        print(f"Not starting: the sandbox cannot listen on {host}:{port}: {error.strerror}.", file=sys.stderr)
        return 1
    return 0
