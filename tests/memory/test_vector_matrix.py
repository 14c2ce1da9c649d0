"""A campaign's vectors searched in memory (`memory.vector_matrix`) answer as Chroma's own search does, follow
this process's writes, see another process's through the database's word, and never mix campaigns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from memory.vector_index import ChromaVectorIndex
from memory.vector_matrix import CampaignMatrix, Freshness, chroma_distances, unit_rows

DIMENSIONS = 384


def vectors(count: int, seed: int) -> npt.NDArray[np.float32]:
    rng = np.random.default_rng(seed)
    array = rng.standard_normal((count, DIMENSIONS)).astype(np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


def hits_of(found: list) -> list[tuple[int, int, str]]:
    return [(h.chunk_id, h.source_id, h.view) for h in found]


async def test_the_matrix_finds_what_chromas_own_search_finds(tmp_path: Path) -> None:
    array = vectors(900, seed=1)
    memory = ChromaVectorIndex(path=tmp_path / "chroma")
    assert memory.in_memory
    chunks = list(range(1, 301)) * 3
    views = ["p"] * 300 + ["t"] * 300 + ["n"] * 300
    sources = [1 + (c % 4) for c in chunks]
    await memory.add(7, chunks, sources, array, views=views)
    store = ChromaVectorIndex(path=tmp_path / "chroma", in_memory=False)
    for query in vectors(5, seed=2):
        for exclude in ((), (2,), (1, 3)):
            mine = await memory.query(7, query.tolist(), limit=40, exclude_sources=exclude)
            theirs = await store.query(7, query.tolist(), limit=40, exclude_sources=exclude)
            assert hits_of(mine) == hits_of(theirs)
            assert np.allclose([h.distance for h in mine], [h.distance for h in theirs], atol=1e-6)
            assert not {h.source_id for h in mine} & set(exclude)


async def test_the_matrix_follows_an_import_and_a_removal_made_by_this_process(tmp_path: Path) -> None:
    array = vectors(20, seed=3)
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, list(range(1, 11)), [1] * 10, array[:10])
    assert {h.chunk_id for h in await index.query(1, array[0].tolist(), limit=50)} == set(range(1, 11))
    await index.add(1, list(range(11, 21)), [2] * 10, array[10:])  # an import after the matrix was loaded
    found = await index.query(1, array[15].tolist(), limit=1)
    assert (found[0].chunk_id, found[0].source_id) == (16, 2)
    assert len(await index.query(1, array[0].tolist(), limit=50)) == 20
    await index.delete(1, 2, list(range(11, 21)))  # the source removed
    assert {h.chunk_id for h in await index.query(1, array[15].tolist(), limit=50)} == set(range(1, 11))
    await index.reset(1)
    assert await index.query(1, array[0].tolist(), limit=5) == []


async def test_a_matrix_holds_one_campaigns_vectors_only(tmp_path: Path) -> None:
    array = vectors(20, seed=4)
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, list(range(1, 11)), [1] * 10, array[:10])
    await index.add(2, list(range(11, 21)), [2] * 10, array[10:])
    # The first campaign's own vector asked of the second: only the second's vectors come back.
    assert {h.chunk_id for h in await index.query(2, array[0].tolist(), limit=50)} == set(range(11, 21))
    assert {h.chunk_id for h in await index.query(1, array[12].tolist(), limit=50)} == set(range(1, 11))
    assert await index.query(3, array[0].tolist(), limit=5) == []


async def test_equal_distances_come_in_the_order_of_the_chunks_then_of_the_views(tmp_path: Path) -> None:
    array = vectors(10, seed=5)
    same = np.stack([array[0]] * 5)
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, [40, 20, 30, 20, 20], [3, 3, 3, 3, 3], same, views=["p", "n", "p", "t", "p"])
    await index.add(1, list(range(100, 110)), [4] * 10, array)
    found = await index.query(1, array[0].tolist(), limit=6)
    assert [(h.chunk_id, h.view) for h in found] == [
        (20, "p"),
        (20, "t"),
        (20, "n"),
        (30, "p"),
        (40, "p"),
        (100, "p"),
    ]
    assert [h.rank for h in found] == [1, 2, 3, 4, 5, 6]


async def test_another_processes_write_is_seen_once_the_database_says_so(tmp_path: Path) -> None:
    array = vectors(20, seed=6)
    bot = ChromaVectorIndex(path=tmp_path / "chroma")
    other = ChromaVectorIndex(path=tmp_path / "chroma")  # stands for another process sharing the store
    await bot.add(1, list(range(1, 11)), [1] * 10, array[:10])
    said = Freshness(sources={1: (1, "indexed", 10)}, index=("m", "v"))
    bot.note_freshness(1, said)
    assert len(await bot.query(1, array[0].tolist(), limit=50)) == 10
    await other.add(1, list(range(11, 21)), [2] * 10, array[10:])
    bot.note_freshness(1, said)  # the database says nothing new yet: the matrix stands
    assert len(await bot.query(1, array[0].tolist(), limit=50)) == 10
    bot.note_freshness(1, Freshness(sources={1: (1, "indexed", 10), 2: (1, "indexed", 10)}, index=("m", "v")))
    assert len(await bot.query(1, array[0].tolist(), limit=50)) == 20
    # The other process imports the first source again: its old vectors go, new chunks come.
    await other.delete(1, 1, list(range(1, 11)))
    await other.add(1, list(range(21, 31)), [1] * 10, array[:10])
    bot.note_freshness(1, Freshness(sources={1: (2, "indexed", 10), 2: (1, "indexed", 10)}, index=("m", "v")))
    assert {h.chunk_id for h in await bot.query(1, array[0].tolist(), limit=50)} == set(range(11, 31))


def test_a_source_written_here_keeps_the_matrix_when_its_new_version_is_said() -> None:
    array = vectors(4, seed=7)
    matrix = CampaignMatrix.of(
        ("p", "t", "n"), [("1:1:p", 1, 1, "p"), ("2:1:p", 2, 1, "p")], array[:2], Freshness({1: 1}, "i")
    )
    matrix.upsert([("3:2:p", 3, 2, "p")], array[2:3])
    assert matrix.fresh(Freshness({1: 1, 2: 1}, "i"))  # the source this process wrote: no reload
    assert not matrix.fresh(Freshness({1: 2, 2: 1}, "i"))  # another version of one it did not write
    assert not CampaignMatrix.of(("p",), [], array[:0], Freshness({}, "i")).fresh(Freshness({}, "j"))


def test_distances_are_chromas_sums_of_unit_vectors() -> None:
    array = vectors(50, seed=8) * 3
    query = vectors(1, seed=9)[0]
    units = unit_rows(array)
    assert np.allclose(np.linalg.norm(units, axis=1), 1, atol=1e-6)
    assert np.allclose(chroma_distances(units, unit_rows(query[None])[0]), 1 - units @ query, atol=1e-6)


async def test_matrices_past_their_budget_let_go_of_the_campaign_searched_longest_ago(tmp_path: Path) -> None:
    array = vectors(55, seed=10)
    index = ChromaVectorIndex(path=tmp_path / "chroma", memory_vectors=20)
    for campaign in (1, 2, 3):
        rows = list(range(10 * (campaign - 1), 10 * campaign))
        await index.add(campaign, [r + 1 for r in rows], [campaign] * 10, array[rows])
    for campaign in (1, 2, 1, 3):
        found = await index.query(campaign, array[10 * (campaign - 1)].tolist(), limit=3)
        assert found[0].chunk_id == 10 * (campaign - 1) + 1
    assert list(index._matrices) == [1, 3]  # the second, searched longest ago, was let go
    assert (await index.query(2, array[12].tolist(), limit=1))[0].chunk_id == 13
    # A campaign larger than the budget alone is searched in Chroma, never kept.
    await index.add(4, list(range(100, 125)), [4] * 25, array[30:55])
    store = ChromaVectorIndex(path=tmp_path / "chroma", in_memory=False)
    mine = await index.query(4, array[40].tolist(), limit=5)
    assert hits_of(mine) == hits_of(await store.query(4, array[40].tolist(), limit=5))
    assert 4 not in index._matrices
