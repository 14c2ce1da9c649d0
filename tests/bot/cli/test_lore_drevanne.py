"""Kin and family asked through `lorekeeper lore` of a small world of our own (a royal house, a grandson through
its daughter, a wife who married in from another house, and a steward's son whose true father the GM alone
knows): a person's tie to a family, a maiden name, a birthplace and the house one was born into, a parent the
table only believes, and kin asked in the table's own words. A player's answers are checked word for word
against the same world without the GM's secret: they must give no hint of it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.app import build_canon
from bot.cli.main import app
from canon import campaigns
from canon.models import Viewer
from canon.render.from_graph import family_tree_of
from memory.scene_service import SceneService
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_written, public_written

CAMPAIGN, PUBLIC = "drevanne", "drevanne_public"
FILES = {
    "calendar": """
eras:
  - {name: The Crown Reckoning, abbreviation: CR, start: 1}
months: [Thaw, Bloom, Sheaf, Rime]
today: 1 Sheaf, 430 CR
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Crown Reckoning, abbreviation: CR, start: 1}
events: []
""",
    "house": """
kind: family tree
name: House Drevanne
aliases: [The Royal Family]
description: The royal family of Caddow, crowned at the Tamber Gate.
members:
  - name: Pellinor Drevanne
    sex: male
    titles: [King of Caddow]
    born: 370 CR
    spouse: Ilvara Drevanne
  - name: Ilvara Drevanne
    sex: female
    titles: [Queen of Caddow]
    born: 374 CR
    lineage: House Soth
    maiden_name: Ilvara Soth
    birthplace: Yarrowby
  - name: Merel Drevanne
    sex: female
    born: 396 CR
    parents: [Pellinor Drevanne, Ilvara Drevanne]
    spouse: Quenby Lorne
  - name: Tamber Drevanne
    sex: male
    born: 399 CR
    parents: [Pellinor Drevanne, Ilvara Drevanne]
  - name: Quenby Lorne
    sex: male
    lineage: null
    born: 393 CR
---
kind: family tree
name: House Soth
members: []
---
locations:
  - name: Yarrowby
    description: A fishing town of the salt coast.
  - name: Greyfallow
    description: A market town inland.
""",
    "folk": """
characters:
  - name: Wystan Lorne
    sex: male
    born: 418 CR
    parents: [Merel Drevanne, Quenby Lorne]
  - name: Wendel Orme
    sex: male
    born: 390 CR
    spouse: Hesper Orme
    description: Steward of the Tamber Gate.
  - name: Hesper Orme
    sex: female
    born: 392 CR
    born_as: Hesper Vane
    origin: Greyfallow
    gm_only: [birth_name, birthplace]
  - name: Yarrow Orme
    sex: male
    born: 419 CR
    reputed_parents: [Wendel Orme, Hesper Orme]
    parents: [Tamber Drevanne, Hesper Orme]   # secret
    gm_only: [parents]   # secret
    description: A quick-witted squire.
  - name: Brannoc Orme
    sex: male
    born: 421 CR
    parents: [Wendel Orme, Hesper Orme]
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the world imported, and its copy without the GM's secret."""
    import_written(PUBLIC, tmp_path / "public", public_written(FILES))
    return import_written(CAMPAIGN, tmp_path / "drevanne", FILES)


ask = asker(CAMPAIGN)


def test_a_person_s_tie_to_a_family_is_told_by_membership_marriage_or_the_nearest_member(
    cli: CliRunner, tmp_path: Path
) -> None:
    said = ask(
        cli,
        tmp_path,
        [
            "How is Wystan related to the royal family?",
            "Is Wystan part of House Drevanne?",
            "How is Quenby related to House Drevanne?",
            "Is Merel a member of House Drevanne?",
            "Does Ilvara belong to House Drevanne?",
            "How is Wendel related to the royal family?",
        ],
    )
    assert list(said.values()) == [
        "Wystan Lorne is the son of Merel Drevanne of House Drevanne.",
        "Nothing the table knows makes Wystan Lorne a member of House Drevanne; "
        "Wystan Lorne is the son of Merel Drevanne of House Drevanne.",
        "Quenby Lorne is the husband of Merel Drevanne of House Drevanne.",
        "Yes: Merel Drevanne is a member of House Drevanne by birth, the daughter of Pellinor Drevanne.",
        "Nothing the table knows makes Ilvara Drevanne a member of House Drevanne; "
        "Ilvara Drevanne is the wife of Pellinor Drevanne of House Drevanne.",
        "Nothing the table knows ties Wendel Orme to House Drevanne.",
    ], said


