"""The embedded Chroma index in a process of its own, so that its writes never hold the bot's interpreter.

Chroma's embedded client (`PersistentClient`) runs its work in compiled code that keeps Python's interpreter
lock for the whole of a write (an `upsert` of a few vectors: tens of milliseconds on a quiet machine, hundreds
on a busy one, most of it waiting for its own threads). Run from a worker thread it still holds the bot's event
loop for that long, whatever the size of the write. `ApartClient` answers the part of Chroma's client that
`memory.chroma_client` uses (collections by name; upsert, query, get, count, delete, modify) by sending each call
to a child process that owns the real client: the bot's threads only wait on a pipe, which lets go of the lock.

One child per index folder, shared by every adapter of this process that opens it (lore chunks, NPC memories,
scene moments): a folder is opened either in this process or in its child, never both (`client_for`). The
switch (`keep_apart`) is the bot's, at start; tools and tests open the folder in process, as before. Calls are
answered one at a time, in order. A child that died is started again at the next call, and so is one that did
not answer within `ANSWER_SECONDS` (it is stopped, the call fails) or whose call was interrupted (its answer
would be taken by the next call); the child stops when this process exits (or closes the pipe). An index the child cannot open fails the call with Chroma's reason.
"""

from __future__ import annotations

import atexit
import multiprocessing
import pickle
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

__all__ = ["ApartClient", "ApartCollection", "client_for", "close_all", "keep_apart", "kept_apart"]

#: How long closing waits for the child to finish its last call and close the index.
CLOSE_SECONDS = 10.0
#: How long a call waits for the child's answer (generous: a busy machine, a first start) before the child is
#: taken as hung, stopped, and the call fails.
ANSWER_SECONDS = 120.0

_state = {"on": False}
_lock = threading.Lock()
#: The folders opened in this process (by any mode), and the child of each one opened apart.
_in_process: set[Path] = set()
_apart: dict[Path, ApartClient] = {}


def keep_apart(on: bool = True) -> None:
    """Open embedded indexes in a process of their own from now on (the bot, at start); folders already
    opened in this process stay so."""
    _state["on"] = on


def kept_apart() -> bool:
    """Tell whether newly opened embedded indexes go to a process of their own."""
    return _state["on"]


def client_for(path: Path, open_here: Callable[[], Any], *, batch_size: int) -> Any:
    """Return the client of an index folder: its child's (`ApartClient`) when it was opened apart, or is opened
    now with `keep_apart` on; else `open_here()` (Chroma's own client, in this process)."""
    key = path.resolve()
    with _lock:
        found = _apart.get(key)
        if found is not None:
            return found
        if _state["on"] and key not in _in_process:
            client = _apart[key] = ApartClient(key, batch_size=batch_size)
            return client
        _in_process.add(key)
    return open_here()


def close_all() -> None:
    """Close every index opened apart and forget which folders were opened where (the next opening decides
    again)."""
    with _lock:
        clients = list(_apart.values())
        _apart.clear()
        _in_process.clear()
    for client in clients:
        client.close()


class ApartClient:
    """The calls of Chroma's client that Lorekeeper makes, answered by a child process owning the index."""

    def __init__(self, path: Path, *, batch_size: int) -> None:
        self.path = path
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._connection: Connection | None = None
        self._process: Any = None
        atexit.register(self.close)

    # -- the client ---------------------------------------------------------------------------------

    def get_collection(self, name: str, **_ignored: Any) -> ApartCollection:
        """Return a collection (Chroma's `NotFoundError` when there is none)."""
        return ApartCollection(self, name, self.call("get_collection", name))

    def create_collection(self, name: str, **options: Any) -> ApartCollection:
        """Create a collection (`metadata`, `configuration`, `get_or_create` as Chroma's)."""
        options.pop("embedding_function", None)  # the child registers its own
        return ApartCollection(self, name, self.call("create_collection", name, **options))

    def get_or_create_collection(self, name: str, **options: Any) -> ApartCollection:
        """Return a collection, created when missing."""
        return self.create_collection(name, get_or_create=True, **options)

    def list_collections(self) -> list[str]:
        """Return the names of every collection."""
        names: list[str] = self.call("list_collections", "")
        return names

    def delete_collection(self, name: str) -> None:
        """Drop a collection."""
        self.call("delete_collection", name)

    # -- the child ----------------------------------------------------------------------------------

    def call(self, operation: str, name: str, *args: Any, **kwargs: Any) -> Any:
        """Run one operation in the child (started on first use, or again after it died); raise its error."""
        with self._lock:
            connection = self._started()
            try:
                connection.send((operation, name, args, kwargs))
                if not connection.poll(ANSWER_SECONDS):
                    self._stop()
                    raise RuntimeError(
                        f"the index's process did not answer within {ANSWER_SECONDS:g} seconds; it was stopped"
                    )
                ok, result = connection.recv()
            except (EOFError, OSError) as error:
                self._stop()
                raise RuntimeError(f"the index's process stopped ({error or 'no answer'})") from None
            except BaseException:
                # Interrupted between asking and reading (cancelled, Ctrl-C): the answer left in the pipe would
                # be read by the next call as its own, so that child goes; the next call starts another.
                self._stop()
                raise
        if not ok:
            raise result
        return result

    def _started(self) -> Connection:
        if self._connection is not None and self._process is not None and self._process.is_alive():
            return self._connection
        self._stop()
        # "spawn": a fork of a process holding threads can deadlock in the child.
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(
            target=serve,
            args=(str(self.path), theirs, self.batch_size),
            name="lorekeeper-chroma",
            daemon=True,
        )
        process.start()
        theirs.close()
        self._connection, self._process = ours, process
        return ours

    def _stop(self) -> None:
        if self._connection is not None:
            self._connection.close()
        process = self._process
        if process is not None and process.is_alive():
            process.terminate()
            process.join(CLOSE_SECONDS)
            if process.is_alive():  # deaf to a polite stop (frozen, stuck): killed
                process.kill()
                process.join(CLOSE_SECONDS)
        self._connection = self._process = None

    def close(self) -> None:
        """Let the child finish its call and close the index, then stop it (at exit). Bounded: a call under
        way is waited for at most `ANSWER_SECONDS`, the child's closing at most `CLOSE_SECONDS`."""
        if not self._lock.acquire(timeout=ANSWER_SECONDS + CLOSE_SECONDS):
            return  # the call under way gives up on its own and stops the child
        try:
            if self._connection is None or self._process is None:
                return
            try:
                self._connection.send(None)
                self._process.join(CLOSE_SECONDS)
            except (OSError, ValueError):
                pass
            self._stop()
        finally:
            self._lock.release()


