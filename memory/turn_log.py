"""The turn log: every message of a channel with an active scene becomes a turn, with group commit.

`on_message` runs for every message of every server, so writes are batched: a single writer task takes
whatever operations are queued (appends, edits, deletes, in arrival order), applies them in ONE transaction and
only then resolves each caller's future. A turn is never reported stored before its commit; under a burst,
hundreds of turns share one commit, and a lone message is committed at once. What a batch does to the tables
is `memory.turn_batch`.

When the storage fails (the disk is full, the database is read-only or unreachable: `canon.storage.
storage_fault`), the writer keeps its batch and tries again until it is stored, however long it takes; the
outage is told to `outage_observers` (its cause in plain words, then None when it is over) and logged while it
lasts. Memory stays bounded: past `max_waiting` operations queued during an outage, a new message is not queued
but its channel is noted in `missed_channels`, to be read back from the channel's history once the storage is
back (`cogs.turns` does it, as it does at every start). A shutdown during an outage waits `close_grace` seconds,
then leaves the turns it could not write to that same read-back at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from canon.storage import Database
from canon.storage_faults import is_transient, storage_fault
from memory.scene_tables import SceneRow, TurnRow
from memory.scenes import SceneStatus
from memory.turn_batch import Append, Delete, Edit, IncomingMessage, LoggedTurn, Op, apply_batch

log = logging.getLogger(__name__)

#: The longest pause between two tries while the storage fails (seconds).
MAX_OUTAGE_WAIT = 5.0
#: How often an outage is logged again while it lasts (seconds).
OUTAGE_LOG_EVERY = 60.0
#: How many times a batch is read and applied again after another process wrote one of its turns first.
RACE_RETRIES = 5


class TurnLogClosed(RuntimeError):
    """The turn log was closed before it could store an operation (its storage was failing)."""


class ResumePoint(BaseModel):
    """Where an active scene's log stands: the newest Discord message stored, else when the scene began."""

    model_config = ConfigDict(frozen=True)

    scene_id: int
    channel_id: int
    after_message_id: int | None
    started_at: dt.datetime


async def resume_points(db: Database) -> list[ResumePoint]:
    """Return every active scene's resume point: history after it may hold messages not stored yet."""
    newest = (
        select(TurnRow.scene_id, func.max(TurnRow.discord_message_id).label("newest"))
        .group_by(TurnRow.scene_id)
        .subquery()
    )
    query = (
        select(SceneRow.id, SceneRow.channel_id, newest.c.newest, SceneRow.started_at)
        .outerjoin(newest, newest.c.scene_id == SceneRow.id)
        .where(SceneRow.status == SceneStatus.ACTIVE)
        .order_by(SceneRow.id)
    )
    async with db.session() as session:
        rows = (await session.execute(query)).all()
    return [
        ResumePoint(scene_id=scene, channel_id=channel, after_message_id=after, started_at=started)
        for scene, channel, after, started in rows
    ]