def test_a_maiden_name_a_birthplace_and_the_house_one_was_born_into(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "What was Queen Ilvara's maiden name?",
        "Where is Ilvara from originally?",
        "What family was Ilvara born into?",
        "Where was Ilvara born?",
    ]
    said = ask(cli, tmp_path, asked)
    assert list(said.values()) == [
        "Ilvara Drevanne was born Ilvara Soth.",
        "Ilvara Drevanne was born in Yarrowby.",
        "Ilvara Drevanne was born into House Soth.",
        "Ilvara Drevanne was born in Yarrowby.",
    ], said
    # Hesper's are the GM's alone: a player reads what a world that never said them reads.
    hesper = ["What was Hesper's maiden name?", "Where is Hesper from originally?"]
    player, gm = ask(cli, tmp_path, hesper), ask(cli, tmp_path, hesper, gm=True)
    assert "Vane" not in str(player) and "Greyfallow" not in str(player), player
    assert list(gm.values()) == [
        "Hesper Orme was born Hesper Vane.",
        "Hesper Orme was born in Greyfallow.",
    ], gm


REPUTED = [
    "Who is Yarrow's father?",
    "Who is Yarrow's mother?",
    "Who are Yarrow's parents?",
    "Whose son is Yarrow?",
    "Who are Wendel's children?",
    "Is Yarrow Wendel's son?",
    "How is Yarrow related to Wendel?",
    "Who are Brannoc's brothers?",
    "Is Yarrow part of House Drevanne?",
    "How is Yarrow related to the royal family?",
    "Who are Tamber's children?",
    "How many grandchildren does Pellinor have?",
    "Who is Yarrow's grandfather?",
    "Tell me about Yarrow Orme",
    "Yarrow's family",
]


def test_a_reputed_parent_is_what_a_player_reads_as_believed_and_no_hint_of_the_truth(
    cli: CliRunner, tmp_path: Path
) -> None:
    player = ask(cli, tmp_path, REPUTED)
    assert player["Who is Yarrow's father?"] == "Yarrow Orme is known as Wendel Orme's son.", player
    assert player["Who is Yarrow's mother?"] == "Yarrow Orme is known as Hesper Orme's son.", player
    assert player["Who are Yarrow's parents?"] == "Yarrow Orme is known as Wendel Orme and Hesper Orme's son."
    assert player["Whose son is Yarrow?"] == player["Who are Yarrow's parents?"], player
    assert player["Who are Wendel's children?"] == (
        "Wendel Orme's child is Brannoc Orme; Yarrow Orme is known as Wendel Orme's son."
    ), player
    assert player["Is Yarrow Wendel's son?"] == "Yarrow Orme is known as Wendel Orme's son.", player
    assert player["Who are Brannoc's brothers?"] == "Brannoc Orme's brother is Yarrow Orme.", player
    assert not any("Tamber" in answer for asked, answer in player.items() if "Tamber" not in asked), player
    # Word for word what the same world without the secret answers.
    public = ask(cli, tmp_path, REPUTED, campaign=PUBLIC)
    assert player == public


def test_the_gm_reads_the_truth_and_the_story_the_table_believes(cli: CliRunner, tmp_path: Path) -> None:
    gm = ask(cli, tmp_path, [*REPUTED[:7], "Is Yarrow part of House Drevanne?"], gm=True)
    assert gm["Who is Yarrow's father?"] == (
        "Yarrow Orme's father is Tamber Drevanne; Yarrow Orme is known as Wendel Orme's son; canon does not say "
        "it is true."
    ), gm
    assert gm["Who is Yarrow's mother?"] == "Yarrow Orme's mother is Hesper Orme.", gm
    assert gm["Who are Wendel's children?"] == (
        "Wendel Orme's child is Brannoc Orme; Yarrow Orme is known as Wendel Orme's son; canon does not say it is "
        "true."
    ), gm
    assert gm["Is Yarrow Wendel's son?"] == (
        "Yarrow Orme is known as Wendel Orme's son; canon does not say it is true."
    ), gm
    assert gm["Is Yarrow part of House Drevanne?"] == (
        "Nothing the table knows makes Yarrow Orme a member of House Drevanne; Yarrow Orme is the son of Tamber "
        "Drevanne of House Drevanne."
    ), gm


