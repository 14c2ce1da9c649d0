"""The LLM client's failures: retries and back-off, timeouts, client errors, errors that name the host and never the credentials, and cancellation."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from bot.llm.client import (
    InMemoryTokenLedger,
    LLMUnavailable,
)
from bot.llm.openai_compatible import endpoint_host
from canon.errors import Unavailable
from tests.helpers.llm_client import PROMPT, Sleeps
from tests.helpers.llm_stub import LLMStub, Reply

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
