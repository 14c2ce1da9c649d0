"""The nearest vectors of a campaign do not depend on how its index was built: the same vectors, added in any
order, give the same hits, which are the exact nearest ones, and equal distances come in the chunks' order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from memory.vector_index import ChromaVectorIndex

DIMENSIONS = 384
COUNT = 1500
WANTED = 60


def vectors(count: int, seed: int) -> npt.NDArray[np.float32]:
    """Return `count` random unit vectors: a hard case for an approximate index (no clusters to follow)."""
    rng = np.random.default_rng(seed)
    array = rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


async def built(folder: Path, array: npt.NDArray[np.float32], order: list[int]) -> ChromaVectorIndex:
    """Return an index holding every row of `array` (chunk id = row + 1), added in `order`, in a few writes."""
    index = ChromaVectorIndex(path=folder)
    for start in range(0, len(order), 400):
        rows = order[start : start + 400]
        await index.add(1, [r + 1 for r in rows], [1] * len(rows), array[rows])
    return index


async def test_two_indexes_of_the_same_vectors_added_in_different_orders_find_the_same_nearest(
    tmp_path: Path,
) -> None:
    array = vectors(COUNT, seed=3)
    forward = await built(tmp_path / "forward", array, list(range(COUNT)))
    mixed = list(range(COUNT))
    np.random.default_rng(5).shuffle(mixed)
    shuffled = await built(tmp_path / "shuffled", array, mixed)
    for query in vectors(6, seed=11):
        exact = [int(i) + 1 for i in np.argsort(-(array @ query), kind="stable")[:WANTED]]
        first = [h.chunk_id for h in await forward.query(1, query.tolist(), limit=WANTED)]
        second = [h.chunk_id for h in await shuffled.query(1, query.tolist(), limit=WANTED)]
        assert first == second
        assert set(first) == set(exact)


async def test_vectors_at_the_same_distance_come_in_the_order_of_their_chunks(tmp_path: Path) -> None:
    array = vectors(40, seed=7)
    same = np.stack([array[0]] * 3)
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, [30, 10, 20], [2, 2, 2], same)
    await index.add(1, list(range(100, 140)), [3] * 40, array)
    hits = await index.query(1, array[0].tolist(), limit=4)
    assert [h.chunk_id for h in hits] == [10, 20, 30, 100]
    assert [h.rank for h in hits] == [1, 2, 3, 4]
