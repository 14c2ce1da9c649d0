"""A campaign's vectors kept in memory as one matrix, searched exactly: the reads of `ChromaVectorIndex`.

Chroma stays the store (every vector is written there first, and a matrix is loaded from it); searching it costs
a walk of its whole graph per query (`memory.chroma_client.SEARCH_EF`: about 20 ms at 20,000 vectors), where one
product of the query with the campaign's matrix costs a millisecond and is exact by construction. A matrix holds
one collection's vectors only (one campaign's: campaigns never share one), and it is searched as Chroma is asked
(`VectorIndex.query`): the `limit` nearest vectors not of the excluded sources, equal distances in the order of
the chunks, then of the views. Which of them a viewer may read is decided after, as for Chroma's answers.

The distance is Chroma's cosine distance computed as its index computes it (each vector scaled to unit length
by its sum of squares taken in order, then one minus the dot product summed four lanes at a time), so the
distances it returns are, to the last bit nearly always and within a unit of the last place otherwise, the ones
Chroma would return for the same vectors. Candidates are picked by a plain product first (a margin far wider
than the two computations ever differ), and only they are measured Chroma's way.

A matrix follows this process's writes (`upsert`, `remove`) as they are made. Another process's writes are seen
through what the database says of the campaign's sources (`Freshness`): a source whose version or vector state
moved, a source this matrix has no vectors of and did not know, or another index state (model, views), and the
matrix is dropped, to be loaded again by the next search.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

__all__ = ["CampaignMatrix", "Freshness", "chroma_distances", "unit_rows"]

#: How far a plain product's distance may be from Chroma's and the candidate still be weighed Chroma's way.
_MARGIN = 1e-4
_LANES = 4


@dataclass(frozen=True)
class Freshness:
    """What the database says of a campaign's vectors: a token per source (its version and vector state) and
    the campaign's index state (model and views versions)."""

    sources: Mapping[int, Hashable]
    index: Hashable = None


