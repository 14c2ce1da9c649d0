"""How calls to the language model fail, and what is done about it: the failure policy, in one place.

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

import email.utils
from datetime import UTC, datetime
from typing import Any, Literal

import openai

# Retried: request timeout, conflict (OpenAI uses it for lock contention), rate limit, every 5xx.
RETRYABLE_STATUSES = frozenset({408, 409, 429})
# Statuses with which servers refuse a response_format they do not support.
_REFUSAL_STATUSES = frozenset({400, 422, 500, 501})
_REFUSAL_WORDS = ("response_format", "json_schema")
# OpenAI's wording when it supports json_schema but rejects this particular schema (strict-mode rules).
_SCHEMA_PROBLEM_WORDS = ("invalid schema",)

# Statuses that may refuse json_schema without saying so (a 500 that does not say so is taken as transient).
_SILENT_REFUSAL_STATUSES = frozenset({400, 422, 501})

# How a json_schema request was refused: the endpoint lacks the format ("endpoint", remembered), this one
# schema was rejected ("schema"), or an unexplained 4xx/501 while support is still unknown ("guess").
Refusal = Literal["endpoint", "schema", "guess"]
_SERVER_MESSAGE_CHARS = 300


def is_final(status: int | None) -> bool:
    """Return whether a failure with this HTTP status is not worth retrying (a 4xx other than the retried)."""
    return status is not None and status not in RETRYABLE_STATUSES and status < 500


def refusal_kind(error: openai.APIStatusError, *, support_unknown: bool) -> Refusal | None:
    """Return how `error` refuses a json_schema request, or None if it is an ordinary failure."""
    if error.status_code not in _REFUSAL_STATUSES:
        return None
    text = f"{error.message} {error.body!r}".lower()
    if any(word in text for word in _SCHEMA_PROBLEM_WORDS):
        return "schema"
    if any(word in text for word in _REFUSAL_WORDS):
        return "endpoint" if support_unknown else "schema"
    return "guess" if support_unknown and error.status_code in _SILENT_REFUSAL_STATUSES else None


#: The settings to check after a refusal, for the operator's log (never the table's text).
SETTINGS_TO_CHECK = {
    401: "LOREKEEPER_LLM__API_KEY",
    403: "LOREKEEPER_LLM__API_KEY",
    404: "LOREKEEPER_LLM__MODEL and LOREKEEPER_LLM__BASE_URL (it usually ends in /v1)",
}


def refused_message(error: Exception, status: int, *, host: str, model: str) -> str:
    """Return what to tell people when the endpoint refuses a request for good (a 4xx not retried); the settings
    to check are the log's (`SETTINGS_TO_CHECK`)."""
    if status == 401:
        return (
            f"The language model at {host} rejected the API key (HTTP 401): whoever runs the bot can check "
            "the key it is given."
        )
    if status == 403:
        return f"The language model at {host} refused access (HTTP 403). Check the API key's rights."
    if status == 404:
        return (
            f"The language model at {host} has no model named {model!r} or no chat endpoint "
            "(HTTP 404): whoever runs the bot can check the model's name and the endpoint's address."
        )
    detail = server_message(error)
    return f"The language model at {host} refused the request (HTTP {status})" + (
        f": {detail}" if detail else "."
    )


def retry_after(headers: Any) -> float | None:
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


def server_message(error: Exception) -> str:
    """Return the server's own error message, on one line and cut short."""
    body = getattr(error, "body", None)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str):
        message = getattr(error, "message", "") or ""
    message = " ".join(message.split())
    return message[:_SERVER_MESSAGE_CHARS]


def describe(error: Exception) -> str:
    """Return a failure in a few words for the log (a status, a timeout, an error's kind)."""
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, openai.APITimeoutError | TimeoutError):
        return "timeout"
    return type(error).__name__
