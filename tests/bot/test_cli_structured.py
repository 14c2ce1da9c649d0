"""`lorekeeper ingest FILE.yaml...` and `lorekeeper render tree|timeline` through typer's runner.

On SQLite, then PostgreSQL.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget

CAMPAIGN = "Valdorn"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "yaml"
KINDS = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on tmp_path and the test's database, with the campaign and its two factions made."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    for name in ("Sisterhood of Silver", "The Crimson Pact"):
        added = runner.invoke(app, ["canon", "add", "entity", name, "Faction", "--campaign", CAMPAIGN])
        assert added.exit_code == 0, added.output
    return runner


def ingest(cli: CliRunner, *paths: Path) -> tuple[int, dict[str, Any]]:
    result = cli.invoke(app, ["ingest", *map(str, paths), "--campaign", CAMPAIGN, "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_ingest_yaml_files_together_prints_the_report_as_json(cli: CliRunner, tmp_path: Path) -> None:
    code, payload = ingest(cli, *(FIXTURES / f"{k}.yaml" for k in KINDS))
    assert code == 0, payload
    (report,) = payload["yaml"]
    assert report["status"] == "ingested" and report["errors"] == [] and report["error"] is None
    assert report["counts"]["Person"] == 17 and report["counts"]["Creature"] == 10
    assert {f["file"]: f["status"] for f in report["files"]} == {f"{k}.yaml": "created" for k in KINDS}
    assert any(w["kind"] == "dead_acting" for w in report["warnings"])
    code, payload = ingest(cli, FIXTURES / "family_tree.yaml")
    assert code == 0 and payload["yaml"][0]["status"] == "unchanged"
    # Text output for people: the summary.
    text = cli.invoke(app, ["ingest", str(FIXTURES / "bestiary.yaml"), "--campaign", CAMPAIGN])
    assert text.exit_code == 0 and "bestiary.yaml: unchanged" in text.stdout


def test_ingest_errors_are_listed_with_file_line_column_and_the_exit_code_is_one(
    cli: CliRunner, tmp_path: Path
) -> None:
    broken = tmp_path / "broken_multiple_problems.yaml"
    shutil.copy(FIXTURES / "broken_multiple_problems.yaml", broken)
    code, payload = ingest(cli, broken, FIXTURES / "bestiary.yaml")
    assert code == 1
    (report,) = payload["yaml"]
    assert report["status"] == "failed" and "nothing was written" in report["error"]
    assert len(report["errors"]) >= 2
    for error in report["errors"]:
        assert set(error) == {"file", "line", "column", "message"}
        assert (
            error["file"] == "broken_multiple_problems.yaml" and error["line"] >= 1 and error["column"] >= 1
        )
    # Nothing of the valid file was written either (all or nothing).
    card = cli.invoke(app, ["canon", "entity", "The Pale Worm", "--campaign", CAMPAIGN, "--json"])
    assert card.exit_code == 1


def test_render_a_tree_and_a_timeline_to_png_files(cli: CliRunner, tmp_path: Path) -> None:
    code, _ = ingest(cli, *(FIXTURES / f"{k}.yaml" for k in KINDS))
    assert code == 0
    tree = tmp_path / "out" / "tree.png"
    result = cli.invoke(
        app, ["render", "tree", "house_vyr_bloodline", "--campaign", CAMPAIGN, "-o", str(tree), "--json"]
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["people"] == 16  # 17 members, one of them GM-only: drawn for a player
    image = Image.open(io.BytesIO(tree.read_bytes()))
    assert image.format == "PNG" and image.size == (shown["width"], shown["height"])
    gm = cli.invoke(
        app,
        [
            "render",
            "tree",
            "house_vyr_bloodline",
            "--campaign",
            CAMPAIGN,
            "-o",
            str(tree),
            "--as",
            "gm",
            "--json",
        ],
    )
    assert json.loads(gm.stdout)["people"] == 17
    timeline = tmp_path / "timeline.png"
    result = cli.invoke(app, ["render", "timeline", "--campaign", CAMPAIGN, "-o", str(timeline), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["events"] == 9  # two of the eleven events are GM-only
    era = cli.invoke(
        app, ["render", "timeline", "2nd_age", "--campaign", CAMPAIGN, "-o", str(timeline), "--json"]
    )
    assert era.exit_code == 0 and json.loads(era.stdout)["title"] == "Timeline: The Second Age"
    missing = cli.invoke(app, ["render", "tree", "Nobody At All", "--campaign", CAMPAIGN, "-o", str(tree)])
    assert missing.exit_code == 1 and "No entity called" in missing.output
