"""Questions about a person born in the GM-only Sunken Reign of the Ashcrown world (tests/fixtures/ashcrown),
asked of `lorekeeper lore` by a player: her age, and whether she was born before her parents married, are not
known to a player, word for word as for a person canon gives no birth at all; never another person's age (one
whose alias holds "old"), never a hint of the hidden era. The GM reads her birth."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from tests.bot.cli.test_lore_ashcrown import CAMPAIGN, cli
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more

__all__ = ["cli"]

#: Two daughters of one marriage, one born in the GM-only era, one with no birth in canon; an old sailor whose
#: alias holds "old".
FAMILY = """kind: characters
characters:
  - id: orwin_ardent
    name: Orwin Ardent
    titles: [Warden of the Ford]
    status: dead
    home: ashcrown
    description: The old warden of the ford, who fathered the next Warden of the Ford.
  - id: pell_ardent
    name: Pell Ardent
    born: after_the_crowning.2
    parents: [Orwin Ardent]
    titles: [Warden of the Ford]
    status: alive
    home: ashcrown
    spouse: {name: Nessa Ardent, married: after_the_crowning.5.3.2}
    description: A ferry-master of the hill's river.
  - id: nessa_ardent
    name: Nessa Ardent
    born: after_the_crowning.3
    status: alive
    home: ashcrown
    description: A rope-maker who married the ferry-master.
  - id: lirel_ardent
    name: Lirel Ardent
    born: sunken_reign.52.2.3
    parents: [Pell Ardent, Nessa Ardent]
    status: alive
    home: ashcrown
    description: The ferry-master's elder daughter, who poles her own raft.
  - id: tamsa_ardent
    name: Tamsa Ardent
    parents: [Pell Ardent, Nessa Ardent]
    status: alive
    home: ashcrown
    description: The ferry-master's elder daughter, who poles her own raft.
  - id: gorrin_fell
    name: Gorrin Fell
    aliases: [Old Heron]
    born: after_the_crowning.1
    status: alive
    home: ashcrown
    description: A one-eyed boatwright of the lower quay.
"""
LEAK = re.compile(r"sunken|\bSR\b|\b52\b|hidden|secret|GM|Gorrin|Heron", re.IGNORECASE)
FORMS = [
    "How old is {}?",
    "what age is {}",
    "Was {} born before her parents married?",
    "was {} born after her parents got married",
]


def test_an_age_or_a_birth_hidden_from_players_reads_as_not_known_never_another_s(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    import_more(cli, CAMPAIGN, tmp_path, "family.yaml", FAMILY)
    hidden = [f.format("Lirel Ardent") for f in FORMS]
    unborn = [f.format("Tamsa Ardent") for f in FORMS]
    player = ask_world(cli, tmp_path, CAMPAIGN, hidden + unborn, citations=False)
    assert not [a for q, a in player.items() if LEAK.search(a)], player
    # Word for word as of a person canon gives no birth.
    assert [player[q].replace("Lirel", "Tamsa") for q in hidden] == [player[q] for q in unborn], player
    assert all(player[q].startswith("Nothing the table knows says") for q in hidden), player
    assert all("Lirel Ardent was born" in player[q] for q in hidden[2:]), player
    gm = ask_world(cli, tmp_path, CAMPAIGN, hidden[:1], gm=True, citations=False)
    assert "year 52 of the Sunken Reign" in gm[hidden[0]], gm


def test_a_title_asked_now_is_asked_of_its_living_holder_not_a_dead_one(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    import_more(cli, CAMPAIGN, tmp_path, "family.yaml", FAMILY)
    asked = ["how many children does the warden have", "how many kids has the Warden got"]
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    for question in asked:
        assert player[question].startswith("Pell Ardent has two children"), player
