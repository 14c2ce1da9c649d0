"""An embedded Chroma index read through Chroma's compiled core, without importing the `chromadb` package.

`import chromadb` costs about half a second of CPU (its client builds telemetry, an HTTP client, JSON schemas
and a registry of every embedding function it knows), five times what its compiled core
(`chromadb_rust_bindings`) costs, which is what actually reads the index: Chroma's embedded client is a thin
shim over it (`chromadb.api.rust.RustBindingsAPI`). A process that only reads (`lorekeeper lore QUESTION`)
opens the folder with the core itself, as that shim does (the same SQLite file, migrations applied, the same
cache size), and answers the part of Chroma's client `memory.chroma_client` reads with: a collection by name
(its name and metadata), `query` by vectors and `count`.

The core's calls are Chroma's private interface, as its shim makes them in the pinned version (chromadb 1.5,
`requirements.lock`): `tests/memory/test_chroma_direct.py` compares this reader's answers with Chroma's own
client's, so an upgrade that changes them fails there.

Chroma's own client would also read its settings from the environment and a `.env` file (`migrations`,
`migrations_hash_algorithm`); Lorekeeper sets none of them, and this reader uses their defaults.

Anything else (creating, renaming, writing or dropping a collection) goes to Chroma's own client, opened then
from the same folder (`open_full`) after this one lets go of it; every later call goes there too. A failure of
the core raises Chroma's own errors (whose module imports the package then, as it does in Chroma).
"""

from __future__ import annotations

import json
import resource
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["DirectClient", "DirectCollection"]

#: Chroma's defaults (`chromadb.config.DEFAULT_TENANT`, `DEFAULT_DATABASE`).
TENANT = "default_tenant"
DATABASE = "default_database"


class DirectClient:
    """The reads of Chroma's embedded client over one folder, answered by its compiled core."""

    def __init__(self, path: Path, open_full: Callable[[], Any]) -> None:
        import chromadb_rust_bindings as core

        self.path = path
        self._open_full = open_full
        self._full: Any = None
        self._lock = threading.Lock()
        # As `RustBindingsAPI.start` builds it with Chroma's default settings (md5 migration hashes,
        # migrations applied, no reset, a fifth of the open-file limit as the HNSW cache).
        config = core.SqliteDBConfig(
            hash_type=core.MigrationHash.MD5,
            migration_mode=core.MigrationMode.Apply,
            url=str(path / "chroma.sqlite3"),
        )
        self._core: Any = core.Bindings(
            allow_reset=False,
            sqlite_db_config=config,
            persist_path=str(path),
            hnsw_cache_size=resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 5,
        )

    def full(self) -> Any:
        """Return Chroma's own client over the folder, opened on first need (this one lets go of it first)."""
        with self._lock:
            if self._full is None:
                self._core = None
                self._full = self._open_full()
            return self._full

    def get_collection(self, name: str, **_ignored: Any) -> Any:
        """Return a collection (a ValueError saying it "does not exist" when there is none)."""
        if self._full is not None:
            return self._full.get_collection(name, **_ignored)
        # Listed rather than fetched: a missing collection would raise Chroma's NotFoundError, whose module
        # imports the whole package.
        for found in self._core.list_collections(None, None, TENANT, DATABASE):
            if found.name == name:
                return DirectCollection(self, found)
        raise ValueError(f"Collection {name} does not exist.")

    def list_collections(self) -> list[str]:
        """Return the names of every collection."""
        if self._full is not None:
            return [c if isinstance(c, str) else c.name for c in self._full.list_collections()]
        return [c.name for c in self._core.list_collections(None, None, TENANT, DATABASE)]

    def create_collection(self, name: str, **options: Any) -> Any:
        """Create a collection (Chroma's own client)."""
        return self.full().create_collection(name, **options)

    def get_or_create_collection(self, name: str, **options: Any) -> Any:
        """Return a collection, created when missing (Chroma's own client)."""
        return self.full().get_or_create_collection(name, **options)

    def delete_collection(self, name: str) -> None:
        """Drop a collection (Chroma's own client)."""
        self.full().delete_collection(name)


class DirectCollection:
    """One collection of a `DirectClient`: its name and metadata, queries and counts; writes go to Chroma's
    own client."""

    def __init__(self, client: DirectClient, model: Any) -> None:
        self._client = client
        self._id = str(model.id)
        self.name: str = model.name
        self.metadata: dict[str, Any] | None = model.metadata

    def _own(self) -> Any:
        return self._client.full().get_collection(self.name)

    def query(
        self,
        *,
        query_embeddings: Sequence[Sequence[float]],
        n_results: int = 10,
        where: dict[str, Any] | None = None,
        include: Sequence[str] = ("metadatas", "documents", "distances"),
    ) -> dict[str, Any]:
        """Return the nearest neighbours of each query vector, as Chroma's `Collection.query` does."""
        core = self._client._core
        if core is None:
            found: dict[str, Any] = self._own().query(
                query_embeddings=query_embeddings, n_results=n_results, where=where, include=list(include)
            )
            return found
        if n_results <= 0:  # as Chroma's own validation
            raise TypeError(f"Number of requested results {n_results}, cannot be negative, or zero.")
        included = list(include)
        answer = core.query(
            self._id,
            None,
            [list(vector) for vector in query_embeddings],
            n_results,
            json.dumps(where) if where else None,
            None,
            included,
            TENANT,
            DATABASE,
        )
        return {
            "ids": answer.ids,
            "embeddings": answer.embeddings,
            "documents": answer.documents,
            "uris": None,
            "included": included,
            "data": None,
            "metadatas": answer.metadatas,
            "distances": answer.distances,
        }

    def count(self) -> int:
        """Return how many vectors the collection holds."""
        core = self._client._core
        if core is None:
            return int(self._own().count())
        return int(core.count(self._id, TENANT, DATABASE))

    def upsert(self, **kwargs: Any) -> None:
        """Add or replace vectors (Chroma's own client)."""
        self._own().upsert(**kwargs)

    def delete(self, **kwargs: Any) -> None:
        """Remove vectors (Chroma's own client)."""
        self._own().delete(**kwargs)

    def modify(self, **kwargs: Any) -> None:
        """Rename the collection or change its metadata (Chroma's own client)."""
        own = self._own()
        own.modify(**kwargs)
        self.name, self.metadata = own.name, own.metadata
