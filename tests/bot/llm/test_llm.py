"""The LLM adapter against a real local OpenAI-compatible server, through the real `openai` client."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest
from pydantic import BaseModel, Field

from bot.llm.client import (
    NOT_CONFIGURED_MESSAGE,
    ChatMessage,
    InMemoryTokenLedger,
    LLMClient,
    LLMOutputInvalid,
    LLMUnavailable,
    Usage,
    require_llm,
)
from bot.llm.openai_compatible import OpenAICompatibleLLM, build_llm, endpoint_host
from canon.errors import Unavailable
from config.settings import LLMSettings
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply

PROMPT = [ChatMessage.system("You are the game master."), ChatMessage.user("Describe the tavern.")]


class NPC(BaseModel):
    name: str
    age: int = Field(ge=0)
    traits: list[str] = []


NPC_JSON = {"name": "Mira", "age": 34, "traits": ["wary", "kind"]}


class Sleeps:
    """Stands in for `asyncio.sleep` so backoff delays are recorded, not waited for."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


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


# --- structured output ----------------------------------------------------------------------------------------


async def test_structured_output_uses_json_schema_and_parses(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.json(NPC_JSON))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=3, purpose="npc")

    assert result.value == NPC(**NPC_JSON)
    assert result.repaired is False
    assert len(stub.requests) == 1
    response_format = stub.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "NPC"
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert set(schema["properties"]) == {"name", "age", "traits"}
    assert schema["additionalProperties"] is False
    assert stub.requests[0]["messages"] == [m.model_dump() for m in PROMPT]
    assert llm.json_schema_supported is True
    assert [r.campaign_id for r in ledger.records] == [3]


async def test_refused_json_schema_falls_back_to_json_object_and_remembers(make_llm: Any) -> None:
    async with LLMStub(no_json_schema=True) as stub:
        stub.add(Reply.json(NPC_JSON), Reply.json({"name": "Tob", "age": 60}))
        llm = make_llm(stub)

        first = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
        assert first.value.name == "Mira"
        assert stub.response_formats() == ["json_schema", "json_object"]
        assert llm.json_schema_supported is False

        second = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
        assert second.value == NPC(name="Tob", age=60)
        assert stub.response_formats() == ["json_schema", "json_object", "json_object"]

    fallback = stub.requests[1]
    assert fallback["response_format"]["schema"] == NPC.model_json_schema()
    roles = [m["role"] for m in fallback["messages"]]
    assert roles == ["system", "system", "user"]
    assert fallback["messages"][0]["content"] == PROMPT[0].content
    instruction = fallback["messages"][1]["content"]
    assert "JSON" in instruction and '"traits"' in instruction
    assert fallback["messages"][2]["content"] == PROMPT[1].content


async def test_a_transient_500_on_the_first_json_schema_call_is_retried_not_downgraded(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.error(500, "internal error"), Reply.json(NPC_JSON), Reply.json({"name": "Tob", "age": 60}))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
    assert result.value.name == "Mira" and llm.json_schema_supported is True
    again = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert again.value.name == "Tob"
    assert stub.response_formats() == ["json_schema"] * 3
    assert len(sleeps.delays) == 1  # retried after a backoff, like any 500


