"""Shared helpers for the LLM client tests: the prompt every call sends and the sleeps a client was asked to take."""

from __future__ import annotations

import asyncio

from bot.llm.client import (
    ChatMessage,
)

PROMPT = [ChatMessage.system("You are the game master."), ChatMessage.user("Describe the tavern.")]


class Sleeps:
    """Stands in for `asyncio.sleep` so backoff delays are recorded, not waited for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)
