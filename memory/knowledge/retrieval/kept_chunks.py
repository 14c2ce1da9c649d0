"""The chunks a question's rerank reads, kept across questions while nothing shown is written.

Each search loads its best sixty candidates' chunks (text, headings, fields) to rerank them, mostly the chunks
earlier questions loaded: the rows and the decoding of their JSON columns cost more than the rest of the rerank.
`KeptChunks` keeps them under the content mark read as the question began (`question_reads`): a question is given
a kept chunk only when it began under the mark the chunk was read under, so a chunk re-imported, edited or
removed since (any write to the sources moves the mark, by any process) is read afresh. No mark (an in-memory
database): nothing is kept. Chunks come back as `chunks_by_id` gives them, in its order, each a copy.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from memory.knowledge.repository import CHUNK_BATCH, ChunkLite, chunks_by_id

__all__ = ["KEPT_CHUNKS", "KeptChunks"]

#: How many chunks are kept (the least recently read go first): a few megabytes of text at most.
KEPT_CHUNKS = 4096


class KeptChunks:
    """Chunks by id, each kept with the content mark of the question that read it."""

    def __init__(self, *, size: int = KEPT_CHUNKS) -> None:
        self._size = size
        self._mark: Hashable | None = None
        self._kept: OrderedDict[int, ChunkLite] = OrderedDict()

    async def rows(
        self, session: AsyncSession, ids: Sequence[int], mark: Hashable | None
    ) -> dict[int, ChunkLite]:
        """Return chunks by id as `chunks_by_id` does (missing ids left out), reading only the ones not kept under
        `mark` (the content mark read as the question began; None: read them all, keep none)."""
        if mark is None:
            return await chunks_by_id(session, ids)
        if mark != self._mark:
            self._kept.clear()
            self._mark = mark
        unique = list(dict.fromkeys(ids))
        have = {cid: self._kept[cid] for cid in unique if cid in self._kept}
        missing = [cid for cid in unique if cid not in have]
        read = await chunks_by_id(session, missing) if missing else {}
        if mark == self._mark:  # another question under a newer mark may have taken the store meanwhile
            for cid, row in read.items():
                self._kept[cid] = row
            for cid in unique:
                if cid in self._kept:
                    self._kept.move_to_end(cid)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        found = {**have, **read}
        # In `chunks_by_id`'s order: batch by batch of the ids asked, each batch's chunks by id.
        ordered: dict[int, ChunkLite] = {}
        for start in range(0, len(unique), CHUNK_BATCH):
            for cid in sorted(c for c in unique[start : start + CHUNK_BATCH] if c in found):
                ordered[cid] = _copy(found[cid])
        return ordered


_new = tuple.__new__


def _copy(row: ChunkLite) -> ChunkLite:
    """Return a chunk whose lists are its own (a caller changing them leaves the kept chunk as read).

    Built as a tuple of its fields (`_replace` costs twice as much, and sixty chunks are copied a question)."""
    fields = row.fields
    copied = None if fields is None else list(map(list, fields))
    return _new(ChunkLite, (*row[:2], list(row.heading_path), *row[3:6], copied, *row[7:]))
