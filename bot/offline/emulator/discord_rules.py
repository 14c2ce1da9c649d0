"""Discord's documented rules beyond a payload's shape, enforced by the REST handlers.

Each rule cites the page of Discord's developer documentation it comes from, as a path under
https://discord.com/developers/docs/ (for example ``resources/webhook#create-webhook``). Where the
documentation calls a behaviour deprecated, or says nothing about it, the emulator still does what Discord
does but logs an ERROR (``DiscordEmulator.deprecations`` keeps the list), so that a test relying on it fails.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

_log = logging.getLogger("bot.offline.emulator")


class ApiError(Exception):
    """A Discord-shaped error answer."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            nested: dict[str, Any] = {}
            for path, text in self.errors.items():
                node = nested
                for part in path.split("."):
                    node = node.setdefault(part, {})
                node.setdefault("_errors", []).append({"code": "EMULATOR_CHECK", "message": text})
            data["errors"] = nested
        return data


def invalid(errors: dict[str, str]) -> ApiError:
    """Return Discord's 400 Invalid Form Body (50035) with the failing fields."""
    return ApiError(400, 50035, "Invalid Form Body", errors)


def deprecated(sink: list[str], what: str) -> None:
    """Record a deprecated or undocumented behaviour the bot relied on, and log it as an ERROR."""
    sink.append(what)
    _log.error("Discord emulator: %s", what)


# ---------------------------------------------------------------------- interaction tokens

#: interactions/receiving-and-responding#responding-to-an-interaction: "Interaction tokens are valid for 15
#: minutes ... but you must send an initial response within 3 seconds of receiving the event. If the 3 second
#: deadline is exceeded, the token will be invalidated."
INITIAL_RESPONSE_SECONDS = 3.0
TOKEN_LIFETIME_SECONDS = 15 * 60.0


class InteractionClock:
    """Discord's clock for interaction tokens; it moves only when a test advances it.

    Real seconds never expire a token, so a slow machine cannot make a test flaky; a test that means to
    outlive a token says so with ``advance``.
    """

    def __init__(self) -> None:
        self._now = 0.0

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        """Move Discord's time forward (tokens created before may expire)."""
        if seconds < 0:
            raise ValueError("the clock does not go back")
        self._now += seconds


def check_callback_in_time(created_at: float, now: float) -> None:
    """Refuse an initial response sent after Discord's 3 s: the interaction is unknown by then."""
    if now - created_at > INITIAL_RESPONSE_SECONDS:
        raise ApiError(404, 10062, "Unknown interaction")


def check_token_alive(created_at: float, now: float, *, responded: bool) -> None:
    """Refuse a followup or an edit with an expired token (15 min, or 3 s without an initial response)."""
    age = now - created_at
    if age > TOKEN_LIFETIME_SECONDS or (not responded and age > INITIAL_RESPONSE_SECONDS):
        raise ApiError(401, 50027, "Invalid Webhook Token")


# ---------------------------------------------------------------------- webhook names


def check_webhook_name(name: Any, field: str, *, username: bool) -> None:
    """Apply Discord's rules for a webhook's name (or a message's ``username`` override).

    resources/webhook#create-webhook: a webhook name must not contain ``clyde`` or ``discord``
    (case-insensitive) and follows the nickname rules, up to 80 characters. resources/user#usernames-and-
    nicknames: names are trimmed of leading and trailing whitespace, and a username cannot be ``everyone``
    or ``here`` (an execute-webhook ``username`` is the name the message is shown under).
    """
    text = name.strip() if isinstance(name, str) else ""
    if not 1 <= len(text) <= 80:
        raise invalid({field: "Must be between 1 and 80 in length."})
    folded = text.casefold()
    for word in ("clyde", "discord"):
        if word in folded:
            raise invalid({field: f'Username cannot contain "{word}"'})
    if username and folded in {"everyone", "here"}:
        raise invalid({field: f'Username cannot be "{text}"'})


# ---------------------------------------------------------------------- mentions

#: resources/message#allowed-mentions-object-allowed-mention-types
MENTION_TYPES = ("users", "roles", "everyone")
#: resources/message#allowed-mentions-object-default-settings-for-allowed-mentions: regular messages parse
#: every type; interactions and webhooks only users.
MESSAGE_DEFAULT_PARSE = MENTION_TYPES
INTERACTION_DEFAULT_PARSE = ("users",)
MENTION_EVERYONE = 1 << 17


def check_allowed_mentions(allowed: Any) -> None:
    """Refuse an ``allowed_mentions`` object Discord refuses (resources/message#allowed-mentions-object).

    ``parse`` takes known types only; it is mutually exclusive with a non-empty ``users`` (or ``roles``) list
    of the same type ("Passing a falsy value such as null or an empty array into the users field does not
    trigger a validation error"); each list holds at most 100 ids.
    """
    if allowed is None:
        return
    if not isinstance(allowed, Mapping):
        raise invalid({"allowed_mentions": "Must be an object."})
    errors: dict[str, str] = {}
    parse = allowed.get("parse") or []
    for i, kind in enumerate(parse):
        if kind not in MENTION_TYPES:
            errors[f"allowed_mentions.parse.{i}"] = f"Value must be one of {MENTION_TYPES}."
    for kind in ("users", "roles"):
        ids = allowed.get(kind) or []
        if len(ids) > 100:
            errors[f"allowed_mentions.{kind}"] = "Must be 100 or fewer in length."
        if ids and kind in parse:
            errors[f"allowed_mentions.{kind}"] = f'parse:["{kind}"] and {kind}: [ids] are mutually exclusive.'
    if errors:
        raise invalid(errors)


