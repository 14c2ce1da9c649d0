"""The emulator submits a form as a person left it, as Discord does: a select nobody touched sends the options
the bot preselected and nothing else (none when nothing was preselected), a picked one sends the pick."""

from __future__ import annotations

from typing import Any

import pytest

from bot.offline.emulator.interactions import modal_submission

SELECT, LABEL, TEXT = 3, 18, 4


def form(*options: dict[str, Any]) -> dict[str, Any]:
    select = {
        "type": SELECT,
        "custom_id": "pick",
        "required": False,
        "min_values": 0,
        "options": list(options),
    }
    text = {"type": TEXT, "custom_id": "why", "style": 1, "value": "as shown", "required": True}
    return {
        "custom_id": "m",
        "components": [
            {"type": LABEL, "label": "Pick", "component": select},
            {"type": LABEL, "label": "Why", "component": text},
        ],
    }


def submitted(modal: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    components, _ = modal_submission(modal, values, "test")
    return {c["component"]["custom_id"]: c["component"] for c in components}


def test_an_untouched_select_without_a_preselection_sends_nothing() -> None:
    sent = submitted(
        form({"label": "description", "value": "description"}, {"label": "title", "value": "title"}), {}
    )
    assert sent["pick"]["values"] == [] and sent["why"]["value"] == "as shown"


def test_an_untouched_select_sends_what_the_bot_preselected_as_discord_does() -> None:
    modal = form(
        {"label": "Only GMs", "value": "private", "default": True}, {"label": "All", "value": "public"}
    )
    assert submitted(modal, {})["pick"]["values"] == ["private"]


def test_a_pick_or_a_cleared_select_is_sent_as_the_person_left_it() -> None:
    modal = form(
        {"label": "Only GMs", "value": "private", "default": True}, {"label": "All", "value": "public"}
    )
    assert submitted(modal, {"pick": ["public"]})["pick"]["values"] == ["public"]
    assert submitted(modal, {"pick": []})["pick"]["values"] == []


def test_a_required_select_left_empty_is_refused() -> None:
    modal = form({"label": "a", "value": "a"})
    modal["components"][0]["component"].update(required=True, min_values=1)
    with pytest.raises(AssertionError, match="needs at least one value"):
        submitted(modal, {})
