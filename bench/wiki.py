"""How fast the campaign wiki answers: its pages on the SRD world and on a 100,000-fact campaign.

The wiki runs as the operator runs it alone (`lorekeeper wiki serve`, its own process, the data directory's
SQLite file and Chroma) and is read over HTTP with a GM's link (`lorekeeper wiki link --as gm`), as a browser
would: each page fetched whole. Measured, per campaign:

- `pages`: p50/p95 of the home page, the busiest entity's page, a search, and the full-size timeline, one
  request at a time (`--requests` each, after one warm-up);
- `entity_rps`: entity pages per second with `--clients` concurrent clients for `--seconds` seconds, and their
  p95 under that load (goal: p95 under 100 ms one at a time, 200 or more per second);
- `discord_card`: the same entity as `/canon card` renders it for Discord (the card read and its embed built,
  in this process), the baseline of the same run;
- `uncached`: the same pages and rate from a second server that keeps no page (`wiki.page_cache_mb` 0): what a
  page costs when it is built, as after every write to the database.

The machine's load average is reported before and after (the wiki shares the machine with everything else).

    .venv/bin/python -m bench.wiki [--facts 100000] [--requests 40] [--clients 20] [--seconds 8] [--srd PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bench.wiki_data import SRD, World, big_campaign, busiest_entity, fact_count, generate_big, import_srd
from bot.app import build_services
from canon.models import NOW, Viewer
from config.settings import Settings

SRD_GUILD, BIG_GUILD = 9001, 9002
SRD_SEARCH = "what does a beholder's eye ray do"


def ms(values: list[float], q: float) -> float:
    """Return the q-th percentile of durations in seconds, in milliseconds."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 1)


def lorekeeper(data_dir: Path, *args: str) -> list[str]:
    """Return the command line of `lorekeeper ARGS` on a data directory."""
    return [str(Path(sys.executable).parent / "lorekeeper"), "--data-dir", str(data_dir), *args]


def free_port() -> int:
    """Return a port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def settings_for(data_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir)


async def build(data_dir: Path, facts: int, srd: Path) -> dict[str, World]:
    """Build both campaigns in a data directory; return them with the entity and search to ask."""
    data_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - a benchmark's setup
    began = time.perf_counter()
    await generate_big(data_dir / "lorekeeper.sqlite3", facts)
    generated = time.perf_counter() - began
    services = await build_services(settings_for(data_dir))
    try:
        began = time.perf_counter()
        srd_campaign = await import_srd(services, SRD_GUILD, srd)
        imported = time.perf_counter() - began
        big = await big_campaign(services, BIG_GUILD)
        worlds = {
            "srd": World(
                srd_campaign,
                await busiest_entity(services, srd_campaign),
                SRD_SEARCH,
                await fact_count(services, srd_campaign),
            ),
            "big": World(big, await busiest_entity(services, big), "", await fact_count(services, big)),
        }
    finally:
        await services.close()
    print(f"built: generated in {generated:.1f} s, SRD imported in {imported:.1f} s", file=sys.stderr)
    return worlds


async def card_timings(data_dir: Path, world: World, count: int) -> dict[str, Any]:
    """Time the same entity as a Discord card: `/canon card`'s read and its embed, as the cog does them."""
    from cogs.entity_embeds import entity_card_embed  # the Discord rendering, for the baseline only

    services = await build_services(settings_for(data_dir), migrate=False)
    timings: list[float] = []
    try:
        for index in range(count + 1):
            began = time.perf_counter()
            card, words = await services.queries.worded_card(world.campaign, world.entity, viewer=Viewer.GM)
            entity_card_embed(card, viewer=Viewer.GM, as_of=NOW, words=words).to_dict()
            if index:  # the first warms the caches, as the wiki's first request does
                timings.append(time.perf_counter() - began)
    finally:
        await services.close()
    return {"p50_ms": ms(timings, 50), "p95_ms": ms(timings, 95), "n": len(timings)}


async def sequential(session: aiohttp.ClientSession, url: str, count: int) -> list[float]:
    """Fetch a page `count` times one after another (after a warm-up); return each duration."""
    timings: list[float] = []
    for index in range(count + 1):
        began = time.perf_counter()
        async with session.get(url) as response:
            body = await response.read()
            if response.status != 200:
                raise RuntimeError(f"{url} answered {response.status}: {body[:300]!r}")
        if index:
            timings.append(time.perf_counter() - began)
    return timings


async def concurrent(
    session: aiohttp.ClientSession, url: str, clients: int, seconds: float
) -> dict[str, Any]:
    """Fetch a page with `clients` clients at once for `seconds`; return the rate and the latencies."""
    timings: list[float] = []
    failures = 0
    deadline = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal failures
        while time.perf_counter() < deadline:
            began = time.perf_counter()
            async with session.get(url) as response:
                await response.read()
                if response.status != 200:
                    failures += 1
                    continue
            timings.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - began
    return {
        "clients": clients,
        "requests_per_s": round(len(timings) / wall, 1),
        "p50_ms": ms(timings, 50),
        "p95_ms": ms(timings, 95),
        "failures": failures,
    }