def unit_rows(array: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Return each row scaled to unit length as Chroma's index does (its sum of squares taken in order: a running
    sum, which adds in order, unlike numpy's sums)."""
    rows = np.ascontiguousarray(array, dtype=np.float32)
    if not rows.size:
        return rows
    norms = np.sqrt(np.cumsum(rows * rows, axis=1, dtype=np.float32)[:, -1])
    norms[norms == 0] = np.float32(1)
    return (rows / norms[:, None]).astype(np.float32)


def chroma_distances(
    rows: npt.NDArray[np.float32], query: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Return one minus the dot product of each (unit) row with the (unit) query, summed as Chroma's index sums
    it: four lanes over the vector, then the lanes in order (running sums, which add in order)."""
    products = (rows * query).astype(np.float32)
    width = products.shape[1] - products.shape[1] % _LANES
    lanes = products[:, :width].reshape(rows.shape[0], -1, _LANES)
    sums = np.cumsum(lanes, axis=1, dtype=np.float32)[:, -1, :]
    if width < products.shape[1]:
        sums = np.concatenate([sums, products[:, width:]], axis=1)
    total = np.cumsum(sums, axis=1, dtype=np.float32)[:, -1]
    return (np.float32(1) - total).astype(np.float32)


@dataclass
class CampaignMatrix:
    """One campaign's vectors: ids by row (chunk, source, view order) and the unit rows themselves."""

    views: tuple[str, ...]
    ids: list[str] = field(default_factory=list)
    chunks: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sources: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    kinds: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rows: npt.NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    #: The token of each source as the database said it when this matrix was checked (`fresh`).
    seen: dict[int, Hashable] = field(default_factory=dict)
    #: The index state the database said, once checked.
    index: Hashable = None
    checked: bool = False
    #: Sources this process wrote vectors of since: their next token is theirs, not another process's.
    written: set[int] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        views: tuple[str, ...],
        parsed: Sequence[tuple[str, int, int, str]],
        vectors: npt.NDArray[np.float32],
        freshness: Freshness | None = None,
    ) -> CampaignMatrix:
        """Return the matrix of (vector id, chunk, source, view) rows and their vectors; `freshness`: what the
        database said just before they were read."""
        matrix = cls(views=views)
        matrix._set(list(parsed), vectors)
        if freshness is not None:
            matrix.seen = dict(freshness.sources)
            matrix.index = freshness.index
            matrix.checked = True
        return matrix

    def _set(self, parsed: list[tuple[str, int, int, str]], vectors: npt.NDArray[np.float32]) -> None:
        self.ids = [p[0] for p in parsed]
        self.chunks = np.array([p[1] for p in parsed], dtype=np.int64)
        self.sources = np.array([p[2] for p in parsed], dtype=np.int64)
        self.kinds = np.array([self._kind(p[3]) for p in parsed], dtype=np.int64)
        dimensions = vectors.shape[1] if len(vectors) else (self.rows.shape[1] if self.rows.size else 0)
        self.rows = unit_rows(vectors) if len(vectors) else np.zeros((0, dimensions), dtype=np.float32)

    def _kind(self, view: str) -> int:
        return self.views.index(view) if view in self.views else len(self.views)

    def __len__(self) -> int:
        return len(self.ids)

    def fresh(self, freshness: Freshness) -> bool:
        """Tell whether this matrix still holds what the database says (recording the tokens it accepts)."""
        if self.checked and freshness.index != self.index:
            return False
        present: set[int] | None = None
        for source, token in freshness.sources.items():
            known = self.seen.get(source)
            if known == token:
                continue
            if known is not None and source not in self.written:
                return False  # moved since: another process wrote it
            if known is None and source not in self.written:
                present = present if present is not None else set(self.sources.tolist())
                if source not in present and self.checked:
                    return False  # a source this matrix never saw: its vectors may be in the store now
            self.seen[source] = token
            self.written.discard(source)
        self.index = freshness.index
        self.checked = True
        return True

    def upsert(self, parsed: Sequence[tuple[str, int, int, str]], vectors: npt.NDArray[np.float32]) -> None:
        """Add rows, or replace the rows of the same vector ids (this process's write)."""
        position = {vector_id: row for row, vector_id in enumerate(self.ids)}
        replaced = [position[p[0]] for p in parsed if p[0] in position]
        if replaced:
            self.remove([self.ids[row] for row in replaced])
        if not len(parsed):
            return
        units = unit_rows(vectors)
        self.ids += [p[0] for p in parsed]
        self.chunks = np.concatenate([self.chunks, np.array([p[1] for p in parsed], dtype=np.int64)])
        self.sources = np.concatenate([self.sources, np.array([p[2] for p in parsed], dtype=np.int64)])
        self.kinds = np.concatenate(
            [self.kinds, np.array([self._kind(p[3]) for p in parsed], dtype=np.int64)]
        )
        self.rows = units if not self.rows.size else np.concatenate([self.rows, units])
        self.written.update(p[2] for p in parsed)

    def remove(self, vector_ids: Sequence[str], *, source: int | None = None) -> None:
        """Drop the rows of some vector ids (missing ones are ignored)."""
        if source is not None:
            self.written.add(source)
        doomed = set(vector_ids)
        keep = np.array([vector_id not in doomed for vector_id in self.ids], dtype=bool)
        if keep.all():
            return
        self.ids = [vector_id for vector_id, kept in zip(self.ids, keep, strict=True) if kept]
        self.chunks, self.sources, self.kinds = self.chunks[keep], self.sources[keep], self.kinds[keep]
        self.rows = self.rows[keep]

    def nearest(
        self, query: npt.NDArray[np.float32], limit: int, exclude_sources: Sequence[int] = ()
    ) -> list[tuple[float, int, int, str]]:
        """Return (distance, chunk, source, view) of the `limit` nearest rows not of `exclude_sources`, nearest
        first, equal distances in the order of the chunks, then of the views."""
        if limit <= 0 or not len(self.ids):
            return []
        unit = unit_rows(np.asarray(query, dtype=np.float32).reshape(1, -1))[0]
        rough = np.float32(1) - np.einsum("ij,j->i", self.rows, unit)
        if exclude_sources:
            rough[np.isin(self.sources, np.asarray(list(exclude_sources), dtype=np.int64))] = np.inf
        allowed = int(np.count_nonzero(np.isfinite(rough)))
        if not allowed:
            return []
        take = min(limit, allowed)
        edge = float(np.partition(rough, take - 1)[take - 1]) if take < len(rough) else float(rough.max())
        candidates = np.nonzero(rough <= edge + _MARGIN)[0]
        exact = chroma_distances(self.rows[candidates], unit)
        order = np.lexsort((self.kinds[candidates], self.chunks[candidates], exact))[:take]
        views = self.views
        return [
            (
                float(exact[i]),
                int(self.chunks[candidates[i]]),
                int(self.sources[candidates[i]]),
                views[self.kinds[candidates[i]]]
                if self.kinds[candidates[i]] < len(views)
                else self.ids[candidates[i]].rsplit(":", 1)[-1],
            )
            for i in order
        ]
