r"""The jargon scan: every message, embed, control, form, suggestion and file anyone can see, checked for the
program's words, as Discord renders them.

`JargonRecorder` keeps a copy of every version of every message the bot (or its webhooks) posts or edits in
the emulator, so a card later edited still counts as it was shown, and every form (modal) and list of
autocomplete suggestions the bot answers with. Both sides are read: what players see, and the GM's private
answers too. The text is read as Discord shows it: a markdown escape (`3rd\_age`) is read as the character
it escapes (`3rd_age`). Any relation constant, raw date key, internal word or id fails the scan, and so does
a fact's handle, "(fact 53)" or "fact 53": a fact is named by its words (a suggestion may send the handle back
as its value, which nobody reads).

A refusal may quote back what the user typed (`got "…"`); that echo is theirs and is not read, nor is an
example of what to type, shown as code (e.g. `tidewater_age.year_336`). A card's own
numbering (#1, #2 … of a review card) is not an id; ids are caught as "fact #12", "entity #4",
"changeset #5" or a bare `#19` in code.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel

from bot.offline.emulator import Guild
from bot.offline.emulator.messages import StoredMessage
from bot.offline.emulator.models import LOADING
from bot.offline.emulator.rest_base import RestContext
from config.settings import Settings

JARGON = {
    "a relation constant": re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b"),
    "a raw date key": re.compile(r"\b[a-z0-9_-]+\.year_-?[0-9]+"),
    "the word ontology": re.compile(r"\bontolog(y|ies)\b", re.I),
    "the word changeset": re.compile(r"\bchange ?sets?\b", re.I),
    "the word statement": re.compile(r"\bstatements?\b", re.I),
    # The host's words (an environment variable, a settings key) belong in the log and the README.
    "a setting's name": re.compile(
        r"\bLOREKEEPER_[A-Z0-9_]+\b|\b(?:"
        + "|".join(
            re.escape(f"{section}.{key}")
            for section, field in Settings.model_fields.items()
            if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
            for key in field.annotation.model_fields
        )
        + r")\b"
    ),
    "a fact's handle": re.compile(r"\(fact #?[0-9]+\)|\bfact [0-9]+\b", re.I),
    "an internal id": re.compile(
        r"\b(entity|entities|fact|facts|changeset|proposal|scene|source|chunk|campaign|conflict|turn) #[0-9]+"
        r"|`#[0-9]+`",
        re.I,
    ),
}
_LINK_TARGET = re.compile(r"\]\(<?https?://[^)\s]*>?\)|<?https?://\S+")
# A refusal quotes back what the user typed (`got "3rd_age.year_abc"`): their own words, not ours.
_ECHO = re.compile(r'\bgot "[^"]*"')
# An example of what to type (e.g. `tidewater_age.year_336`) is the form the user types, shown as code.
_TYPE_IT = re.compile(r"\b(?:e\.g\.|like) `[^`]*`")
_TEXT_FILES = (".txt", ".md", ".json", ".yaml", ".yml", ".csv")


# Discord shows `\_` as `_`: a scan of the raw text would miss `3rd\_age.year\_352`.
_MARKDOWN_ESCAPE = re.compile(r"\\([^\sA-Za-z0-9])")


def rendered(text: str) -> str:
    """Return text as Discord shows it: markdown escapes read as the characters they escape."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


