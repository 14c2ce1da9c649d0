"""The campaign's glossary: the table's words, kept with the campaign, read by /lore, exported with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget, sql_run_below

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

WORLD = """# The Reach

## Goblin

- **Armor Class** 15 (leather armor, shield)
- **Hit Points** 7 (2d6)

Goblins raid the Reach's roads at night.
"""


def run(runner: CliRunner, *args: str, code: int = 0) -> Any:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def test_a_glossary_term_teaches_lore_the_table_s_word_and_goes_with_an_export(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    (tmp_path / "world.md").write_text(WORLD, encoding="utf-8")
    run(runner, "ingest", str(tmp_path / "world.md"), "--campaign", "Reach")

    before = run(runner, "lore", "greenskin hp", "--campaign", "Reach")
    assert before["answer"]["known"] is False

    added = run(runner, "glossary", "add", "Greenskin", "goblin", "--campaign", "Reach")
    assert added == {"term": "greenskin", "meaning": "goblin", "own": True}
    after = run(runner, "lore", "greenskin hp", "--campaign", "Reach")
    assert after["answer"]["text"] == "Goblin's hit points are 7 (2d6). [1]"

    listed = run(runner, "glossary", "list", "--campaign", "Reach")
    assert listed[0] == added and {"term": "hp", "meaning": "hit points", "own": False} in listed
    # A campaign's meaning outranks a shipped one of the same spelling.
    run(runner, "glossary", "add", "hp", "hit points", "--campaign", "Reach")
    assert sum(1 for e in run(runner, "glossary", "list", "--campaign", "Reach") if e["term"] == "hp") == 1

    # Exported and imported as a new campaign, the glossary comes along.
    run(runner, "export", str(tmp_path / "reach.zip"), "--campaign", "Reach")
    run(runner, "import", str(tmp_path / "reach.zip"), "--as", "Copy")
    copied = run(runner, "glossary", "list", "--campaign", "Copy")
    assert added in copied
    assert run(runner, "lore", "greenskin hp", "--campaign", "Copy")["answer"]["known"] is True

    removed = run(runner, "glossary", "remove", "GREENSKIN", "--campaign", "Reach")
    assert removed["term"] == "greenskin"
    assert run(runner, "lore", "greenskin hp", "--campaign", "Reach")["answer"]["known"] is False


def test_bad_glossary_entries_are_refused_with_a_clear_error_and_nothing_stored(
    cli_env: DatabaseTarget,
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    for term, meaning, said in (
        ("<@123>", "goblin", "A glossary term is a word"),
        ("   ", "goblin", "A glossary term is a word"),
        ("x" * 61, "goblin", "A glossary term is a word"),
        ("gob", "**goblin** @everyone", "A meaning is plain words"),
        ("gob", "g" * 121, "A meaning is plain words"),
    ):
        refused = runner.invoke(app, ["glossary", "add", term, meaning, "--campaign", "Reach"])
        assert refused.exit_code != 0 and said in refused.output, refused.output
    listed = run(runner, "glossary", "list", "--campaign", "Reach")
    assert not [e for e in listed if e["own"]]
    missing = runner.invoke(app, ["glossary", "remove", "nothing", "--campaign", "Reach"])
    assert missing.exit_code != 0 and "is neither in this campaign's glossary nor shipped" in missing.output
    odd = runner.invoke(app, ["glossary", "remove", "<@123>", "--campaign", "Reach"])
    assert odd.exit_code != 0 and "nor shipped with Lorekeeper" in odd.output
    assert not [e for e in run(runner, "glossary", "list", "--campaign", "Reach") if e["own"]]


BEASTS = """# Rules

## OA

OA is the Old Arcana, the magic of the drowned kings. Only a lamplighter may learn it.

## Kelp Hound

- **HP** 5
- **Bite** 2 damage

Kelp hounds hunt the tide flats in packs.
"""


def said(runner: CliRunner, *args: str) -> str:
    result = runner.invoke(app, [*args, "--campaign", "Reach"])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_a_shipped_term_removed_is_read_as_written_until_removed_again(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    """Another game's "OA" is its own word: the shipped "oa → opportunity attack" hides it until the GM removes
    it; a field the book labels with a shipped term ("HP") is found by the player's own word either way."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", "Reach"]).exit_code == 0
    (tmp_path / "rules.md").write_text(BEASTS, encoding="utf-8")
    run(runner, "ingest", str(tmp_path / "rules.md"), "--campaign", "Reach")
    assert run(runner, "lore", "what is oa", "--campaign", "Reach")["answer"]["known"] is False
    assert run(runner, "lore", "kelp hound hp", "--campaign", "Reach")["answer"]["text"] == (
        "Kelp Hound's HP is 5. [1]"
    )

    assert said(runner, "glossary", "remove", "OA") == (
        "“oa” is read as written in this campaign now, not as the shipped “opportunity attack”. Remove it again to "
        "bring the shipped meaning back."
    )
    assert "oa: read as written (the shipped “opportunity attack” is off)" in said(runner, "glossary", "list")
    assert run(runner, "lore", "what is oa", "--campaign", "Reach")["answer"]["text"] == (
        "OA is the Old Arcana, the magic of the drowned kings. [1]"
    )
    assert (
        said(runner, "glossary", "remove", "oa") == "“oa” is read as the shipped “opportunity attack” again."
    )
    assert run(runner, "lore", "what is oa", "--campaign", "Reach")["answer"]["known"] is False

    # A meaning of the campaign's own over a shipped one: removed, the shipped one is read again.
    said(runner, "glossary", "add", "hp", "Wounds")
    assert "hp → Wounds (not the shipped “hit points”)" in said(runner, "glossary", "list")
    assert said(runner, "glossary", "remove", "hp") == (
        "Removed from the glossary: “hp” → Wounds. “hp” is read as the shipped “hit points” again."
    )
