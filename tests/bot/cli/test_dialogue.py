"""`lorekeeper ingest` with a dialogue file: a new scene, said on stdout; a broken one refused at its line.

On SQLite, then PostgreSQL. No LLM: nothing is proposed, so the scene completes at once.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget

SCRIPT = """# At the Drowned Rat
Kind: dialogue
Date: 3rd_age.year_340
Location: Thornwall

**Mira:** The ledger is hidden in the cellar.
Kestrel: Then we go down tonight.
"""


def test_a_dialogue_file_becomes_a_scene_and_a_broken_one_names_its_line(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Valdorn"]).exit_code == 0
    talk = tmp_path / "talk.md"
    talk.write_text(SCRIPT, encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(talk), "--campaign", "Valdorn"])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first == "Campaign “Valdorn”: dialogue: talk.md into a scene.", result.stdout
    assert "talk.md: 2 lines into scene 1 “At the Drowned Rat (year 340 of the 3rd age)”" in result.stdout
    assert "nothing to review: the scene is complete" in result.stdout
    broken = tmp_path / "broken.md"
    broken.write_text(SCRIPT + "no speaker on this line\n", encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(broken), "--campaign", "Valdorn", "--json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["dialogue"] == [] and "broken.md, line 8" in payload["failed"][0]["error"]
