"""The language-model port and its adapter for any OpenAI-compatible chat endpoint.

Services depend on `LLMClient` (a Protocol) and `TokenLedger`; the composition root builds an
`OpenAICompatibleLLM` with `build_llm` and hands it down. Everything the model returns is data: callers frame it
as untrusted before showing it or feeding it back into a prompt.

Failure policy, in one place:
- 408, 409, 429, any 5xx, timeouts and connection errors are retried with exponential backoff and jitter
  (a `Retry-After` / `retry-after-ms` header replaces the computed delay), at most `max_retries` times, then
  `LLMUnavailable`. Any other 4xx is not retried: `LLMUnavailable` at once, with a message naming the cause.
- Cancellation is never retried: `asyncio.CancelledError` passes through and closes the HTTP request.
- Structured output tries `response_format={"type": "json_schema", ...}` first. A refusal is not retried: the
  same call falls back to `{"type": "json_object"}` with the schema in a system message. Only a refusal that
  is about the format downgrades the client for good: HTTP 400/422/500/501 whose error mentions
  `response_format` or `json_schema` (llama.cpp's Python server answers 500 "response_format type must be one
  of ..."), while support is still unknown; from then on the client goes straight to json_object. These fall
  back for that call only and remember nothing: an error saying "invalid schema" (OpenAI rejecting one schema
  under its strict rules), a format refusal once a json_schema request has succeeded on this client (a schema
  the server cannot compile, not an endpoint without support), and, while support is unknown, a 400/422/501
  that does not say why. A 500 that does not mention the format is an ordinary failure, retried like any
  other: one transient error must not cost the endpoint its structured output.
- Output that is not valid JSON for the model gets exactly one repair request (the invalid output and the
  errors go back, asking for corrected JSON only); if that is invalid too, `LLMOutputInvalid`.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, Literal, Protocol, TypeVar
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel, ConfigDict, ValidationError

from canon.errors import GameError, Unavailable
from config.settings import LLMSettings

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

NOT_CONFIGURED_MESSAGE = (
    "No language model is configured. Set LOREKEEPER_LLM__BASE_URL and LOREKEEPER_LLM__MODEL."
)

# Retried: request timeout, conflict (OpenAI uses it for lock contention), rate limit, every 5xx.
_RETRYABLE_STATUSES = frozenset({408, 409, 429})
# Statuses with which servers refuse a response_format they do not support.
_REFUSAL_STATUSES = frozenset({400, 422, 500, 501})
_REFUSAL_WORDS = ("response_format", "json_schema")
# OpenAI's wording when it supports json_schema but rejects this particular schema (strict-mode rules).
_SCHEMA_PROBLEM_WORDS = ("invalid schema",)

# Statuses that may refuse json_schema without saying so (a 500 that does not say so is taken as transient).
_SILENT_REFUSAL_STATUSES = frozenset({400, 422, 501})

# How a json_schema request was refused: the endpoint lacks the format ("endpoint", remembered), this one
# schema was rejected ("schema"), or an unexplained 4xx/501 while support is still unknown ("guess").
_Refusal = Literal["endpoint", "schema", "guess"]
_MAX_REPAIR_ERRORS = 20
_SERVER_MESSAGE_CHARS = 300


# --- errors -------------------------------------------------------------------------------------------------


class LLMUnavailable(Unavailable):
    """The language model is not configured, refused the request, or did not answer after every retry."""

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 0) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


class LLMOutputInvalid(GameError):
    """The model's structured reply was still invalid after one repair; `raw` holds the last reply's text."""

    def __init__(self, raw: str, errors: str, *, response_model: str) -> None:
        super().__init__("The language model's reply could not be understood. Please try again.")
        self.raw = raw
        self.errors = errors
        self.response_model = response_model


# --- domain objects -----------------------------------------------------------------------------------------


class ChatMessage(BaseModel):
    """One message of a chat prompt."""

    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str

    @classmethod
    def system(cls, content: str) -> ChatMessage:
        """Build a system message."""
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> ChatMessage:
        """Build a user message."""
        return cls(role="user", content=content)

    @classmethod
    def assistant(cls, content: str) -> ChatMessage:
        """Build an assistant message."""
        return cls(role="assistant", content=content)


class Usage(BaseModel):
    """Tokens one or more calls used; `estimated` when the server reported none and they were counted here."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        """Return prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            estimated=self.estimated or other.estimated,
        )


class Completion(BaseModel):
    """A text reply; `finish_reason` is "length" when `max_tokens` cut it short."""

    model_config = ConfigDict(frozen=True)

    text: str
    usage: Usage
    model: str
    finish_reason: str | None = None


@dataclass(frozen=True)
class Structured(Generic[T]):
    """A validated structured reply; `usage` sums every request it took, `repaired` if a repair was needed."""

    value: T
    usage: Usage
    repaired: bool
    raw: str


# --- ports --------------------------------------------------------------------------------------------------


class LLMClient(Protocol):
    """The language-model port every service depends on."""

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Return the model's text reply to `messages`."""
        ...

    async def complete_structured(
        self,
        messages: Sequence[ChatMessage],
        response_model: type[T],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Structured[T]:
        """Return the model's reply parsed and validated as `response_model`."""
        ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        """Yield the model's reply as text deltas, in order."""
        ...


class TokenLedger(Protocol):
    """Where every call's token usage is recorded (per campaign, per purpose)."""

    async def record(
        self,
        campaign_id: int | None,
        purpose: str,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Record one call's usage."""
        ...


class TokenRecord(BaseModel):
    """One entry of `InMemoryTokenLedger`."""

    model_config = ConfigDict(frozen=True)

    campaign_id: int | None
    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    at: datetime


class InMemoryTokenLedger:
    """A `TokenLedger` that keeps records in a list (tests, and running without a database)."""

    def __init__(self) -> None:
        self.records: list[TokenRecord] = []

    async def record(
        self,
        campaign_id: int | None,
        purpose: str,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Record one call's usage."""
        self.records.append(
            TokenRecord(
                campaign_id=campaign_id,
                purpose=purpose,
                model=model,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                at=datetime.now(UTC),
            )
        )

    def totals(self, campaign_id: int | None) -> Usage:
        """Return the summed usage of one campaign (None: calls outside any campaign)."""
        total = Usage()
        for entry in self.records:
            if entry.campaign_id == campaign_id:
                total += Usage(prompt_tokens=entry.prompt_tokens, completion_tokens=entry.completion_tokens)
        return total


# --- the adapter --------------------------------------------------------------------------------------------


def _approximate_tokens(text: str) -> int:
    return len(text) // 4


class _SchemaRefused(Exception):
    def __init__(self, error: openai.APIStatusError, kind: _Refusal) -> None:
        super().__init__(str(error))
        self.error = error
        self.kind = kind


class _Invalid(Exception):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def endpoint_host(base_url: str) -> str:
    """Return the `host[:port]` of an endpoint URL, as messages to players name it.

    Never the URL's user name, password, path or query: a base URL may carry credentials
    (`https://user:key@host/v1`, `...?key=...`), and the host goes into messages shown to players.
    """
    try:
        parts = urlsplit(base_url if "//" in base_url else f"//{base_url}")
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, an unbalanced [IPv6] bracket
        return "the configured server"
    if not host:
        return "the configured server"
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{port}" if port is not None else shown


class OpenAICompatibleLLM:
    """`LLMClient` over `openai.AsyncOpenAI`, for OpenAI, vLLM, llama.cpp, Ollama, LM Studio and the like."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        ledger: TokenLedger,
        api_key: str = "not-needed",
        timeout_seconds: float = 60.0,
        max_retries: int = 3,
        temperature: float = 0.7,
        token_counter: Callable[[str], int] | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 20.0,
        max_retry_after: float = 60.0,
        strict_schema: bool = True,
        schema_in_json_object: bool = True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """Build the adapter.

        `timeout_seconds` bounds each non-streaming request end to end and each wait for data while streaming.
        `backoff_base`/`backoff_max` shape the retry delays (`base * 2**n`, jittered between half and all of it);
        a `Retry-After` longer than `max_retry_after` is not waited for. `token_counter` counts tokens when the
        server reports no usage (default: characters / 4). `strict_schema` sends OpenAI's strict variant of
        the schema. `schema_in_json_object` adds the schema to the json_object fallback's `response_format`
        too (llama.cpp's Python server constrains generation with it; others ignore it). `sleep` is for tests.
        """
        self.model = model
        self.base_url = base_url
        self.host = endpoint_host(base_url)
        self._ledger = ledger
        self._timeout = timeout_seconds
        self._max_retries = max_retries
        self._temperature = temperature
        self._count = token_counter or _approximate_tokens
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._max_retry_after = max_retry_after
        self._strict_schema = strict_schema
        self._schema_in_json_object = schema_in_json_object
        self._sleep = sleep
        self._json_schema_supported: bool | None = None
        # The SDK's own retries are off: this class retries, so that it can count, log and honour cancellation.
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout_seconds, max_retries=0
        )

    @classmethod
    def from_settings(
        cls,
        settings: LLMSettings,
        ledger: TokenLedger,
        *,
        token_counter: Callable[[str], int] | None = None,
        **options: Any,
    ) -> OpenAICompatibleLLM:
        """Build the adapter from `LLMSettings` (which must be configured)."""
        if not settings.configured:
            raise LLMUnavailable(NOT_CONFIGURED_MESSAGE)
        assert settings.base_url is not None and settings.model is not None
        return cls(
            base_url=settings.base_url,
            model=settings.model,
            ledger=ledger,
            api_key=settings.api_key.get_secret_value(),
            timeout_seconds=settings.timeout_seconds,
            max_retries=settings.max_retries,
            temperature=settings.temperature,
            token_counter=token_counter,
            **options,
        )

    @property
    def json_schema_supported(self) -> bool | None:
        """Return whether this endpoint accepts json_schema response formats (None: not tried yet)."""
        return self._json_schema_supported

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()

    # --- public calls -----------------------------------------------------------------------------------

    async def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        """Return the model's text reply to `messages`."""
        params = self._params(messages, max_tokens=max_tokens, temperature=temperature)
        return await self._complete(params, messages, campaign_id=campaign_id, purpose=purpose)

    async def complete_structured(
        self,
        messages: Sequence[ChatMessage],
        response_model: type[T],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Structured[T]:
        """Return the model's reply parsed and validated as `response_model` (one repair at most)."""
        use_schema = self._json_schema_supported is not False
        prompt = list(messages)
        first: Completion | None = None
        if use_schema:
            params = self._params(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=self._json_schema_format(response_model),
            )
            try:
                first = await self._complete(
                    params,
                    prompt,
                    campaign_id=campaign_id,
                    purpose=purpose,
                    refusal=self._refusal_check(),
                )
            except _SchemaRefused as refused:
                use_schema = False
                if refused.kind == "endpoint" and self._json_schema_supported is None:
                    self._json_schema_supported = False
                log.info(
                    "The LLM at %s refused json_schema for %s (%s, HTTP %s); falling back to json_object",
                    self.host,
                    response_model.__name__,
                    refused.kind,
                    refused.error.status_code,
                )
            else:
                self._json_schema_supported = True

        if not use_schema:
            prompt = self._with_schema_instruction(messages, response_model)
            params = self._params(
                prompt,
                max_tokens=max_tokens,
                temperature=temperature,
                response_format=self._json_object_format(response_model),
            )
            first = await self._complete(params, prompt, campaign_id=campaign_id, purpose=purpose)

        assert first is not None
        try:
            value = _parse(first.text, response_model)
        except _Invalid as invalid:
            problem = invalid.problem
        else:
            return Structured(value=value, usage=first.usage, repaired=False, raw=first.text)

        log.info("Repairing invalid structured output for %s (%s)", response_model.__name__, purpose)
        repair_prompt = [
            *prompt,
            ChatMessage.assistant(first.text),
            ChatMessage.user(_repair_request(problem)),
        ]
        repair_params = self._params(
            repair_prompt,
            max_tokens=max_tokens,
            temperature=temperature,
            response_format=(
                self._json_schema_format(response_model)
                if use_schema
                else self._json_object_format(response_model)
            ),
        )
        second = await self._complete(repair_params, repair_prompt, campaign_id=campaign_id, purpose=purpose)
        usage = first.usage + second.usage
        try:
            value = _parse(second.text, response_model)
        except _Invalid as invalid:
            raise LLMOutputInvalid(
                second.text, invalid.problem, response_model=response_model.__name__
            ) from None
        return Structured(value=value, usage=usage, repaired=True, raw=second.text)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        """Yield the reply's text deltas in order, recording usage when the stream ends or is closed.

        Failures before the first delta are retried like any call; after it, `LLMUnavailable` is raised (a
        retry would repeat text already shown). Close the iterator (`contextlib.aclosing`) if you stop early.
        """
        params = self._params(messages, max_tokens=max_tokens, temperature=temperature)
        params["stream"] = True
        params["stream_options"] = {"include_usage": True}
        parts: list[str] = []
        reported: Any = None
        finished = False
        attempt = 0
        try:
            while True:
                attempt += 1
                try:
                    response = await self._client.chat.completions.create(**params, timeout=self._timeout)
                    async with response:
                        async for chunk in response:
                            if chunk.usage is not None:
                                reported = chunk.usage
                            for choice in chunk.choices:
                                delta = choice.delta.content if choice.delta else None
                                if delta:
                                    parts.append(delta)
                                    yield delta
                    finished = True
                    return
                except (openai.APIError, TimeoutError) as error:
                    if parts:
                        raise LLMUnavailable(
                            f"The language model at {self.host} stopped in the middle of its reply.",
                            attempts=attempt,
                        ) from error
                    await self._before_retry(error, attempt)
        finally:
            if parts or finished:
                await self._record(
                    self._usage(reported, messages, "".join(parts)), campaign_id=campaign_id, purpose=purpose
                )

    # --- plumbing ---------------------------------------------------------------------------------------

    def _params(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int | None,
        temperature: float | None,
        response_format: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self._temperature if temperature is None else temperature,
        }
        if max_tokens is not None:
            # max_tokens, not max_completion_tokens: every OpenAI-compatible server understands it.
            params["max_tokens"] = max_tokens
        if response_format is not None:
            params["response_format"] = response_format
        return params

    def _json_schema_format(self, response_model: type[BaseModel]) -> dict[str, Any]:
        schema: dict[str, Any] = response_model.model_json_schema()
        strict = False
        if self._strict_schema:
            try:
                from openai.lib._pydantic import to_strict_json_schema

                schema = to_strict_json_schema(response_model)
                strict = True
            except Exception:  # a schema the strict transform cannot handle is sent as is
                log.debug("Sending the non-strict schema of %s", response_model.__name__, exc_info=True)
        name = re.sub(r"[^a-zA-Z0-9_-]", "_", response_model.__name__)[:64] or "response"
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}

    def _json_object_format(self, response_model: type[BaseModel]) -> dict[str, Any]:
        response_format: dict[str, Any] = {"type": "json_object"}
        if self._schema_in_json_object:
            response_format["schema"] = response_model.model_json_schema()
        return response_format

    @staticmethod
    def _with_schema_instruction(
        messages: Sequence[ChatMessage], response_model: type[BaseModel]
    ) -> list[ChatMessage]:
        schema = json.dumps(response_model.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
        instruction = ChatMessage.system(
            "Reply with one JSON object and nothing else: no prose, no code fences. "
            f"It must validate against this JSON Schema:\n{schema}"
        )
        leading = 0
        while leading < len(messages) and messages[leading].role == "system":
            leading += 1
        return [*messages[:leading], instruction, *messages[leading:]]

    def _refusal_check(self) -> Callable[[openai.APIStatusError], _Refusal | None]:
        unknown = self._json_schema_supported is None

        def check(error: openai.APIStatusError) -> _Refusal | None:
            """Return how `error` refuses json_schema, or None if it is an ordinary failure."""
            if error.status_code not in _REFUSAL_STATUSES:
                return None
            text = f"{error.message} {error.body!r}".lower()
            if any(word in text for word in _SCHEMA_PROBLEM_WORDS):
                return "schema"
            if any(word in text for word in _REFUSAL_WORDS):
                return "endpoint" if unknown else "schema"
            return "guess" if unknown and error.status_code in _SILENT_REFUSAL_STATUSES else None

        return check

    async def _complete(
        self,
        params: dict[str, Any],
        prompt: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        refusal: Callable[[openai.APIStatusError], _Refusal | None] | None = None,
    ) -> Completion:
        attempt = 0
        while True:
            attempt += 1
            try:
                async with asyncio.timeout(self._timeout):
                    response = await self._client.chat.completions.create(**params, timeout=self._timeout)
                break
            except openai.APIStatusError as error:
                kind = refusal(error) if refusal is not None else None
                if kind is not None:
                    raise _SchemaRefused(error, kind) from error
                await self._before_retry(error, attempt)
            except (openai.APIError, TimeoutError) as error:
                await self._before_retry(error, attempt)

        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice is not None else None) or ""
        usage = self._usage(response.usage, prompt, text)
        await self._record(usage, campaign_id=campaign_id, purpose=purpose)
        return Completion(
            text=text,
            usage=usage,
            model=response.model or self.model,
            finish_reason=choice.finish_reason if choice is not None else None,
        )

    async def _before_retry(self, error: Exception, attempt: int) -> None:
        """Sleep before the next attempt, or raise `LLMUnavailable` if `error` is final."""
        status = error.status_code if isinstance(error, openai.APIStatusError) else None
        if status is not None and status not in _RETRYABLE_STATUSES and status < 500:
            raise self._refused(error, status, attempt) from error
        if attempt > self._max_retries:
            tries = "1 try" if attempt == 1 else f"{attempt} tries"
            raise LLMUnavailable(
                f"The language model at {self.host} did not answer after {tries}.",
                status_code=status,
                attempts=attempt,
            ) from error
        delay = self._backoff(attempt)
        if isinstance(error, openai.APIStatusError):
            asked = _retry_after(error.response.headers)
            if asked is not None:
                if asked > self._max_retry_after:
                    raise LLMUnavailable(
                        f"The language model at {self.host} is busy and asked to wait {asked:.0f} seconds. "
                        "Please try again later.",
                        status_code=status,
                        attempts=attempt,
                    ) from error
                delay = asked
        log.warning(
            "LLM call to %s failed (%s), attempt %d of %d; retrying in %.2fs",
            self.host,
            _describe(error),
            attempt,
            self._max_retries + 1,
            delay,
        )
        await self._sleep(delay)

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self._backoff_max, self._backoff_base * 2.0 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def _refused(self, error: Exception, status: int, attempt: int) -> LLMUnavailable:
        if status == 401:
            message = (
                f"The language model at {self.host} rejected the API key (HTTP 401). "
                "Check LOREKEEPER_LLM__API_KEY."
            )
        elif status == 403:
            message = (
                f"The language model at {self.host} refused access (HTTP 403). Check the API key's rights."
            )
        elif status == 404:
            message = (
                f"The language model at {self.host} has no model named {self.model!r} or no chat endpoint "
                "(HTTP 404). Check LOREKEEPER_LLM__MODEL and LOREKEEPER_LLM__BASE_URL (it usually ends in /v1)."
            )
        else:
            detail = _server_message(error)
            message = f"The language model at {self.host} refused the request (HTTP {status})" + (
                f": {detail}" if detail else "."
            )
        return LLMUnavailable(message, status_code=status, attempts=attempt)

    def _usage(self, reported: Any, prompt: Sequence[ChatMessage], text: str) -> Usage:
        if reported is not None and (reported.prompt_tokens or reported.completion_tokens):
            return Usage(
                prompt_tokens=reported.prompt_tokens or 0, completion_tokens=reported.completion_tokens or 0
            )
        # Four tokens per message approximates the chat template's role markers.
        prompt_tokens = sum(self._count(m.content) + 4 for m in prompt)
        return Usage(prompt_tokens=prompt_tokens, completion_tokens=self._count(text), estimated=True)

    async def _record(self, usage: Usage, *, campaign_id: int | None, purpose: str) -> None:
        try:
            await self._ledger.record(
                campaign_id, purpose, self.model, usage.prompt_tokens, usage.completion_tokens
            )
        except Exception:
            # Accounting must not cost the player the reply they already paid for.
            log.exception("Could not record LLM token usage for campaign %s (%s)", campaign_id, purpose)


def build_llm(
    settings: LLMSettings,
    ledger: TokenLedger,
    *,
    token_counter: Callable[[str], int] | None = None,
) -> OpenAICompatibleLLM | None:
    """Return the configured LLM adapter, or None when no endpoint and model are set."""
    if not settings.configured:
        return None
    return OpenAICompatibleLLM.from_settings(settings, ledger, token_counter=token_counter)


def require_llm(llm: LLMClient | None) -> LLMClient:
    """Return `llm`, or raise `LLMUnavailable` with a message telling the operator how to configure one."""
    if llm is None:
        raise LLMUnavailable(NOT_CONFIGURED_MESSAGE)
    return llm


# --- helpers ------------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def _parse(text: str, response_model: type[T]) -> T:
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
            raise _Invalid(
                f"The reply is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})."
            ) from None
    try:
        return response_model.model_validate(data)
    except ValidationError as error:
        problems = []
        for problem in error.errors(include_url=False)[:_MAX_REPAIR_ERRORS]:
            where = ".".join(str(part) for part in problem["loc"]) or "(the whole object)"
            problems.append(f"- {where}: {problem['msg']}")
        raise _Invalid("The JSON does not match the schema:\n" + "\n".join(problems)) from None


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


def _repair_request(problem: str) -> str:
    return (
        f"Your previous reply could not be used. {problem}\n"
        "Reply again with only the corrected JSON object: no explanation, no code fences."
    )


def _retry_after(headers: Any) -> float | None:
    """Return the delay a `retry-after-ms` or `Retry-After` header asks for, in seconds."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _server_message(error: Exception) -> str:
    body = getattr(error, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str):
        message = getattr(error, "message", "") or ""
    message = " ".join(message.split())
    return message[:_SERVER_MESSAGE_CHARS]


def _describe(error: Exception) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, openai.APITimeoutError | TimeoutError):
        return "timeout"
    return type(error).__name__
