"""Branch speed: forking a campaign of 1,000,000 facts, and as-of entity cards three branches deep vs the root.

Prints one JSON line. A generated graph (`bench.canon_data`, straight into SQLite) gets 300 completed scenes, so
that its facts' scene numbers are real ones; then it is forked three times in a chain (each branch writing a
little canon of its own), and the same as-of entity cards are asked of the root and of the deepest branch,
alternately (so that drift in the machine's load hits both alike). Each card is asked `--repeat` times of
each and its fastest time counts: on a shared machine a single timing measures the other processes as much as
the query, and the p95 of single timings swings by a third from run to run.

    .venv/bin/python -m bench.branches [--entities 100000] [--statements 1000000] [--queries 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.canon import GM, ms, service_campaign
from bench.canon_data import generate
from bot.app import build_canon
from bot.schema import database
from bot.services.branches import BranchService
from canon.errors import NotFound
from canon.models import AsOf, Viewer
from canon.proposals import FactContent, Ref
from canon.storage import Database
from memory.scene_service import SceneService

SCENES = 300  # at least this many, so that the as-of point at scene 150 lies inside the story


def add_scenes(path: Path, campaign_id: int, count: int) -> None:
    """Give the generated campaign its completed scenes 1..count (its facts say they were played in them).

    A fork at the present cuts the story at the last scene played: a fact from a later scene that the
    scenes table does not have would be left out of the branch, as if it were played after the fork.
    """
    conn = sqlite3.connect(path)
    stamp = "2026-01-01 00:00:00.000000"
    conn.executemany(
        "INSERT INTO scenes (campaign_id, channel_id, title, status, story_order, started_at, narrator_mode)"
        " VALUES (?, ?, ?, 'completed', ?, ?, 0)",
        [(campaign_id, 1, f"Scene {n}", n, stamp) for n in range(1, count + 1)],
    )
    conn.commit()
    conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--statements", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = await run(Path(tmp), args.entities, args.statements, args.queries, max(1, args.repeat))
    print(
        json.dumps({"bench": "branches", **result, "goals": {"fork_seconds": 1.0, "branch_p95_ratio": 1.2}})
    )


async def run(tmp: Path, entities: int, statements: int, queries: int, repeat: int) -> dict[str, Any]:
    path = tmp / "branches.sqlite3"
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    await database.upgrade(db)
    await db.dispose()
    generated = generate(path, entities=entities, statements=statements)
    add_scenes(path, generated.campaign_id, max(SCENES, generated.scenes))
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    canon = build_canon(db, SceneService(db))
    branches = BranchService(db, canon.access, canon.proposals, canon.reviews)
    root = await service_campaign(db, "Big")
    names = (generated.sample_names * (queries // max(1, len(generated.sample_names)) + 1))[:queries]

    began = time.perf_counter()
    first = await branches.fork(root, "Level 1", actor=GM)
    fork_seconds = time.perf_counter() - began
    chain = [first]
    for level in (2, 3):
        chain.append(await branches.fork(chain[-1], f"Level {level}", actor=GM))
    for level, branch in enumerate(chain, 1):  # each level writes some canon of its own
        for name in names[:20]:
            content = FactContent(subject=Ref(name=name), attribute="branch_note", value=f"level {level}")
            await canon.canon.add_direct(branch, content, GM, command="bench")
    deepest = chain[-1]
    points = [AsOf(scene=150), AsOf(world="year 1200", world_key=1200 * 10000), AsOf()]

    async def card(campaign: Any, name: str, point: AsOf) -> float:
        began = time.perf_counter()
        # An event of a later scene does not exist yet at the as-of point: still a query.
        with contextlib.suppress(NotFound):
            await canon.queries.card(campaign, name, viewer=Viewer.GM, as_of=point)
        return time.perf_counter() - began

    for name in names[:20]:  # warm both: caches, the lineage, SQLite's pages
        await card(root, name, AsOf())
        await card(deepest, name, AsOf())
    root_times: list[float] = []
    branch_times: list[float] = []
    for i, name in enumerate(names):
        point = points[i % len(points)]
        best = {root.id: float("inf"), deepest.id: float("inf")}
        for attempt in range(repeat):
            for campaign in (deepest, root) if (i + attempt) % 2 else (root, deepest):
                best[campaign.id] = min(best[campaign.id], await card(campaign, name, point))
        root_times.append(best[root.id])
        branch_times.append(best[deepest.id])
    same = 0
    for name in names[:30]:  # the branch reads the same inherited canon as the root (plus its notes)
        a = await canon.queries.card(root, name, viewer=Viewer.GM)
        b = await canon.queries.card(deepest, name, viewer=Viewer.GM)
        same += {v.statement.id for v in a.facts} <= {v.statement.id for v in b.facts}
    await db.dispose()
    root_p95, branch_p95 = ms(root_times, 95), ms(branch_times, 95)
    return {
        "entities": entities,
        "statements": statements,
        "fork_seconds": round(fork_seconds, 4),
        "depth": len(chain),
        "repeat": repeat,
        "root_asof_p50_ms": ms(root_times, 50),
        "root_asof_p95_ms": root_p95,
        "branch_asof_p50_ms": ms(branch_times, 50),
        "branch_asof_p95_ms": branch_p95,
        "branch_p95_ratio": round(branch_p95 / root_p95, 3) if root_p95 else None,
        "cards_consistent": f"{same}/30",
    }


if __name__ == "__main__":
    asyncio.run(main())
