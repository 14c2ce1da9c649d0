"""The OpenAI-compatible adapter's retry waits and token accounting, apart from its calls.

`RetryPolicy` decides, after a failed attempt, whether to give up (`LLMUnavailable`) or how long to wait;
`UsageAccounting` works out a call's token usage (the server's or an estimate) and records it in the ledger.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import openai

from bot.llm.client import ChatMessage, LLMUnavailable, TokenLedger, Usage
from bot.llm.failures import SETTINGS_TO_CHECK, describe, is_final, refused_message, retry_after

log = logging.getLogger("bot.llm.openai_compatible")


class RetryPolicy:
    """When to retry a failed call to one endpoint, and how long to wait first."""

    def __init__(
        self,
        *,
        host: str,
        model: str,
        max_retries: int,
        backoff_base: float,
        backoff_max: float,
        max_retry_after: float,
        sleep: Callable[[float], Awaitable[None]],
    ) -> None:
        self.host = host
        self.model = model
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.sleep = sleep

    async def before_retry(self, error: Exception, attempt: int) -> None:
        """Sleep before the next attempt, or raise `LLMUnavailable` if `error` is final."""
        status = error.status_code if isinstance(error, openai.APIStatusError) else None
        if status is not None and is_final(status):
            message = refused_message(error, status, host=self.host, model=self.model)
            if status in SETTINGS_TO_CHECK:
                log.warning("%s Check %s.", message, SETTINGS_TO_CHECK[status])
            raise LLMUnavailable(message, status_code=status, attempts=attempt) from error
        if attempt > self.max_retries:
            tries = "1 try" if attempt == 1 else f"{attempt} tries"
            raise LLMUnavailable(
                f"The language model at {self.host} did not answer after {tries}.",
                status_code=status,
                attempts=attempt,
            ) from error
        delay = self.backoff(attempt)
        if isinstance(error, openai.APIStatusError):
            asked = retry_after(error.response.headers)
            if asked is not None:
                if asked > self.max_retry_after:
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
            describe(error),
            attempt,
            self.max_retries + 1,
            delay,
        )
        await self.sleep(delay)

    def backoff(self, attempt: int) -> float:
        """Return the jittered delay before attempt `attempt + 1` (between half and all of `base * 2**n`)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** (attempt - 1))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


class UsageAccounting:
    """A call's token usage, as the server reports it or estimated, and its record in the ledger."""

    def __init__(self, *, model: str, ledger: TokenLedger, count: Callable[[str], int]) -> None:
        self.model = model
        self.ledger = ledger
        self.count = count

    def usage(self, reported: Any, prompt: Sequence[ChatMessage], text: str) -> Usage:
        """Return the server's usage, or an estimate when it reports none."""
        if reported is not None and (reported.prompt_tokens or reported.completion_tokens):
            return Usage(
                prompt_tokens=reported.prompt_tokens or 0, completion_tokens=reported.completion_tokens or 0
            )
        # Four tokens per message approximates the chat template's role markers.
        prompt_tokens = sum(self.count(m.content) + 4 for m in prompt)
        return Usage(prompt_tokens=prompt_tokens, completion_tokens=self.count(text), estimated=True)

    async def record(self, usage: Usage, *, campaign_id: int | None, purpose: str) -> None:
        """Record the usage, logging (never raising) when the ledger fails."""
        try:
            await self.ledger.record(
                campaign_id, purpose, self.model, usage.prompt_tokens, usage.completion_tokens
            )
        except Exception:
            # Accounting must not cost the player the reply they already paid for.
            log.exception("Could not record LLM token usage for campaign %s (%s)", campaign_id, purpose)
