"""How fast the command line starts, one JSON line: `lorekeeper --help` and `lorekeeper canon entity --help`
against `python -c pass`, each the median of 5 runs of the installed console script, in the same run.

With `--lore`, a cold `lorekeeper lore QUESTION` too (a campaign holding a small world file, or the books of
`--books` (a campaign of their size: the SRD world's 16 files), imported first into a temporary data folder),
beside the baseline: the same question answered after building every service (the
way every command starts, `bot.cli.common.with_services`), in the same run.

With `--against DIR` (another checkout, e.g. a worktree of an older commit), the same cold question is asked
by that checkout's code too, on the same data folder, in the same run: before and after a change, measured under
the same load. Each checkout runs the installed console script with its own packages first on the path
(PYTHONPATH), this one included (the editable install points at one checkout only).

The commands alternate (pass, help, entity, pass, ...) so that a change in the machine's load falls on all of
them. The project's modules are compiled to bytecode first, as an installed copy's are: where writing bytecode
is turned off (PYTHONDONTWRITEBYTECODE), a module changed since `scripts/setup` would otherwise be compiled
from source by every process measured. Each figure is wall-clock seconds, with the process's own CPU time (user + system) beside it: on a
busy machine the wall clock waits for a core, the CPU time does not. The load averages at the start and the
end go with them.

    .venv/bin/python -m bench.cli_start [--rounds 5] [--lore [--against DIR] [--books PATH] [--question Q]]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOREKEEPER = Path(sys.executable).with_name("lorekeeper")
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "lorekeeper --help": [str(LOREKEEPER), "--help"],
    "lorekeeper canon entity --help": [str(LOREKEEPER), "canon", "entity", "--help"],
}
#: A command to time: its arguments and its environment.
Command = tuple[list[str], dict[str, str]]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run a command once; return its wall-clock and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


WORLD = """# The Grey Reach

## Stormcrow

- **Armor Class** 13
- **Hit Points** 22 (4d8 + 4)

Stormcrows nest on the cliffs of the Grey Reach and carry messages for the wardens.
"""
QUESTION = "stormcrow hp"
CAMPAIGN = "Cold start"


def full_start(question: str, campaign: str) -> None:
    """Answer a lore question after building every service (the baseline of `lorekeeper lore`)."""
    from bot.cli.common import run_async, settings_or_exit, with_services

    async def work(services: object) -> None:
        target = await services.campaigns.by_name(campaign)  # type: ignore[attr-defined]
        answer = await services.answers.ask(target.id, question, record=False)  # type: ignore[attr-defined]
        print(answer.reply.text if answer.reply else "")

    run_async(lambda: with_services(settings_or_exit(), work))


def checkout_env(root: Path) -> dict[str, str]:
    """Return the environment that runs the console script on the checkout at `root` (its packages first)."""
    return {**os.environ, "PYTHONPATH": str(root)}


def compiled(root: Path) -> Path:
    """Compile a checkout's modules to bytecode, as an installed copy's are; return `root`."""
    for package in ("bot", "canon", "config", "memory"):
        compileall.compile_dir(root / package, quiet=1)
    return root


def lore_commands(
    data: Path, root: Path, against: Path | None, books: Path | None = None, question: str = QUESTION
) -> dict[str, Command]:
    """Make a campaign holding a small world (or `books`, a file or folder) in `data`; return the cold lore
    commands to time, asking `question`."""
    os.environ["LOREKEEPER_DATA_DIR"] = str(data)
    world = data / "world.md"
    data.mkdir(parents=True, exist_ok=True)
    world.write_text(WORLD, encoding="utf-8")
    if books is not None:
        world = books
    quiet = {
        "check": True,
        "stdout": subprocess.DEVNULL,
        "stderr": subprocess.DEVNULL,
        "env": checkout_env(root),
    }
    subprocess.run([str(LOREKEEPER), "campaign", "create", CAMPAIGN], **quiet)  # type: ignore[call-overload]
    subprocess.run([str(LOREKEEPER), "ingest", str(world), "--campaign", CAMPAIGN], **quiet)  # type: ignore[call-overload]
    lore = [str(LOREKEEPER), "lore", question, "--campaign", CAMPAIGN]
    commands = {
        "lorekeeper lore QUESTION": (lore, checkout_env(root)),
        "baseline: every service, then the question": (
            [sys.executable, "-m", "bench.cli_start", "--full-start", question, CAMPAIGN],
            checkout_env(root),
        ),
    }
    if against is not None:
        commands[f"lorekeeper lore QUESTION, at {against}"] = (lore, checkout_env(compiled(against)))
    return commands


def main() -> None:
    """Measure, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--lore", action="store_true", help="time a cold `lorekeeper lore QUESTION` too")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="with --lore: another checkout whose cold question is timed in the same run",
    )
    parser.add_argument(
        "--books",
        type=Path,
        metavar="PATH",
        help="with --lore: the campaign holds these books (a file or folder, e.g. ../shared/corpora/srd/world: "
        "a question then reads a campaign of their size) instead of the small world",
    )
    parser.add_argument("--question", default=QUESTION, help="with --lore: the question asked")
    parser.add_argument("--full-start", nargs=2, metavar=("QUESTION", "CAMPAIGN"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.full_start:
        full_start(*args.full_start)
        return
    rounds = args.rounds
    if not LOREKEEPER.is_file():
        sys.exit(f"the console script is not installed at {LOREKEEPER} (run ./scripts/setup)")
    if args.against is not None and not (args.lore and (args.against / "bot" / "cli" / "main.py").is_file()):
        sys.exit("--against takes a checkout of Lorekeeper (a folder holding bot/cli/main.py), with --lore")
    root = compiled(Path(__file__).resolve().parents[1])
    commands: dict[str, Command] = {name: (argv, checkout_env(root)) for name, argv in COMMANDS.items()}
    temporary = tempfile.TemporaryDirectory() if args.lore else None
    if temporary is not None:
        commands.update(
            lore_commands(
                Path(temporary.name),
                root,
                args.against and args.against.resolve(),
                args.books and args.books.resolve(),
                args.question,
            )
        )
    load_before = os.getloadavg()
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (command, env) in commands.items():
            wall, cpu = timed(command, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    result = {
        "bench": "cli_start",
        "rounds": rounds,
        "median_s": {name: round(statistics.median(v), 3) for name, v in walls.items()},
        "median_cpu_s": {name: round(statistics.median(v), 3) for name, v in cpus.items()},
        "load": {"start": [round(x, 2) for x in load_before], "end": [round(x, 2) for x in os.getloadavg()]},
        "goal_s": 0.5,
    }
    if temporary is not None:
        result["lore_goal_s"] = 1.5
        result["books"] = str(args.books) if args.books else "a small world file"
        result["question"] = args.question
        temporary.cleanup()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
