"""The scheduler's executor: what a job raised is the job's error; a job cut short by shutdown is not."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.ops.apscheduler_adapter import thread_safe_scheduler_class


async def _run_one_job(job: object) -> None:
    scheduler = thread_safe_scheduler_class()()
    scheduler.start()
    try:
        scheduler.add_job(job, id="the-job")
        for _ in range(200):
            await asyncio.sleep(0.01)
            if not scheduler.get_jobs():  # a one-off job leaves the store when it is submitted
                break
        for _ in range(5):
            await asyncio.sleep(0.01)
    finally:
        scheduler.shutdown(wait=False)


async def test_a_job_cancelled_by_shutdown_is_logged_as_stopped_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    started = asyncio.Event()

    async def job() -> None:
        started.set()
        await asyncio.sleep(3600)

    caplog.set_level(logging.INFO)
    running = asyncio.create_task(_run_one_job(job))
    await asyncio.wait_for(started.wait(), 5)
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task() and task is not running:
            task.cancel()  # as the loop's shutdown cancels what is still running
    await running
    await asyncio.sleep(0.05)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert "stopped by shutdown before it finished" in caplog.text


async def test_what_a_job_raises_is_still_logged_as_its_error(caplog: pytest.LogCaptureFixture) -> None:
    async def job() -> None:
        raise RuntimeError("the job broke")

    caplog.set_level(logging.INFO)
    await _run_one_job(job)
    await asyncio.sleep(0.05)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors and "the job broke" in caplog.text


async def test_a_shutdown_while_a_job_runs_stops_it_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bot stopped (or its lease lost) while a job runs: the job is cancelled, and nothing is logged as failed."""
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def job() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    caplog.set_level(logging.INFO)
    scheduler = thread_safe_scheduler_class()()
    scheduler.start()
    scheduler.add_job(job, id="the-job")
    await asyncio.wait_for(started.wait(), 5)
    scheduler.shutdown(wait=False)
    await asyncio.wait_for(cancelled.wait(), 5)
    await asyncio.sleep(0.05)
    assert not scheduler.running
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert "stopped by shutdown before it finished" in caplog.text
