"""Discord's limits, checked on what a renderer built: an embed's sizes, a view's rows and components.

The numbers are Discord's, written out here on purpose: a test that read them from the code it checks could not
catch a wrong one.
"""

from __future__ import annotations

from typing import Any

import discord


def assert_within_discord_limits(embed: discord.Embed) -> None:
    """Fail unless the embed is inside every Discord limit."""
    data = embed.to_dict()
    assert len(embed) <= 6000
    assert len(data.get("title", "")) <= 256
    assert len(data.get("description", "")) <= 4096
    assert len(data.get("fields", [])) <= 25
    for field in data.get("fields", []):
        assert 1 <= len(field["name"]) <= 256 and 1 <= len(field["value"]) <= 1024
    assert len(data.get("footer", {}).get("text", "")) <= 2048


def components_within_limits(view: discord.ui.View) -> list[dict[str, Any]]:
    """Fail unless the view is inside Discord's limits (rows, components, options, ids); return its rows."""
    rows = view.to_components()
    assert len(rows) <= 5
    ids = []
    for row in rows:
        assert len(row["components"]) <= 5
        if any(c["type"] == 3 for c in row["components"]):  # a select sits alone in its row
            (select,) = row["components"]
            assert 1 <= len(select["options"]) <= 25
            assert all(
                len(o["label"]) <= 100 and len(o.get("description") or "") <= 100 for o in select["options"]
            )
        for button in row["components"]:
            assert len(button["custom_id"]) <= 100 and len(button.get("label", "")) <= 80
            ids.append(button["custom_id"])
    assert len(ids) == len(set(ids))
    return rows
