"""Mixed load on the whole bot: 100 servers, 1,000 channels, messages + /lore + /propose + button clicks.

The bot runs in its own process against the local Discord emulator (this process), on SQLite and then on
PostgreSQL (a fresh database on LOREKEEPER_TEST_POSTGRES_URL's server, dropped afterwards). Traffic is sent
at a fixed rate for `--duration` seconds. Latencies are wall-clock (both processes read the same clock):
  * a message: from its MESSAGE_CREATE dispatch to the bot's commit acknowledgement (TurnLog observers);
  * a command or a click: from its INTERACTION_CREATE dispatch to the emulator receiving the answer.
Interactions are dispatched without the emulator's gateway sync (discord.py rate-limits those to 110/min).
Prints one JSON line: per database and rate, throughput, p50/p99 per kind, turns sent / acknowledged / stored /
lost, every error with its full traceback (the first five; all counted by exception type), and the highest rate
each database held with no turn lost, no error and `/lore` p99 under 200 ms.

PostgreSQL: each run creates a database of its own on the server of LOREKEEPER_TEST_POSTGRES_URL (default
postgresql+asyncpg://postgres@127.0.0.1:5432/test), connecting as that URL's user, which must be allowed to
CREATE DATABASE (the "admin database" is the one the URL names; only the new one is written, then dropped).
`--chroma-server` starts a Chroma server from the installed chromadb on this machine (else the bot's embedded
Chroma); the JSON line says which index the figures used.

    .venv/bin/python -m bench.load [--duration 60] [--rates 50,100,150] [--guilds 100] [--channels 1000]
        [--db both] [--chroma-server] [--no-embedding]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
import traceback
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bench.load_process import BotProcess, ChromaServer, error_types
from bot.offline.emulator import Channel, DiscordEmulator, Member
from bot.offline.emulator.interactions import APPLICATION_COMMAND, MESSAGE_COMPONENT
from bot.offline.emulator.messages import custom_ids, find_component

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
PROPOSALS_PER_CARD = 8
MIX = {"message": 0.7, "lore": 0.1, "propose": 0.1, "click": 0.1}
QUESTIONS = [
    "who rules Westhaven?",
    "what rings at low water?",
    "what toll do caravans pay?",
    "where is the lighthouse?",
    "what do the monks hide?",
]
BIBLE = b"""# The Salt Coast

## Westhaven
Westhaven is a harbour town ruled by the Lady Mira Vell, who keeps the lighthouse burning through storms.

## The Drowned Abbey
Monks of the tide sank their abbey to hide a relic; its bell still rings at low water.

