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
from tests.conftest import DatabaseTarget, sql_run_below
from tests.helpers.paths import YAML_FIXTURES

pytestmark = sql_run_below(
    "tests/bot/services/test_structured_import.py", "tests/bot/services/branches/test_structured_branches.py"
)

CAMPAIGN = "Valdorn"
FIXTURES = YAML_FIXTURES
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


def world(tmp_path: Path, *kinds: str, folder: str = "world") -> list[Path]:
    """Copy fixture files into a folder of the working directory (the campaign's), as a world-builder keeps them."""
    (tmp_path / folder).mkdir(exist_ok=True)
    return [Path(shutil.copy(FIXTURES / f"{k}.yaml", tmp_path / folder / f"{k}.yaml")) for k in kinds]


def test_ingest_yaml_files_together_prints_the_report_as_json(cli: CliRunner, tmp_path: Path) -> None:
    code, payload = ingest(cli, *world(tmp_path, *KINDS))
    assert code == 0, payload
    (report,) = payload["yaml"]
    assert report["status"] == "ingested" and report["errors"] == [] and report["error"] is None
    assert report["counts"]["Person"] == 17 and report["counts"]["Creature"] == 10
    # Each file is known by its path within the campaign, not its bare name.
    assert {f["file"]: f["status"] for f in report["files"]} == {f"world/{k}.yaml": "created" for k in KINDS}
    assert any(w["kind"] == "dead_acting" for w in report["warnings"])
    code, payload = ingest(cli, tmp_path / "world" / "family_tree.yaml")
    assert code == 0 and payload["yaml"][0]["status"] == "unchanged"
    # Text output for people, on stdout: what was written by type, and what failed.
    text = cli.invoke(app, ["ingest", "world/bestiary.yaml", "--campaign", CAMPAIGN])
    assert text.exit_code == 0 and "world/bestiary.yaml: unchanged" in text.stdout
    assert text.stdout.startswith(
        f"Campaign “{CAMPAIGN}”: 10 creatures from 1 YAML file unchanged, nothing written."
    )


def test_the_text_summary_counts_what_a_yaml_import_wrote_and_what_failed(
    cli: CliRunner, tmp_path: Path
) -> None:
    srd = tmp_path / "srd.yaml"
    srd.write_text(
        "creatures:\n" + "".join(f"  - id: beast_{i}\n    name: Beast {i}\n" for i in range(334)),
        encoding="utf-8",
    )
    text = cli.invoke(app, ["ingest", str(srd), "--campaign", CAMPAIGN])
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith(f"Campaign “{CAMPAIGN}”: wrote 334 creatures from 1 YAML file.")
    assert (
        "In all: 334 entities (all new)" in text.stdout
        and "srd.yaml (bestiary): 334 entries, a new file" in text.stdout
    )
    broken = tmp_path / "broken.yaml"
    shutil.copy(FIXTURES / "broken_multiple_problems.yaml", broken)
    text = cli.invoke(app, ["ingest", str(broken), "--campaign", CAMPAIGN])
    assert text.exit_code == 1
    first = text.stdout.splitlines()[0]
    assert "nothing written, " in first and first.endswith("; 1 file not imported.")
    assert "broken.yaml: line " in text.stdout


