"""Who founded a group or a place and when, whom a group worships and what it speaks, as a faction file and a
gazetteer write them (`founder`, `founded`, `worships`, `language`), imported and asked through `lorekeeper` on a
small world of our own (tests/fixtures/vellumcoast): as a player and as the GM, a founder only the GM may read
reading to a player as a group's with none; a bad founder or date refused at its line; a founding the founder's
life cannot hold found by the continuity check. On SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "vellumcoast"
CAMPAIGN = "vellum"
FILES = ("annals", "coast", "guilds")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


READS = {
    "who founded the saltwrights": "Ysolde Marr founded the Saltwrights.",
    "when was the saltwrights founded": "The Saltwrights were founded on 4 Brine, year 71 of the Reckoning of Sails.",
    # Ombra of the Deep and Reefspeak are a god and a tongue of the world: the guild is tied to them.
    "what do the saltwrights worship": "The Saltwrights worship Ombra of the Deep.",
    "what language do the saltwrights speak": "The Saltwrights speak Reefspeak.",
    "who founded gullhaven": "Ysolde Marr founded Gullhaven.",
}


def test_a_player_reads_who_founded_a_group_when_and_what_it_keeps(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in player.items() if a != READS[q]} == {}


def test_a_founder_kept_for_the_gm_reads_to_a_player_as_no_founder(cli: CliRunner, tmp_path: Path) -> None:
    hidden, twin = "who founded the ashen oar", "who founded the tidewatch"
    player = ask(cli, tmp_path, [hidden, twin])
    assert player[hidden] == player[twin].replace("Tidewatch", "Ashen Oar").replace("tidewatch", "ashen oar")
    assert "Corvin" not in player[hidden]
    gm = ask(cli, tmp_path, [hidden], gm=True)
    assert gm[hidden] == "Corvin Daul founded the Ashen Oar."


def test_the_gm_reads_the_hidden_founder(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask(cli, tmp_path, [*READS, "who founded the ashen oar"], gm=True)
    assert gm == {**READS, "who founded the ashen oar": "Corvin Daul founded the Ashen Oar."}


def ingest(cli: CliRunner, path: Path, text: str) -> str:
    """Write `text` to `path`, import it and return what the import says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN]).output


def test_an_unknown_founder_or_a_bad_date_is_refused_at_its_line(cli: CliRunner, tmp_path: Path) -> None:
    head = "factions:\n  - name: The Net Menders\n"
    said = ingest(cli, tmp_path / "menders.yaml", f"{head}    founder: Ysolde Mar\n    founded: 71 RS\n")
    assert "nothing was written" in said
    assert 'line 3, column 14: "founder" of The Net Menders names “Ysolde Mar”' in said
    assert '(did you mean "Ysolde Marr"?)' in said
    said = ingest(
        cli, tmp_path / "menders.yaml", f"{head}    founder: Ysolde Marr\n    founded: 4 Brinish, 71 RS\n"
    )
    assert "nothing was written" in said
    assert 'line 4, column 14: "founded" is “4 Brinish, 71 RS”, which is no date' in said
    said = ingest(cli, tmp_path / "menders.yaml", f"{head}    founder: Reefspeak\n")
    assert '"founder" of The Net Menders must name a Person or Deity' in said
    entity = cli.invoke(app, ["canon", "entity", "The Net Menders", "-c", CAMPAIGN, "--as", "gm"]).output
    assert "Net Menders (Faction)" not in entity


def test_a_changed_faction_rewrites_only_what_changed(cli: CliRunner, tmp_path: Path) -> None:
    guilds = (WORLD / "guilds.yaml").read_text(encoding="utf-8")
    said = ingest(cli, tmp_path / WORLD.name / "guilds.yaml", guilds.replace("Reefspeak", "Old Reefspeak"))
    # No tongue of the world is called Old Reefspeak: the guild's tie to Reefspeak goes with the old words.
    assert (
        "1 fact changed: The Saltwrights' language; 1 fact no longer said (retconned): that The Saltwrights "
        "speak Reefspeak." in said
    ), said
    # Imported again with --replace: that one fact written anew, the rest left as it was.
    path = str(tmp_path / WORLD.name / "guilds.yaml")
    replaced = cli.invoke(app, ["ingest", path, "-c", CAMPAIGN, "--replace"]).output
    assert (
        "In all: 3 entities (3 unchanged) and 16 facts (1 replaced, 15 unchanged, 2 retconned)." in replaced
    ), replaced
    assert ask(cli, tmp_path, ["what language do the saltwrights speak"]) == {
        "what language do the saltwrights speak": "The Saltwrights' language is Old Reefspeak."
    }


def test_a_founding_its_founder_did_not_live_to_see_is_a_continuity_warning(
    cli: CliRunner, tmp_path: Path
) -> None:
    said = ingest(
        cli,
        tmp_path / "late.yaml",
        "factions:\n  - name: The Late Nets\n    founder: Ysolde Marr\n    founded: 140 RS\n"
        "  - name: The Early Ledger\n    founder: Corvin Daul\n    founded: 3 Gale, 150 RS\n",
    )
    assert "2 warnings" in said, said
    # The import's own warnings read the dates in the calendar's words, as `canon check` does: never a key.
    assert "acts after dying (2 Frostfall, year 130 of the Reckoning of Sails)" in said, said
    assert "reckoning_of_sails" not in said, said
    checked = cli.invoke(app, ["canon", "check", "-c", CAMPAIGN]).output
    assert (
        "Ysolde Marr acts after dying (2 Frostfall, year 130 of the Reckoning of Sails): “Ysolde Marr founded "
        "the Late Nets” (year 140 of the Reckoning of Sails)." in checked
    ), checked
    assert (
        "Corvin Daul acts before being born (year 151 of the Reckoning of Sails): “Corvin Daul founded the "
        "Early Ledger” (3 Gale, year 150 of the Reckoning of Sails)." in checked
    ), checked
