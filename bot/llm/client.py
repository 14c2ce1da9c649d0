"""The language-model port: messages, completions, usage and the token ledger the services depend on.

Services depend on `LLMClient` (a Protocol) and `TokenLedger`; the composition root builds an
`OpenAICompatibleLLM` (`bot.llm.openai_compatible`) with `build_llm` and hands it down. Everything the model
returns is data: callers frame it as untrusted before showing it or feeding it back into a prompt. This module
imports no HTTP client: what only needs the port's types stays light.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from canon.errors import GameError, Unavailable

T = TypeVar("T", bound=BaseModel)

NOT_CONFIGURED_MESSAGE = (
    "No language model is configured, and this needs one: whoever runs the bot can set one up "
    "(the language model settings in the README)."
)


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


def require_llm(llm: LLMClient | None) -> LLMClient:
    """Return `llm`, or raise `LLMUnavailable` with a message telling the operator how to configure one."""
    if llm is None:
        raise LLMUnavailable(NOT_CONFIGURED_MESSAGE)
    return llm
