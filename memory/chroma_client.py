"""The Chroma plumbing both Chroma adapters share: one client, one collection per campaign, calls in a thread.

`ChromaDocIndex` (NPC memories, scene moments) and `ChromaVectorIndex` (lore chunks) subclass
`ChromaCollections`, which owns the lazy, lock-guarded client (`PersistentClient(path)`, or
`HttpClient(host, port)` when a host is set; telemetry off), the per-campaign collections (`{prefix}{campaign_id}`,
cosine space, the offline embedding function of `memory.embedding` registered so a process reopening one needs no
download, the campaign and creation time as metadata), and `_call`, which runs the synchronous Chroma client in a
worker thread and raises Chroma's untyped errors as the adapter's own error class. A subclass names that class
and the wording of its messages as class attributes.

Collections belong to an installation (one database): given an `owner` (its installation id and the database
it lives in), a collection is named `lk_<installation>_<kind><campaign id>` (`lk_3f9a0c1d2e4b_c12`), so two
databases sharing one Chroma server never meet. A marker collection `lk_<installation>` records the database;
a second database carrying the same installation id (a copied database) on the same Chroma server is refused on
first use, with the way out in the message. Collections an older version named `lk_c<id>` are renamed to this installation's name on
first use (the first installation to use them claims them). Without an owner (benchmarks, tools) the names are
`{prefix}{campaign_id}`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from canon.storage import utc_now
from memory import chroma_apart
from memory.chroma_direct import DirectClient
from memory.embedding import DEFAULT_BATCH_SIZE, chroma_embedding_function

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

__all__ = ["ChromaCollections", "Owner", "Survey", "owned_name", "survey"]

#: The kinds of collection, by the adapters' prefixes: lore chunks, NPC memories, scene moments.
KINDS = ("c", "mem", "scn")
_OWNED = re.compile(r"^lk_([0-9a-f]{12})_(c|mem|scn)(\d+)$")
_MARKER = re.compile(r"^lk_([0-9a-f]{12})$")
_LEGACY = re.compile(r"^lk_(c|mem|scn)(\d+)$")

#: How many candidates a search walks through (Chroma's `ef_search`, 100 by default). Chroma's index is a graph
#: whose links depend on how its insertions were scheduled, and a short walk misses near neighbours: two imports
#: of the same books then found different passages for one question. A walk at least as long as a collection
#: visits every vector of it, so a campaign's nearest vectors are found exactly, whatever its graph; larger
#: collections are searched as deeply as this, nearly always exactly.
SEARCH_EF = 10_000


@dataclass(frozen=True)
class Owner:
    """Whose collections an index reads and writes: an installation id and the database it lives in."""

    installation: str
    #: The database's address, password hidden (a copy elsewhere has another).
    database: str


def owned_name(installation: str, prefix: str, campaign_id: int) -> str:
    """Return the name of an installation's collection of one kind for a campaign (`lk_<id>_c12`)."""
    return f"lk_{installation}_{prefix.removeprefix('lk_')}{campaign_id}"


@dataclass
class Survey:
    """The collections of one Chroma, as seen by one installation."""

    #: This installation's collections whose campaign no longer exists (names).
    orphans: list[str] = field(default_factory=list)
    #: Collections named by an older version (`lk_c12`): nobody has claimed them yet.
    legacy: list[str] = field(default_factory=list)
    #: Other installations sharing this Chroma (ids), left alone.
    others: set[str] = field(default_factory=set)
    #: This installation's collections in use.
    owned: int = 0


