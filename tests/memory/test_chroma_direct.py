"""An embedded index read through Chroma's compiled core (`direct`): the same answers as Chroma's own client,
writes handed to that client, and no `chromadb` import for reads.

Each side runs in a process of its own, as a `lorekeeper lore` process reads what `lorekeeper ingest` wrote.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow

#: Writes campaign 7's vectors (sources 10 and 11) through Chroma's own client, prints nothing.
WRITE = """
import asyncio, sys
from pathlib import Path
import numpy as np
from memory.vector_index import ChromaVectorIndex

async def main():
    index = ChromaVectorIndex(path=Path(sys.argv[1]))
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(30, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    await index.add(7, list(range(1, 31)), [10] * 20 + [11] * 10, vectors,
        views=["p", "t"] * 15, metadata={"embedding_model": "m"})

asyncio.run(main())
"""

#: Reads through an index (`direct` from argv) and prints what it found, and whether chromadb was imported.
READ = """
import asyncio, json, sys
from pathlib import Path
import numpy as np
from memory.vector_index import ChromaVectorIndex

async def main():
    index = ChromaVectorIndex(path=Path(sys.argv[1]), direct=sys.argv[2] == "direct")
    rng = np.random.default_rng(1)
    query = rng.normal(size=384).astype(np.float32)
    query /= np.linalg.norm(query)
    hits = await index.query(7, [float(x) for x in query], limit=8)
    kept = await index.query(7, [float(x) for x in query], limit=8, exclude_sources=[10])
    out = {
        "hits": [[h.chunk_id, h.source_id, h.view, round(h.distance, 6), h.rank] for h in hits],
        "kept": [[h.chunk_id, h.source_id] for h in kept],
        "described": await index.describe(7),
        "count": await index.count(7),
        "none": [await index.query(8, [float(x) for x in query], limit=3), await index.describe(8)],
        "chromadb": "chromadb" in sys.modules,
    }
    if len(sys.argv) > 3:  # then a write, and a read of what it wrote
        await index.add(7, [99], [12], query[None, :], metadata={"embedding_model": "m"})
        again = await index.query(7, [float(x) for x in query], limit=1)
        out["written"] = [again[0].chunk_id, again[0].distance < 1e-4, await index.count(7)]
    print(json.dumps(out, default=str))

asyncio.run(main())
"""


def run(script: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("direct") / "chroma"
    run(WRITE, str(path))
    return path


def test_direct_reads_answer_as_chromas_client_without_importing_it(written: Path) -> None:
    own = run(READ, str(written), "own")
    direct = run(READ, str(written), "direct")
    assert own["chromadb"] is True and direct["chromadb"] is False
    assert direct["hits"] and all(source == 11 for _, source in direct["kept"])  # type: ignore[union-attr]
    for key in ("hits", "kept", "described", "count", "none"):
        assert direct[key] == own[key], key
    assert direct["none"] == [[], None]
    assert direct["count"] == 30


def copy_of(written: Path, tmp_path: Path) -> Path:
    """Return a copy of the folder WRITE wrote, for a test that changes it (the same files: no second writer)."""
    return Path(shutil.copytree(written, tmp_path / "chroma"))


def test_a_write_through_a_direct_index_goes_to_chromas_client(written: Path, tmp_path: Path) -> None:
    path = copy_of(written, tmp_path)
    direct = run(READ, str(path), "direct", "write")
    assert direct["written"] == [99, True, 31]
    assert run(READ, str(path), "own")["count"] == 31


def test_a_direct_index_on_an_empty_folder_finds_nothing(tmp_path: Path) -> None:
    direct = run(READ, str(tmp_path / "nothing"), "direct")
    assert direct["hits"] == [] and direct["none"] == [[], None] and direct["chromadb"] is False


async def test_an_index_opened_ahead_is_the_one_searched_and_a_failure_waits_for_the_search(
    tmp_path: Path,
) -> None:
    from memory.vector_index import ChromaVectorIndex, VectorIndexError

    index = ChromaVectorIndex(path=tmp_path / "chroma", direct=True)
    await index.open_soon()
    opened = index.client()
    assert await index.query(7, [1.0] + [0.0] * 383, limit=3) == [] and index.client() is opened
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder", encoding="utf-8")
    broken = ChromaVectorIndex(path=blocked, direct=True)
    await broken.open_soon()  # says nothing
    with pytest.raises(VectorIndexError, match="cannot be opened"):
        await broken.query(7, [1.0] + [0.0] * 383, limit=3)


#: Reads campaign 7 through an index with an owner (`direct` from argv): an older version's collection (`lk_c7`,
#: as WRITE names it) is claimed, which renames it through Chroma's own client.
CLAIM = """
import asyncio, json, sys
from pathlib import Path
from memory.chroma_client import Owner
from memory.vector_index import ChromaVectorIndex

async def owner():
    return Owner("0123456789ab", "sqlite:///claimed.sqlite3")

async def main():
    index = ChromaVectorIndex(path=Path(sys.argv[1]), owner=owner, direct=sys.argv[2] == "direct")
    hits = await index.query(7, [1.0] + [0.0] * 383, limit=3)
    print(json.dumps({"count": await index.count(7), "hits": len(hits), "names": index.names()}))

asyncio.run(main())
"""


def test_a_direct_index_claims_an_older_versions_collection(written: Path, tmp_path: Path) -> None:
    path = copy_of(written, tmp_path)
    claimed = run(CLAIM, str(path), "direct")
    assert claimed == {"count": 30, "hits": 3, "names": ["lk_0123456789ab_c7"]}
    assert run(CLAIM, str(path), "direct") == claimed  # claimed once: read directly from then on
    assert run(CLAIM, str(path), "own") == claimed
