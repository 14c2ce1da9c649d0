"""Structured output: the response formats asked for, and a reply parsed and validated against its model.

A reply is read tolerantly (code fences and prose around one JSON object); one that is still invalid gets
exactly one repair request, built here, listing what was wrong.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.llm.client import ChatMessage

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

_MAX_REPAIR_ERRORS = 20


class Invalid(Exception):
    """A reply that is not valid JSON for its model; `problem` says why, for the repair request."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def json_schema_format(response_model: type[BaseModel], *, strict_schema: bool) -> dict[str, Any]:
    """Return the `json_schema` response format of a model (OpenAI's strict variant when asked and possible)."""
    schema: dict[str, Any] = response_model.model_json_schema()
    strict = False
    if strict_schema:
        try:
            from openai.lib._pydantic import to_strict_json_schema

            schema = to_strict_json_schema(response_model)
            strict = True
        except Exception:  # a schema the strict transform cannot handle is sent as is
            log.debug("Sending the non-strict schema of %s", response_model.__name__, exc_info=True)
    name = re.sub(r"[^a-zA-Z0-9_-]", "_", response_model.__name__)[:64] or "response"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}


def json_object_format(response_model: type[BaseModel], *, with_schema: bool) -> dict[str, Any]:
    """Return the `json_object` response format, with the model's schema when the server may use it."""
    response_format: dict[str, Any] = {"type": "json_object"}
    if with_schema:
        response_format["schema"] = response_model.model_json_schema()
    return response_format


def with_schema_instruction(
    messages: Sequence[ChatMessage], response_model: type[BaseModel]
) -> list[ChatMessage]:
    """Return the messages with a system message giving the schema, after the leading system messages."""
    schema = json.dumps(response_model.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    instruction = ChatMessage.system(
        "Reply with one JSON object and nothing else: no prose, no code fences. "
        f"It must validate against this JSON Schema:\n{schema}"
    )
    leading = 0
    while leading < len(messages) and messages[leading].role == "system":
        leading += 1
    return [*messages[:leading], instruction, *messages[leading:]]


_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def parse(text: str, response_model: type[T]) -> T:
    """Validate `text` as `response_model`, tolerating code fences and prose around one JSON object."""
    candidate = text.strip()
    fenced = _FENCE.match(candidate)
    if fenced:
        candidate = fenced.group(1).strip()
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as error:
        data = _outermost_object(candidate)
        if data is None:
            raise Invalid(
                f"The reply is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})."
            ) from None
    try:
        return response_model.model_validate(data)
    except ValidationError as error:
        problems = []
        for problem in error.errors(include_url=False)[:_MAX_REPAIR_ERRORS]:
            where = ".".join(str(part) for part in problem["loc"]) or "(the whole object)"
            problems.append(f"- {where}: {problem['msg']}")
        raise Invalid("The JSON does not match the schema:\n" + "\n".join(problems)) from None


def _outermost_object(text: str) -> object | None:
    """Return the JSON object between the first `{` and the last `}` (small models add prose), or None."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value: object = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    return value


def repair_request(problem: str) -> str:
    return (
        f"Your previous reply could not be used. {problem}\n"
        "Reply again with only the corrected JSON object: no explanation, no code fences."
    )
