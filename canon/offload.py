"""Run blocking work off the event loop: in a worker thread, or in a worker process for long pure-Python work.

The bot answers every command and message on one event loop; a step that holds it (parsing a large file,
validating thousands of YAML entries, drawing a picture, a batch of vector writes) makes every other command
wait. `in_thread` runs a function in a worker thread (for work that waits on I/O or runs in C code that lets
go of the interpreter); `in_process` runs a picklable function in a worker process, for pure-Python work long
enough to hold the interpreter itself (a thread would still take it from the loop in turns of 5 ms);
`write_apart` runs a long write transaction (a 10,000-person family tree's import: its planning, its checks and
its writes interleave, seconds of Python between queries) on an event loop of its own in a worker thread, with
engines of its own, holding the database's writer turn: the bot's loop only shares the interpreter with it, in
turns of 5 ms.

`switched_off()` puts things back as they were before this module existed (plain worker threads; large
imports, and an import's embedding texts, on the loop): the baseline of `bench.loop_lag`, measured in the same
run. `enabled()` tells the callers that kept their former way for it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import multiprocessing
import os
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from canon.storage import Database

__all__ = [
    "enabled",
    "in_background",
    "in_process",
    "in_thread",
    "keep_workers",
    "release",
    "settle",
    "shutdown",
    "switched_off",
    "warm",
    "write_apart",
    "write_in_process",
]

#: How much less CPU time background threads claim than the loop's (Linux thread niceness; 0 is the loop's):
#: on a busy machine the loop then gets a core first when it wakes.
BACKGROUND_NICE = 5

#: How long a thread may hold the interpreter while another waits for it (Python's default: 5 ms). The loop
#: waits for worker threads in turns of this; with several workers busy, a turn of 5 ms each added up.
SWITCH_INTERVAL = 0.001

T = TypeVar("T")

_state = {"on": True, "kept": False}
_pool: list[concurrent.futures.ProcessPoolExecutor] = []
_background: list[concurrent.futures.ThreadPoolExecutor] = []
_warm: list[bool] = []
#: Pools stopped on purpose (`_discard`), whose waiting calls go to the next one.
_stopped: weakref.WeakSet[concurrent.futures.ProcessPoolExecutor] = weakref.WeakSet()


@contextlib.contextmanager
def switched_off() -> Iterator[None]:
    """Run offloaded work on the event loop while inside (the benchmark's baseline)."""
    _state["on"] = False
    try:
        yield
    finally:
        _state["on"] = True


def enabled() -> bool:
    """Tell whether offloading is on (it is, except inside `switched_off`)."""
    return _state["on"]


async def in_thread(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Return `function(*args, **kwargs)`, run in a worker thread."""
    return await asyncio.to_thread(function, *args, **kwargs)


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):  # not Linux, or not allowed: normal priority
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)


async def in_background(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Return `function(*args, **kwargs)`, run in a worker thread of lower priority than the loop's.

    For long work nobody waits on interactively (an import's embeddings, a large import's writes). Threads
    a C library starts from there (onnxruntime's) inherit the lower priority.
    """
    if not _state["on"]:
        return await asyncio.to_thread(function, *args, **kwargs)
    if not _background:
        _background.append(
            concurrent.futures.ThreadPoolExecutor(
                max_workers=2, thread_name_prefix="lorekeeper-background", initializer=_lower_priority
            )
        )
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_background[0], functools.partial(function, *args, **kwargs))


def _executor() -> concurrent.futures.ProcessPoolExecutor:
    if not _pool:
        # "spawn": a fork of a process holding threads (Chroma's, the scheduler's) can deadlock in the child.
        context = multiprocessing.get_context("spawn")
        _pool.append(concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context))
    return _pool[0]


async def warm() -> None:
    """Start the worker process from a worker thread, once: starting it holds the interpreter for a moment
    (a tenth of a second in a large process), which the loop would otherwise wait out."""
    if _state["on"] and not _warm:
        await asyncio.to_thread(lambda: _executor().submit(int).result())
        _warm.append(True)


