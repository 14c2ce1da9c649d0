"""Finished wiki pages kept for their link until anything they show is written to the database.

A page is kept under its link's token, the root of its links and its path with its query, with the database's
content mark read before the page was built (`canon.write_marks`). It is handed out again only while the mark is
unchanged: nothing pages show was committed since, by this process or any other, so the page built then, with
every check (the link's revocation, the campaign, the reader's lens, the visibility of each fact), is the page
that would be built now. A reveal, a retcon, a revoked link, an edited turn all move the mark, and the next
request builds the page afresh; a turn logged moves only its scene's page's mark, the scheduler's lease none. A page is never shared between links: each person's link has its own entries, so nothing one
reader may see reaches another. The link's expiry and the rate limit are checked before the cache is asked.

A page read without a mark (the database could not tell one) is not kept.

The cache holds at most `max_bytes` of pages (the least recently used go first); 0 keeps nothing.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from .html import Page

#: Statuses whose pages are kept (a page found, a page not found); errors and refusals are built each time.
KEPT_STATUSES = frozenset({200, 404})


@dataclass(frozen=True, slots=True)
class CacheKey:
    """What a kept page answers: one link's token, the root its links start with, the path and query asked."""

    token: str
    root: str
    path_qs: str


@dataclass(frozen=True, slots=True)
class _Kept:
    mark: Hashable
    page: Page
    size: int


class PageCache:
    """Pages by `CacheKey`, each valid while the database's write mark is the one it was built under."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pages: OrderedDict[CacheKey, _Kept] = OrderedDict()
        self._bytes = 0
        #: Pages handed out from the cache since it was made.
        self.hits = 0

    def get(self, key: CacheKey, mark: Hashable) -> Page | None:
        """Return the page kept for this key under this mark, or None (none kept, or built before a write)."""
        kept = self._pages.get(key)
        if kept is None:
            return None
        if kept.mark != mark:
            self._drop(key)
            return None
        self._pages.move_to_end(key)
        self.hits += 1
        return kept.page

    def put(self, key: CacheKey, mark: Hashable, page: Page) -> None:
        """Keep a page built after `mark` was read (pages of other statuses, too large, or read without a mark
        (None), are not kept)."""
        if mark is None or page.status not in KEPT_STATUSES:
            return
        # The memory the text takes, not its length: a page with a character beyond the first 65,536 (the
        # GM's lock) keeps 4 bytes for each of its characters.
        size = sys.getsizeof(page.body) + sys.getsizeof(key.token) + sys.getsizeof(key.path_qs) + 200
        if size > self.max_bytes // 4:
            return
        self._drop(key)
        self._pages[key] = _Kept(mark, page, size)
        self._bytes += size
        while self._bytes > self.max_bytes and self._pages:
            self._drop(next(iter(self._pages)))

    def __len__(self) -> int:
        return len(self._pages)

    @property
    def size(self) -> int:
        """Return the bytes the kept pages take (about: their text's memory)."""
        return self._bytes

    def _drop(self, key: CacheKey) -> None:
        kept = self._pages.pop(key, None)
        if kept is not None:
            self._bytes -= kept.size
