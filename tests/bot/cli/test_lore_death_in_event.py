"""How someone died, told by the event a file says they died in (`deaths:`): the death, its day in the calendar's
words and the event's own telling of it, each citing its card; a death in an event kept for the GM is none to a
player, word for word as if never written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import THIRD_AGE_CALENDAR, ask_world, import_written, public_written

CAMPAIGN = "greyford"
FILES = {
    "calendar": THIRD_AGE_CALENDAR,
    "folk": """
characters:
  - {name: Tamsin Vey, sex: female, born: 300, description: A ferrywoman of the Grey Ford.}
  - {name: Bran Hale, sex: male, born: 301}
---
kind: timeline
events:
  - name: Drowning at the Grey Ford
    year: 345
    month: 3
    day: 2
    deaths:
      - Tamsin Vey
      - {name: Bran Hale, gm_only: true}  # secret
    description: Tamsin Vey was swept from her ferry in the spring flood. Bran Hale held the rope too long.
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_a_death_in_an_event_is_told_with_its_day_and_the_events_telling(
    cli: CliRunner, tmp_path: Path
) -> None:
    questions = ["how did Tamsin die?", "how did Bran Hale die?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, questions, gm=True)
    assert said[questions[0]] == (
        "Tamsin Vey died in Drowning at the Grey Ford on 2 Thawmoon, year 345. [1] Tamsin Vey was swept from her "
        "ferry in the spring flood. [2]"
    ), said
    assert said[questions[1]].startswith(
        "Bran Hale died in Drowning at the Grey Ford on 2 Thawmoon, year 345"
    ), said
    player = ask_world(cli, tmp_path, CAMPAIGN, questions)
    assert player[questions[0]] == said[questions[0]], player
    assert "Drowning" not in player[questions[1]], player
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", questions)
