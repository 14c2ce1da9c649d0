"""`lorekeeper ingest` with dialogue files: each becomes a scene (`bot.services.dialogue_import`), said on stdout."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from canon.errors import GameError


def dialogue_paths(paths: list[Path]) -> list[Path]:
    """Return the files among `paths` that are dialogues (`memory.dialogue.is_dialogue`)."""
    from memory.dialogue import is_dialogue

    found = []
    for path in paths:
        if path.is_file():
            with path.open("rb") as handle:
                if is_dialogue(path.name, handle.read(4096)):
                    found.append(path)
    return found


async def ingest_dialogue(services: Any, campaign: Any, path: Path, failed: list[Any]) -> dict[str, Any]:
    """Import a dialogue file into a scene; a failure goes to `failed` (an `ImportFailure`), never raised."""
    from canon.wording.counts import counted
    from memory.knowledge.source_models import ImportFailure
    from memory.scenes import Actor

    try:
        data = await asyncio.to_thread(path.read_bytes)
        actor = Actor(id=None, name="command line", is_gm=True)
        done = await services.dialogue.import_dialogue(campaign, path.name, data, actor)
    except GameError as error:
        failed.append(ImportFailure(filename=path.name, error=error.message))
        return {}
    scene = done.report.scene
    waiting = len(done.review.proposals)
    text = (
        f"{path.name}: {done.lines} lines into scene {scene.story_order} “{scene.title}”"
        + (f"; the NPCs {', '.join(done.npcs)} spoke" if done.npcs else "")
        + (
            f"; {counted(waiting, 'proposal')} waiting for review (lorekeeper canon review --scene {scene.id})"
            if waiting
            else "; nothing to review: the scene is complete"
        )
    )
    return {
        "file": path.name,
        "scene_id": scene.id,
        "lines": done.lines,
        "npcs": list(done.npcs),
        "proposals": waiting,
        "text": text,
    }