def modal_texts(modal: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Yield (where, text) for everything a form shows: its title, labels, descriptions, placeholders, the
    values it is filled with and its selects' options."""
    yield "form", modal.get("title") or ""

    def walk(node: Any) -> Iterator[tuple[str, str]]:
        if isinstance(node, list):
            for item in node:
                yield from walk(item)
            return
        if not isinstance(node, dict):
            return
        for key in ("label", "description", "placeholder", "value", "content"):
            if isinstance(node.get(key), str):
                yield "form", node[key]
        for option in node.get("options") or []:
            yield "form", f"{option.get('label', '')} {option.get('description', '')}"
        for key in ("components", "component"):
            if key in node:
                yield from walk(node[key])

    yield from walk(modal.get("components") or [])


def message_texts(data: dict[str, Any], files: dict[str, bytes]) -> Iterator[tuple[str, str]]:
    """Yield (where, text) for everything a message shows: content, embeds, controls, text files."""
    yield "content", data.get("content") or ""
    for index, embed in enumerate(data.get("embeds") or []):
        where = f"embed {index}"
        yield where, embed.get("title") or ""
        yield where, embed.get("description") or ""
        yield where, (embed.get("author") or {}).get("name") or ""
        yield where, (embed.get("footer") or {}).get("text") or ""
        for item in embed.get("fields") or []:
            yield where, f"{item.get('name', '')}\n{item.get('value', '')}"
    for row in data.get("components") or []:
        for component in row.get("components") or []:
            yield (
                "controls",
                " ".join(str(component.get(key) or "") for key in ("label", "placeholder"))
                + " ".join(
                    f"{o.get('label', '')} {o.get('description', '')}" for o in component.get("options") or []
                ),
            )
    for name, blob in files.items():
        if name.lower().endswith(_TEXT_FILES):
            yield f"file {name}", blob.decode("utf-8", "replace")


def jargon_in(text: str) -> list[str]:
    """Return what jargon a text holds, as "kind: match", once per kind (links' addresses are not read)."""
    readable = _TYPE_IT.sub("e.g.", _ECHO.sub("got", _LINK_TARGET.sub("]", rendered(text))))
    return [f"{kind}: {m[0]!r}" for kind, pattern in JARGON.items() if (m := pattern.search(readable))]


@dataclass
class JargonRecorder:
    """Every version of every message the bot posted or edited, as it was then; every form and suggestion list
    it answered with (as messages only their asker sees)."""

    seen: list[tuple[dict[str, Any], dict[str, bytes]]] = field(default_factory=list)

    def record(self, stored: StoredMessage) -> None:
        self.seen.append((copy.deepcopy(stored.data), dict(stored.files)))

    def record_answer(self, record: Any, body: dict[str, Any]) -> None:
        """Keep a form or a list of suggestions the bot answered an interaction with, as its asker sees it."""
        kind, data = int(body.get("type", 0)), body.get("data") or {}
        seen_by = {"flags": 64, "interaction_metadata": {"user": {"id": str(record.user.id)}}}
        if kind == 9:
            self.seen.append(({**seen_by, "modal": copy.deepcopy(data)}, {}))
        elif kind == 8:
            names = " · ".join(str(c.get("name", "")) for c in data.get("choices") or [])
            self.seen.append(({**seen_by, "suggestions": names}, {}))

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Record every message the emulator stores for the bot, every edit of one, and every form and list of
        suggestions the bot answers with."""
        from bot.offline.emulator.rest_interactions import InteractionRoutes

        build: Callable[..., StoredMessage] = RestContext.build_bot_message
        edit: Callable[..., None] = RestContext.apply_edit
        callback = InteractionRoutes.callback

        def recorded_build(rest: RestContext, *args: Any, **kwargs: Any) -> StoredMessage:
            stored = build(rest, *args, **kwargs)
            self.record(stored)
            return stored

        def recorded_edit(rest: RestContext, stored: StoredMessage, *args: Any, **kwargs: Any) -> None:
            edit(rest, stored, *args, **kwargs)
            if stored.from_bot or stored.data.get("webhook_id"):
                self.record(stored)

        async def recorded_callback(rest: InteractionRoutes, req: Any) -> tuple[int, Any]:
            answer = await callback(rest, req)
            record = rest.emu.interactions.get(int(req.params["interaction_id"]))
            if record is not None:
                self.record_answer(record, req.json or {})
            return answer

        monkeypatch.setattr(RestContext, "build_bot_message", recorded_build)
        monkeypatch.setattr(RestContext, "apply_edit", recorded_edit)
        monkeypatch.setattr(InteractionRoutes, "callback", recorded_callback)

    def visible(
        self, guild: Guild, gm_role_id: int
    ) -> Iterator[tuple[str, dict[str, Any], dict[str, bytes]]]:
        """Yield (who, message, files) for every recorded message: who reads it, "a player" or "the GM"."""
        for data, files in self.seen:
            if data.get("flags", 0) & LOADING and not data.get("content") and not data.get("embeds"):
                continue
            who = "a player"
            if data.get("flags", 0) & 64:  # ephemeral: seen by whoever the interaction answers
                user = (data.get("interaction_metadata") or {}).get("user") or {}
                member = guild.members.get(int(user.get("id") or 0))
                if member is not None and gm_role_id in member.role_ids:
                    who = "the GM"
            yield who, data, files

    def player_visible(self, guild: Guild, gm_role_id: int) -> Iterator[dict[str, Any] | Any]:
        """Yield the recorded messages a player could see (not the GM's ephemeral answers)."""
        for who, data, files in self.visible(guild, gm_role_id):
            if who == "a player":
                yield data, files

    def problems(self, guild: Guild, gm_role_id: int) -> list[str]:
        """Return every piece of jargon anyone could have read, with who and where."""
        found: list[str] = []
        for who, data, files in self.visible(guild, gm_role_id):
            texts = list(message_texts(data, files))
            if "modal" in data:
                texts += list(modal_texts(data["modal"]))
            if "suggestions" in data:
                texts.append(("suggestions", data["suggestions"]))
            for where, text in texts:
                found += [
                    f"{who}, message {data.get('id')} ({where}): {hit} in {text[:300]!r}"
                    for hit in jargon_in(text)
                ]
        return found
