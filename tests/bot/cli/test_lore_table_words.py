"""Questions in the table's words, on the Brackenhythe world (tests/fixtures/brackenhythe): chatter typed before
the question ("wait", "ok so"), "still around", "get hitched", "where are they keeping X", a title before a name
in a yes/no question, "who did X marry and when", and a treaty's typed terms said as a sentence. Each reads as
the plain question does. SQLite, then PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "brackenhythe"
CAMPAIGN = "brackenhythe"
FILES = ("places", "folk", "marrows", "factions", "tarrs", "chronicle")
#: A treaty whose terms are typed (`terms:`), not told in its description.
PACT = """\
kind: timeline
events:
  - name: Pact of the Salt Road
    year: 652
    era: The Tallow Years
    participants: [The Salt Wardens, The Tallow Guild]
    terms: The Salt Wardens guard the road; the Tallow Guild pays them a tithe of candles.
"""

#: A question in the table's words -> the same question asked plainly.
ALIKE = {
    "wait is ansel dead??": "is ansel dead",
    "ok so who leads the reed clans": "who leads the reed clans",
    "is oswin still around": "is oswin alive",
    "when did hesk and bettany get hitched": "when did hesk and bettany get married",
    "where are they keeping cato": "where is cato held",
    "is guildmistress bettany still around": "is bettany alive",
}
READS = {
    "is oswin still around": (
        "No: Oswin Tarr died on 3 Sheaf, year 650 of the Tallow Years, in the Battle of Otter Ford."
    ),
    "who did hesk marry and when": (
        "Hesk Marrow married Bettany Quell on 9 Bloomtide, year 646 of the Tallow Years, at Hythe Quay (the Quay "
        "Wedding)."
    ),
    "what are the terms of the pact of the salt road": (
        "Under the Pact of the Salt Road, the Salt Wardens guard the road; the Tallow Guild pays them a tithe of "
        "candles."
    ),
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    import_more(runner, CAMPAIGN, tmp_path, "pact.yaml", PACT)
    return runner


def test_the_table_s_words_read_as_the_plain_question(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, [*ALIKE, *ALIKE.values()], citations=False)
    assert {typed: said[typed] for typed in ALIKE} == {typed: said[plain] for typed, plain in ALIKE.items()}
    assert "Nothing the table knows" not in " ".join(said.values())


def test_answers_say_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, list(READS), citations=False)
    assert {q: a for q, a in said.items() if a != READS[q]} == {}
