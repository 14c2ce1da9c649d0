"""`lorekeeper canon ...` through typer's runner, on SQLite then PostgreSQL, asserting the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget, sql_run_below

#: The commands below whose SQL is run on PostgreSQL by other tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

CAMPAIGN = "Shattered Isles"


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner whose settings point at tmp_path and the test's database (and read no config file)."""
    runner = CliRunner()
    created = runner.invoke(app, ["campaign", "create", CAMPAIGN])
    assert created.exit_code == 0, created.output
    return runner


def run(cli: CliRunner, *args: str, code: int = 0, as_json: bool | None = None) -> Any:
    """Run a command with --json in the campaign; return its parsed JSON (or the result on failure)."""
    as_json = code == 0 if as_json is None else as_json
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, *(["--json"] if as_json else [])])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if as_json else result


@SQL_RUN_BELOW
def test_add_then_read_an_entity_card_as_player_and_gm(cli: CliRunner) -> None:
    added = run(cli, "canon", "add", "entity", "Aldric", "npc", "--aliases", "Sir Al, Al")
    (written,) = added["written"]
    assert written["content"]["name"] == "Aldric" and written["content"]["entity_type"] == "NPC"
    assert written["authority"] == "gm" and added["conflicts"] == []
    aldric_id = added["entity_ids"][str(written["id"])]
    title = run(cli, "canon", "add", "fact", "Aldric", "title", "Knight of the Vale")
    (title_id,) = title["statement_ids"]
    run(cli, "canon", "add", "entity", "The Hidden King", "NPC", "--gm-only")
    run(cli, "canon", "add", "fact", "sir al", "oath", "serves the Hidden King", "--gm-only")

    player = run(cli, "canon", "entity", "Aldric")
    assert player["entity"]["id"] == aldric_id and player["entity"]["aliases"] == ["Sir Al", "Al"]
    assert [f["statement"]["value"] for f in player["facts"]] == ["Knight of the Vale"]
    assert player["viewer"] == "player" and "hidden_count" not in player
    gm = run(cli, "canon", "entity", "Aldric", "--as", "gm")
    assert [f["statement"]["value"] for f in gm["facts"]] == ["Knight of the Vale", "serves the Hidden King"]
    assert gm["facts"][1]["statement"]["visibility"] == "gm_only"
    command, decision = gm["facts"][0]["statement"]["evidence"]
    assert command["kind"] == "command" and command["note"] == "lorekeeper canon add fact by command line"
    assert "accepted by command line" in decision["note"]
    assert gm["facts"][0]["statement"]["id"] == title_id

    hidden = run(cli, "canon", "entity", "The Hidden King", code=1)
    assert "Nothing in this campaign's canon is called" in hidden.stderr
    assert run(cli, "canon", "entity", "The Hidden King", "--as", "gm")["entity"]["visibility"] == "gm_only"


@SQL_RUN_BELOW
def test_as_of_dates_and_the_timeline(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "NPC")
    run(cli, "canon", "add", "state", "Aldric", "alive", "--when", "3rd_age.year_280")
    run(cli, "canon", "add", "state", "Aldric", "dead", "--when", "3rd_age.300.3.17")
    before = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_290")
    after = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_301")
    assert (
        before["state"]["statement"]["value"] == "alive"
        and before["as_of"]["world"] == "year 290 of the 3rd age"
    )
    assert after["state"]["statement"]["value"] == "dead"
    # Dates in the calendar's words, as the text says them; the sortable key beside, for scripts.
    validity = after["state"]["statement"]["validity"]
    assert validity["world_from"] == "day 17 of month 3, year 300 of the 3rd age"
    assert validity["world_from_key"] == 3000317
    timeline = run(cli, "canon", "timeline", "Aldric")
    assert timeline["entity"] == "Aldric"
    assert [v["statement"]["value"] for v in timeline["timeline"]] == ["alive", "dead"]
    text = cli.invoke(app, ["canon", "entity", "Aldric", "--campaign", CAMPAIGN])
    assert text.exit_code == 0 and "State: Aldric is dead" in text.stdout and "Aldric is dead" in text.stdout