def test_kin_asked_in_the_table_s_own_words(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(
        cli,
        tmp_path,
        [
            "Who are Pellinor's kids?",
            "Who is Wystan's old man?",
            "Is Wystan an only child?",
            "Is Merel an only child?",
            "Who's Wendel's missus?",
            "Who is Hesper's hubby?",
            "How many grandchildren does Ilvara have?",
            "Who are Ilvara's grandkids?",
            "Whose son is Wystan?",
            "Whose daughter is Merel?",
            "Who is Wystan's missus?",
            "Who is Tamber's nephew?",
            "Has Tamber got any children?",
        ],
    )
    assert list(said.values()) == [
        "Pellinor Drevanne's children are Merel Drevanne and Tamber Drevanne.",
        "Wystan Lorne's father is Quenby Lorne.",
        "Nothing the table knows names a brother or sister of Wystan Lorne.",
        "No: Merel Drevanne's brother is Tamber Drevanne.",
        "Wendel Orme is married to Hesper Orme.",
        "Hesper Orme is married to Wendel Orme.",
        "Ilvara Drevanne has one grandchild: Wystan Lorne.",
        "Ilvara Drevanne's grandchild is Wystan Lorne.",
        "Wystan Lorne is the son of Merel Drevanne and Quenby Lorne.",
        "Merel Drevanne is the daughter of Pellinor Drevanne and Ilvara Drevanne.",
        "Nothing the table knows says who Wystan's missus is.",
        "Tamber Drevanne's nephew is Wystan Lorne.",
        "Nothing the table knows names children of Tamber Drevanne.",
    ], said


async def _trees(target: DatabaseTarget) -> dict[Viewer, set[tuple[str, str]]]:
    """Return who is drawn as whose parent on Yarrow Orme's family tree, as each reads it."""
    db = target.open()
    try:
        async with db.session() as session:
            campaign = await campaigns.find_campaign_by_name(session, CAMPAIGN)
            access = build_canon(db, SceneService(db)).access
            drawn: dict[Viewer, set[tuple[str, str]]] = {}
            for viewer in (Viewer.PLAYER, Viewer.GM):
                reader = await access.reader(session, campaign, viewer)
                tree = await family_tree_of(reader, "Yarrow Orme")
                names = {p.id: p.name for p in tree.people}
                drawn[viewer] = {(names[p], names[c]) for p, c in tree.parent_of if c in names and p in names}
        return drawn
    finally:
        await db.dispose()


def test_the_family_tree_draws_a_player_the_reputed_parents_and_the_gm_the_true_ones(
    cli: CliRunner, cli_env: DatabaseTarget
) -> None:
    drawn = asyncio.run(_trees(cli_env))
    assert {t for t in drawn[Viewer.PLAYER] if t[1] == "Yarrow Orme"} == {
        ("Wendel Orme", "Yarrow Orme"),
        ("Hesper Orme", "Yarrow Orme"),
    }
    assert {t for t in drawn[Viewer.GM] if t[1] == "Yarrow Orme"} == {
        ("Tamber Drevanne", "Yarrow Orme"),
        ("Hesper Orme", "Yarrow Orme"),
    }


def test_a_reputed_parent_beside_the_true_ones_raises_no_continuity_warning(
    cli: CliRunner, tmp_path: Path
) -> None:
    cli.invoke(app, ["campaign", "create", "drevanne_checks"])
    calendar = str(tmp_path / "drevanne" / "calendar.yaml")
    assert cli.invoke(app, ["canon", "calendar", "-c", "drevanne_checks", "--set", calendar]).exit_code == 0
    files = [str(tmp_path / "drevanne" / f"{name}.yaml") for name in ("chronicle", "house", "folk")]
    result = cli.invoke(app, ["ingest", *files, "-c", "drevanne_checks", "--json"])
    (report,) = json.loads(result.output)["yaml"]
    assert report["status"] == "ingested" and report["warnings"] == [], (report["errors"], report["warnings"])


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("reputed_parents: [Nobody Known]", "Nobody Known"),
        ("birthplace: House Soth", "birthplace"),
        ("born_as: [Ilvara, Soth]", "born_as"),
        ("maiden_name: Ilvara Soth\n    born_as: Ilvara Soth", "born_as"),
    ],
)
def test_a_bad_birth_or_reputed_field_is_refused_at_its_line(
    cli: CliRunner, tmp_path: Path, entry: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"characters:\n  - name: Odo Quill\n    {entry}\n", encoding="utf-8")
    result = cli.invoke(app, ["ingest", str(path), "-c", CAMPAIGN])
    assert result.exit_code == 1, result.output
    assert "line 3" in result.output and message in result.output, result.output


def test_yarrow_s_card_shows_a_player_the_reputed_tie_only(cli: CliRunner) -> None:
    def card(*viewer: str) -> str:
        result = cli.invoke(app, ["canon", "entity", "Yarrow Orme", "--campaign", CAMPAIGN, *viewer])
        assert result.exit_code == 0, result.output
        return result.output

    player, gm = card(), card("--as", "gm")
    assert "Wendel Orme is known as Yarrow Orme's father" in player, player
    assert "Tamber" not in player and "REPUTED" not in player, player
    assert "Tamber Drevanne is Yarrow Orme's father" in gm and "Wendel Orme is known as" in gm, gm
