"""The jargon scan: every message, embed, control and file a player can see, checked for the program's words.

`JargonRecorder` keeps a copy of every version of every message the bot (or its webhooks) posts or edits in
the emulator, so a card later edited still counts as it was shown. What a player can see is every message
that is not ephemeral, and the ephemeral ones answering a player (a GM's private answers may carry ids: the
GM's detail views). `assert_no_jargon` fails on any relation constant, raw date key, internal word or id.

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

from bot.emulator import Guild
from bot.emulator.models import LOADING, StoredMessage
from bot.emulator.rest_base import RestContext

JARGON = {
    "a relation constant": re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b"),
    "a raw date key": re.compile(r"\b[a-z0-9_-]+\.year_-?[0-9]+"),
    "the word ontology": re.compile(r"\bontolog(y|ies)\b", re.I),
    "the word changeset": re.compile(r"\bchange ?sets?\b", re.I),
    "the word statement": re.compile(r"\bstatements?\b", re.I),
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
    readable = _TYPE_IT.sub("e.g.", _ECHO.sub("got", _LINK_TARGET.sub("]", text)))
    return [f"{kind}: {m[0]!r}" for kind, pattern in JARGON.items() if (m := pattern.search(readable))]


@dataclass
class JargonRecorder:
    """Every version of every message the bot posted or edited, as it was then."""

    seen: list[tuple[dict[str, Any], dict[str, bytes]]] = field(default_factory=list)

    def record(self, stored: StoredMessage) -> None:
        self.seen.append((copy.deepcopy(stored.data), dict(stored.files)))

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Record every message the emulator stores for the bot, and every edit of one."""
        build: Callable[..., StoredMessage] = RestContext.build_bot_message
        edit: Callable[..., None] = RestContext.apply_edit

        def recorded_build(rest: RestContext, *args: Any, **kwargs: Any) -> StoredMessage:
            stored = build(rest, *args, **kwargs)
            self.record(stored)
            return stored

        def recorded_edit(rest: RestContext, stored: StoredMessage, *args: Any, **kwargs: Any) -> None:
            edit(rest, stored, *args, **kwargs)
            if stored.from_bot or stored.data.get("webhook_id"):
                self.record(stored)

        monkeypatch.setattr(RestContext, "build_bot_message", recorded_build)
        monkeypatch.setattr(RestContext, "apply_edit", recorded_edit)

    def player_visible(self, guild: Guild, gm_role_id: int) -> Iterator[dict[str, Any] | Any]:
        """Yield the recorded messages a player could see (not the GM's ephemeral answers)."""
        for data, files in self.seen:
            if data.get("flags", 0) & LOADING and not data.get("content") and not data.get("embeds"):
                continue
            if data.get("flags", 0) & 64:  # ephemeral: seen by whoever the interaction answers
                user = (data.get("interaction_metadata") or {}).get("user") or {}
                member = guild.members.get(int(user.get("id") or 0))
                if member is not None and gm_role_id in member.role_ids:
                    continue
            yield data, files

    def problems(self, guild: Guild, gm_role_id: int) -> list[str]:
        """Return every piece of jargon a player could have read, with where it was."""
        found: list[str] = []
        for data, files in self.player_visible(guild, gm_role_id):
            for where, text in message_texts(data, files):
                found += [
                    f"message {data.get('id')} ({where}): {hit} in {text[:300]!r}" for hit in jargon_in(text)
                ]
        return found
