"""Interaction records (what the bot answered) and the option typing of slash-command invocations."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .discord_rules import check_typed_value
from .messages import Attachment, StoredMessage
from .models import EPHEMERAL, Channel, Guild, Member, Role, User

# Application command option types
SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11

# Component types a modal submission carries
TEXT_INPUT = 4
LABEL = 18
FILE_UPLOAD = 19
RADIO_GROUP = 21
CHECKBOX = 23

# Interaction types
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5


class CommandNotAvailable(AssertionError):
    """Discord would not let this user run this command here (not synced, missing permissions, wrong context)."""


@dataclass(eq=False)
class InteractionResult:
    """Everything the bot did in answer to one interaction; live: later edits and followups show up.

    ``message`` is the message that finished the interaction: the type 4 reply, the updated
    component message (type 7, or type 6 followed by an edit), the edited original after a
    deferral, or the first followup when the deferral was never edited.
    """

    id: int
    token: str
    type: int
    label: str
    channel: Channel
    user: User
    member: Member | None
    payload: dict[str, Any]
    response_type: int | None = None
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    deferred: bool = False
    original: StoredMessage | None = None
    final: StoredMessage | None = None
    followup_messages: list[StoredMessage] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    source_message: StoredMessage | None = None
    #: When Discord created the interaction, on the emulator's interaction clock (its token expires from it).
    created_at: float = 0.0
    done: asyncio.Event = field(default_factory=asyncio.Event)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def __repr__(self) -> str:
        return (
            f"<InteractionResult {self.label!r} response_type={self.response_type} "
            f"deferred={self.deferred} done={self.done.is_set()}>"
        )

    @property
    def responded(self) -> bool:
        return self.response_type is not None

    @property
    def message(self) -> dict[str, Any] | None:
        return None if self.final is None else self.final.view()

    @property
    def original_message(self) -> dict[str, Any] | None:
        return None if self.original is None else self.original.view()

    @property
    def followups(self) -> list[dict[str, Any]]:
        return [m.view() for m in self.followup_messages]

    @property
    def content(self) -> str | None:
        return None if self.final is None else self.final.data.get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return [] if self.final is None else list(self.message["embeds"])  # type: ignore[index]

    @property
    def components(self) -> list[dict[str, Any]]:
        return [] if self.final is None else list(self.message["components"])  # type: ignore[index]

    @property
    def files(self) -> dict[str, bytes]:
        return {} if self.final is None else self.final.files

    @property
    def flags(self) -> int:
        return 0 if self.final is None else int(self.final.data.get("flags", 0))

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def touch(self) -> None:
        """Wake whoever waits for a change (a followup, an edit)."""
        self._changed.set()
        self._changed = asyncio.Event()

    def finish(self, final: StoredMessage | None) -> None:
        if not self.done.is_set():
            if final is not None:
                self.final = final
            self.done.set()
        self.touch()

    async def wait_for_followups(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Wait until the bot sent at least ``count`` followups; return them."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.followup_messages) < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"{self.label}: expected {count} followup(s), got {len(self.followup_messages)} "
                    f"within {timeout}s"
                )
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except TimeoutError:
                continue
        return self.followups


def walk_command(command: dict[str, Any], path: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Follow ``path`` (subcommand group, subcommand) down a synced command; return the leaf and its chain."""
    chain = [command]
    node = command
    for name in path:
        subs = [o for o in node.get("options", []) if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        match = next((o for o in subs if o["name"] == name), None)
        if match is None:
            known = ", ".join(o["name"] for o in subs) or "none"
            raise CommandNotAvailable(
                f"/{' '.join(c['name'] for c in chain)} has no subcommand {name!r} (synced: {known})"
            )
        chain.append(match)
        node = match
    leftover = [o["name"] for o in node.get("options", []) if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if leftover:
        raise CommandNotAvailable(
            f"/{' '.join(c['name'] for c in chain)} is a group; name a subcommand: {', '.join(leftover)}"
        )
    return node, chain


def nest_options(chain: list[dict[str, Any]], leaf_options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Wrap leaf options in the subcommand / group option objects Discord sends."""
    options = leaf_options
    for node in reversed(chain[1:]):
        options = [{"type": node["type"], "name": node["name"], "options": options}]
    return options


class OptionBuilder:
    """Type option values per the synced definitions and collect the ``resolved`` objects."""

    def __init__(self, label: str, guild: Guild | None, channel_permissions: int) -> None:
        self.label = label
        self.guild = guild
        self.channel_permissions = channel_permissions
        self.resolved: dict[str, dict[str, Any]] = {}

    def build(
        self,
        definitions: list[dict[str, Any]],
        values: dict[str, Any],
        *,
        focused: str | None = None,
        focused_value: str = "",
    ) -> list[dict[str, Any]]:
        by_name = {d["name"]: d for d in definitions}
        unknown = [n for n in values if n not in by_name]
        if unknown:
            raise CommandNotAvailable(
                f"{self.label}: unknown option(s) {unknown}; synced options: {list(by_name) or 'none'}"
            )
        if focused is not None:
            definition = by_name.get(focused)
            if definition is None:
                raise CommandNotAvailable(f"{self.label}: no option {focused!r} to autocomplete")
            if not definition.get("autocomplete"):
                raise CommandNotAvailable(
                    f"{self.label}: option {focused!r} was not synced with autocomplete"
                )
        else:
            missing = [d["name"] for d in definitions if d.get("required") and d["name"] not in values]
            if missing:
                raise CommandNotAvailable(f"{self.label}: required option(s) missing: {missing}")
        result = []
        for definition in definitions:
            name = definition["name"]
            if name == focused:
                result.append(
                    {"name": name, "type": definition["type"], "value": focused_value, "focused": True}
                )
            elif name in values:
                value = self.convert(definition, values[name])
                result.append({"name": name, "type": definition["type"], "value": value})
        return result

    def _fail(self, definition: dict[str, Any], message: str) -> CommandNotAvailable:
        return CommandNotAvailable(f"{self.label}: option {definition['name']!r} {message}")

    def convert(self, definition: dict[str, Any], value: Any) -> Any:
        kind = definition["type"]
        if kind == STRING:
            if not isinstance(value, str):
                raise self._fail(definition, f"takes a string, got {value!r}")
            if "min_length" in definition and len(value) < definition["min_length"]:
                raise self._fail(definition, f"is shorter than {definition['min_length']}")
            if "max_length" in definition and len(value) > definition["max_length"]:
                raise self._fail(definition, f"is longer than {definition['max_length']}")
        elif kind == INTEGER:
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._fail(definition, f"takes an integer, got {value!r}")
        elif kind == NUMBER:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self._fail(definition, f"takes a number, got {value!r}")
        elif kind == BOOLEAN:
            if not isinstance(value, bool):
                raise self._fail(definition, f"takes a boolean, got {value!r}")
        elif kind == USER:
            return self._resolve_user(definition, value)
        elif kind == CHANNEL:
            return self._resolve_channel(definition, value)
        elif kind == ROLE:
            return self._resolve_role(definition, value)
        elif kind == MENTIONABLE:
            if isinstance(value, Role):
                return self._resolve_role(definition, value)
            return self._resolve_user(definition, value)
        elif kind == ATTACHMENT:
            if not isinstance(value, Attachment):
                raise self._fail(definition, f"takes an attachment from make_attachment(), got {value!r}")
            self.resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
            return str(value.id)
        else:
            raise self._fail(definition, f"has an option type the emulator does not know: {kind}")
        if kind in (INTEGER, NUMBER):
            if "min_value" in definition and value < definition["min_value"]:
                raise self._fail(definition, f"is below {definition['min_value']}")
            if "max_value" in definition and value > definition["max_value"]:
                raise self._fail(definition, f"is above {definition['max_value']}")
        choices = definition.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise self._fail(definition, f"must be one of {[c['value'] for c in choices]}, got {value!r}")
        return value

    def _resolve_user(self, definition: dict[str, Any], value: Any) -> str:
        member: Member | None = None
        if isinstance(value, Member):
            member, user = value, value.user
        elif isinstance(value, User):
            user = value
            if self.guild is not None:
                member = self.guild.members.get(user.id)
        else:
            raise self._fail(definition, f"takes a Member or User record, got {value!r}")
        self.resolved.setdefault("users", {})[str(user.id)] = user.payload()
        if member is not None:
            data = member.payload(with_user=False, with_permissions=True)
            self.resolved.setdefault("members", {})[str(user.id)] = data
        return str(user.id)

    def _resolve_channel(self, definition: dict[str, Any], value: Any) -> str:
        if not isinstance(value, Channel):
            raise self._fail(definition, f"takes a Channel record, got {value!r}")
        allowed = definition.get("channel_types")
        if allowed and value.type not in allowed:
            raise self._fail(definition, f"accepts channel types {allowed}, got type {value.type}")
        data = value.payload()
        data["permissions"] = str(self.channel_permissions)
        self.resolved.setdefault("channels", {})[str(value.id)] = data
        return str(value.id)

    def _resolve_role(self, definition: dict[str, Any], value: Any) -> str:
        if not isinstance(value, Role):
            raise self._fail(definition, f"takes a Role record, got {value!r}")
        self.resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)


def modal_submission(
    modal: dict[str, Any], values: dict[str, Any], label: str
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Build a modal submit's components (and resolved attachments) from the modal and the values typed in.

    Values by custom_id: a string for text inputs and radio groups, a bool for checkboxes, a list
    for selects and checkbox groups, a list of ``Attachment`` records for file uploads. A field left out is
    submitted as the person left it: a text input with its prefilled value, a select with its preselected
    (``default``) options, or none.
    """
    unknown = set(values)
    resolved: dict[str, dict[str, Any]] = {}
    result: list[dict[str, Any]] = []

    def fill(component: dict[str, Any]) -> dict[str, Any] | None:
        custom_id = component.get("custom_id")
        if custom_id is None:
            return None
        unknown.discard(custom_id)
        kind = component["type"]
        entry: dict[str, Any] = {"type": kind, "custom_id": custom_id}
        if "id" in component:
            entry["id"] = component["id"]
        value = values.get(custom_id)
        if kind == TEXT_INPUT:
            text = value if value is not None else component.get("value") or ""
            if component.get("required", True) and not text:
                raise AssertionError(f"{label}: required modal field {custom_id!r} left empty")
            check_typed_value(component, text, f"{label} field {custom_id!r}")
            entry["value"] = text
        elif kind == CHECKBOX:
            entry["value"] = bool(value)
        elif kind == RADIO_GROUP:
            entry["value"] = value
        else:
            # As Discord: a select left alone submits the options shown as chosen (`default`), and only those.
            untouched = [o["value"] for o in component.get("options") or [] if o.get("default")]
            picked = list(value) if value is not None else untouched
            if kind == FILE_UPLOAD:
                for att in picked:
                    if not isinstance(att, Attachment):
                        raise AssertionError(f"{label}: file upload {custom_id!r} takes Attachment records")
                    resolved.setdefault("attachments", {})[str(att.id)] = att.payload()
                picked = [str(att.id) for att in picked]
            if component.get("required", True) and component.get("min_values", 1) > len(picked):
                raise AssertionError(f"{label}: modal field {custom_id!r} needs at least one value")
            entry["values"] = picked
        return entry

    for top in modal.get("components", []):
        if top["type"] == 1:
            inner = [e for e in (fill(c) for c in top.get("components", [])) if e is not None]
            result.append({"type": 1, "components": inner})
        elif top["type"] == LABEL:
            entry = fill(top["component"])
            if entry is not None:
                result.append({"type": LABEL, "component": entry})
    if unknown:
        raise AssertionError(f"{label}: the modal has no field(s) {sorted(unknown)}")
    return result, resolved
