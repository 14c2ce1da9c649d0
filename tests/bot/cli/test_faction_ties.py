"""A faction's faith and tongue, written as words (`worships`, `language`), tie it to the god or the tongue of that
name when the import or canon holds one (WORSHIPS, SPEAKS), so the god's own card and neighbours find the faction;
words naming none ("the Drowned Twins") stay words, and nothing is refused. On the Vellum Coast world
(tests/fixtures/vellumcoast), SQLite then PostgreSQL.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bot.cli.main import app
from tests.bot.cli.test_lore_vellumcoast import CAMPAIGN, cli
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_more

__all__ = ["cli"]

LATER = """factions:
  - name: The Brine Choir
    worships: Saint Orla
    language: Reefspeak
    gm_only: [worships]
---
deities:
  - name: Saint Orla
"""


def _ties(cli: CliRunner, name: str, *, gm: bool = False) -> set[tuple[str, str, str]]:
    result = cli.invoke(
        app, ["canon", "neighbours", name, "-c", CAMPAIGN, "--json", *(["--as", "gm"] if gm else [])]
    )
    assert result.exit_code == 0, result.output
    found: Any = json.loads(result.stdout)
    return {
        (r["subject"]["name"], r["statement"]["predicate"], r["object"]["name"])
        for r in found["relations"]
        if r["statement"]["predicate"] in ("WORSHIPS", "SPEAKS")
    }


def test_a_faction_worships_the_god_and_speaks_the_tongue_its_words_name(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    assert _ties(cli, "Ombra of the Deep") == {("The Saltwrights", "WORSHIPS", "Ombra of the Deep")}
    assert _ties(cli, "Reefspeak") == {("The Saltwrights", "SPEAKS", "Reefspeak")}
    # "the Drowned Twins", "Gullcant": no god, no tongue of that name.
    assert _ties(cli, "The Ashen Oar") == set()
    asked = ["who worships Ombra of the Deep", "who speaks Reefspeak"]
    answers = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert all("The Saltwrights" in a for a in answers.values()), answers
    import_more(cli, CAMPAIGN, tmp_path, "choir.yaml", LATER)
    # A god of the same import, and a tongue already in canon; a faith only the GM may read ties for the GM alone.
    assert _ties(cli, "Saint Orla") == set()
    assert _ties(cli, "Saint Orla", gm=True) == {("The Brine Choir", "WORSHIPS", "Saint Orla")}
    assert _ties(cli, "Reefspeak") == {
        ("The Saltwrights", "SPEAKS", "Reefspeak"),
        ("The Brine Choir", "SPEAKS", "Reefspeak"),
    }
    # The words are kept as written beside the tie.
    card = cli.invoke(app, ["canon", "entity", "The Saltwrights", "-c", CAMPAIGN]).output
    assert "religion: Ombra of the Deep" in card and "language: Reefspeak" in card, card
