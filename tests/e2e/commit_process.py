"""Commit one scene in a process of its own (to be killed mid-commit): `python -m tests.e2e.commit_process URL SCHEMA SCENE`.

Prints `committing` just before the commit's transaction starts and `committed` after it returns.
"""

from __future__ import annotations

import asyncio
import sys

from bot.app import build_canon
from canon.storage import Database
from memory.scene_service import SceneService
from memory.scenes import Actor


async def main(url: str, schema: str, scene_id: int) -> None:
    db = Database.from_url(url, search_path=schema or None)
    service = build_canon(db, SceneService(db))
    print("committing", flush=True)
    await service.canon.commit_scene(scene_id, Actor(id=1, name="Gina", is_gm=True))
    print("committed", flush=True)
    await db.dispose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