async def test_a_500_that_never_mentions_the_format_is_never_taken_for_a_refusal(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.responder = lambda body: Reply.error(500, "internal error")
    llm = make_llm(stub, max_retries=2)

    with pytest.raises(LLMUnavailable, match="did not answer after 3 tries"):
        await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert stub.response_formats() == ["json_schema"] * 3
    assert llm.json_schema_supported is None  # still unknown: the next call tries json_schema again
    assert len(sleeps.delays) == 2


async def test_an_unexplained_400_on_a_fresh_client_falls_back_for_that_call_only(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.error(400, "bad request"), Reply.json(NPC_JSON), Reply.json(NPC_JSON))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
    assert result.value.name == "Mira" and llm.json_schema_supported is None
    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert stub.response_formats() == ["json_schema", "json_object", "json_schema"]
    assert llm.json_schema_supported is True
    assert sleeps.delays == []  # a 400 is not retried: the fallback is the second try


async def test_once_json_schema_worked_a_500_is_retried_not_downgraded(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.json(NPC_JSON), Reply.error(500, "overloaded"), Reply.json(NPC_JSON))
    llm = make_llm(stub)

    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert stub.response_formats() == ["json_schema"] * 3
    assert llm.json_schema_supported is True
    assert len(sleeps.delays) == 1


async def test_a_schema_the_server_cannot_compile_falls_back_for_that_call_only(
    stub: LLMStub, make_llm: Any
) -> None:
    stub.add(
        Reply.json(NPC_JSON),
        Reply.error(400, "Invalid schema for response_format 'NPC': unsupported keyword"),
        Reply.json(NPC_JSON),
    )
    llm = make_llm(stub)

    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
    result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert result.value.name == "Mira"
    assert stub.response_formats() == ["json_schema", "json_schema", "json_object"]
    assert llm.json_schema_supported is True


async def test_a_rejected_schema_on_a_fresh_client_is_not_taken_for_missing_support(
    stub: LLMStub, make_llm: Any
) -> None:
    stub.add(
        Reply.error(400, "Invalid schema for response_format 'NPC': 'additionalProperties' is required"),
        Reply.json(NPC_JSON),
        Reply.json(NPC_JSON),
    )
    llm = make_llm(stub)

    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")
    assert llm.json_schema_supported is None
    await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert stub.response_formats() == ["json_schema", "json_object", "json_schema"]
    assert llm.json_schema_supported is True


async def test_code_fences_around_json_need_no_repair(stub: LLMStub, make_llm: Any) -> None:
    stub.add(Reply.raw('```json\n{"name": "Mira", "age": 34}\n```'))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert result.value == NPC(name="Mira", age=34)
    assert result.repaired is False
    assert len(stub.requests) == 1


async def test_malformed_json_is_repaired_once(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    broken = '{"name": "Mira", age: 34'
    stub.add(Reply.raw(broken), Reply.json(NPC_JSON))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=5, purpose="npc")

    assert result.value == NPC(**NPC_JSON)
    assert result.repaired is True
    assert len(stub.requests) == 2
    repair = stub.requests[1]
    assert repair["response_format"]["type"] == "json_schema"
    assert repair["messages"][: len(PROMPT)] == [m.model_dump() for m in PROMPT]
    assert repair["messages"][-2] == {"role": "assistant", "content": broken}
    assert repair["messages"][-1]["role"] == "user"
    assert "not valid JSON" in repair["messages"][-1]["content"]
    assert len(ledger.records) == 2
    assert result.usage.prompt_tokens == sum(r.prompt_tokens for r in ledger.records)
    assert result.usage.completion_tokens == sum(r.completion_tokens for r in ledger.records)


async def test_schema_violations_are_sent_back_in_the_repair(stub: LLMStub, make_llm: Any) -> None:
    stub.add(Reply.json({"name": "Mira", "age": -3}), Reply.json(NPC_JSON))
    llm = make_llm(stub)

    result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert result.repaired is True
    feedback = stub.requests[1]["messages"][-1]["content"]
    assert "age" in feedback and "greater than or equal to 0" in feedback


async def test_repair_in_fallback_mode_keeps_json_object_and_the_schema_message(make_llm: Any) -> None:
    async with LLMStub(no_json_schema=True) as stub:
        stub.add(Reply.raw("Mira is 34."), Reply.json(NPC_JSON))
        llm = make_llm(stub)
        result = await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert result.repaired is True
    assert stub.response_formats() == ["json_schema", "json_object", "json_object"]
    assert stub.requests[2]["messages"][1]["content"] == stub.requests[1]["messages"][1]["content"]
    assert stub.requests[2]["messages"][-2]["content"] == "Mira is 34."


async def test_still_invalid_after_one_repair_raises_with_the_raw_text(
    stub: LLMStub, make_llm: Any, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.raw("not json at all"), Reply.raw("{still: broken"), Reply.json(NPC_JSON))
    llm = make_llm(stub)

    with pytest.raises(LLMOutputInvalid) as caught:
        await llm.complete_structured(PROMPT, NPC, campaign_id=1, purpose="npc")

    assert len(stub.requests) == 2
    assert len(stub.replies) == 1  # the valid reply was never asked for
    assert caught.value.raw == "{still: broken"
    assert "not valid JSON" in caught.value.errors
    assert caught.value.response_model == "NPC"
    assert len(ledger.records) == 2  # tokens spent on invalid output still count


# --- retries --------------------------------------------------------------------------------------------------


async def test_429_honours_retry_after_then_succeeds(stub: LLMStub, make_llm: Any, sleeps: Sleeps) -> None:
    stub.add(Reply.error(429, "slow down", retry_after="7"), Reply.text("Patience rewarded."))
    llm = make_llm(stub)

    result = await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert result.text == "Patience rewarded."
    assert len(stub.requests) == 2
    assert sleeps.delays == [7.0]


async def test_retry_after_longer_than_allowed_gives_up_at_once(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.error(429, "quota", retry_after="3600"), Reply.text("unused"))
    llm = make_llm(stub, max_retry_after=30)

    with pytest.raises(LLMUnavailable, match="asked to wait 3600 seconds"):
        await llm.complete(PROMPT, campaign_id=1, purpose="t")
    assert len(stub.requests) == 1
    assert sleeps.delays == []


async def test_500_twice_then_success_backs_off_exponentially(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(Reply.error(500), Reply.error(502), Reply.text("Third time lucky."))
    llm = make_llm(stub, backoff_base=1.0)

    result = await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert result.text == "Third time lucky."
    assert len(stub.requests) == 3
    first, second = sleeps.delays
    assert 0.5 <= first <= 1.0
    assert 1.0 <= second <= 2.0


async def test_persistent_500_raises_unavailable_after_max_retries_plus_one(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps
) -> None:
    stub.add(*[Reply.error(500, "down")] * 5)
    llm = make_llm(stub, max_retries=2)

    with pytest.raises(LLMUnavailable) as caught:
        await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert len(stub.requests) == 3
    assert len(sleeps.delays) == 2
    assert isinstance(caught.value, Unavailable)
    assert caught.value.message == f"The language model at {stub.host} did not answer after 3 tries."
    assert caught.value.status_code == 500


async def test_timeouts_are_retried_then_unavailable(stub: LLMStub, make_llm: Any, sleeps: Sleeps) -> None:
    stub.add(*[Reply.slow(30)] * 3, Reply.text("unused"))
    # Long enough for each try to reach the stub on a loaded machine (0.2 s once cut the third try short).
    llm = make_llm(stub, timeout_seconds=0.6, max_retries=2)

    with pytest.raises(LLMUnavailable, match="did not answer after 3 tries"):
        await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert len(stub.requests) == 3
    assert len(sleeps.delays) == 2


async def test_a_timeout_then_an_answer_succeeds(stub: LLMStub, make_llm: Any) -> None:
    stub.add(Reply.slow(30), Reply.text("Sorry, I dozed off."))
    llm = make_llm(stub, timeout_seconds=0.2)

    result = await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert result.text == "Sorry, I dozed off."
    assert len(stub.requests) == 2


async def test_client_errors_are_not_retried(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps, caplog: pytest.LogCaptureFixture
) -> None:
    stub.add(Reply.error(401, "bad key"), Reply.error(404, "no such model"), Reply.error(400, "too long"))
    llm = make_llm(stub)

    with pytest.raises(LLMUnavailable, match="rejected the API key") as unauthorised:
        await llm.complete(PROMPT, campaign_id=1, purpose="t")
    with pytest.raises(LLMUnavailable, match="has no model named") as missing:
        await llm.complete(PROMPT, campaign_id=1, purpose="t")
    # The settings to check are the operator's: in the log, never in what the table reads.
    assert "LOREKEEPER" not in unauthorised.value.message + missing.value.message
    assert "Check LOREKEEPER_LLM__MODEL" in caplog.text and "Check LOREKEEPER_LLM__API_KEY" in caplog.text
    with pytest.raises(LLMUnavailable, match=r"refused the request \(HTTP 400\): too long"):
        await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert unauthorised.value.status_code == 401
    assert len(stub.requests) == 3
    assert sleeps.delays == []


async def test_unreachable_server_is_retried_then_unavailable(make_llm: Any, sleeps: Sleeps) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = make_llm(f"http://127.0.0.1:{port}/v1", max_retries=2)

    with pytest.raises(LLMUnavailable) as caught:
        await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert caught.value.message == f"The language model at 127.0.0.1:{port} did not answer after 3 tries."
    assert len(sleeps.delays) == 2


@pytest.mark.parametrize(
    ("base_url", "host"),
    [
        ("http://lk-user:s3cret@127.0.0.1:8080/v1?key=k3y", "127.0.0.1:8080"),
        ("https://token@API.example.com/v1#k3y", "api.example.com"),
        ("http://[::1]:11434/v1?api_key=k3y", "[::1]:11434"),
        ("lk-user:s3cret@localhost:8000/v1", "localhost:8000"),
        ("http://lk-user:s3cret@host:port/v1", "the configured server"),
    ],
)
def test_the_endpoint_host_is_its_name_and_port_only(base_url: str, host: str) -> None:
    assert endpoint_host(base_url) == host


SECRETS = ("lk-user", "s3cret", "k3y", "key=")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply.error(401, "bad key"), "rejected the API key"),
        (Reply.error(403, "forbidden"), "refused access"),
        (Reply.error(400, "too long"), "refused the request (HTTP 400): too long"),
        (Reply.error(429, "quota", retry_after="3600"), "is busy and asked to wait"),
        (Reply.error(500, "down"), "did not answer after 2 tries"),
    ],
)
async def test_errors_name_the_servers_host_never_the_credentials_in_its_url(
    stub: LLMStub, make_llm: Any, reply: Reply, expected: str
) -> None:
    stub.add(reply, reply)
    # No query: the OpenAI client would send it inside the path (the 404 of the test below).
    llm = make_llm(f"http://lk-user:s3cret@{stub.host}/v1", max_retries=1)

    with pytest.raises(LLMUnavailable) as caught:
        await llm.complete(PROMPT, campaign_id=1, purpose="t")

    assert caught.value.message.startswith(f"The language model at {stub.host} "), caught.value.message
    assert expected in caught.value.message
    assert not [s for s in SECRETS if s in str(caught.value)]