@SQL_RUN_BELOW
def test_check_lists_every_conflict_with_its_facts_and_evidence(cli: CliRunner) -> None:
    assert run(cli, "canon", "check") == {"campaign": CAMPAIGN, "conflicts": []}
    ally = run(cli, "canon", "add", "relationship", "Aldric", "ally of", "Mara")
    assert [p["content"]["type"] for p in ally["written"]] == ["entity", "entity", "relationship"]
    enemy = run(cli, "canon", "add", "relationship", "Aldric", "ENEMY_OF", "Mara", code=3, as_json=True)
    assert [c["kind"] for c in enemy["conflicts"]] == ["exclusive_relations"]

    found = cli.invoke(app, ["canon", "check", "--campaign", CAMPAIGN, "--json"])
    assert found.exit_code == 1, "a check that finds a problem fails (for scripts and CI)"
    checked = json.loads(found.stdout)
    (conflict,) = checked["conflicts"]
    assert conflict["kind"] == "exclusive_relations" and conflict["new"] is False  # recorded at the add
    assert sorted(conflict["statement_ids"]) == sorted(ally["statement_ids"] + enemy["statement_ids"])
    assert len(conflict["sides"]) == 2
    for side in conflict["sides"]:
        assert side["statement_id"] in conflict["statement_ids"] and side["sentence"]
        assert [e["kind"] for e in side["evidence"]] == ["command", "command"]  # the command, the decision
    recorded = run(cli, "canon", "conflicts")
    assert [c["kind"] for c in recorded] == ["exclusive_relations"]


@SQL_RUN_BELOW
def test_bad_input_exits_1_with_a_message(cli: CliRunner) -> None:
    relation = run(cli, "canon", "add", "relationship", "A", "LOVES", "B", code=1)
    assert "“LOVES” is not a relation this campaign knows. Did you mean “" in relation.stderr
    entity_type = run(cli, "canon", "add", "entity", "X", "Spaceship", code=1)
    assert "Allowed types:" in entity_type.stderr and "NPC" in entity_type.stderr
    date = run(cli, "canon", "entity", "Aldric", "--as-of", "3rd_age.year_abc", code=1)
    assert "That is not a date this campaign's calendar knows; write one like “year 412”" in date.stderr
    bad_when = run(cli, "canon", "add", "fact", "A", "title", "x", "--when", "3rd_age.month_x", code=1)
    assert "“when”: That is not a date this campaign's calendar knows; write one like" in bad_when.stderr
    unknown = cli.invoke(app, ["canon", "check", "--campaign", "Nowhere", "--json"])
    assert unknown.exit_code == 1 and "There is no campaign named 'Nowhere'" in unknown.stderr
    assert run(cli, "canon", "check") == {"campaign": CAMPAIGN, "conflicts": []}  # nothing was written


EXTENSION = """
entity_types:
  Starship: {kind: concrete, parent: Item, description: a ship of the void}
relation_types:
  CREWS: {from: [Person], to: [Starship], temporal: true}
states:
  tags:
    adrift: {applies_to: [Starship]}
  transitions:
    intact: [adrift]
"""


