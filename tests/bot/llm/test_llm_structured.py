"""The LLM client's structured output: JSON schema, the fallback to a JSON object, and the one repair."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from bot.llm.client import (
    InMemoryTokenLedger,
    LLMOutputInvalid,
    LLMUnavailable,
)
from tests.helpers.llm_client import PROMPT, Sleeps
from tests.helpers.llm_stub import LLMStub, Reply


class NPC(BaseModel):
    name: str
    age: int = Field(ge=0)
    traits: list[str] = []


NPC_JSON = {"name": "Mira", "age": 34, "traits": ["wary", "kind"]}


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