class ApartCollection:
    """One collection of an `ApartClient`: its name and metadata, and the calls on it."""

    def __init__(self, client: ApartClient, name: str, metadata: dict[str, Any] | None) -> None:
        self._client = client
        self.name = name
        self.metadata = metadata

    def upsert(self, **kwargs: Any) -> None:
        self._client.call("upsert", self.name, **kwargs)

    def query(self, **kwargs: Any) -> Any:
        return self._client.call("query", self.name, **kwargs)

    def count(self) -> int:
        found: int = self._client.call("count", self.name)
        return found

    def get(self, **kwargs: Any) -> Any:
        return self._client.call("get", self.name, **kwargs)

    def delete(self, **kwargs: Any) -> None:
        self._client.call("delete", self.name, **kwargs)

    def modify(self, **kwargs: Any) -> None:
        self.name, self.metadata = self._client.call("modify", self.name, **kwargs)


def serve(path: str, connection: Connection, batch_size: int) -> None:
    """The child: open the index and answer calls until told to stop, or until the parent goes."""
    import chromadb
    from chromadb.config import Settings

    from memory.embedding import chroma_embedding_function

    try:
        client = chromadb.PersistentClient(
            path=path, settings=Settings(anonymized_telemetry=False, allow_reset=False)
        )
    except Exception as error:  # the caller is told why (the next call tries again, in a new process)
        _refuse_next(connection, error)
        return
    function = chroma_embedding_function(batch_size=batch_size)
    collections: dict[str, Any] = {}
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        operation, name, args, kwargs = request
        try:
            answer: tuple[bool, Any] = (
                True,
                _answer(client, collections, function, operation, name, args, kwargs),
            )
        except Exception as error:  # Chroma's errors are untyped: each goes back to the caller as raised
            answer = (False, _portable(error))
        connection.send(answer)


def _refuse_next(connection: Connection, error: Exception) -> None:
    """Answer the next call with why the index did not open."""
    try:
        if connection.recv() is not None:
            connection.send((False, _portable(error)))
    except (EOFError, OSError):
        pass


def _answer(
    client: Any,
    collections: dict[str, Any],
    function: Any,
    operation: str,
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    if operation == "list_collections":
        return [c if isinstance(c, str) else c.name for c in client.list_collections()]
    if operation == "delete_collection":
        collections.pop(name, None)
        return client.delete_collection(name)
    if operation in ("get_collection", "create_collection"):
        collections.pop(name, None)
        if operation == "get_collection":
            collection = client.get_collection(name, embedding_function=function)
        else:
            collection = client.create_collection(name, *args, embedding_function=function, **kwargs)
        collections[name] = collection
        return collection.metadata
    collection = collections.get(name) or client.get_collection(name, embedding_function=function)
    collections[name] = collection
    if operation == "modify":
        collection.modify(*args, **kwargs)
        collections.pop(name, None)
        collections[collection.name] = collection
        return collection.name, collection.metadata
    if operation not in ("upsert", "query", "count", "delete", "get"):
        raise ValueError(f"unknown operation {operation}")
    return getattr(collection, operation)(*args, **kwargs)


def _portable(error: Exception) -> Exception:
    """Return the error itself when it crosses a pipe intact, else one saying the same."""
    try:
        pickle.loads(pickle.dumps(error))  # noqa: S301 (our own bytes, just made)
    except Exception:  # an error whose state does not pickle
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
