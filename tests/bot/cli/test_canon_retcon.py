"""`lorekeeper canon retcon FACT`: a fact named by its words or handle; several that fit are listed, none retconned;
`canon add` that records a conflict exits 3 and says so."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget, sql_run_below
from tests.e2e.jargon import jargon_in

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/bot/services/test_recaps.py")

CAMPAIGN = "Shattered Isles"


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    return runner


def run(cli: CliRunner, *args: str, code: int = 0, as_json: bool = True) -> Any:
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, *(["--json"] if as_json else [])])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if as_json and code in (0, 3) else result


def timeline(cli: CliRunner, name: str) -> list[tuple[str, str]]:
    found = run(cli, "canon", "timeline", name, "--as", "gm")["timeline"]
    return [(v["statement"]["value"], v["statement"]["provenance"]["level"]) for v in found]


def test_a_fact_is_retconned_by_its_words(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "title", "Harbourmaster of Greyhaven")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "ship", "the Grey Gull")
    done = run(
        cli,
        "canon",
        "retcon",
        "Corvan harbourmaster",
        "--rationale",
        "He was never harbourmaster",
        as_json=False,
    )
    assert done.stdout == "Retconned: Corvan Marrow is Harbourmaster of Greyhaven\n", done.stdout
    assert not jargon_in(done.stdout) and "#" not in done.stdout
    assert dict(timeline(cli, "Corvan Marrow")) == {
        "Harbourmaster of Greyhaven": "retconned",
        "the Grey Gull": "canon",
    }


def test_the_words_the_gm_reads_may_be_typed_back_and_a_value_replaces(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "title", "Harbourmaster")
    text = cli.invoke(
        app, ["canon", "timeline", "Corvan Marrow", "--campaign", CAMPAIGN, "--as", "gm"]
    ).stdout
    assert "Corvan Marrow is Harbourmaster" in text and not jargon_in(text) and "#" not in text, text
    done = run(
        cli,
        "canon",
        "retcon",
        "Corvan Marrow is Harbourmaster",
        "--rationale",
        "a promotion",
        "--new-value",
        "Admiral",
        as_json=False,
    )
    assert done.stdout == "Retconned: Corvan Marrow is Harbourmaster\nReplaced by: Corvan Marrow is Admiral\n"
    assert timeline(cli, "Corvan Marrow") == [("Harbourmaster", "retconned"), ("Admiral", "canon")]
    card = cli.invoke(app, ["canon", "entity", "Corvan Marrow", "--campaign", CAMPAIGN, "--as", "gm"]).stdout
    assert "Corvan Marrow is Admiral" in card and not jargon_in(card), card
    # A fact's id, read in --json output, is still understood; the text output never shows one.
    (ship,) = run(cli, "canon", "add", "fact", "Corvan Marrow", "ship", "the Grey Gull")["statement_ids"]
    again = run(cli, "canon", "retcon", f"fact {ship}", "--rationale", "sunk")
    assert again["retconned_id"] == ship


def test_canon_add_relies_on_takes_facts_by_their_words(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "title", "Harbourmaster")
    added = run(
        cli,
        "canon",
        "add",
        "fact",
        "Corvan Marrow",
        "ship",
        "the Grey Gull",
        "--relies-on",
        "Corvan harbourmaster",
        as_json=False,
    )
    assert added.stdout.startswith("Written to canon:\n  Corvan Marrow's ship: the Grey Gull"), added.stdout
    assert not jargon_in(added.stdout)
    unknown = run(
        cli,
        "canon",
        "add",
        "fact",
        "Corvan Marrow",
        "rank",
        "captain",
        "--relies-on",
        "the Brass Lantern",
        code=1,
        as_json=False,
    )
    assert "No fact of canon says “the Brass Lantern”." in unknown.stderr
    several = run(
        cli,
        "canon",
        "add",
        "fact",
        "Corvan Marrow",
        "rank",
        "captain",
        "--relies-on",
        "Corvan",
        code=1,
        as_json=False,
    )
    assert "“Corvan” fits 2 facts; say which one" in several.stderr
    retconned = run(cli, "canon", "retcon", "Corvan harbourmaster", "--rationale", "never", as_json=False)
    assert retconned.stdout.startswith("Retconned: Corvan Marrow is Harbourmaster\nTo review"), (
        retconned.stdout
    )
    assert "Corvan Marrow's ship: the Grey Gull" in retconned.stdout


def test_words_that_fit_several_facts_list_them_and_retcon_nothing(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "title", "Harbourmaster")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "ship", "the Grey Gull")
    several = run(cli, "canon", "retcon", "Corvan", "--rationale", "why", code=1, as_json=False)
    assert "“Corvan” fits 2 facts; say which one" in several.stderr
    assert "• Corvan Marrow is Harbourmaster\n" in several.stderr  # by their words, no number
    assert "• Corvan Marrow's ship: the Grey Gull\n" in several.stderr
    assert [level for _, level in timeline(cli, "Corvan Marrow")] == ["canon", "canon"]


@pytest.mark.parametrize(
    "typed", ["Aldric the Bold", "fact 999", "   ", "the moon is cheese " * 20, "fact ９９９"]
)
def test_words_that_fit_no_fact_say_so_and_retcon_nothing(cli: CliRunner, typed: str) -> None:
    run(cli, "canon", "add", "entity", "Corvan Marrow", "NPC")
    run(cli, "canon", "add", "fact", "Corvan Marrow", "title", "Harbourmaster")
    missing = run(cli, "canon", "retcon", typed, "--rationale", "why", code=1, as_json=False)
    assert "No fact of canon says" in missing.stderr or "Say which fact" in missing.stderr
    assert len(missing.stderr) < 400  # a long text is quoted back cut short
    assert timeline(cli, "Corvan Marrow") == [("Harbourmaster", "canon")]


def test_a_conflicting_add_is_written_says_so_and_exits_3(cli: CliRunner) -> None:
    run(cli, "canon", "add", "relationship", "Aldric", "ally of", "Mara")
    text = run(cli, "canon", "add", "relationship", "Aldric", "enemy of", "Mara", code=3, as_json=False)
    assert "continuity conflict was recorded" in text.stdout
    assert "ENEMY_OF" not in text.stdout and "#" not in text.stdout
    run(cli, "canon", "add", "relationship", "Aldric", "ally of", "Bren")
    scripted = run(cli, "canon", "add", "relationship", "Aldric", "enemy of", "Bren", code=3)
    assert [c["kind"] for c in scripted["conflicts"]] == ["exclusive_relations"]
