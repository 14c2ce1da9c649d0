"""Jobs saved by an earlier version name their functions `bot.scheduler:...`: those names must still load."""

from __future__ import annotations

import inspect
import re

from apscheduler.util import ref_to_obj

import bot.scheduler as saved_names
from bot.ops import jobs, scheduler


def test_every_job_function_loads_under_its_saved_name() -> None:
    used = set(re.findall(r'"bot\.ops\.jobs:(\w+)"', inspect.getsource(scheduler)))
    assert used, "the scheduler names its job functions as module:name references"
    assert used == set(saved_names.__all__)
    for name in used:
        assert ref_to_obj(f"bot.scheduler:{name}") is getattr(jobs, name)
        assert ref_to_obj(f"bot.ops.jobs:{name}") is getattr(jobs, name)
