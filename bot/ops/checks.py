"""The outcome of one of the host's checks (`lorekeeper doctor`, the heartbeat of a running bot)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """One check's outcome: `ok`, or what is wrong and what to do."""

    name: str
    ok: bool
    detail: str
    #: A warning does not fail the doctor (e.g. no LLM configured: narration is off, everything else works).
    warning: bool = False