## Ember Pass
A mountain road where caravans pay the wyvern toll in copper and salt.
"""


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000, 1)


class Load:
    """The emulated world and the traffic against it."""

    def __init__(self, emu: DiscordEmulator, guilds: int, channels: int, seed: int = 7) -> None:
        self.emu = emu
        self.rng = random.Random(seed)
        per_guild = max(2, channels // guilds)
        self.worlds: list[dict[str, Any]] = []
        for g in range(guilds):
            guild = emu.add_guild(f"Server {g}")
            gm = emu.add_member(guild, f"GM {g}", roles=[emu.add_role(guild, "GM")])
            players = [emu.add_member(guild, f"Player {g}.{p}") for p in range(3)]
            chans = [emu.add_text_channel(guild, f"scene-{c}") for c in range(per_guild)]
            self.worlds.append(
                {"guild": guild, "gm": gm, "players": players, "scenes": chans[:-1], "review": chans[-1]}
            )
        self.buttons: list[tuple[dict[str, Any], str, Member]] = []
        self.latency: dict[str, list[float]] = {k: [] for k in MIX}
        self.failures: dict[str, int] = {k: 0 for k in MIX}
        self.sent: dict[int, float] = {}

    async def interact(
        self,
        kind: str,
        channel: Channel,
        user: Member,
        command: str | None = None,
        *,
        custom_id: str = "",
        message: dict[str, Any] | None = None,
        wait: float = 30,
        options: dict[str, Any] | None = None,
        **kw_options: Any,
    ) -> Any:
        """Dispatch an interaction without a gateway sync and wait for its answer; record the latency.

        Options are given by name; ``options={...}`` passes names only known at run time (which could clash
        with these parameters).
        """
        emu = self.emu
        if command is not None:
            values = {**(options or {}), **kw_options}
            data, label = emu._command_interaction_data(channel, user, command, values)
            record = emu._new_interaction(APPLICATION_COMMAND, label, channel, user, data)
        else:
            assert message is not None
            stored = emu.stored(message)
            component = find_component(stored.data.get("components", []), custom_id)
            assert component is not None, custom_ids(stored.data.get("components", []))
            data = {"custom_id": custom_id, "component_type": component["type"]}
            record = emu._new_interaction(
                MESSAGE_COMPONENT, f"click {custom_id}", stored.channel, user, data, source=stored
            )
        began = time.time()
        session = emu.ready_sessions(channel.guild_id)[-1]
        await session.dispatch("INTERACTION_CREATE", record.payload)
        try:
            await asyncio.wait_for(record.done.wait(), wait)
        except TimeoutError:
            self.failures[kind] += 1
            return None
        self.latency[kind].append(time.time() - began)
        answer = record.content or ""
        if "Something went wrong" in answer or "database is busy" in answer:
            self.failures[kind] += 1
        return record

    async def prepare(self, lore_command: tuple[str, str] | None) -> None:
        """Start a scene in every scene channel and post one review card per server."""
        limit = asyncio.Semaphore(16)

        async def start(world: dict[str, Any], chan: Channel) -> None:
            async with limit:
                result = await self.interact("propose", chan, world["gm"], "scene start", title="Load")
                assert result is not None and not result.ephemeral, result and result.content

        await asyncio.gather(*(start(w, c) for w in self.worlds for c in [*w["scenes"], w["review"]]))

        async def review(world: dict[str, Any]) -> None:
            async with limit:
                chan, player = world["review"], world["players"][0]
                await self.emu.send_message(chan, player, "The harbour master lies.", settle=False)
                await asyncio.sleep(0.2)
                for i in range(PROPOSALS_PER_CARD):
                    await self.interact(
                        "propose",
                        chan,
                        player,
                        "propose fact",
                        subject="Harbour master",
                        attribute=f"secret {i}",
                        value="lies",
                    )
                ended = await self.interact("propose", chan, world["gm"], "endscene", wait=60)
                assert ended is not None

        await asyncio.gather(*(review(w) for w in self.worlds))
        await asyncio.sleep(1)
        for world in self.worlds:
            for message in self.emu.channel_messages(world["review"]):
                for custom_id in custom_ids(message.get("components", [])):
                    if custom_id.startswith("lk:proposal:"):
                        self.buttons.append((message, custom_id, world["gm"]))
        for values in self.latency.values():
            values.clear()
        for kind in self.failures:
            self.failures[kind] = 0
        self.sent.clear()

    def _live_button(self) -> tuple[dict[str, Any], str, Member] | None:
        """Return a proposal button that is on its card right now (decided proposals lose theirs)."""
        for _ in range(10):
            if not self.buttons:
                return None
            message, _, gm = self.rng.choice(self.buttons)
            stored = self.emu.stored(message)
            live = [c for c in custom_ids(stored.data.get("components", [])) if c.startswith("lk:proposal:")]
            if live:
                return message, self.rng.choice(live), gm
        return None

    async def run(self, duration: float, rate: float, lore_command: tuple[str, str] | None) -> float:
        """Send the mixed traffic; return the seconds it took to dispatch."""
        kinds, weights = zip(*MIX.items(), strict=True)
        pending: set[asyncio.Task[Any]] = set()
        began = time.time()
        i = 0
        while True:
            due = began + i / rate
            now = time.time()
            if now - began >= duration:
                break
            if due > now:
                await asyncio.sleep(due - now)
            kind = self.rng.choices(kinds, weights)[0]
            world = self.rng.choice(self.worlds)
            chan = self.rng.choice(world["scenes"])
            player = self.rng.choice(world["players"])
            if kind == "message":
                stamp = time.time()
                sent = await self.emu.send_message(chan, player, f"turn {i}: we press on", settle=False)
                self.sent[int(sent["id"])] = stamp
            elif kind == "lore":
                if lore_command is not None:
                    name, option = lore_command
                    task = self.interact(
                        "lore", chan, player, name, options={option: self.rng.choice(QUESTIONS)}
                    )
                    pending.add(asyncio.create_task(task))
            elif kind == "propose":
                task = self.interact(
                    "propose",
                    chan,
                    player,
                    "propose fact",
                    subject=f"NPC {self.rng.randrange(50)}",
                    attribute="mood",
                    value=self.rng.choice(["wary", "glad", "angry"]),
                )
                pending.add(asyncio.create_task(task))
            elif (button := self._live_button()) is not None:
                message, custom_id, gm = button
                pending.add(
                    asyncio.create_task(
                        self.interact("click", chan, gm, custom_id=custom_id, message=message)
                    )
                )
            pending = {t for t in pending if not t.done()}
            i += 1
        dispatched = time.time() - began
        if pending:
            await asyncio.gather(*pending)
        return dispatched


def lore_command_of(emu: DiscordEmulator) -> tuple[str, str] | None:
    """Return ("lore" or "lore <sub>", question option) when the bot synced a /lore command."""
    for command in emu.global_commands:
        if command["name"] != "lore":
            continue
        options = command.get("options", [])
        subs = [o for o in options if o.get("type") == 1]
        if subs:
            sub = next((s for s in subs if s["name"] in ("ask", "question")), subs[0])
            strings = [o for o in sub.get("options", []) if o.get("type") == 3 and o.get("required")]
            return (f"lore {sub['name']}", strings[0]["name"]) if strings else None
        strings = [o for o in options if o.get("type") == 3 and o.get("required")]
        return ("lore", strings[0]["name"]) if strings else None
    return None


async def prepare_database(env: dict[str, str], guild_ids: list[tuple[int, str]]) -> None:
    """Migrate, create each server's campaign and import a small world bible into it (in a subprocess)."""
    script = (
        "import asyncio, json, sys\n"
        "from bot.app import build_services\n"
        "from config.settings import load_settings\n"
        "async def main():\n"
        "    services = await build_services(load_settings())\n"
        "    try:\n"
        "        for gid, name in json.loads(sys.argv[1]):\n"
        "            campaign = await services.campaigns.for_guild(gid, name)\n"
        "            await services.knowledge.import_bytes(campaign.id, 'salt-coast.md', BIBLE)\n"
        "    finally:\n"
        "        await services.close()\n"
        f"BIBLE = {BIBLE!r}\n"
        "asyncio.run(main())\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, json.dumps(guild_ids), cwd=ROOT, env=env
    )
    if await proc.wait() != 0:
        raise RuntimeError("preparing the database failed")


