"""Script the LLM stub for the game-master's voice: answer each kind of prompt with its own handler.

    script = VoiceScript(extraction=lambda body: Reply.json({"items": [...]}), narration="The fog lifts.")
    async with LLMStub(responder=script) as stub: ...

The kind of a request is read from its system prompt (the first message). A handler is a `Reply`, a string
(served as the reply's text), a dict (served as JSON), a list of those (served in turn, the last one
repeating), or a callable `(request body) -> any of those`. Every request is kept in `script.seen[kind]`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from tests.helpers.llm_stub import Reply

KINDS = {
    "extraction": "You extract proposed canon",
    "narration": "You are the narrator",
    "npc_memory": "You write the memories of",
    "summary": "You write the campaign log",
    "npc_talk": "a character in a tabletop roleplaying campaign, speaking with",
}

Handler = Reply | str | dict[str, Any] | list[Any] | Callable[[dict[str, Any]], Any]


def kind_of(body: dict[str, Any]) -> str:
    """Return which voice prompt a request is."""
    messages = body.get("messages") or [{}]
    system = str(messages[0].get("content", ""))
    for kind, marker in KINDS.items():
        if marker in system:
            return kind
    return "unknown"


def user_text(body: dict[str, Any]) -> str:
    """Return the text of every user message of a request."""
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")


def prompt_text(body: dict[str, Any]) -> str:
    """Return every message of a request, joined."""
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


_FRAME = re.compile(r"<<<DATA (\S+) (\w+)[^\n]*>>>\n(.*?)\n<<<END DATA \1 \2>>>", re.DOTALL)


def outside_frames(text: str) -> str:
    """Return a prompt's text with every data frame cut out: what the model may take as instructions."""
    return _FRAME.sub("", text)


def framed(text: str, kind: str) -> list[str]:
    """Return the bodies of a prompt's data frames of one kind (e.g. the `character` an NPC prompt is for)."""
    return [m.group(3) for m in _FRAME.finditer(text) if m.group(1) == kind]


def _as_reply(value: Any) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply.text(value)
    return Reply.json(value)


class VoiceScript:
    """A stub responder answering each kind of voice prompt with its own handler."""

    def __init__(self, **handlers: Handler) -> None:
        self.handlers: dict[str, Handler] = {
            "extraction": {"items": []},
            "narration": "The wind rises over the harbour.",
            "npc_memory": {"memories": [], "links": []},
            "summary": "A scene was played.",
            "npc_talk": "I have nothing to say to you.",
            **handlers,
        }
        self.seen: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        kind = kind_of(body)
        self.seen[kind].append(body)
        handler = self.handlers.get(kind, "unscripted")
        value = (handler.pop(0) if len(handler) > 1 else handler[0]) if isinstance(handler, list) else handler
        if callable(value) and not isinstance(value, Reply):
            value = value(body)
        return _as_reply(value)

    def prompts(self, kind: str) -> list[str]:
        """Return the full text of every request of a kind."""
        return [prompt_text(body) for body in self.seen[kind]]


def items_reply(*items: dict[str, Any]) -> dict[str, Any]:
    """Return an extraction reply holding `items`."""
    return {"items": list(items)}


def dumps(value: Any) -> str:
    """Return JSON text (for malformed-reply tests built from a valid one)."""
    return json.dumps(value)
