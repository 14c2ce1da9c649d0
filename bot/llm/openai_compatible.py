"""The adapter of the language-model port for any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp,
Ollama, LM Studio and the like): retries, structured output with its fallback, streaming, token accounting.

What is retried and how a refusal downgrades structured output is `bot.llm.failures`'s policy; the response
formats, parsing and the repair request are `bot.llm.structured`'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel

from bot.llm.client import (
    NOT_CONFIGURED_MESSAGE,
    ChatMessage,
    Completion,
    LLMOutputInvalid,
    LLMUnavailable,
    Structured,
    TokenLedger,
)
from bot.llm.failures import Refusal, refusal_kind
from bot.llm.retries import RetryPolicy, UsageAccounting
from bot.llm.structured import (
    Invalid,
    json_object_format,
    json_schema_format,
    parse,
    repair_request,
    with_schema_instruction,
)
from config.settings import LLMSettings

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


def _approximate_tokens(text: str) -> int:
    return len(text) // 4


class _SchemaRefused(Exception):
    def __init__(self, error: openai.APIStatusError, kind: Refusal) -> None:
        super().__init__(str(error))
        self.error = error
        self.kind = kind


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
        self._timeout = timeout_seconds
        self._temperature = temperature
        self._strict_schema = strict_schema
        self._schema_in_json_object = schema_in_json_object
        self._retries = RetryPolicy(
            host=self.host,
            model=model,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_retry_after=max_retry_after,
            sleep=sleep,
        )
        self._accounting = UsageAccounting(
            model=model, ledger=ledger, count=token_counter or _approximate_tokens
        )
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
        options: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        first, prompt, response_format = await self._first_structured(
            messages, response_model, campaign_id=campaign_id, purpose=purpose, **options
        )
        try:
            value = parse(first.text, response_model)
        except Invalid as invalid:
            problem = invalid.problem
        else:
            return Structured(value=value, usage=first.usage, repaired=False, raw=first.text)

        log.info("Repairing invalid structured output for %s (%s)", response_model.__name__, purpose)
        repair_prompt = [
            *prompt,
            ChatMessage.assistant(first.text),
            ChatMessage.user(repair_request(problem)),
        ]
        repair_params = self._params(repair_prompt, response_format=response_format, **options)
        second = await self._complete(repair_params, repair_prompt, campaign_id=campaign_id, purpose=purpose)
        usage = first.usage + second.usage
        try:
            value = parse(second.text, response_model)
        except Invalid as invalid:
            raise LLMOutputInvalid(
                second.text, invalid.problem, response_model=response_model.__name__
            ) from None
        return Structured(value=value, usage=usage, repaired=True, raw=second.text)

    async def _first_structured(
        self,
        messages: Sequence[ChatMessage],
        response_model: type[BaseModel],
        *,
        campaign_id: int | None,
        purpose: str,
        max_tokens: int | None,
        temperature: float | None,
    ) -> tuple[Completion, list[ChatMessage], dict[str, Any]]:
        """Ask with json_schema unless the endpoint refused it; on a refusal, ask again with json_object.

        Return the reply, the prompt it answered and the response format a repair must use.
        """
        options: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if self._json_schema_supported is not False:
            response_format = json_schema_format(response_model, strict_schema=self._strict_schema)
            prompt = list(messages)
            params = self._params(prompt, response_format=response_format, **options)
            try:
                first = await self._complete(
                    params, prompt, campaign_id=campaign_id, purpose=purpose, refusal=self._refusal_check()
                )
            except _SchemaRefused as refused:
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
                return first, prompt, response_format
        prompt = with_schema_instruction(messages, response_model)
        response_format = json_object_format(response_model, with_schema=self._schema_in_json_object)
        params = self._params(prompt, response_format=response_format, **options)
        first = await self._complete(params, prompt, campaign_id=campaign_id, purpose=purpose)
        return first, prompt, response_format

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
                    await self._retries.before_retry(error, attempt)
        finally:
            if parts or finished:
                await self._accounting.record(
                    self._accounting.usage(reported, messages, "".join(parts)),
                    campaign_id=campaign_id,
                    purpose=purpose,
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

    def _refusal_check(self) -> Callable[[openai.APIStatusError], Refusal | None]:
        unknown = self._json_schema_supported is None
        return lambda error: refusal_kind(error, support_unknown=unknown)

    async def _complete(
        self,
        params: dict[str, Any],
        prompt: Sequence[ChatMessage],
        *,
        campaign_id: int | None,
        purpose: str,
        refusal: Callable[[openai.APIStatusError], Refusal | None] | None = None,
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
                await self._retries.before_retry(error, attempt)
            except (openai.APIError, TimeoutError) as error:
                await self._retries.before_retry(error, attempt)

        choice = response.choices[0] if response.choices else None
        text = (choice.message.content if choice is not None else None) or ""
        usage = self._accounting.usage(response.usage, prompt, text)
        await self._accounting.record(usage, campaign_id=campaign_id, purpose=purpose)
        return Completion(
            text=text,
            usage=usage,
            model=response.model or self.model,
            finish_reason=choice.finish_reason if choice is not None else None,
        )


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
