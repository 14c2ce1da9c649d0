"""The LLM adapter against a real local OpenAI-compatible server, through the real `openai` client."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import openai
import pytest

from bot.llm.client import (
    NOT_CONFIGURED_MESSAGE,
    InMemoryTokenLedger,
    LLMClient,
    LLMUnavailable,
    Usage,
    require_llm,
)
from bot.llm.openai_compatible import OpenAICompatibleLLM, build_llm
from canon.errors import Unavailable
from config.settings import LLMSettings
from tests.helpers.llm_client import PROMPT, Sleeps
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply


def expected_usage(messages: list[dict[str, Any]], content: str) -> tuple[int, int]:
    """Return what the stub reports, computed independently of it."""
    prompt = sum(max(1, len(m["content"]) // 4) + 4 for m in messages)
    return prompt, max(1, len(content) // 4)


# --- plain completions ----------------------------------------------------------------------------------------


async def test_complete_returns_text_and_records_usage_per_campaign(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.text("Smoke and ale."), Reply.text("A bard sings."), Reply.text("Rain outside."))
    llm = make_llm(stub)

    first = await llm.complete(PROMPT, campaign_id=1, purpose="narration")
    await llm.complete(PROMPT, campaign_id=1, purpose="npc", max_tokens=50, temperature=0.2)
    await llm.complete(PROMPT, campaign_id=2, purpose="narration")

    assert first.text == "Smoke and ale."
    assert first.finish_reason == "stop"
    prompt_tokens, completion_tokens = expected_usage(stub.requests[0]["messages"], "Smoke and ale.")
    assert first.usage == Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)

    body = stub.requests[0]
    assert body["model"] == STUB_MODEL
    assert body["messages"] == [m.model_dump() for m in PROMPT]
    assert body["temperature"] == 0.7
    assert "max_tokens" not in body and "response_format" not in body
    assert stub.requests[1]["temperature"] == 0.2 and stub.requests[1]["max_tokens"] == 50

    assert [(r.campaign_id, r.purpose, r.model) for r in ledger.records] == [
        (1, "narration", STUB_MODEL),
        (1, "npc", STUB_MODEL),
        (2, "narration", STUB_MODEL),
    ]
    campaign_one = ledger.totals(1)
    assert campaign_one.prompt_tokens == 2 * prompt_tokens
    assert campaign_one.completion_tokens == completion_tokens + expected_usage([], "A bard sings.")[1]
    assert ledger.totals(2).completion_tokens == expected_usage([], "Rain outside.")[1]
    assert ledger.totals(None) == Usage()


async def test_missing_usage_is_counted_with_the_token_counter(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.text("one two three", send_usage=False))
    llm = make_llm(stub, token_counter=lambda text: len(text.split()))

    result = await llm.complete(PROMPT, campaign_id=7, purpose="narration")

    words = sum(len(m.content.split()) + 4 for m in PROMPT)
    assert result.usage == Usage(prompt_tokens=words, completion_tokens=3, estimated=True)
    assert (ledger.records[0].prompt_tokens, ledger.records[0].completion_tokens) == (words, 3)


async def test_a_failing_ledger_does_not_lose_the_reply(stub: LLMStub) -> None:
    class BrokenLedger:
        async def record(self, *args: Any) -> None:
            raise RuntimeError("database is down")

    stub.add(Reply.text("Still here."))
    llm = OpenAICompatibleLLM(base_url=stub.base_url, model=STUB_MODEL, ledger=BrokenLedger())
    try:
        assert (await llm.complete(PROMPT, campaign_id=1, purpose="t")).text == "Still here."
    finally:
        await llm.aclose()


# --- streaming ------------------------------------------------------------------------------------------------


async def test_stream_yields_deltas_in_order_and_records_usage(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    pieces = ["Once", " upon", " a", " time", ", in a tavern", "…"]
    stub.add(Reply.text("".join(pieces), chunks=pieces))
    llm = make_llm(stub)

    async with contextlib.aclosing(llm.stream(PROMPT, campaign_id=9, purpose="narration")) as deltas:
        received = [delta async for delta in deltas]

    assert received == pieces
    body = stub.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    [record] = ledger.records
    assert (record.campaign_id, record.purpose) == (9, "narration")
    assert (record.prompt_tokens, record.completion_tokens) == expected_usage(
        body["messages"], "".join(pieces)
    )


async def test_stream_without_usage_counts_tokens_itself(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.text("The door creaks open", send_usage=False))
    llm = make_llm(stub, token_counter=lambda text: len(text.split()))

    async with contextlib.aclosing(llm.stream(PROMPT, campaign_id=1, purpose="narration")) as deltas:
        text = "".join([delta async for delta in deltas])

    assert text == "The door creaks open"
    [record] = ledger.records
    assert record.completion_tokens == 4
    assert record.prompt_tokens == sum(len(m.content.split()) + 4 for m in PROMPT)


async def test_stream_retries_failures_before_the_first_delta(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.error(503, "loading model"), Reply.text("Ready now."))
    llm = make_llm(stub)

    async with contextlib.aclosing(llm.stream(PROMPT, campaign_id=1, purpose="narration")) as deltas:
        text = "".join([delta async for delta in deltas])

    assert text == "Ready now."
    assert len(stub.requests) == 2
    assert len(sleeps.delays) == 1


async def test_cancelling_a_stream_closes_the_connection(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.text("a b c d e f", chunk_delay=0.05))
    llm = make_llm(stub)
    first_delta = asyncio.Event()
    received: list[str] = []

    async def consume() -> None:
        async with contextlib.aclosing(llm.stream(PROMPT, campaign_id=4, purpose="narration")) as deltas:
            async for delta in deltas:
                received.append(delta)
                first_delta.set()

    task = asyncio.create_task(consume())
    await first_delta.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(stub.wait_for_disconnect(), timeout=10)

    assert len(stub.requests) == 1
    assert "".join(received) != "a b c d e f"
    [record] = ledger.records  # the partial reply's tokens were spent: recorded, estimated
    assert record.campaign_id == 4


# --- configuration --------------------------------------------------------------------------------------------


async def test_not_configured_means_no_client_and_a_plain_message(ledger: InMemoryTokenLedger) -> None:
    assert build_llm(LLMSettings(), ledger) is None
    assert build_llm(LLMSettings(base_url="http://127.0.0.1:1/v1"), ledger) is None

    with pytest.raises(LLMUnavailable) as caught:
        require_llm(None)

    assert isinstance(caught.value, Unavailable)
    assert caught.value.message == (
        "No language model is configured, and this needs one: whoever runs the bot can set one up "
        "(the language model settings in the README)."
    )
    assert caught.value.message == NOT_CONFIGURED_MESSAGE


async def test_build_llm_uses_the_settings(stub: LLMStub, ledger: InMemoryTokenLedger) -> None:
    settings = LLMSettings(
        base_url=stub.base_url, model=STUB_MODEL, api_key="sekrit", max_retries=0, temperature=0.3
    )
    llm = build_llm(settings, ledger)
    assert llm is not None
    port: LLMClient = llm  # mypy checks the adapter against the port
    assert require_llm(port) is llm
    stub.add(Reply.text("Configured."), Reply.error(500))
    try:
        assert (await llm.complete(PROMPT, campaign_id=None, purpose="t")).text == "Configured."
        with pytest.raises(LLMUnavailable, match="after 1 try"):
            await llm.complete(PROMPT, campaign_id=None, purpose="t")
    finally:
        await llm.aclose()

    assert stub.request_headers[0]["Authorization"] == "Bearer sekrit"
    assert stub.requests[0]["temperature"] == 0.3
    assert len(stub.requests) == 2  # max_retries=0: no retry
    assert ledger.totals(None).completion_tokens > 0


async def test_stub_serves_models_and_the_llama_cpp_refusal() -> None:
    async with LLMStub(no_json_schema=True) as stub:
        client = openai.AsyncOpenAI(base_url=stub.base_url, api_key="x", max_retries=0)
        try:
            models = await client.models.list()
            assert [m.id async for m in models] == [STUB_MODEL]
            with pytest.raises(openai.InternalServerError, match="but got: json_schema"):
                await client.chat.completions.create(
                    model=STUB_MODEL,
                    messages=[{"role": "user", "content": "hi"}],
                    response_format={
                        "type": "json_schema",
                        "json_schema": {"name": "x", "schema": {"type": "object"}},
                    },
                )
        finally:
            await client.close()
    assert len(stub.requests) == 1
    assert stub.unscripted == 0
