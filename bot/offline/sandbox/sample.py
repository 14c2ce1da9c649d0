"""The sample world: the Saltcoast, imported by the GM with `/lore import`, then a short scene to review.

Everything goes through the bot as on Discord: the GM uploads each file in #lore-library (in order: a file's
references must already be canon), then plays a few turns at the Gilded Eel with two players, one of whom
proposes a fact, and ends the scene, so that the first minute on the page shows imports, a scene and its
review card waiting for the GM. A sandbox imports it once: the state remembers it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from .actions import ActionRefused, Upload, post_message, run_command

if TYPE_CHECKING:
    from .runner import Sandbox

log = logging.getLogger(__name__)

#: The files in import order, with the options the GM gives `/lore import`.
FILES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("1-gazetteer.yaml", {}),
    ("2-timeline.yaml", {}),
    ("3-marrow-kin.yaml", {}),
    ("4-house-vale.yaml", {}),
    ("5-saltmarch.md", {"class": "canon"}),
    ("6-the-gilded-eel.md", {"class": "reference"}),
)


@dataclass(frozen=True)
class Step:
    """One thing someone does in the sample scene: a message, or a command with its options."""

    who: str
    text: str = ""
    command: str = ""
    options: tuple[tuple[str, Any], ...] = ()


SCENE: tuple[Step, ...] = (
    Step(
        "gm",
        command="scene start",
        options=(("title", "Rain at the Gilded Eel"), ("location", "The Gilded Eel")),
    ),
    Step(
        "gm",
        "Rain hammers the shutters of the Gilded Eel. Brannoc Marrow wipes the same mug for the third time.",
    ),
    Step("pat", "I slide a silver coin across the bar. “Who has been asking about Lord Aldren?”"),
    Step("quinn", "I keep an eye on the door. Corin Vale walks in, soaked to the skin and grinning."),
    Step(
        "gm",
        "Brannoc pockets the coin. “Ask the heir. He owes me forty silver, and he talks when he drinks.”",
    ),
    Step(
        "pat",
        command="propose fact",
        options=(
            ("subject", "Corin Vale"),
            ("attribute", "debt"),
            ("value", "owes Brannoc Marrow forty silver"),
        ),
    ),
    Step("gm", command="endscene"),
)


def sample_file(name: str) -> bytes:
    """Return one of the sample world's files."""
    return resources.files("bot.offline.sandbox").joinpath("sample", name).read_bytes()


def sample_names() -> list[str]:
    """Return the sample world's file names in import order."""
    return [name for name, _ in FILES]


async def load_sample(sandbox: Sandbox) -> None:
    """Import the sample world and play its first scene as the GM and two players; tell the pages."""
    world = sandbox.world
    gm = world.people["gm"]
    try:
        for name, options in FILES:
            upload = Upload(name, sample_file(name))
            await run_command(
                sandbox, gm.id, world.channels["lore"].id, "lore import", options, {"file": upload}
            )
        scene = world.channels["tavern"]
        for step in SCENE:
            who = world.people[step.who].id
            if step.command:
                await run_command(sandbox, who, scene.id, step.command, dict(step.options), {})
            else:
                await post_message(sandbox, who, scene.id, step.text, [], settle=True)
    except ActionRefused as refused:
        log.error("the sample world did not load: %s", refused.message)
        sandbox.hub.notify(gm.id, f"The sample world did not load: {refused.message}", level="error")
        sandbox.hub.broadcast("sample", {"loaded": False, "loading": False})
        return
    world.sample_loaded = True
    sandbox.save()
    sandbox.hub.broadcast("sample", {"loaded": True, "loading": False})
    log.info("the sample world is imported; its first scene waits for the GM's review")
