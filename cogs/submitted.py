"""What a component or a modal submitted, read out of Discord's interaction payload into plain types.

Discord sends a select's picks as `values` and a modal's fields nested in rows of components (`value` for a text
input, `values` for a select inside the modal); everything here is untrusted input, read as strings only.
"""

from __future__ import annotations

from collections.abc import Mapping

import discord

#: A modal field's value: the text of a text input, or the picks of a select.
ModalValue = str | list[str]


def _data(interaction: discord.Interaction) -> Mapping[str, object]:
    return interaction.data or {}


def custom_id(interaction: discord.Interaction) -> str:
    """Return the custom id of the component or modal that was used ("" when there is none)."""
    value = _data(interaction).get("custom_id")
    return value if isinstance(value, str) else ""


def picked(interaction: discord.Interaction) -> list[str]:
    """Return what a select's user picked, in order (empty when nothing, or not a select)."""
    values = _data(interaction).get("values")
    return [str(v) for v in values] if isinstance(values, list) else []


def modal_values(interaction: discord.Interaction) -> dict[str, ModalValue]:
    """Return a submitted modal's values by custom id: text for a text input, a list for a select."""
    found: dict[str, ModalValue] = {}

    def walk(node: object) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            name = node.get("custom_id")
            if isinstance(name, str) and "value" in node:
                found[name] = str(node["value"])
            elif isinstance(name, str) and isinstance(node.get("values"), list):
                found[name] = [str(v) for v in node["values"]]
            for key in ("components", "component"):
                if key in node:
                    walk(node[key])

    walk(_data(interaction).get("components", []))
    return found


def text_value(interaction: discord.Interaction, field: str) -> str | None:
    """Return the text a modal's field was submitted with (None when the modal has no such text field)."""
    value = modal_values(interaction).get(field)
    return value if isinstance(value, str) else None