@dataclass(frozen=True)
class MentionRights:
    """What the sender of a message may ping beyond users (resources/message#allowed-mentions-object).

    "To mention roles and notify their members, the role's ``mentionable`` field must be set to ``true``, or
    the bot must have the ``MENTION_EVERYONE`` permission. To mention ``@everyone`` and ``@here``, the bot must
    have the ``MENTION_EVERYONE`` permission."
    """

    mention_everyone: bool
    role_mentionable: Callable[[int], bool]


def pinged(
    mentions: tuple[list[int], list[int], bool], rights: MentionRights | None
) -> tuple[list[int], list[int], bool]:
    """Keep, of the mentions ``allowed_mentions`` lets through, those Discord really notifies."""
    users, roles, everyone = mentions
    if rights is None:  # a direct message: no roles, no @everyone
        return users, [], False
    kept = [r for r in roles if rights.mention_everyone or rights.role_mentionable(r)]
    return users, kept, everyone and rights.mention_everyone


# ---------------------------------------------------------------------- messages

#: topics/opcodes-and-status-codes#json: 30015 "Maximum number of attachments in a message reached (10)".
MAX_FILES = 10


def check_file_count(count: int) -> None:
    """Refuse a message with more than 10 files."""
    if count > MAX_FILES:
        raise ApiError(400, 30015, "Maximum number of attachments in a message reached (10)")


def check_action_rows(components: list[dict[str, Any]], errors: dict[str, str]) -> None:
    """Apply the action-row rules of components/reference#action-row to a message's top-level rows.

    An action row holds "up to 5 interactive button components or a single select component".
    """
    for i, row in enumerate(components):
        if row.get("type") != 1:
            continue
        children = row.get("components") or []
        selects = [c for c in children if c.get("type") in SELECT_TYPES]
        if selects and len(children) > 1:
            errors[f"components.{i}.components"] = "A select menu must be alone in its action row."
        if not children:
            errors[f"components.{i}.components"] = "Must be between 1 and 5 in length."


#: components/reference: string (3), user (5), role (6), mentionable (7) and channel (8) selects.
SELECT_TYPES = (3, 5, 6, 7, 8)


def check_select(comp: dict[str, Any], path: str, errors: dict[str, str]) -> None:
    """Apply components/reference#string-select (and the other selects' shared fields) to one select."""
    custom_id = comp.get("custom_id") or ""
    if not 1 <= len(custom_id) <= 100:
        errors[f"{path}.custom_id"] = "Must be between 1 and 100 in length."
    if len(comp.get("placeholder") or "") > 150:
        errors[f"{path}.placeholder"] = "Must be 150 or fewer in length."
    low, high = comp.get("min_values", 1), comp.get("max_values", 1)
    if not 0 <= low <= 25:
        errors[f"{path}.min_values"] = "Must be between 0 and 25."
    if not 1 <= high <= 25:
        errors[f"{path}.max_values"] = "Must be between 1 and 25."
    if low > high:
        errors[f"{path}.min_values"] = "Must be less than or equal to max_values."
    if comp.get("type") != 3:
        return
    options = comp.get("options") or []
    if not 1 <= len(options) <= 25:
        errors[f"{path}.options"] = "Must be between 1 and 25 in length."
    for j, option in enumerate(options):
        for key in ("label", "value"):
            if not 1 <= len(option.get(key) or "") <= 100:
                errors[f"{path}.options.{j}.{key}"] = "Must be between 1 and 100 in length."
        if len(option.get("description") or "") > 100:
            errors[f"{path}.options.{j}.description"] = "Must be 100 or fewer in length."
    values = [o.get("value") for o in options]
    if len(set(values)) != len(values):
        errors[f"{path}.options"] = "Option values must be unique."


# ---------------------------------------------------------------------- modals

TEXT_INPUT = 4
LABEL = 18