def test_the_campaign_ontology_is_shown_set_validated_and_kept_while_canon_uses_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    shown = run(cli, "canon", "ontology")
    assert (
        shown["extension"] is None
        and "NPC" in shown["entity_types"]
        and "Starship" not in shown["entity_types"]
    )
    assert shown["via"]["resurrection"] == {"from": ["dead"], "to": ["alive", "wounded"]}
    refused = run(cli, "canon", "add", "entity", "Grey Gull", "Starship", code=1)
    assert "Allowed types:" in refused.stderr

    extension = tmp_path / "space.yaml"
    extension.write_text(EXTENSION, encoding="utf-8")
    set_ = run(cli, "canon", "ontology", "--set", str(extension))
    assert "Starship" in set_["entity_types"] and "CREWS" in set_["relation_types"]
    assert set_["extension"]["entity_types"]["Starship"]["parent"] == "Item"
    assert "adrift" in set_["transitions"]["intact"] and "damaged" in set_["transitions"]["intact"]
    assert run(cli, "canon", "ontology")["extension"] == set_["extension"]  # stored with the campaign
    run(cli, "canon", "add", "entity", "Grey Gull", "Starship")
    crew = run(cli, "canon", "add", "relationship", "Mara", "CREWS", "Grey Gull")
    assert [p["content"]["type"] for p in crew["written"]] == ["entity", "relationship"]

    loosening = tmp_path / "undying.yaml"
    loosening.write_text("states:\n  transitions:\n    dead: [alive]\n", encoding="utf-8")
    loosened = run(cli, "canon", "ontology", "--set", str(loosening), code=1)
    assert "dead is terminal" in loosened.stderr and "resurrection" in loosened.stderr
    broken = tmp_path / "broken.yaml"
    broken.write_text("entity_types: [Starship\n", encoding="utf-8")
    said = run(cli, "canon", "ontology", "--set", str(broken), code=1).stderr
    assert "broken.yaml, line 1: a list opened with [ on this line is not closed" in " ".join(said.split())
    missing = run(cli, "canon", "ontology", "--set", str(tmp_path / "nowhere.yaml"), code=1)
    assert "Cannot read" in missing.stderr
    # Canon uses Starship and CREWS: an extension without them is refused, and so is clearing it.
    dropped = run(cli, "canon", "ontology", "--clear", code=1)
    assert "uses CREWS, Starship" in dropped.stderr
    assert run(cli, "canon", "ontology")["extension"] == set_["extension"]  # nothing changed


@SQL_RUN_BELOW
def test_neighbours_within_hops_never_walk_through_hidden_canon(cli: CliRunner) -> None:
    run(cli, "canon", "add", "relationship", "Aldric", "ALLY_OF", "Mara")
    run(cli, "canon", "add", "relationship", "Mara", "MEMBER_OF", "Night Watch")
    run(cli, "canon", "add", "entity", "The Hidden King", "NPC", "--gm-only")
    run(cli, "canon", "add", "relationship", "Aldric", "ENEMY_OF", "The Hidden King")
    run(cli, "canon", "add", "relationship", "The Hidden King", "RULES", "Black Keep")
    run(cli, "canon", "add", "relationship", "Black Keep", "PART_OF", "Far North")

    one = run(cli, "canon", "neighbours", "Aldric")
    assert [(r["hop"], r["statement"]["predicate"]) for r in one["relations"]] == [(1, "ALLY_OF")]
    assert [(e["hop"], e["name"]) for e in one["entities"]] == [(1, "Mara")]
    three = run(cli, "canon", "neighbours", "Aldric", "--hops", "3")
    assert [(r["hop"], r["statement"]["predicate"]) for r in three["relations"]] == [
        (1, "ALLY_OF"),
        (2, "MEMBER_OF"),
    ]
    gm = run(cli, "canon", "neighbours", "Aldric", "--hops", "3", "--as", "gm")
    assert [(e["hop"], e["name"]) for e in gm["entities"]] == [
        (1, "Mara"),
        (1, "The Hidden King"),
        (2, "Night Watch"),
        (2, "Black Keep"),
        (3, "Far North"),
    ]
    assert "1 to 4 hops" in run(cli, "canon", "neighbours", "Aldric", "--hops", "9", code=1).stderr


@SQL_RUN_BELOW
def test_a_fact_may_cite_the_facts_it_relies_on(cli: CliRunner) -> None:
    (stone,) = run(cli, "canon", "add", "fact", "Bridge", "material", "stone")["statement_ids"]
    cited = run(cli, "canon", "add", "fact", "Bridge", "bears", "a siege tower", "--relies-on", f"#{stone}")
    assert cited["written"][0]["content"]["relies_on"] == [stone]
    assert (
        "No fact of canon says “one”."
        in run(cli, "canon", "add", "fact", "Bridge", "x", "y", "--relies-on", "one", code=1).stderr
    )
    assert (
        "No fact of canon says “999”."
        in run(cli, "canon", "add", "fact", "Bridge", "x", "y", "--relies-on", "999", code=1).stderr
    )
    by_words = run(cli, "canon", "add", "fact", "Bridge", "guards", "two", "--relies-on", "Bridge stone")
    assert by_words["written"][0]["content"]["relies_on"] == [stone]