def survey(names: list[str], installation: str, campaign_ids: set[int]) -> Survey:
    """Sort collection names into this installation's (in use or orphaned), older ones and other installations'."""
    found = Survey()
    for name in names:
        owned, marker, legacy = _OWNED.match(name), _MARKER.match(name), _LEGACY.match(name)
        if owned is not None and owned.group(1) == installation:
            if int(owned.group(3)) in campaign_ids:
                found.owned += 1
            else:
                found.orphans.append(name)
        elif owned is not None or (marker is not None and marker.group(1) != installation):
            found.others.add((owned or marker).group(1))  # type: ignore[union-attr]
        elif legacy is not None:
            found.legacy.append(name)
    found.orphans.sort()
    found.legacy.sort()
    return found


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
        owner: Callable[[], Awaitable[Owner]] | None = None,
        direct: bool = False,
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
        self._owner_of = owner
        self.owner: Owner | None = None
        #: Read an embedded index through Chroma's compiled core, without importing chromadb
        #: (`memory.chroma_direct`; writes still go to Chroma's own client): for a process that only reads.
        self.direct = direct

    def name(self, campaign_id: int) -> str:
        """Return the collection name of a campaign (its installation's, once the owner is known)."""
        if self.owner is None:
            return f"{self.prefix}{campaign_id}"
        return owned_name(self.owner.installation, self.prefix, campaign_id)

    async def ready(self) -> None:
        """Learn the owner and check the marker once (every call does this first); raise `error` on a clash."""
        problem = await self.clash()
        if problem is not None:
            raise self.error(problem)

    async def clash(self) -> str | None:
        """Return why this index refuses the Chroma it points at (another database's vectors), or None."""
        if self._owner_of is None or self.owner is not None:
            return None
        owner = await self._owner_of()
        try:
            problem = await asyncio.to_thread(self._marker_problem, owner)
        except Exception as error:  # Chroma's errors are untyped
            raise self.error(self.failed.format(prefix=self.prefix, what="open", error=error)) from error
        if problem is None:
            self.owner = owner
        return problem

    def _marker_problem(self, owner: Owner) -> str | None:
        """Return why the marker refuses this owner (None: it is this database's, or it was just made).

        Only a Chroma server is checked: an embedded index lives in its data folder, which a copy copies too.
        """
        if not self.host:
            return None
        client = self.client()
        marker = client.get_or_create_collection(
            f"lk_{owner.installation}",
            metadata={"lk_installation": owner.installation, "lk_database": owner.database},
            embedding_function=chroma_embedding_function(batch_size=self.embedding_batch_size),
        )
        database = (marker.metadata or {}).get("lk_database")
        if database == owner.database:
            return None
        where = f"the Chroma server at {self.host}:{self.port}" if self.host else f"the index in {self.path}"
        return (
            f"{where} holds the vectors of installation {owner.installation} for another database ({database}); "
            f"this database ({owner.database}) carries the same installation id, so it is a copy. Give the copy "
            "its own with `lorekeeper db new-installation` (then `lorekeeper reindex` rebuilds its vectors), or "
            "point it at a Chroma of its own."
        )

    def client(self) -> ClientAPI:
        """Return the Chroma client, creating it on first use (blocking: call from a worker thread)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._connect()
        return self._client

    async def open_soon(self) -> None:
        """Create the client now, in a worker thread, so a search about to need it (once its question is
        embedded) finds it open; a failure is left to that search's own call to report. Nothing once open."""
        if self._client is not None:
            return
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.client)

    def _connect(self) -> ClientAPI:
        try:
            if self.host:
                chromadb, chroma_settings = self._chromadb()
                remote: ClientAPI = chromadb.HttpClient(
                    host=self.host, port=self.port, settings=chroma_settings
                )
                return remote
            assert self.path is not None
            self.path.mkdir(parents=True, exist_ok=True)
            path = self.path

            def persistent() -> ClientAPI:
                chromadb, chroma_settings = self._chromadb()
                opened: ClientAPI = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
                return opened

            client: ClientAPI = chroma_apart.client_for(
                path,
                (lambda: DirectClient(path, persistent)) if self.direct else persistent,
                batch_size=self.embedding_batch_size,
            )
            return client
        except self.error:
            raise
        except Exception as error:  # chromadb raises many untyped errors (connection, files)
            where = f"{self.host}:{self.port}" if self.host else str(self.path)
            raise self.error(self.unopened.format(where=where, error=error)) from error

    def _chromadb(self) -> tuple[Any, Any]:
        """Return the chromadb package and the settings of every client made here (telemetry off)."""
        try:
            import chromadb
            from chromadb.config import Settings as ChromaSettings
        except ImportError as error:  # pragma: no cover - chromadb is a dependency
            raise self.error(f"chromadb is not installed ({error})") from error
        return chromadb, ChromaSettings(anonymized_telemetry=False, allow_reset=False)

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
        client = self.client()
        name = self.name(campaign_id)
        function: Any = None
        missing: tuple[type[Exception], ...] = (ValueError,)
        if not isinstance(client, DirectClient):  # which neither imports chromadb nor embeds
            from chromadb.errors import NotFoundError

            missing = (NotFoundError, ValueError)
            # Registers the offline embedding function, so a process reopening the collection needs no download.
            function = chroma_embedding_function(batch_size=self.embedding_batch_size)
        with self._lock:
            cached = self._collections.get(campaign_id)
            if cached is not None:
                return cached
            try:
                collection = client.get_collection(name, embedding_function=function)
            except missing as error:
                if isinstance(error, ValueError) and "does not exist" not in str(error):
                    raise
                claimed = self._claim_legacy(client, campaign_id, function)
                if claimed is not None:
                    self._collections[campaign_id] = claimed
                    return claimed
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
                    configuration={"hnsw": {"space": "cosine", "ef_search": SEARCH_EF}},
                    get_or_create=True,
                )
            self._collections[campaign_id] = collection
            return collection

    def _claim_legacy(self, client: ClientAPI, campaign_id: int, function: Any) -> Collection | None:
        """Rename the campaign's collection of an older version (`lk_c12`) to this installation's name, if any."""
        if self.owner is None:
            return None
        missing: tuple[type[Exception], ...] = (ValueError,)
        if not isinstance(client, DirectClient):
            from chromadb.errors import NotFoundError

            missing = (NotFoundError, ValueError)
        try:
            legacy = client.get_collection(f"{self.prefix}{campaign_id}", embedding_function=function)
        except missing:
            return None
        legacy.modify(name=self.name(campaign_id))
        return client.get_collection(self.name(campaign_id), embedding_function=function)

    def names(self) -> list[str]:
        """Return the name of every collection of this Chroma (blocking: call from a worker thread)."""
        return sorted(c if isinstance(c, str) else c.name for c in self.client().list_collections())

    async def survey(self, campaign_ids: set[int]) -> Survey:
        """Return this installation's orphaned collections, older ones and the other installations sharing it."""
        await self.ready()
        if self.owner is None:
            raise ValueError("only an index with an owner can tell its collections from others'")
        installation = self.owner.installation
        names = await self._call("list the collections", self.names)
        return survey(names, installation, campaign_ids)

    async def prune(self, names: list[str]) -> None:
        """Drop collections by name (a survey's orphans and older ones)."""

        def work() -> None:
            from chromadb.errors import NotFoundError

            client = self.client()
            with self._lock:
                self._collections.clear()
                for name in names:
                    with contextlib.suppress(NotFoundError, ValueError):
                        client.delete_collection(name)

        await self._call("drop collections", work)

    async def _call(self, what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run `function` in a worker thread; any failure of Chroma is raised as `error`."""
        await self.ready()
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
