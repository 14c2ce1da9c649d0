"""A world imported again with one birth date changed: the summary says which file changed, which facts (by
name) and why one date changes several (the ties a birth dates), and which files are unchanged; never that it
"wrote" the whole world again. The world is tests/fixtures/sarrane, copied so that one file can be edited."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import import_world
from tests.helpers.paths import REPO

FILES = ("chronicle", "house", "folk")


def test_a_world_imported_again_with_one_birth_changed_says_what_changed_and_what_did_not(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    world = tmp_path / "sarrane"
    shutil.copytree(REPO / "tests" / "fixtures" / "sarrane", world)
    cli = import_world("sarrane", world, FILES, "calendar.yaml", calendar_first=True)
    house = world / "house.yaml"
    house.write_text(
        house.read_text(encoding="utf-8").replace("born: 631 CY", "born: 630 CY"), encoding="utf-8"
    )
    paths = [f"sarrane/{name}.yaml" for name in FILES]
    asked = cli.invoke(app, ["ingest", *paths, "-c", "sarrane"])
    assert asked.exit_code == 1 and "nothing written (it would replace files imported before)" in asked.output
    changed = (
        "In sarrane/house.yaml, 3 facts changed: Haskel Sarrane's birth, that Haskel Sarrane is a member of House "
        "Sarrane and that Oren Sarrane is Haskel Sarrane's parent. A tie that begins at a birth or ends at a death "
        "(to a parent, to a lineage) is dated by it: the new date changes that tie too. The old facts are kept, "
        "marked retconned."
    )
    assert changed in " ".join(asked.output.split()), asked.output
    done = cli.invoke(app, ["ingest", *paths, "-c", "sarrane", "--replace"])
    assert done.exit_code == 0, done.output
    lines = done.output.strip().splitlines()
    assert lines[0] == (
        "Campaign “sarrane”: changed sarrane/house.yaml (3 facts changed) and left sarrane/chronicle.yaml and "
        "sarrane/folk.yaml unchanged."
    )
    assert "wrote" not in done.output
    assert changed in " ".join(done.output.split())
    assert "  sarrane/chronicle.yaml and sarrane/folk.yaml are unchanged." in lines
    # Nothing deleted: the old birth is retconned, and the new one replaces it.
    report = json.loads(cli.invoke(app, ["ingest", *paths, "-c", "sarrane", "--json"]).stdout)["yaml"][0]
    assert report["status"] == "unchanged"
    card = cli.invoke(app, ["canon", "entity", "Haskel Sarrane", "-c", "sarrane"]).output
    assert "born in year 630 of the Crown Years" in card and "631" not in card
