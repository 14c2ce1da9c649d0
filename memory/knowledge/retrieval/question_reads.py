"""What a lore question reads before it searches, read once a question and kept across questions while it holds.

A question reads the sources its asker may read, the campaign's calendar as they see it, the glossary it is read
through: the same for every search it makes (a comparison's parts, a two-part question's), and the same for the
next question until something shown is written. `Reads` is one question's; `KeptReads` is the retriever's, and
keeps each value with the content mark (`canon.write_marks`) read as the question that read it began. A value is
given back only to a question that began under the same mark: a source hidden, removed or imported, canon or the
calendar the GM changed, a glossary term set, any of them by any process, moves the mark, and the next question
reads afresh. A mark that cannot be read (an in-memory database) keeps nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from canon.storage import Database
from canon.write_marks import WriteMarks

_T = TypeVar("_T")

#: Values kept (sources, calendars, glossaries by campaign, viewer and lens): the least recently used go first.
KEPT = 256


class KeptReads:
    """Values questions read, each kept with the content mark read before it was read."""

    def __init__(self, db: Database, *, size: int = KEPT) -> None:
        self.marks = WriteMarks(db)
        self._size = size
        self._kept: OrderedDict[Hashable, tuple[Hashable, Any]] = OrderedDict()

    async def mark(self) -> Hashable | None:
        """Return the content mark now (None: nothing may be kept)."""
        return await self.marks.mark()

    def recalled(self, mark: Hashable | None, key: Hashable) -> tuple[bool, Any]:
        """Return (True, value) when `key` was read under `mark`, else (False, None)."""
        if mark is None:
            return False, None
        try:
            found = self._kept.get(key)
        except TypeError:  # a lens that cannot be hashed: nothing kept for it
            return False, None
        if found is None or found[0] != mark:
            return False, None
        self._kept.move_to_end(key)
        return True, found[1]

    def keep(self, mark: Hashable | None, key: Hashable, value: Any) -> None:
        """Keep a value read after `mark` was read (nothing without a mark)."""
        if mark is None:
            return
        try:
            self._kept[key] = (mark, value)
        except TypeError:
            return
        self._kept.move_to_end(key)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def close(self) -> None:
        """Close the mark's own connection (SQLite)."""
        self.marks.close()


@dataclass
class Reads:
    """What one question reads once for all of its searches (a comparison's parts, a two-part question's): the
    sources each viewer may read, the calendar and glossary as they see it, the query vectors. Made for one
    question; with `kept` and the `mark` read as it began, what an earlier question read under the same mark is
    used again (`KeptReads`), else read afresh: a source hidden or removed between two questions is left out of
    the second."""

    readable: dict[Hashable, Any] = field(default_factory=dict)
    calendars: dict[Hashable, Any] = field(default_factory=dict)
    #: The query vectors embedded for this question, by the text embedded.
    vectors: dict[str, list[float]] = field(default_factory=dict)
    mark: Hashable | None = None
    kept: KeptReads | None = None

    async def once(self, key: Hashable, read: Callable[[], Awaitable[_T]]) -> _T:
        """Return the value kept under `key` for this mark, or `read()` it and keep it."""
        if self.kept is not None:
            found, value = self.kept.recalled(self.mark, key)
            if found:
                return value  # type: ignore[no-any-return]
        value = await read()
        if self.kept is not None:
            self.kept.keep(self.mark, key, value)
        return value
