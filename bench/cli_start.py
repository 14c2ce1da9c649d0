"""How fast the command line starts, one JSON line: `lorekeeper --help` and `lorekeeper canon entity --help`
against `python -c pass`, each the median of 5 runs of the installed console script, in the same run.

The three alternate (pass, help, entity, pass, ...) so that a change in the machine's load falls on all of
them. Each figure is wall-clock seconds, with the process's own CPU time (user + system) beside it: on a
busy machine the wall clock waits for a core, the CPU time does not. The load averages at the start and the
end go with them.

    .venv/bin/python -m bench.cli_start [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

LOREKEEPER = Path(sys.executable).with_name("lorekeeper")
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "lorekeeper --help": [str(LOREKEEPER), "--help"],
    "lorekeeper canon entity --help": [str(LOREKEEPER), "canon", "entity", "--help"],
}


def timed(command: list[str]) -> tuple[float, float]:
    """Run a command once; return its wall-clock and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Measure, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    if not LOREKEEPER.is_file():
        sys.exit(f"the console script is not installed at {LOREKEEPER} (run ./scripts/setup)")
    load_before = os.getloadavg()
    walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(rounds):
        for name, command in COMMANDS.items():
            wall, cpu = timed(command)
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
    print(json.dumps(result))


if __name__ == "__main__":
    main()