class TurnLog:
    """Log turns through one writer task with group commit; start it before use and close it on shutdown."""

    def __init__(
        self, db: Database, *, max_batch: int = 2000, max_waiting: int = 20000, close_grace: float = 20.0
    ) -> None:
        self.db = db
        self.max_batch = max_batch
        self.max_waiting = max_waiting
        self.close_grace = close_grace
        #: While the storage fails: what is wrong, in plain words (None when it works).
        self.outage: str | None = None
        #: Channels whose messages were not queued during an outage (read them back from history).
        self.missed_channels: set[int] = set()
        #: Called with the cause when an outage begins, and with None when it is over.
        self.outage_observers: list[Callable[[str | None], None]] = []
        self._queue: asyncio.Queue[Op] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._current: list[Op] = []
        self._entrants = 0
        self._no_entrants = asyncio.Event()
        self._no_entrants.set()
        self.committed_batches = 0
        # Called after each commit with the stored turns' message ids (metrics, benchmarks, tests).
        self.observers: list[Callable[[list[int]], None]] = []

    @property
    def waiting(self) -> int:
        """Return how many operations wait to be written (queued, and the batch being written)."""
        return self._queue.qsize() + len(self._current)

    def start(self) -> None:
        """Start the writer task (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="lorekeeper-turn-log")

    @contextlib.contextmanager
    def admitting(self) -> Iterator[None]:
        """Count a caller on its way to the log (a message handler, from its first line): `close` waits for it.

        A handler of a message received just before shutdown may still be looking up its scene when the
        bot starts closing; without this, its turn would arrive after the writer stopped and be lost.
        """
        self._entrants += 1
        self._no_entrants.clear()
        try:
            yield
        finally:
            self._entrants -= 1
            if not self._entrants:
                self._no_entrants.set()

    async def close(self) -> None:
        """Wait for the callers admitted, write everything queued, stop the writer.

        The callers admitted have queued their turns once the storage answers; while it fails, the wait ends
        after `close_grace` seconds and what is still queued is left to the next start's read-back.
        """
        if self._task is None:
            return
        await self._drain(self._no_entrants.wait, "message handlers")
        if self._entrants:
            log.warning(
                "%d message handlers were still running when the turn log closed; their messages are read "
                "back from the channels' history at the next start",
                self._entrants,
            )
        await self._drain(self._queue.join, "turn operations")
        # No await between the drain and here: nothing was queued since. A later caller is told, not dropped.
        task, self._task = self._task, None
        unwritten = list(self._current)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        abandoned = 0
        while not self._queue.empty():
            unwritten.append(self._queue.get_nowait())
            self._queue.task_done()
        for op in unwritten:
            if not op.future.done():
                abandoned += 1
                op.future.set_exception(TurnLogClosed(f"the turn log closed while {self.outage}"))
        if abandoned:
            log.warning(
                "%d turn operations were not written (%s); the messages are read back from the channels' "
                "history at the next start",
                abandoned,
                self.outage,
            )

    async def _drain(self, wait: Callable[[], Any], what: str) -> None:
        """Wait for `wait()`; unbounded while the storage works, `close_grace` seconds once it fails."""
        waiting = asyncio.ensure_future(wait())
        loop = asyncio.get_running_loop()
        failing_since: float | None = None
        try:
            while not waiting.done():
                await asyncio.wait({waiting}, timeout=0.5)
                if self.outage is None:
                    failing_since = None
                    continue
                failing_since = failing_since or loop.time()
                if loop.time() - failing_since >= self.close_grace:
                    log.warning("stopped waiting for %s: %s", what, self.outage)
                    return
        finally:
            waiting.cancel()

    async def append(self, message: IncomingMessage, *, read_back: bool = False) -> LoggedTurn | None:
        """Store a message as the next turn of its channel's active scene; None when there is no such scene.

        None too for a message not queued during an outage (its channel is in `missed_channels`): until
        the channel's history is read back (`read_back=True` appends, then `caught_up`), its new messages
        are not queued either, so that its turns stay in the order they were posted.
        """
        future: asyncio.Future[LoggedTurn | None] = asyncio.get_running_loop().create_future()
        if not read_back and message.channel_id in self.missed_channels:
            return None
        self._enqueue(Append(message, future))
        return await future

    def caught_up(self, channel_id: int) -> None:
        """Note that a channel's history was read back: its messages are queued again."""
        self.missed_channels.discard(channel_id)

    async def edit(self, message_id: int, text: str, edited_at: dt.datetime) -> bool:
        """Record an edit of a logged message (the old text goes to the history); False if it is no turn."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._enqueue(Edit(message_id, text, edited_at, future))
        return await future

    async def delete(self, message_id: int, deleted_at: dt.datetime) -> bool:
        """Leave a tombstone for a deleted message; False if it is no turn."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._enqueue(Delete(message_id, deleted_at, future))
        return await future

    def _enqueue(self, op: Op) -> None:
        if self._task is None or self._task.done():
            raise RuntimeError("TurnLog.start() was not called (or the writer stopped)")
        if self.outage is not None and self._queue.qsize() >= self.max_waiting:
            # Memory stays bounded during a long outage: the message stays in Discord, read back later.
            if isinstance(op, Append):
                self.missed_channels.add(op.message.channel_id)
            op.future.set_result(None)  # type: ignore[arg-type]
            return
        self._queue.put_nowait(op)

    async def _run(self) -> None:
        while True:
            ops = [await self._queue.get()]
            while len(ops) < self.max_batch and not self._queue.empty():
                ops.append(self._queue.get_nowait())
            self._current = ops
            try:
                await self._write(ops)
            finally:
                self._current = []
                for _ in ops:
                    self._queue.task_done()

    async def _write(self, ops: list[Op]) -> None:
        try:
            results = await self._run_until_stored(ops)
        except Exception as error:
            if len(ops) == 1:
                log.exception("could not log a turn")
                if not ops[0].future.done():
                    ops[0].future.set_exception(error)
                return
            # One poisoned operation must not sink the batch: retry each on its own.
            log.warning("a batch of %d turn operations failed (%s); retrying one by one", len(ops), error)
            for op in ops:
                await self._write([op])
            return
        self.committed_batches += 1
        if self.observers:
            stored = [
                op.message.message_id
                for op, result in zip(ops, results, strict=True)
                if isinstance(op, Append)
                and isinstance(result, LoggedTurn)
                and op.message.message_id is not None
            ]
            for observer in self.observers:
                observer(stored)
        for op, result in zip(ops, results, strict=True):
            if not op.future.done():  # a caller that was cancelled meanwhile still had its turn written
                op.future.set_result(result)  # type: ignore[arg-type]

    async def _run_until_stored(self, ops: list[Op]) -> list[LoggedTurn | bool | None]:
        """Apply a batch, waiting out a storage that fails (nothing queued is dropped).

        `Database.run` already retries a few times; past that, the batch waits and tries again, with the
        wait growing to `MAX_OUTAGE_WAIT`, for as long as the storage fails. Messages keep queuing meanwhile
        (up to `max_waiting`) and are committed together once it works again.
        """
        loop = asyncio.get_running_loop()
        wait = 0.5
        logged_at = -OUTAGE_LOG_EVERY
        raced = 0
        while True:
            try:
                # Urgent: every message of the batch waits for it, and it is short.
                results = await self.db.run(lambda session: apply_batch(session, ops), urgent=True)
            except IntegrityError:
                # Two processes on one database (the same settings started twice) both receive each message:
                # the other stored one of this batch's messages, or took its turn number, between this batch's
                # read and its write. Read again: its turns count as already stored, the rest get new numbers.
                raced += 1
                if raced > RACE_RETRIES:
                    raise
                log.info("another process stored turns of this batch first; applying it again")
                continue
            except Exception as error:
                fault = storage_fault(error) or ("the database is busy" if is_transient(error) else None)
                if fault is None:
                    raise
                if loop.time() - logged_at >= OUTAGE_LOG_EVERY:
                    logged_at = loop.time()
                    log.warning(
                        "turns cannot be stored: %s (%s); %d turn operations wait in memory, retrying",
                        fault,
                        error,
                        len(ops) + self._queue.qsize(),
                    )
                self._set_outage(fault)
                await asyncio.sleep(wait)
                wait = min(wait * 2, MAX_OUTAGE_WAIT)
                continue
            if self.outage is not None:
                log.warning("turns are stored again (the storage failed: %s)", self.outage)
                self._set_outage(None)
            return results

    def _set_outage(self, fault: str | None) -> None:
        if fault == self.outage:
            return
        began = self.outage is None
        self.outage = fault
        if fault is None or began:
            for observer in self.outage_observers:
                observer(fault)
