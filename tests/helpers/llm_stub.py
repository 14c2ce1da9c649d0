"""A local OpenAI-compatible chat server for tests, with scripted replies.

`respx` and `pytest-httpx` cannot intercept the current `openai` client, so tests talk to a real HTTP server on
127.0.0.1, run by aiohttp in the test's own event loop:

    async with LLMStub() as stub:
        stub.add(Reply.text("Hello"), Reply.error(429, retry_after="0"), Reply.json({"a": 1}))
        llm = OpenAICompatibleLLM(base_url=stub.base_url, model="stub-model", ledger=ledger)

Replies are served in order from the queue; with `responder=` a callback `(request_json) -> Reply` (sync or
async) answers whenever the queue is empty. With `no_json_schema=True` the stub answers a json_schema
`response_format` with llama.cpp's HTTP 500, without consuming a reply. Every request body is kept in `requests`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aiohttp import web

STUB_MODEL = "stub-model"
LLAMA_CPP_JSON_SCHEMA_ERROR = (
    'response_format type must be one of "text" or "json_object", but got: json_schema'
)


@dataclass
class Reply:
    """One scripted answer: text (streamed in `chunks` when the request streams) or an HTTP error."""

    content: str = ""
    status: int = 200
    error_body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    chunk_delay: float = 0.0
    chunks: list[str] | None = None
    send_usage: bool = True
    finish_reason: str = "stop"

    @classmethod
    def text(cls, content: str, **options: Any) -> Reply:
        """Answer with `content` as the assistant message."""
        return cls(content=content, **options)

    @classmethod
    def json(cls, value: Any, **options: Any) -> Reply:
        """Answer with `value` serialised as JSON."""
        return cls(content=json.dumps(value), **options)

    @classmethod
    def raw(cls, content: str, **options: Any) -> Reply:
        """Answer with `content` as is (malformed JSON, prose, code fences)."""
        return cls(content=content, **options)

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        retry_after: str | None = None,
        body: Any = None,
        delay: float = 0.0,
    ) -> Reply:
        """Answer with an HTTP error in OpenAI's error shape (or `body` as given)."""
        if body is None:
            body = {
                "error": {
                    "code": status,
                    "message": message or f"stub error {status}",
                    "type": "server_error" if status >= 500 else "invalid_request_error",
                }
            }
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls(status=status, error_body=body, headers=headers, delay=delay)

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait `seconds` before answering (longer than the client's timeout to provoke one)."""
        reply = then or cls.text("(too late)")
        reply.delay = seconds
        return reply


Responder = Callable[[dict[str, Any]], "Reply | Awaitable[Reply]"]


def _count(text: str) -> int:
    return max(1, len(text) // 4)


class LLMStub:
    """An OpenAI-compatible `/v1/chat/completions` and `/v1/models` server on 127.0.0.1."""

    def __init__(
        self,
        *replies: Reply,
        responder: Responder | None = None,
        no_json_schema: bool = False,
        model: str = STUB_MODEL,
    ) -> None:
        self.replies: deque[Reply] = deque(replies)
        self.responder = responder
        self.no_json_schema = no_json_schema
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.unscripted = 0
        self.disconnects = 0
        self._request_seen = asyncio.Event()
        self._disconnect_seen = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

    # --- lifecycle ----------------------------------------------------------------------------------------

    async def __aenter__(self) -> LLMStub:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = int(self._runner.addresses[0][1])
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        """Return the URL to give the OpenAI client, ending in /v1."""
        assert self._port is not None, "use `async with LLMStub() as stub`"
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def host(self) -> str:
        """Return host:port, as error messages name the server."""
        assert self._port is not None
        return f"127.0.0.1:{self._port}"

    # --- scripting ----------------------------------------------------------------------------------------

    def add(self, *replies: Reply) -> None:
        """Queue replies, served in order."""
        self.replies.extend(replies)

    async def wait_for_request(self) -> None:
        """Return once a chat request has arrived."""
        await self._request_seen.wait()

    async def wait_for_disconnect(self) -> None:
        """Return once a client has hung up while the stub was still delaying or streaming its reply."""
        await self._disconnect_seen.wait()

    def response_formats(self) -> list[str | None]:
        """Return each chat request's `response_format.type` (None when absent)."""
        return [(body.get("response_format") or {}).get("type") for body in self.requests]

    # --- handlers -----------------------------------------------------------------------------------------

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "stub"}],
            }
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.request_headers.append(dict(request.headers))
        self._request_seen.set()

        response_format = body.get("response_format") or {}
        if self.no_json_schema and response_format.get("type") == "json_schema":
            return web.json_response(
                {"error": {"code": 500, "message": LLAMA_CPP_JSON_SCHEMA_ERROR, "type": "server_error"}},
                status=500,
            )

        reply = await self._next_reply(body)
        if reply.delay and not await self._wait(request, reply.delay):
            return web.Response(status=499)
        if reply.status != 200:
            if isinstance(reply.error_body, str):
                return web.Response(status=reply.status, text=reply.error_body, headers=reply.headers)
            return web.json_response(reply.error_body, status=reply.status, headers=reply.headers)
        if body.get("stream"):
            return await self._stream(request, body, reply)
        return web.json_response(self._completion(body, reply), headers=reply.headers)

    async def _next_reply(self, body: dict[str, Any]) -> Reply:
        if self.replies:
            return self.replies.popleft()
        if self.responder is not None:
            reply = self.responder(body)
            return await reply if inspect.isawaitable(reply) else reply
        self.unscripted += 1
        return Reply.error(500, "LLMStub: no scripted reply left")

    async def _wait(self, request: web.Request, seconds: float) -> bool:
        """Sleep `seconds`, returning False early if the client hangs up."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(0.01, remaining))
            transport = request.transport
            if transport is None or transport.is_closing():
                self.disconnects += 1
                self._disconnect_seen.set()
                return False
        return True

    def _usage(self, body: dict[str, Any], content: str) -> dict[str, int]:
        prompt = sum(_count(str(message.get("content", ""))) + 4 for message in body.get("messages", []))
        completion = _count(content)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        result: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
        }
        if reply.send_usage:
            result["usage"] = self._usage(body, reply.content)
        return result

    async def _stream(self, request: web.Request, body: dict[str, Any], reply: Reply) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **reply.headers}
        )
        await response.prepare(request)
        chunk_id = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        created = int(time.time())

        def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
            payload = {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model,
                "choices": choices,
                **extra,
            }
            return f"data: {json.dumps(payload)}\n\n".encode()

        pieces = reply.chunks if reply.chunks is not None else _split(reply.content)
        await response.write(
            chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        )
        for piece in pieces:
            if reply.chunk_delay and not await self._wait(request, reply.chunk_delay):
                return response
            await response.write(chunk([{"index": 0, "delta": {"content": piece}, "finish_reason": None}]))
        await response.write(chunk([{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}]))
        include_usage = (body.get("stream_options") or {}).get("include_usage")
        if include_usage and reply.send_usage:
            await response.write(chunk([], usage=self._usage(body, "".join(pieces))))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


def _split(content: str) -> list[str]:
    """Split text into word-sized deltas that join back to it exactly."""
    pieces: list[str] = []
    current = ""
    for character in content:
        current += character
        if character == " ":
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces
