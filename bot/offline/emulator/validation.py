"""Discord's validation of message bodies and command definitions: the same 400s for the same mistakes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import discord_rules as rules
from .discord_rules import ApiError, invalid

IS_COMPONENTS_V2 = 1 << 15
_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def _check_component(comp: dict[str, Any], path: str, errors: dict[str, str]) -> None:
    if len(comp.get("custom_id") or "") > 100:
        errors[f"{path}.custom_id"] = "Must be 100 or fewer in length."
    if comp.get("type") == 2 and len(comp.get("label") or "") > 80:
        errors[f"{path}.label"] = "Must be 80 or fewer in length."
    if comp.get("type") in rules.SELECT_TYPES:
        rules.check_select(comp, path, errors)
    if len(comp.get("placeholder") or "") > 150:
        errors[f"{path}.placeholder"] = "Must be 150 or fewer in length."
    for key in ("components",):
        for i, child in enumerate(comp.get(key) or []):
            _check_component(child, f"{path}.{key}.{i}", errors)
    if isinstance(comp.get("accessory"), dict):
        _check_component(comp["accessory"], f"{path}.accessory", errors)


def validate_message(data: Mapping[str, Any], *, allow_empty: bool = False) -> None:
    """Apply Discord's message limits; raise 400 like Discord would."""
    errors: dict[str, str] = {}
    content = data.get("content") or ""
    if len(content) > 2000:
        errors["content"] = "Must be 2000 or fewer in length."
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        errors["embeds"] = "Must be 10 or fewer in length."
    total = 0
    for i, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                errors[f"embeds.{i}.{key}"] = f"Must be {limit} or fewer in length."
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors[f"embeds.{i}.fields"] = "Must be 25 or fewer in length."
        for j, fld in enumerate(fields):
            name, value = fld.get("name") or "", fld.get("value") or ""
            total += len(name) + len(value)
            if not 1 <= len(name) <= 256:
                errors[f"embeds.{i}.fields.{j}.name"] = "Must be between 1 and 256 in length."
            if not 1 <= len(value) <= 1024:
                errors[f"embeds.{i}.fields.{j}.value"] = "Must be between 1 and 1024 in length."
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            errors[f"embeds.{i}.footer.text"] = "Must be 2048 or fewer in length."
        if len(author) > 256:
            errors[f"embeds.{i}.author.name"] = "Must be 256 or fewer in length."
    if total > 6000:
        errors["embeds"] = "Embed size exceeds maximum size of 6000"
    components = data.get("components") or []
    if not data.get("flags", 0) & IS_COMPONENTS_V2:
        if len(components) > 5:
            errors["components"] = "Must be 5 or fewer in length."
        for i, row in enumerate(components):
            if row.get("type") == 1 and len(row.get("components", [])) > 5:
                errors[f"components.{i}.components"] = "Must be 5 or fewer in length."
        rules.check_action_rows(components, errors)
    for i, comp in enumerate(components):
        _check_component(comp, f"components.{i}", errors)
    if errors:
        raise invalid(errors)
    has_body = content or embeds or data.get("attachments") or components or data.get("poll")
    if not allow_empty and not has_body:
        raise ApiError(400, 50006, "Cannot send an empty message")


def _check_name(name: Any, path: str, errors: dict[str, str], *, lowercase: bool = True) -> None:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        errors[f"{path}.name"] = f"Invalid name {name!r}: 1-32 letters, digits, - or _."
    elif lowercase and name != name.lower():
        errors[f"{path}.name"] = f"Invalid name {name!r}: must be lowercase."


def _check_options(options: list[dict[str, Any]], path: str, errors: dict[str, str]) -> None:
    if len(options) > 25:
        errors[f"{path}.options"] = "Must be 25 or fewer in length."
    seen: set[str] = set()
    optional_seen = False
    for i, opt in enumerate(options):
        here = f"{path}.options.{i}"
        _check_name(opt.get("name"), here, errors)
        if opt.get("name") in seen:
            errors[f"{here}.name"] = f"Duplicate option name {opt.get('name')!r}"
        seen.add(opt.get("name", ""))
        if not 1 <= len(opt.get("description") or "") <= 100:
            errors[f"{here}.description"] = "Must be between 1 and 100 in length."
        if opt.get("type") in (1, 2):
            _check_options(opt.get("options") or [], here, errors)
            continue
        if opt.get("required"):
            if optional_seen:
                errors[f"{here}.required"] = "Required options must be placed before non-required options"
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            errors[f"{here}.choices"] = "Must be 25 or fewer in length."
        for j, choice in enumerate(choices):
            if not 1 <= len(choice.get("name") or "") <= 100:
                errors[f"{here}.choices.{j}.name"] = "Must be between 1 and 100 in length."
            value = choice.get("value")
            if isinstance(value, str) and len(value) > 100:
                errors[f"{here}.choices.{j}.value"] = "Must be 100 or fewer in length."


def validate_commands(commands: list[dict[str, Any]]) -> None:
    """Apply Discord's command registration rules; raise 400 like Discord would."""
    errors: dict[str, str] = {}
    seen: set[tuple[str, int]] = set()
    for i, cmd in enumerate(commands):
        kind = cmd.get("type", 1)
        _check_name(cmd.get("name"), str(i), errors, lowercase=kind == 1)
        key = (cmd.get("name", ""), kind)
        if key in seen:
            errors[f"{i}.name"] = f"Application command names must be unique: {key[0]!r}"
        seen.add(key)
        if kind == 1:
            if not 1 <= len(cmd.get("description") or "") <= 100:
                errors[f"{i}.description"] = "Must be between 1 and 100 in length."
            _check_options(cmd.get("options") or [], str(i), errors)
    if sum(1 for c in commands if c.get("type", 1) == 1) > 100:
        errors["_"] = "Maximum number of application commands reached (100)"
    rules.check_command_size(commands, errors)
    if errors:
        raise invalid(errors)
