"""Canon speed: a 500-proposal scene commit, as-of entity queries and the whole-graph continuity check.

Prints one JSON line. Defaults are the issue's sizes (1,000,000 statements, 100,000 entities); pass smaller
ones for a quick look. The graph is `bench.canon_data`'s consistent world with planted conflicts, so the
whole-graph check must find exactly those (`whole_check_findings` == `whole_check_planted`). As-of cards are
asked at in-world dates, scenes, real times ("as we believed then") and date-and-scene mixes spread over the
world's history, one name in five given as an alias; an entity that does not exist yet at its point is
counted in `asof_not_found` and left out of the timing. `load_average` says how busy the machine was.

    .venv/bin/python -m bench.canon [--entities 100000] [--statements 1000000] [--queries 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.canon_data import Generated, generate
from bot.app import build_canon
from bot.schema import database
from canon import campaigns
from canon.errors import NotFound
from canon.gate import Draft
from canon.models import AsOf, Authority, Evidence, EvidenceKind, Viewer
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent, StateChangeContent
from canon.storage import Database
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="GM", is_gm=True)


def ms(values: list[float], q: float) -> float:
    """Return the q-th percentile of durations in milliseconds."""
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000, 2)


async def commit_500(tmp: Path) -> dict[str, Any]:
    """Time the commit of a scene holding 500 accepted proposals, continuity checks included."""
    path = tmp / "commit.sqlite3"
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    await database.upgrade(db)
    await db.dispose()
    generated = generate(path, entities=2_000, statements=20_000, campaign="Commit")
    npcs, places = generated.names_by_type["NPC"], generated.names_by_type["Location"]
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    service = build_canon(db, SceneService(db))
    campaign = await service_campaign(db, "Commit")
    scene = await service.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=None, channel_id=1, title="Big scene", location=None, actor=GM
    )
    evidence = [Evidence(kind=EvidenceKind.TURNS, scene_id=scene.id, turn_from=1, turn_to=3)]
    contents: list[Any] = []
    for i in range(100):
        contents.append(EntityContent(name=f"Newcomer {i}", entity_type="NPC"))
        contents.append(StateChangeContent(subject=Ref(name=f"Newcomer {i}"), state="alive"))
        contents.append(
            FactContent(subject=Ref(name=npcs[i * 7 % len(npcs)]), attribute="mood", value=f"mood {i}")
        )
        contents.append(
            RelationshipContent(
                subject=Ref(name=f"Newcomer {i}"),
                relation="ALLY_OF",
                object=Ref(name=npcs[i * 7 % len(npcs)]),
            )
        )
        contents.append(
            RelationshipContent(
                subject=Ref(name=f"Newcomer {i}"),
                relation="LOCATED_IN",
                object=Ref(name=places[(i * 7 + 2) % len(places)]),
            )
        )

    async def store(session: Any) -> None:
        reader = await service.access.reader(session, campaign, Viewer.GM)
        gate = service.access.gate_for(campaign)
        for content in contents:
            await gate.propose(
                session,
                reader,
                Draft(content=content, authority=Authority.GM, evidence=evidence),
                scene_id=scene.id,
            )

    await db.run(store)
    await service.canon.scenes.end_scene(1, complete=False)
    began = time.perf_counter()
    result = (await service.canon.commit_scene(scene.id, GM)).result
    elapsed = time.perf_counter() - began
    await db.dispose()
    return {"proposals": len(result.accepted), "seconds": round(elapsed, 3), "findings": len(result.findings)}


async def service_campaign(db: Database, name: str) -> campaigns.Campaign:
    """Return a campaign by name."""
    async with db.session() as session:
        return await campaigns.find_campaign_by_name(session, name)


def as_of_points(count: int, generated: Generated, seed: int = 11) -> list[AsOf]:
    """Return as-of points spread over the generated history: world dates, scenes, real times, and mixes."""
    rng = random.Random(seed)
    first, last = generated.recorded
    points: list[AsOf] = []
    for i in range(count):
        year = rng.randint(*generated.years)
        world = {"world": f"year {year}", "world_key": year * 10000}
        scene = {"scene": rng.randint(1, max(1, generated.scenes))}
        believed = {"believed_at": first + (last - first) * rng.random()}
        kind = i % 4
        if kind == 0:
            points.append(AsOf(**world))
        elif kind == 1:
            points.append(AsOf(**scene))
        elif kind == 2:
            points.append(AsOf(**believed))
        else:
            points.append(AsOf(**world, **scene))
    return points


async def big_graph(tmp: Path, entities: int, statements: int, queries: int) -> dict[str, Any]:
    """Time as-of entity cards and the whole-graph continuity check on a large generated graph."""
    path = tmp / "big.sqlite3"
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    await database.upgrade(db)
    await db.dispose()
    began = time.perf_counter()
    generated = generate(path, entities=entities, statements=statements)
    generate_seconds = time.perf_counter() - began
    db = Database.from_url(f"sqlite+aiosqlite:///{path}")
    service = build_canon(db, SceneService(db))
    campaign = await service_campaign(db, "Big")
    # One query in five names its entity by an alias.
    pool = generated.sample_names[: len(generated.sample_aliases) * 4] + generated.sample_aliases
    random.Random(5).shuffle(pool)
    names = (pool * (queries // max(1, len(pool)) + 1))[:queries]
    points = as_of_points(queries, generated)
    timings: list[float] = []
    not_found = 0
    for name, point in zip(names, points, strict=True):
        began = time.perf_counter()
        try:
            await service.queries.card(campaign, name, viewer=Viewer.GM, as_of=point)
        except NotFound:  # the entity does not exist yet at that point: not an answer, so not timed
            not_found += 1
            continue
        timings.append(time.perf_counter() - began)
    began = time.perf_counter()
    findings, _ = await service.queries.check(campaign)
    check_seconds = time.perf_counter() - began
    await db.dispose()
    kinds = Counter(f.kind.value for f in findings)
    return {
        "entities": entities,
        "statements": statements,
        "retcons": generated.retcons,
        "aliases": generated.aliases,
        "generate_seconds": round(generate_seconds, 1),
        "asof_queries_timed": len(timings),
        "asof_not_found": not_found,
        "asof_card_p50_ms": ms(timings, 50),
        "asof_card_p95_ms": ms(timings, 95),
        "whole_check_seconds": round(check_seconds, 2),
        "whole_check_findings": len(findings),
        "whole_check_planted": generated.planted,
        "whole_check_kinds": dict(sorted(kinds.items())),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--statements", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        commit = await commit_500(Path(tmp))
        big = await big_graph(Path(tmp), args.entities, args.statements, args.queries)
    print(
        json.dumps(
            {
                "bench": "canon",
                "commit_500": commit,
                **big,
                "goals": {"commit_500_seconds": 1.0, "asof_card_p95_ms": 20, "whole_check_seconds": 30},
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
