"""Fixtures shared by the LLM client tests: a usage ledger, recorded sleeps and a client against the stub server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.llm.client import (
    InMemoryTokenLedger,
)
from bot.llm.openai_compatible import OpenAICompatibleLLM
from tests.helpers.llm_client import Sleeps
from tests.helpers.llm_stub import STUB_MODEL, LLMStub


@pytest.fixture
def ledger() -> InMemoryTokenLedger:
    return InMemoryTokenLedger()


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
async def make_llm(ledger: InMemoryTokenLedger, sleeps: Sleeps) -> AsyncIterator[Any]:
    made: list[OpenAICompatibleLLM] = []

    def make(server: LLMStub | str, **options: Any) -> OpenAICompatibleLLM:
        base_url = server if isinstance(server, str) else server.base_url
        options.setdefault("max_retries", 2)
        options.setdefault("timeout_seconds", 5.0)
        options.setdefault("backoff_base", 0.01)
        options.setdefault("sleep", sleeps)
        llm = OpenAICompatibleLLM(base_url=base_url, model=STUB_MODEL, ledger=ledger, **options)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        await llm.aclose()
