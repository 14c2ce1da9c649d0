"""The Chroma plumbing both Chroma adapters share: one client, one collection per campaign, calls in a thread.

`ChromaDocIndex` (NPC memories, scene moments) and `ChromaVectorIndex` (lore chunks) subclass
`ChromaCollections`, which owns the lazy, lock-guarded client (`PersistentClient(path)`, or
`HttpClient(host, port)` when a host is set; telemetry off), the per-campaign collections (`{prefix}{campaign_id}`,
cosine space, the offline embedding function of `memory.embedding` registered so a process reopening one needs no
download, the campaign and creation time as metadata), and `_call`, which runs the synchronous Chroma client in a
worker thread and raises Chroma's untyped errors as the adapter's own error class. A subclass names that class
and the wording of its messages as class attributes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from canon.storage import utc_now
from memory.embedding import DEFAULT_BATCH_SIZE, chroma_embedding_function

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

__all__ = ["ChromaCollections"]


class ChromaCollections:
    """A campaign's Chroma collection on demand, over one client created on first use (thread-safe)."""

    #: The adapter's error class: every failure of Chroma is raised as one.
    error: ClassVar[type[Exception]] = Exception
    #: The message when the client cannot be made (`where` is host:port or the path).
    unopened: ClassVar[str] = "the index at {where} cannot be opened ({error})"
    #: The message when a call fails (`what` says what it was doing, e.g. "search").
    failed: ClassVar[str] = "the index failed to {what}: {error}"
    #: What `count` counts, as in "failed to count documents".
    counted: ClassVar[str] = "documents"

    def __init__(
        self,
        *,
        prefix: str,
        path: Path | None = None,
        host: str | None = None,
        port: int = 8000,
        metadata: Mapping[str, str | int] | None = None,
        embedding_batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        if path is None and host is None:
            raise ValueError("a Chroma index needs a path or a host")
        self.prefix = prefix
        self.path = path
        self.host = host
        self.port = port
        #: Extra metadata of every collection this index creates.
        self.metadata = dict(metadata or {})
        self.embedding_batch_size = embedding_batch_size
        self._client: ClientAPI | None = None
        self._collections: dict[int, Collection] = {}
        self._lock = threading.Lock()

    def name(self, campaign_id: int) -> str:
        """Return the collection name of a campaign."""
        return f"{self.prefix}{campaign_id}"

    def client(self) -> ClientAPI:
        """Return the Chroma client, creating it on first use (blocking: call from a worker thread)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._connect()
        return self._client

    def _connect(self) -> ClientAPI:
        try:
            import chromadb
            from chromadb.config import Settings as ChromaSettings
        except ImportError as error:  # pragma: no cover - chromadb is a dependency
            raise self.error(f"chromadb is not installed ({error})") from error
        chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        try:
            if self.host:
                return chromadb.HttpClient(host=self.host, port=self.port, settings=chroma_settings)
            assert self.path is not None
            self.path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self.path), settings=chroma_settings)
        except Exception as error:  # chromadb raises many untyped errors (connection, files)
            where = f"{self.host}:{self.port}" if self.host else str(self.path)
            raise self.error(self.unopened.format(where=where, error=error)) from error

    def _collection(
        self, campaign_id: int, *, create: bool, metadata: Mapping[str, str | int] | None = None
    ) -> Collection | None:
        """Return the campaign's collection (None when it has none and `create` is false).

        A created collection's metadata is the campaign id, the creation time, this index's `metadata` and
        then `metadata`.
        """
        cached = self._collections.get(campaign_id)
        if cached is not None:
            return cached
        from chromadb.errors import NotFoundError

        client = self.client()
        name = self.name(campaign_id)
        # Registers the offline embedding function, so a process reopening the collection needs no download.
        function = chroma_embedding_function(batch_size=self.embedding_batch_size)
        with self._lock:
            cached = self._collections.get(campaign_id)
            if cached is not None:
                return cached
            try:
                collection = client.get_collection(name, embedding_function=function)
            except (NotFoundError, ValueError) as error:
                if isinstance(error, ValueError) and "does not exist" not in str(error):
                    raise
                if not create:
                    return None
                meta: dict[str, Any] = {
                    "lk_campaign_id": campaign_id,
                    "lk_created_at": utc_now().isoformat(),
                    **self.metadata,
                    **(metadata or {}),
                }
                collection = client.create_collection(
                    name,
                    embedding_function=function,
                    metadata=meta,
                    configuration={"hnsw": {"space": "cosine"}},
                    get_or_create=True,
                )
            self._collections[campaign_id] = collection
            return collection

    async def _call(self, what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run `function` in a worker thread; any failure of Chroma is raised as `error`."""
        try:
            return await asyncio.to_thread(function, *args, **kwargs)
        except self.error:
            raise
        except Exception as error:  # Chroma's errors are untyped
            raise self.error(self.failed.format(prefix=self.prefix, what=what, error=error)) from error

    async def reset(self, campaign_id: int) -> None:
        """Drop the campaign's collection."""

        def work() -> None:
            from chromadb.errors import NotFoundError

            client = self.client()
            with self._lock:
                self._collections.pop(campaign_id, None)
                with contextlib.suppress(NotFoundError, ValueError):
                    client.delete_collection(self.name(campaign_id))

        await self._call("drop the collection", work)

    async def count(self, campaign_id: int) -> int:
        """Return how many items the campaign's collection holds."""

        def work() -> int:
            collection = self._collection(campaign_id, create=False)
            return 0 if collection is None else int(collection.count())

        return cast(int, await self._call(f"count {self.counted}", work))
