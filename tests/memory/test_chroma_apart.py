"""The embedded Chroma index in a process of its own: the same answers as in process, errors included.

With `keep_apart` on, an index folder opened from then on is served by a child process that owns Chroma's client;
every adapter opening that folder shares it, and a folder already opened in this process stays there.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np
import pytest

from memory import chroma_apart
from memory.doc_index import ChromaDocIndex
from memory.vector_index import ChromaVectorIndex, VectorIndexError

pytestmark = pytest.mark.slow


@pytest.fixture
def apart() -> Iterator[None]:
    chroma_apart.keep_apart()
    try:
        yield
    finally:
        chroma_apart.keep_apart(False)
        chroma_apart.close_all()


def unit(*values: float) -> list[float]:
    vector = np.zeros(384, dtype=np.float32)
    vector[: len(values)] = values
    return list(vector / np.linalg.norm(vector))


async def test_an_index_kept_apart_adds_finds_describes_and_deletes(apart: None, tmp_path: Path) -> None:
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    vectors = np.asarray([unit(1, 0), unit(0, 1), unit(1, 1)], dtype=np.float32)
    await index.add(7, [1, 2, 3], [10, 10, 11], vectors, metadata={"embedding_model": "m"})
    assert isinstance(index.client(), chroma_apart.ApartClient)
    hits = await index.query(7, unit(1, 0.1), limit=2)
    assert [h.chunk_id for h in hits] == [1, 3]
    assert [h.chunk_id for h in await index.query(7, unit(1, 0.1), limit=3, exclude_sources=[10])] == [3]
    described = await index.describe(7)
    assert described is not None and described["count"] == 3 and described["embedding_model"] == "m"
    await index.delete(7, 10, [1, 2])
    assert await index.count(7) == 1
    assert await index.query(8, unit(1, 0), limit=3) == []  # no collection: Chroma's NotFoundError, crossed
    assert await index.describe(8) is None
    await index.reset(7)
    assert await index.count(7) == 0


async def test_adapters_of_one_folder_share_its_process_and_its_vectors_stay(
    apart: None, tmp_path: Path
) -> None:
    folder = tmp_path / "chroma"
    index = ChromaVectorIndex(path=folder)
    await index.add(1, [5], [9], np.asarray([unit(0, 0, 1)], dtype=np.float32))
    memories = ChromaDocIndex(prefix="lk_mem", path=folder)
    assert memories.client() is index.client()
    chroma_apart.close_all()  # the child closes the index; a new one reopens it
    chroma_apart.keep_apart()
    again = ChromaVectorIndex(path=folder)
    assert [h.chunk_id for h in await again.query(1, unit(0, 0, 1), limit=1)] == [5]


async def test_a_folder_opened_in_process_stays_there(apart: None, tmp_path: Path) -> None:
    chroma_apart.keep_apart(False)
    here = ChromaVectorIndex(path=tmp_path / "chroma")
    await here.add(1, [5], [9], np.asarray([unit(1)], dtype=np.float32))
    chroma_apart.keep_apart()
    later = ChromaVectorIndex(path=tmp_path / "chroma")
    assert not isinstance(later.client(), chroma_apart.ApartClient)
    assert await later.count(1) == 1


async def test_a_child_that_died_is_started_again_and_a_failed_call_says_so(
    apart: None, tmp_path: Path
) -> None:
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, [5], [9], np.asarray([unit(1)], dtype=np.float32))
    client = index.client()
    assert isinstance(client, chroma_apart.ApartClient) and client._process is not None
    os.kill(client._process.pid, 9)
    client._process.join()
    assert await index.count(1) == 1  # started again, the folder reopened
    with pytest.raises(VectorIndexError, match="failed to add vectors"):
        await index.add(1, [6], [9], np.asarray([[float("nan")] * 3], dtype=np.float32))


async def test_an_index_its_process_cannot_open_says_why(apart: None, tmp_path: Path) -> None:
    taken = tmp_path / "chroma"
    taken.write_text("not a folder")  # the index's place is a file: Chroma cannot open it
    client = chroma_apart.ApartClient(taken, batch_size=8)
    try:
        with pytest.raises(Exception) as raised:
            client.list_collections()
        assert "stopped" not in str(raised.value)  # Chroma's own reason, not only that the process ended
    finally:
        client.close()


async def test_a_call_interrupted_before_its_answer_does_not_hand_that_answer_to_the_next(
    apart: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, [5], [9], np.asarray([unit(1)], dtype=np.float32))
    client = index.client()
    assert isinstance(client, chroma_apart.ApartClient)
    real_recv = Connection.recv

    def interrupted(self: Connection) -> object:
        monkeypatch.setattr(Connection, "recv", real_recv)
        raise KeyboardInterrupt

    monkeypatch.setattr(Connection, "recv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        client.list_collections()  # asked, then interrupted: its answer is never read
    assert await index.count(1) == 1  # this call's own answer (not the list of collections)


async def test_a_child_that_does_not_answer_is_stopped_and_the_call_fails(
    apart: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ChromaVectorIndex(path=tmp_path / "chroma")
    await index.add(1, [5], [9], np.asarray([unit(1)], dtype=np.float32))
    client = index.client()
    assert isinstance(client, chroma_apart.ApartClient) and client._process is not None
    hung = client._process
    os.kill(hung.pid, signal.SIGSTOP)  # frozen: it reads nothing, answers nothing, ignores a polite stop
    monkeypatch.setattr(chroma_apart, "ANSWER_SECONDS", 0.5)
    monkeypatch.setattr(chroma_apart, "CLOSE_SECONDS", 0.5)  # deaf to the polite stop: killed after it
    with pytest.raises(RuntimeError, match="did not answer"):
        client.list_collections()
    hung.join(10)
    assert not hung.is_alive()
    monkeypatch.setattr(chroma_apart, "ANSWER_SECONDS", 120.0)
    assert await index.count(1) == 1  # a new child, the folder reopened


async def test_closing_does_not_wait_forever_on_a_frozen_child(
    apart: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = chroma_apart.ApartClient(tmp_path / "chroma", batch_size=8)
    assert client.list_collections() == []
    assert client._process is not None
    frozen = client._process
    os.kill(frozen.pid, signal.SIGSTOP)
    monkeypatch.setattr(chroma_apart, "CLOSE_SECONDS", 0.5)
    client.close()
    frozen.join(10)
    assert not frozen.is_alive()