def check_modal(data: Mapping[str, Any], deprecations: list[str]) -> None:
    """Apply the modal rules of interactions/receiving-and-responding#interaction-response-object-modal and
    components/reference#text-input and #label; log the deprecated text input in an action row.
    """
    errors: dict[str, str] = {}
    if not 1 <= len(data.get("title") or "") <= 45:
        errors["data.title"] = "Must be between 1 and 45 in length."
    top = data.get("components") or []
    if not 1 <= len(top) <= 5:
        errors["data.components"] = "Must be between 1 and 5 in length."
    if not 1 <= len(data.get("custom_id") or "") <= 100:
        errors["data.custom_id"] = "Must be between 1 and 100 in length."
    for i, comp in enumerate(top):
        path = f"data.components.{i}"
        if comp.get("type") == LABEL:
            if not 1 <= len(comp.get("label") or "") <= 45:
                errors[f"{path}.label"] = "Must be between 1 and 45 in length."
            if len(comp.get("description") or "") > 100:
                errors[f"{path}.description"] = "Must be 100 or fewer in length."
            child = comp.get("component") or {}
            _check_modal_field(child, f"{path}.component", errors, deprecations)
        elif comp.get("type") == 1:
            for j, child in enumerate(comp.get("components") or []):
                if child.get("type") == TEXT_INPUT:
                    deprecated(
                        deprecations,
                        "a text input inside an action row of a modal (components/reference#action-row: "
                        "deprecated, put it in a Label)",
                    )
                _check_modal_field(child, f"{path}.components.{j}", errors, deprecations)
    if errors:
        raise invalid(errors)


def _check_modal_field(
    comp: Mapping[str, Any], path: str, errors: dict[str, str], deprecations: list[str]
) -> None:
    if comp.get("type") in SELECT_TYPES:
        check_select(dict(comp), path, errors)
        return
    if comp.get("type") != TEXT_INPUT:
        return
    if not 1 <= len(comp.get("custom_id") or "") <= 100:
        errors[f"{path}.custom_id"] = "Must be between 1 and 100 in length."
    low, high = comp.get("min_length"), comp.get("max_length")
    if low is not None and not 0 <= low <= 4000:
        errors[f"{path}.min_length"] = "Must be between 0 and 4000."
    if high is not None and not 1 <= high <= 4000:
        errors[f"{path}.max_length"] = "Must be between 1 and 4000."
    if low is not None and high is not None and low > high:
        errors[f"{path}.min_length"] = "Must be less than or equal to max_length."
    if len(comp.get("value") or "") > 4000:
        errors[f"{path}.value"] = "Must be 4000 or fewer in length."
    if len(comp.get("placeholder") or "") > 100:
        errors[f"{path}.placeholder"] = "Must be 100 or fewer in length."
    if comp.get("label") is not None:
        if len(comp["label"]) > 45:
            errors[f"{path}.label"] = "Must be 45 or fewer in length."
        deprecated(
            deprecations,
            "a text input with its own label (components/reference#text-input: deprecated, use a Label)",
        )


def check_typed_value(comp: Mapping[str, Any], text: str, label: str) -> None:
    """Refuse a modal value the Discord client would not let anyone type (its min/max length)."""
    low, high = comp.get("min_length"), comp.get("max_length") or 4000
    if len(text) > high:
        raise AssertionError(f"{label}: {len(text)} characters typed, the field takes at most {high}")
    if text and low is not None and len(text) < low:
        raise AssertionError(f"{label}: {len(text)} characters typed, the field needs at least {low}")


# ---------------------------------------------------------------------- application commands

#: interactions/application-commands#slash-commands: "a maximum of 8000 characters for combined name,
#: description, and value properties for each command, its options (including subcommands and groups), and
#: choices" (the longest localization of each field counts).
MAX_COMMAND_CHARACTERS = 8000
#: interactions/application-commands#registering-a-command: "a global rate limit of 200 application command
#: creates per day, per guild" (a bulk overwrite counts the commands that did not exist before).
DAILY_COMMAND_CREATES = 200


def _longest(node: Mapping[str, Any], key: str) -> int:
    values = [str(node.get(key) or "")]
    values += [str(v) for v in (node.get(f"{key}_localizations") or {}).values()]
    return max(len(v) for v in values)


def command_characters(node: Mapping[str, Any]) -> int:
    """Return the characters a command counts toward its 8000: names, descriptions and choice values."""
    total = _longest(node, "name") + _longest(node, "description")
    for choice in node.get("choices") or []:
        total += _longest(choice, "name") + len(str(choice.get("value", "")))
    for option in node.get("options") or []:
        total += command_characters(option)
    return total


def check_command_size(commands: list[dict[str, Any]], errors: dict[str, str]) -> None:
    """Refuse a slash command whose combined characters pass 8000."""
    for i, command in enumerate(commands):
        if command.get("type", 1) != 1:
            continue
        size = command_characters(command)
        if size > MAX_COMMAND_CHARACTERS:
            errors[f"{i}"] = f"Command exceeds maximum size ({size} > {MAX_COMMAND_CHARACTERS})"


def check_command_contexts(commands: list[dict[str, Any]], deprecations: list[str]) -> None:
    """Log a command that restricts DMs with ``dm_permission`` alone.

    interactions/application-commands#application-command-object: ``dm_permission`` is "Deprecated (use
    ``contexts`` instead)".
    """
    for command in commands:
        if command.get("dm_permission") is False and command.get("contexts") is None:
            deprecated(
                deprecations,
                f"/{command.get('name')} is kept out of DMs by dm_permission alone "
                "(interactions/application-commands: deprecated, use contexts)",
            )
