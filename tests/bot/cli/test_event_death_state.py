"""A death an event's `deaths:` tells is the person's state: dead from the event's date, with the file and line
behind it, as a death accepted in play is kept. Their card and `/lore` read them dead; the event itself (in which
they also take part) is no contradiction, while an act of theirs dated later is; and a death an event kept for
the GM tells is the GM's alone: a player reads the person word for word as in a world without that event."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "brinewick"
FILES = {
    "calendar": """
eras:
  - {name: The Kelp Count, abbreviation: KC, start: 1}
months: [Mistfall, Brinemoon, Saltwake, Gullreturn, Longtide]
today: 4 Saltwake, 90 KC
""",
    "crew": """
characters:
  - {name: Odo Pellam, sex: male, born: 40, description: A net-warden of Brinewick.}
  - {name: Yarra Quill, sex: female, born: 44, description: A tide-reader.}
  - {name: Sefa Dunlin, sex: female, born: 50}
---
kind: timeline
events:
  - name: The Foundering of the Gullwing
    year: 71
    month: 2
    day: 7
    participants: [Odo Pellam, Sefa Dunlin]
    deaths: [Odo Pellam]
  - name: The Quiet Knife                                   # secret
    year: 80                                                # secret
    month: 5                                                # secret
    day: 2                                                  # secret
    visibility: gm_only                                     # secret
    deaths: [Yarra Quill]                                   # secret
""",
}
ASKED = ["is Odo Pellam alive?", "is Yarra Quill alive?", "when did Yarra Quill die?"]


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def _card(cli: CliRunner, name: str, *, gm: bool) -> str:
    shown = cli.invoke(app, ["canon", "entity", name, "-c", CAMPAIGN, "--as", "gm" if gm else "player"])
    assert shown.exit_code == 0, shown.output
    return shown.stdout


def test_a_death_told_by_an_event_is_the_persons_state(cli: CliRunner, tmp_path: Path) -> None:
    for gm in (False, True):
        card = _card(cli, "Odo Pellam", gm=gm)
        assert "State: Odo Pellam is dead (since 7 Brinemoon, year 71)" in card, card
        assert "is alive" not in card, card
    said = ask_world(cli, tmp_path, CAMPAIGN, ASKED[:1], citations=False)
    assert said == {
        ASKED[0]: "No: Odo Pellam died on 7 Brinemoon, year 71, in the Foundering of the Gullwing."
    }, said
    gm_card = _card(cli, "Yarra Quill", gm=True)
    assert "Yarra Quill is dead (since 2 Longtide, year 80)" in gm_card, gm_card
    assert "crew.yaml, line" in gm_card, gm_card  # the evidence: the event's `deaths:` line
    gm = ask_world(cli, tmp_path, CAMPAIGN, ASKED[1:2], gm=True, citations=False)
    assert gm[ASKED[1]].startswith("No: Yarra Quill died on 2 Longtide, year 80"), gm


def test_a_secret_events_death_reads_to_a_player_as_never_written(cli: CliRunner, tmp_path: Path) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, ASKED)
    assert player[ASKED[1]].startswith("Yes: Yarra Quill is alive"), player
    public = import_written("open", tmp_path / "open", public_written(FILES))
    assert player == ask_world(public, tmp_path, "open", ASKED)
    card = _card(cli, "Yarra Quill", gm=False)
    shown = public.invoke(app, ["canon", "entity", "Yarra Quill", "-c", "open", "--as", "player"])
    assert card == shown.stdout
    assert "dead" not in card and "Quiet Knife" not in card, card


def test_the_event_is_no_contradiction_and_a_later_act_is(cli: CliRunner) -> None:
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    assert checked.exit_code == 0 and "No continuity problems" in checked.stdout, checked.output
    later = [
        *("canon", "add", "event", "The Net Blessing", "-c", CAMPAIGN),
        *("--when", "3 Mistfall, 75", "--participants", "Odo Pellam, Sefa Dunlin"),
    ]
    acted = cli.invoke(app, later)
    assert "Odo Pellam takes part in “The Net Blessing”" in acted.stdout, acted.output
    assert "after dying (7 Brinemoon, year 71)" in acted.stdout, acted.output
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN])
    assert checked.exit_code == 1 and "Odo Pellam takes part in “The Net Blessing”" in checked.stdout
    assert "Sefa Dunlin" not in checked.stdout.split("Odo Pellam takes part")[0], checked.stdout