async def test_a_base_url_with_a_query_key_is_never_named_in_errors(stub: LLMStub, make_llm: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for base_url, host in (
        (f"http://lk-user:s3cret@{stub.host}/v1?key=k3y", stub.host),  # the query lands in the path: 404
        (f"http://lk-user:s3cret@127.0.0.1:{port}/v1?key=k3y", f"127.0.0.1:{port}"),  # refused
    ):
        llm = make_llm(base_url, max_retries=0)
        with pytest.raises(LLMUnavailable) as caught:
            await llm.complete(PROMPT, campaign_id=1, purpose="t")
        assert caught.value.message.startswith(f"The language model at {host} "), caught.value.message
        assert not [s for s in SECRETS if s in str(caught.value)]


async def test_cancellation_cancels_the_request_and_does_not_retry(
    stub: LLMStub, make_llm: Any, sleeps: Sleeps, ledger: InMemoryTokenLedger
) -> None:
    stub.add(Reply.slow(30), Reply.text("should never be asked for"))
    llm = make_llm(stub)

    task = asyncio.create_task(llm.complete(PROMPT, campaign_id=1, purpose="t"))
    await stub.wait_for_request()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(stub.wait_for_disconnect(), timeout=10)

    assert len(stub.requests) == 1
    assert len(stub.replies) == 1
    assert sleeps.delays == []
    assert ledger.records == []


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