async def in_process(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Return `function(*args, **kwargs)`, run in a worker process (function and arguments must pickle).

    A worker process that died (a reader that exhausted its memory) fails its call, and the next call starts
    another. A call given up on while it runs (a timeout, a cancelled task) stops its worker process: work
    built to run forever never holds the one worker every later call waits for, and a write in it ends with
    its process (rolled back) before the caller lets go of the writer's turn.
    """
    if not _state["on"]:
        return function(*args, **kwargs)
    call = functools.partial(function, *args, **kwargs)
    while True:
        executor = _executor()
        future: concurrent.futures.Future[T] | None = None
        try:
            future = executor.submit(call)
            return await asyncio.wrap_future(future)
        except concurrent.futures.BrokenExecutor:
            stopped = executor in _stopped
            _discard(executor)
            if stopped:  # stopped for another call given up on: this one waited behind it, never ran
                continue
            raise
        except asyncio.CancelledError:
            if future is not None and not future.cancel():  # running: only stopping its process stops it
                _discard(executor, stop=True)
            raise


def _discard(executor: concurrent.futures.ProcessPoolExecutor, *, stop: bool = False) -> None:
    """Forget a worker pool (the next call starts another); `stop`: kill its processes first (the calls
    waiting in it fail as `BrokenExecutor`, and `in_process` sends them to the next pool)."""
    if executor in _pool:
        _pool.remove(executor)
        _warm.clear()
    if stop:
        _stopped.add(executor)
        processes: dict[int, Any] = getattr(executor, "_processes", None) or {}
        for process in list(processes.values()):
            with contextlib.suppress(OSError, AttributeError):
                process.kill()
    executor.shutdown(wait=False, cancel_futures=not stop)


async def write_apart(db: Database, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Return `work`'s result, run in one transaction (once: no retry) on a loop and engines of its own.

    `work` must use only the session it is given (its engines belong to the other loop). Switched off, or for
    a database not made by `Database.from_url`, it runs through `db.run` on this loop.
    """
    if not _state["on"] or db.source is None or db.engine.url.database in (None, "", ":memory:"):
        return await db.run(work, attempts=1)  # an in-memory database is one connection's alone
    url, search_path = db.source
    stop = _Stop()
    async with db.writer_turn():
        # A thread of normal priority: it holds the interpreter most of the time, and a thread of lower
        # priority holding it while the system runs others would keep the loop waiting all the longer.
        running = asyncio.ensure_future(asyncio.to_thread(_run_on_own_loop, url, search_path, work, stop))
        try:
            return await asyncio.shield(running)
        except asyncio.CancelledError:
            # Given up on: its transaction is cancelled on its own loop, and rolled back, before the writer's
            # turn is let go (another writer must not meet its lock, nor see it commit later).
            stop.ask()
            while not running.done():
                with contextlib.suppress(BaseException):
                    await asyncio.shield(running)
            raise


async def write_in_process(db: Database, work: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Return `work(session, *args)`'s result, run in one transaction (once: no retry) in the worker process,
    on a loop and engines of its own, holding this database's writer turn.

    `work` must be a module-level function and its arguments must pickle. Nothing of it runs in this process:
    unlike `write_apart`'s thread, it never holds the interpreter the bot's loop needs (a thread that holds it
    while the system keeps it waiting for a core keeps the loop waiting too). Given up on (a cancelled task),
    the worker process is stopped (`in_process`), its transaction ending with it, uncommitted. Switched off, or
    for a database not made by `Database.from_url`, it runs through `db.run` on this loop.
    """
    if not _state["on"] or db.source is None or db.engine.url.database in (None, "", ":memory:"):
        return await db.run(functools.partial(_with_session, work, args), attempts=1)
    url, search_path = db.source
    await warm()
    async with db.writer_turn():
        return await in_process(
            _run_on_own_loop, url, search_path, functools.partial(_with_session, work, args)
        )


async def _with_session(work: Callable[..., Awaitable[T]], args: tuple[Any, ...], session: AsyncSession) -> T:
    return await work(session, *args)


class _Stop:
    """A request, from the caller's loop, to cancel a write running on a loop of its own (`write_apart`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._asked = False
        self._running: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None

    def attach(self, loop: asyncio.AbstractEventLoop, running: asyncio.Future[Any]) -> None:
        """Say what to cancel (on its own loop); cancel it at once when it was asked already."""
        with self._lock:
            self._running = (loop, running)
            if self._asked:
                running.cancel()

    def ask(self) -> None:
        """Cancel the write, now or as soon as it starts."""
        with self._lock:
            self._asked = True
            if self._running is not None:
                loop, running = self._running
                with contextlib.suppress(RuntimeError):  # its loop already closed: it ended
                    loop.call_soon_threadsafe(running.cancel)


def _run_on_own_loop(
    url: str, search_path: str | None, work: Callable[[AsyncSession], Awaitable[T]], stop: _Stop | None = None
) -> T:
    async def apart() -> T:
        own = Database.from_url(url, search_path=search_path)
        try:
            running = asyncio.ensure_future(own.run(work, attempts=1))
            if stop is not None:
                stop.attach(asyncio.get_running_loop(), running)
            return await running
        finally:
            await own.dispose()

    return asyncio.run(apart())


def settle() -> None:
    """Make worker threads hand the interpreter back to the loop sooner (`SWITCH_INTERVAL`), at start."""
    if _state["on"]:
        sys.setswitchinterval(SWITCH_INTERVAL)


def keep_workers(on: bool = True) -> None:
    """Keep the worker process and threads when a bot closes (`release`), for a process that runs many bots
    in turn (the tests): each would otherwise start the worker again and load the model in it. The process
    then calls `shutdown` itself, before it exits."""
    _state["kept"] = on


def release() -> None:
    """Stop the workers at a bot's close, unless this process keeps them (`keep_workers`)."""
    if not _state["kept"]:
        shutdown()


def shutdown() -> None:
    """Stop the worker process and threads, if started (the next call starts them again)."""
    _warm.clear()
    while _pool:
        _pool.pop().shutdown(wait=False, cancel_futures=True)
    while _background:
        _background.pop().shutdown(wait=False, cancel_futures=True)
