"""Run the benchmarks one after another, each in its own process, and pass on their JSON lines.

    .venv/bin/python -m bench                 # every benchmark that needs no LLM
    .venv/bin/python -m bench turns canon     # only these

One at a time on purpose: on two cores a second benchmark would be measured as load. A benchmark that fails is
reported on stderr with its exit status, and the others still run; the exit status is then 1.
"""

from __future__ import annotations

import subprocess
import sys

# `extraction` needs an LLM endpoint (LOREKEEPER_LLM__*); run it by name when one is configured.
ALL = (
    "turns",
    "storage",
    "canon",
    "continuity",
    "dates",
    "branches",
    "yaml_ingest",
    "lore_speed",
    "lore_quality",
    "lore_answers",
    "sections",
    "books",
    "recall",
    "leaks",
    "chroma_modes",
    "load",
    "sandbox",
    "cli_start",
)


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all by default) and return 0 when every one succeeded."""
    names = argv or list(ALL)
    failed = 0
    for name in names:
        done = subprocess.run([sys.executable, "-m", f"bench.{name}"], check=False)
        if done.returncode:
            print(f"bench.{name} failed with exit status {done.returncode}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
