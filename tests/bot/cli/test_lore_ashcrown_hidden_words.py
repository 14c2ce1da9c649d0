"""What a player reads of the GM-only Sunken Reign of the Ashcrown world (tests/fixtures/ashcrown) in `--json` and in
free text: the entity card, timeline and neighbours as JSON write their dates in the calendar's words, a date in the
hidden era as no date (with no sortable key, which holds its year); a description, an `in_fiction_date` typed as text
and a fact a GM wrote that name the era read with "at an unknown time" for a player, on the card, the timeline, the
JSON and `/lore`, while the GM reads them as written. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bot.cli.main import app
from tests.bot.cli.test_lore_ashcrown import CAMPAIGN, cli
from tests.bot.cli.test_lore_ashcrown_hidden_dates import MARSH, STONES
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more

__all__ = ["cli"]

#: Free text naming the hidden era: a description, an event's date typed as text, a fact's sentence about the era.
WRITTEN = """kind: characters
characters:
  - id: tam_reed
    name: Tam Reed
    status: alive
    home: ashcrown
    description: A ferryman born in the 52nd year of the Sunken Reign, who still poles the marsh.
"""
FLOOD = """kind: timeline
events:
  - id: the_long_flood
    name: The Long Flood
    era: after_the_crowning
    year: 20
    in_fiction_date: 57 SR
    location: ashcrown
    description: The marsh rose over the lower town. The Sunken Reign's drowned bells rang under the water.
"""
#: What no player may read: the era's name, its abbreviation, its key, the years dated in it ("year 52", "the
#: 52nd year"; a bare 52 or 57 is no leak: an id, or the seconds of a timestamp the JSON carries, may read so).
LEAK = re.compile(r"sunken|\bSR\b|\byear 5[27]\b|\b5[27](?:st|nd|rd|th)\b|hidden|secret", re.IGNORECASE)


def _world(cli: CliRunner, tmp_path: Path) -> None:
    for name, text in (
        ("marsh.yaml", MARSH),
        ("stones.yaml", STONES),
        ("tam.yaml", WRITTEN),
        ("flood.yaml", FLOOD),
    ):
        import_more(cli, CAMPAIGN, tmp_path, name, text)


def _canon(cli: CliRunner, *args: str, gm: bool = False, as_json: bool = False) -> Any:
    result = cli.invoke(
        app,
        ["canon", *args, "-c", CAMPAIGN, *(["--as", "gm"] if gm else []), *(["--json"] if as_json else [])],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if as_json else result.output


def _dates(payload: Any) -> list[tuple[str, Any]]:
    """Return every (date, its key) a JSON payload holds, wherever it stands."""
    if isinstance(payload, list):
        return [d for item in payload for d in _dates(item)]
    if not isinstance(payload, dict):
        return []
    found = [(payload[k], payload.get(f"{k}_key")) for k in ("world_from", "world_until") if payload.get(k)]
    return found + [d for value in payload.values() for d in _dates(value)]


def test_json_writes_dates_in_the_calendar_s_words_and_none_in_a_gm_only_era_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    _world(cli, tmp_path)
    for gm in (False, True):
        card = _canon(cli, "entity", "Marra Quill", gm=gm, as_json=True)
        timeline = _canon(cli, "timeline", "Raising of the Marsh Stones", gm=gm, as_json=True)
        near = _canon(cli, "neighbours", "Marra Quill", gm=gm, as_json=True)
        dates = _dates([card, timeline, near])
        assert dates and not [d for d, _ in dates if re.search(r"\w\.\w|_", d)], dates  # never a stored key
        if gm:
            assert ("3 Rainmoot, year 52 of the Sunken Reign", 520203) in dates, dates
            assert ("9 Highsun, year 57 of the Sunken Reign", 570309) in dates, dates
        else:
            assert set(dates) == {("an unknown date", None)}, dates
            for payload in (card, timeline, near):
                assert not LEAK.search(json.dumps(payload)), payload
    # A date of an era the player may see is theirs, in words, with its key.
    wenna = _canon(cli, "entity", "Wenna Holt", as_json=True)
    assert ("14 Rainmoot, year 12 of After the Crowning", 120214) in _dates(wenna), _dates(wenna)
    # The text output of neighbours speaks the player's calendar too (it once wrote the era's name).
    assert not LEAK.search(_canon(cli, "neighbours", "Marra Quill"))


def test_free_text_naming_a_gm_only_era_reads_at_an_unknown_time_for_a_player(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    _world(cli, tmp_path)
    read = {
        "card": _canon(cli, "entity", "Tam Reed"),
        "flood": _canon(cli, "entity", "The Long Flood"),
        "timeline": _canon(cli, "timeline", "The Long Flood"),
        "json": json.dumps([_canon(cli, "entity", n, as_json=True) for n in ("Tam Reed", "The Long Flood")]),
    }
    asked = [
        "who is Tam Reed",
        "tell me about Tam Reed",
        "what was the Long Flood",
        "when was the Long Flood",
        "what rang under the water",
        "what happened during the Sunken Reign",
    ]
    read |= ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    # The last question names the era itself: only its own words may be said back.
    asked_era = read.pop("what happened during the Sunken Reign")
    assert not LEAK.search(asked_era.replace("during the Sunken Reign", "")), asked_era
    assert {k: v for k, v in read.items() if LEAK.search(v)} == {}, read
    assert "A ferryman born at an unknown time, who still poles the marsh." in read["card"], read["card"]
    assert "The marsh rose over the lower town." in read["flood"], read["flood"]
    assert "Tam Reed" in read["who is Tam Reed"] and "Long Flood" in read["what was the Long Flood"]
    gm = {
        "card": _canon(cli, "entity", "Tam Reed", gm=True),
        "flood": _canon(cli, "entity", "The Long Flood", gm=True),
    }
    assert "born in the 52nd year of the Sunken Reign" in gm["card"], gm
    assert "57 SR" in gm["flood"] and "The Sunken Reign's drowned bells" in gm["flood"], gm