def test_a_file_of_the_same_name_elsewhere_is_another_file_and_replacing_one_asks_first(
    cli: CliRunner, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "bestiary.yaml").write_text(
        "creatures:\n  - id: aboleth\n    name: Aboleth\n", encoding="utf-8"
    )
    (tmp_path / "b" / "bestiary.yaml").write_text(
        "creatures:\n  - id: kraken\n    name: Kraken\n", encoding="utf-8"
    )
    code, payload = ingest(cli, tmp_path / "a" / "bestiary.yaml")
    assert code == 0 and payload["yaml"][0]["status"] == "ingested"
    code, payload = ingest(cli, tmp_path / "b" / "bestiary.yaml")
    assert code == 0 and payload["yaml"][0]["status"] == "ingested", payload  # not a replacement
    assert payload["yaml"][0]["entities"]["retconned"] == 0
    # The same path with other content would retcon the Aboleth: asked first, nothing written.
    (tmp_path / "a" / "bestiary.yaml").write_text(
        "creatures:\n  - id: ghoul\n    name: Ghoul\n", encoding="utf-8"
    )
    text = cli.invoke(app, ["ingest", "a/bestiary.yaml", "--campaign", CAMPAIGN])
    assert text.exit_code == 1
    assert "a/bestiary.yaml would replace the file of that name imported before" in text.stdout
    assert (
        "It retcons 1 entry (Aboleth): no file says it any more." in text.stdout
        and "--replace" in text.stdout
    )
    card = cli.invoke(app, ["canon", "entity", "Aboleth", "--campaign", CAMPAIGN, "--json"])
    assert card.exit_code == 0, card.output
    result = cli.invoke(app, ["ingest", "a/bestiary.yaml", "--campaign", CAMPAIGN, "--replace", "--json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["yaml"]
    assert report["status"] == "ingested" and report["replaced_files"] == ["a/bestiary.yaml"]
    assert report["retconned_entities"] == ["Aboleth"]
    assert cli.invoke(app, ["canon", "entity", "Aboleth", "--campaign", CAMPAIGN]).exit_code == 1
    assert cli.invoke(app, ["canon", "entity", "Kraken", "--campaign", CAMPAIGN]).exit_code == 0


def test_a_file_declaring_its_source_is_known_by_it_wherever_it_lies(cli: CliRunner, tmp_path: Path) -> None:
    first = tmp_path / "draft.yaml"
    first.write_text(
        "source: world/monsters\ncreatures:\n  - id: aboleth\n    name: Aboleth\n", encoding="utf-8"
    )
    code, payload = ingest(cli, first)
    assert code == 0 and payload["yaml"][0]["files"][0]["file"] == "world/monsters"
    (tmp_path / "final").mkdir()
    moved = tmp_path / "final" / "monsters.yaml"
    moved.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    code, payload = ingest(cli, moved)
    assert code == 0 and payload["yaml"][0]["status"] == "unchanged"


def test_the_same_file_given_from_another_folder_is_the_file_imported_before(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "world").mkdir()
    path = tmp_path / "world" / "bestiary.yaml"
    path.write_text("creatures:\n  - id: aboleth\n    name: Aboleth\n", encoding="utf-8")
    code, payload = ingest(cli, path)
    assert code == 0 and payload["yaml"][0]["status"] == "ingested", payload
    monkeypatch.chdir(tmp_path / "world")  # the GM runs the import from the world's own folder this time
    code, payload = ingest(cli, Path("bestiary.yaml"))
    assert code == 0 and payload["yaml"][0]["status"] == "unchanged", payload
    assert payload["yaml"][0]["files"][0]["file"] == "world/bestiary.yaml"
    # Changed, it is another file to the campaign: the error says how to import it as the same one.
    Path("bestiary.yaml").write_text(path.read_text(encoding="utf-8") + "# seen again\n", encoding="utf-8")
    text = cli.invoke(app, ["ingest", "bestiary.yaml", "--campaign", CAMPAIGN])
    assert text.exit_code == 1
    assert "already defined in world/bestiary.yaml" in text.stdout
    assert "`source: world/bestiary.yaml`" in text.stdout


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
    code, _ = ingest(cli, *world(tmp_path, *KINDS))
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
    assert missing.exit_code == 1 and "Nothing in this campaign's canon is called" in missing.output


def test_one_retconning_file_among_unchanged_and_new_ones_asks_first_and_writes_nothing(
    cli: CliRunner, tmp_path: Path
) -> None:
    for folder, text in (
        ("a", "creatures:\n  - id: aboleth\n    name: Aboleth\n"),
        ("b", "creatures:\n  - id: kraken\n    name: Kraken\n"),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bestiary.yaml").write_text(text, encoding="utf-8")
    code, payload = ingest(cli, tmp_path / "a" / "bestiary.yaml", tmp_path / "b" / "bestiary.yaml")
    assert code == 0 and payload["yaml"][0]["status"] == "ingested", payload
    # a/ changes (it would retcon the Aboleth), b/ is the same, c/ is new: one import of the three.
    (tmp_path / "a" / "bestiary.yaml").write_text(
        "creatures:\n  - id: ghoul\n    name: Ghoul\n", encoding="utf-8"
    )
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "bestiary.yaml").write_text(
        "creatures:\n  - id: wyrm\n    name: Wyrm\n", encoding="utf-8"
    )
    files = ["a/bestiary.yaml", "b/bestiary.yaml", "c/bestiary.yaml"]
    result = cli.invoke(app, ["ingest", *files, "--campaign", CAMPAIGN, "--json"])
    assert result.exit_code == 1, result.output
    (report,) = json.loads(result.stdout)["yaml"]
    assert report["status"] == "confirm" and report["replaced_files"] == ["a/bestiary.yaml"]
    assert report["error"].startswith("a/bestiary.yaml would replace the file of that name imported before.")
    # Nothing was written: the Aboleth stands, neither the Ghoul nor the Wyrm exists.
    assert cli.invoke(app, ["canon", "entity", "Aboleth", "--campaign", CAMPAIGN]).exit_code == 0
    for name in ("Ghoul", "Wyrm"):
        assert cli.invoke(app, ["canon", "entity", name, "--campaign", CAMPAIGN]).exit_code == 1
    # With --replace all three are written.
    result = cli.invoke(app, ["ingest", *files, "--campaign", CAMPAIGN, "--replace", "--json"])
    assert result.exit_code == 0, result.output
    assert cli.invoke(app, ["canon", "entity", "Wyrm", "--campaign", CAMPAIGN]).exit_code == 0


def test_a_file_of_several_documents_is_imported_as_one_file_of_several_kinds(
    cli: CliRunner, tmp_path: Path
) -> None:
    world_file = tmp_path / "world.yaml"
    world_file.write_text(
        "characters:\n  - name: Ann Reed\n    home: Mill Town\n---\n"
        "locations:\n  - name: Mill Town\n---\nkind: bestiary\ncreatures:\n  - name: Bog Hound\n    habitat: Mill Town\n",
        encoding="utf-8",
    )
    text = cli.invoke(app, ["ingest", "world.yaml", "--campaign", CAMPAIGN])
    assert text.exit_code == 0, text.output
    assert "world.yaml (characters, gazetteer, bestiary): 3 entries, a new file" in text.stdout
    # A problem in the last document is reported at its line in the file, and nothing is written.
    broken = tmp_path / "more.yaml"
    broken.write_text(
        "characters:\n  - name: Cy Moss\n---\nlocations:\n  - name: Fen Hut\n    part_of: Cy Moss\n",
        encoding="utf-8",
    )
    text = cli.invoke(app, ["ingest", "more.yaml", "--campaign", CAMPAIGN])
    assert text.exit_code == 1
    assert "more.yaml: line 6, column 14: " in text.stdout and "“Cy Moss” is the NPC at line 2" in text.stdout
    assert cli.invoke(app, ["canon", "entity", "Cy Moss", "--campaign", CAMPAIGN]).exit_code == 1


CALENDAR = "kind: calendar\nmonths: [Rimewane, Sheaf]\n"
FOLK = "kind: characters\ncharacters:\n  - name: Ansel Crowe\n    born: 3 Sheaf, year 612\n"


def test_a_calendar_given_with_the_world_files_is_set_first(cli: CliRunner, tmp_path: Path) -> None:
    """The GM lists the calendar anywhere among the files: it is set before the world's dates are read in its
    words; when the world's files are not imported, the calendar is put back as it was."""
    (tmp_path / "folk.yaml").write_text(FOLK, encoding="utf-8")
    (tmp_path / "calendar.yaml").write_text(CALENDAR, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(FOLK.replace("Ansel Crowe", "Bad Penny") + "    hair: red\n")
    refused = cli.invoke(app, ["ingest", "bad.yaml", "calendar.yaml", "--campaign", CAMPAIGN])
    assert refused.exit_code == 1
    assert "calendar.yaml: not set: the world files were not imported" in refused.stdout
    shown = cli.invoke(app, ["canon", "calendar", "--campaign", CAMPAIGN])
    assert "Rimewane" not in shown.stdout  # put back: no months named
    result = cli.invoke(app, ["ingest", "folk.yaml", "calendar.yaml", "--campaign", CAMPAIGN])
    assert result.exit_code == 0, result.output
    assert "calendar set from calendar.yaml" in result.stdout and "1 person" in result.stdout
    card = cli.invoke(app, ["canon", "entity", "Ansel Crowe", "--campaign", CAMPAIGN])
    assert "3 Sheaf, year 612" in card.stdout, card.stdout
    (tmp_path / "calendar.yaml").write_text(CALENDAR + "seasons: [{name: wet, months: [Mudmonth]}]\n")
    bad = cli.invoke(app, ["ingest", "calendar.yaml", "--campaign", CAMPAIGN])
    assert (
        bad.exit_code == 1
        and "calendar.yaml: line 3, column 18: The season “wet” names “Mudmonth”" in bad.stdout
    )
