"""A family tree drawn of a child adopted and fostered (a small world of our own, the Tulls of Reedmarch): who took
the child in stands above them, joined by a dashed line the picture's legend explains, beside the parents by birth
joined by solid ones. A foster parent the GM keeps is on the GM's tree alone: a player's tree is the one a file that
never named them draws. On SQLite, then PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from bot.app import build_canon
from bot.cli.main import app
from canon import campaigns
from canon.models import Viewer
from canon.render.from_graph import family_tree_of
from memory.scene_service import SceneService
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import import_written, public_written

CAMPAIGN = "reedmarch"
FILES = {
    "calendar": """
eras:
  - {name: The Reed Count, abbreviation: RC, start: 1}
months: [Thaw, Sowing, Reaping, Frost]
today: 1 Sowing, 1230 RC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reed Count, abbreviation: RC, start: 1}
""",
    "folk": """
characters:
  - name: Ysolt Dunmere
    sex: female
    spouse: Aldo Dunmere
  - name: Aldo Dunmere
    sex: male
  - name: Wenna Tull
    sex: female
    born: 1200
    parents: [Ysolt Dunmere, Aldo Dunmere]
    adoptive_parents: [{name: Corm Tull, adopted: 3 Reaping, 1205 RC}, Ebba Tull]
    foster_parents:  # secret
      - {name: Old Mag, fostered: 1203, gm_only: true}  # secret
  - name: Corm Tull
    sex: male
    spouse: Ebba Tull
  - name: Ebba Tull
    sex: female
  - name: Old Mag
    sex: female
""",
}


async def _trees(target: DatabaseTarget, campaign: str) -> dict[Viewer, tuple[set[tuple[str, str]], ...]]:
    """Return who is drawn as Wenna Tull's parent by birth, and who as one who took her in, as each reads it."""
    db = target.open()
    try:
        async with db.session() as session:
            found = await campaigns.find_campaign_by_name(session, campaign)
            access = build_canon(db, SceneService(db)).access
            drawn: dict[Viewer, tuple[set[tuple[str, str]], ...]] = {}
            for viewer in (Viewer.PLAYER, Viewer.GM):
                reader = await access.reader(session, found, viewer)
                tree = await family_tree_of(reader, "Wenna Tull")
                names = {p.id: p.name for p in tree.people}
                drawn[viewer] = tuple(
                    {(names[p], names[c]) for p, c in links} for links in (tree.parent_of, tree.taken_in)
                )
        return drawn
    finally:
        await db.dispose()


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Reedmarch imported, and its copy without the GM's lines."""
    import_written(f"{CAMPAIGN}-public", tmp_path / "public", public_written(FILES))
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_the_tree_draws_who_took_a_child_in(cli: CliRunner, cli_env: DatabaseTarget) -> None:
    drawn = asyncio.run(_trees(cli_env, CAMPAIGN))
    by_birth = {("Ysolt Dunmere", "Wenna Tull"), ("Aldo Dunmere", "Wenna Tull")}
    taken_in = {("Corm Tull", "Wenna Tull"), ("Ebba Tull", "Wenna Tull")}
    assert drawn[Viewer.GM] == (by_birth, {*taken_in, ("Old Mag", "Wenna Tull")})
    assert drawn[Viewer.PLAYER] == (by_birth, taken_in)
    # A player's tree is the one a file that never named the foster mother draws.
    assert asyncio.run(_trees(cli_env, f"{CAMPAIGN}-public"))[Viewer.PLAYER] == drawn[Viewer.PLAYER]


def test_the_picture_is_drawn_for_a_player_without_the_gms_foster_mother(
    cli: CliRunner, tmp_path: Path
) -> None:
    for viewer, people in (("player", 5), ("gm", 6)):
        output = tmp_path / f"{viewer}.png"
        result = cli.invoke(
            app, ["render", "tree", "Wenna Tull", "-c", CAMPAIGN, "-o", str(output), "--as", viewer, "--json"]
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["people"] == people, result.output
        assert Image.open(output).size[0] > 0