async def stored_turns(url: str) -> set[int]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT discord_message_id FROM turns"))
            return {r[0] for r in rows if r[0] is not None}
    finally:
        await engine.dispose()


async def one_run(kind: str, rate: float, args: argparse.Namespace, chroma: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "LOREKEEPER_DATA_DIR": tmp,
            "LOREKEEPER_LOG_LEVEL": "WARNING",
            "LOREKEEPER_OPS__SCHEDULER_ENABLED": "true",
            **chroma,
        }
        if not args.embedding:
            env["LOREKEEPER_EMBEDDING__ENABLED"] = "false"
        env.pop("LOREKEEPER_DATABASE_URL", None)
        admin_url = None
        db_name = None
        if kind == "postgres":
            admin_url = os.environ.get("LOREKEEPER_TEST_POSTGRES_URL", DEFAULT_POSTGRES)
            db_name = f"lk_bench_{uuid.uuid4().hex[:10]}"
            admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
            async with admin.connect() as conn:
                await conn.execute(text(f'CREATE DATABASE "{db_name}"'))
            await admin.dispose()
            url = make_url(admin_url).set(database=db_name).render_as_string(hide_password=False)
            env["LOREKEEPER_DATABASE_URL"] = url
        else:
            url = f"sqlite+aiosqlite:///{tmp}/lorekeeper.sqlite3"
        try:
            async with DiscordEmulator(timeout=60) as emu:
                load = Load(emu, args.guilds, args.channels)
                setup_began = time.time()
                await prepare_database(env, [(w["guild"].id, w["guild"].name) for w in load.worlds])
                bot = BotProcess(emu, env)
                await bot.start()
                try:
                    first = load.worlds[0]["guild"].id
                    await emu.wait_for(lambda: bool(emu.ready_sessions(first)), timeout=120, what="bot ready")
                    await emu.wait_for(lambda: bool(emu.global_commands), timeout=120, what="commands synced")
                    lore = lore_command_of(emu)
                    await load.prepare(lore)
                    setup = time.time() - setup_began
                    cpu_before = bot.cpu_seconds()
                    dispatched = await load.run(args.duration, rate, lore)
                    cpu_after = bot.cpu_seconds()
                    with contextlib.suppress(AssertionError):  # what is missing counts as lost below
                        await emu.wait_for(
                            lambda: all(m in bot.acks for m in load.sent), timeout=120, what="acks"
                        )
                    await asyncio.sleep(1)
                finally:
                    await bot.stop()
            stored = await stored_turns(url)
        finally:
            if kind == "postgres" and admin_url and db_name:
                admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
                async with admin.connect() as conn:
                    await conn.execute(text(f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)'))
                await admin.dispose()
    message_latency = [bot.acks[m] - t for m, t in load.sent.items() if m in bot.acks]
    kinds: dict[str, Any] = {}
    for name in MIX:
        values = message_latency if name == "message" else load.latency[name]
        count = len(load.sent) if name == "message" else len(values) + load.failures[name]
        kinds[name] = {"count": count, "p50_ms": pct(values, 50), "p99_ms": pct(values, 99)}
    if lore is None:
        kinds["lore"]["note"] = "no /lore command is synced by this build"
    total_ops = sum(k["count"] for k in kinds.values())
    sent = set(load.sent)
    acknowledged = sent & set(bot.acks)
    return {
        "rate_per_s": rate,
        "ops_per_s": round(total_ops / dispatched, 1),
        "turns_per_s": round(len(load.sent) / dispatched, 1),
        "kinds": kinds,
        "errors": sum(load.failures.values()) + len(bot.errors),
        "interaction_failures": load.failures,
        "bot_error_types": error_types(bot.errors),
        # Whole records, traceback included (the first five; every one is counted above).
        "bot_errors": bot.errors[:5],
        "turns": {
            "sent": len(sent),
            "acknowledged": len(acknowledged),
            "stored": len(sent & stored),
            "acknowledged_not_stored": len(acknowledged - stored),
        },
        "turns_lost": len(sent - stored),
        "setup_s": round(setup, 1),
        # Share of one core the bot process used while the traffic ran.
        "bot_cpu_share": (
            round((cpu_after - cpu_before) / dispatched, 2)
            if cpu_before is not None and cpu_after is not None
            else None
        ),
    }


def held(runs: list[dict[str, Any]]) -> float | None:
    """Return the highest rate run with no turn lost, no error and `/lore` p99 under 200 ms (None: none)."""
    good = [
        r["rate_per_s"]
        for r in runs
        if "failed" not in r
        and r["turns_lost"] == 0
        and r["errors"] == 0
        and (r["kinds"]["lore"]["p99_ms"] or 0) < 200
    ]
    return max(good) if good else None


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--duration", type=float, default=60.0, help="seconds of traffic per rate (default 60)"
    )
    parser.add_argument("--rates", default="100", help="operations per second, comma-separated (default 100)")
    parser.add_argument("--rate", type=float, help="one rate (the same as --rates N)")
    parser.add_argument("--guilds", type=int, default=100)
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--no-embedding", dest="embedding", action="store_false", help="words-only /lore")
    parser.add_argument(
        "--chroma-server", action="store_true", help="a Chroma server on this machine (else embedded Chroma)"
    )
    args = parser.parse_args()
    rates = [args.rate] if args.rate else [float(r) for r in args.rates.split(",") if r.strip()]
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    results: dict[str, Any] = {}
    index: dict[str, Any] = (
        {"kind": "none (words only)"} if not args.embedding else {"kind": "embedded Chroma"}
    )
    with contextlib.ExitStack() as stack:
        chroma_env: dict[str, str] = {}
        if args.embedding and args.chroma_server:
            server = stack.enter_context(ChromaServer())
            chroma_env = server.env()
            index = {"kind": "Chroma server", **server.settings()}
        for kind in kinds:
            runs = []
            for rate in rates:
                try:
                    runs.append(await one_run(kind, rate, args, chroma_env))
                except Exception as error:  # one run failing still reports the others
                    runs.append({"rate_per_s": rate, "failed": traceback.format_exc(), "error": repr(error)})
            results[kind] = {"runs": runs, "held_rate_per_s": held(runs)}
    print(
        json.dumps(
            {
                "bench": "load",
                "duration_s": args.duration,
                "rates_per_s": rates,
                "guilds": args.guilds,
                "channels": args.channels,
                "mix": MIX,
                "embedding": args.embedding,
                "vector_index": index,
                "cpus": os.cpu_count(),
                "results": results,
                "goals": {"errors": 0, "turns_lost": 0, "lore_p99_ms": 200},
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