def wiki_env(port: int, *, kept: bool = True) -> dict[str, str]:
    """Return the environment of the wiki's commands: its address, no per-link rate limit to hit (the bench
    asks more of one link in a minute than a person does), and no page kept unless `kept`."""
    env = {
        **os.environ,
        "LOREKEEPER_WIKI__ENABLED": "true",
        "LOREKEEPER_WIKI__BASE_URL": f"http://127.0.0.1:{port}",
        "LOREKEEPER_WIKI__REQUESTS_PER_MINUTE": "100000",
    }
    if not kept:
        env["LOREKEEPER_WIKI__PAGE_CACHE_MB"] = "0"
    return env


def link_for(data_dir: Path, world: World, port: int) -> str:
    """Return a GM's link to a campaign's wiki, as `lorekeeper wiki link` prints it."""
    command = lorekeeper(data_dir, "wiki", "link", "-c", world.campaign.name, "--as", "gm")
    done = subprocess.run(
        command, capture_output=True, text=True, check=True, env=wiki_env(port), timeout=120
    )
    return next(word for word in done.stdout.split() if word.startswith("http"))


async def wait_until_up(url: str, process: subprocess.Popen[bytes], within: float = 120) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError("lorekeeper wiki serve stopped before it answered")
            try:
                async with session.get(url) as response:
                    await response.read()
                    return
            except aiohttp.ClientError:
                await asyncio.sleep(0.2)
    raise RuntimeError(f"the wiki did not answer at {url} within {within:.0f} s")


def pages(link: str, world: World) -> dict[str, str]:
    """Return the addresses of the pages timed, under a link: the journal, an entity, a search, the timeline."""
    from bot.wiki.html import name_path

    base = link.rstrip("/") + "/"
    return {
        "home": base,
        "entity": base + "e/" + name_path(world.entity),
        "search": base + "search?" + urlencode({"q": world.search or world.entity}),
        "timeline": base + "timeline",
    }


async def browse(
    data_dir: Path, worlds: dict[str, World], args: argparse.Namespace, *, kept: bool = True
) -> dict[str, Any]:
    """Serve the wiki in its own process (keeping pages or not) and time its pages for each campaign."""
    port = free_port()
    env = wiki_env(port, kept=kept)
    command = lorekeeper(data_dir, "wiki", "serve", "--host", "127.0.0.1", "--port", str(port))
    log = (data_dir.parent / "wiki.log").open("w")
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)  # noqa: ASYNC220
    results: dict[str, Any] = {}
    try:
        await wait_until_up(f"http://127.0.0.1:{port}/", process)
        connector = aiohttp.TCPConnector(limit=args.clients)
        async with aiohttp.ClientSession(connector=connector) as session:
            for key, world in worlds.items():
                urls = pages(link_for(data_dir, world, port), world)
                timed = {name: await sequential(session, url, args.requests) for name, url in urls.items()}
                results[key] = {
                    "facts": world.facts,
                    "entity": world.entity,
                    "pages": {n: {"p50_ms": ms(t, 50), "p95_ms": ms(t, 95)} for n, t in timed.items()},
                    "entity_rps": await concurrent(session, urls["entity"], args.clients, args.seconds),
                }
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
    return results


def one_line(result: dict[str, Any]) -> str:
    return json.dumps(result, separators=(",", ":"))


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.wiki", description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000, help="facts of the generated campaign")
    parser.add_argument("--requests", type=int, default=40, help="requests per page, one at a time")
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients for the rate")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long the rate is measured")
    parser.add_argument(
        "--srd", type=Path, default=SRD, help="the SRD corpus (default: ../shared/corpora/srd)"
    )
    args = parser.parse_args(argv)
    if not (args.srd / "world").is_dir():
        print(one_line({"bench": "wiki", "skipped": f"the SRD corpus is not at {args.srd}"}))
        return
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lk-bench-wiki-") as tmp:
        data_dir = Path(tmp) / "data"
        worlds = await build(data_dir, args.facts, args.srd)
        results = await browse(data_dir, worlds, args)
        built = await browse(data_dir, worlds, args, kept=False)
        for key, measured in built.items():
            results[key]["uncached"] = {"pages": measured["pages"], "entity_rps": measured["entity_rps"]}
        for key, world in worlds.items():
            results[key]["discord_card"] = await card_timings(data_dir, world, args.requests)
    load_after = os.getloadavg()
    entity_p95 = max(r["pages"]["entity"]["p95_ms"] for r in results.values())
    rate = min(r["entity_rps"]["requests_per_s"] for r in results.values())
    summary = {
        "bench": "wiki",
        **results,
        "goal": {"entity_p95_under_100_ms": entity_p95 < 100, "at_least_200_rps": rate >= 200},
        "load_average": {
            "before": [round(x, 2) for x in load_before],
            "after": [round(x, 2) for x in load_after],
            "cpus": os.cpu_count(),
        },
        "median_page_p50_ms": statistics.median(
            p["p50_ms"] for r in results.values() for p in r["pages"].values()
        ),
    }
    print(one_line(summary))


if __name__ == "__main__":
    asyncio.run(main())
