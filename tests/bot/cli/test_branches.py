"""`lorekeeper campaign fork|list|info|rebase|promote|accept-promotion|abandon|delete` and `canon entity
--campaign BRANCH`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.app import build_services
from bot.cli.main import app
from canon.proposals import FactContent, Ref
from config.settings import load_settings
from memory.scenes import Actor
from tests.conftest import DatabaseTarget

MAIN = "Shattered Isles"
GM = Actor(id=1, name="Gina", is_gm=True)


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", MAIN]).exit_code == 0
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def value(card: dict[str, Any], attribute: str) -> str | None:
    found = [f["statement"]["value"] for f in card["facts"] if f["statement"]["predicate"] == attribute]
    return found[-1] if found else None


def test_fork_read_rebase_promote_and_delete_from_the_command_line(cli: CliRunner) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "npc", "--campaign", MAIN)
    run(cli, "canon", "add", "fact", "Aldric", "title", "Knight", "--campaign", MAIN)
    branch = run(cli, "campaign", "fork", MAIN, "What if")
    assert branch["parent_id"] is not None and branch["fork_changeset_id"] >= 1
    run(cli, "campaign", "fork", MAIN, "Other way")
    tree = run(cli, "campaign", "list")
    assert [(n["name"], n["depth"], n["parent"]) for n in tree] == [
        (MAIN, 0, None),
        ("What if", 1, MAIN),
        ("Other way", 1, MAIN),
    ]
    text = cli.invoke(app, ["campaign", "list"]).stdout
    assert "  #2  What if  (forked from Shattered Isles at changeset #" in text

    # The branch reads exactly like the parent, and writes only to itself.
    added = run(cli, "canon", "add", "fact", "Aldric", "trade", "smith", "--campaign", "What if")
    (trade_id,) = added["statement_ids"]
    card = run(cli, "canon", "entity", "Aldric", "--campaign", "What if")
    # "trade" is a name for the ontology's occupation: the card shows it under that name.
    assert (value(card, "title"), value(card, "occupation")) == ("Knight", "smith")
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "occupation") is None

    # The parent moves on; a rebase shows first, then moves the fork point with --yes.
    run(cli, "canon", "add", "fact", "Aldric", "horse", "Grey", "--campaign", MAIN)
    shown = run(cli, "campaign", "rebase", "What if")
    assert shown["applied"] is False and shown["changesets"] == 1 and shown["conflicts"] == []
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", "What if"), "horse") is None
    done = run(cli, "campaign", "rebase", "What if", "--yes")
    assert done["applied"] is True
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", "What if"), "horse") == "Grey"
    assert run(cli, "campaign", "info", "What if")["behind"] == 0

    # Promotion: proposed in the parent, written there only once accepted.
    promoted = run(cli, "campaign", "promote", "What if", str(trade_id))
    (proposal,) = promoted["proposals"]
    assert proposal["status"] == "pending" and promoted["parent"] == MAIN
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "occupation") is None
    accepted = run(cli, "campaign", "accept-promotion", str(proposal["id"]))
    assert accepted["accepted"] == [proposal["id"]]
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "occupation") == "smith"

    # Delete: shown first, done with --yes; the parent keeps everything.
    shown = run(cli, "campaign", "delete", "What if")
    assert shown["deleted"] is False
    assert run(cli, "campaign", "info", "What if")["name"] == "What if"
    gone = run(cli, "campaign", "delete", "What if", "--yes")
    assert gone["deleted"] is True and gone["rows"]["statements"] == 1
    assert [n["name"] for n in run(cli, "campaign", "list")] == [MAIN, "Other way"]
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "occupation") == "smith"
    refused = run(cli, "campaign", "delete", MAIN, "--yes", code=1)
    assert "not a branch" in refused.output


def play_scenes(data_dir: Path, target: DatabaseTarget, *scenes: tuple[str, str, str | None]) -> None:
    """Play and commit one scene of MAIN per (attribute, value, in-world date) fact about Aldric.

    The command line has no scenes (they are played in Discord): the same services, on the same database.
    """

    async def go() -> None:
        # As the command line reads them (tmp_path holds no .env or lorekeeper.toml), on the test's database.
        settings = load_settings(
            data_dir=data_dir, database_url=target.database_url, embedding={"enabled": False}
        )
        services = await build_services(settings)
        try:
            campaign = await services.campaigns.by_name(MAIN)
            for channel, (attribute, value, when) in enumerate(scenes, 900):
                await services.scenes.start_scene(
                    campaign_id=campaign.id,
                    guild_id=None,
                    channel_id=channel,
                    title=value,
                    location=None,
                    actor=GM,
                )
                content = FactContent(subject=Ref(name="Aldric"), attribute=attribute, value=value, when=when)
                await services.proposals.propose(campaign, channel, content, GM)
                report, _ = await services.canon.end_scene(channel)
                await services.reviews.accept_all(report.scene.id, GM)
                await services.canon.commit_scene(report.scene.id, GM)
            await services.voice.drain()
        finally:
            await services.close()

    asyncio.run(go())


def test_fork_at_a_scene_and_at_a_date_from_the_command_line(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "npc", "--campaign", MAIN)
    run(
        cli,
        "canon",
        "add",
        "fact",
        "Aldric",
        "oath",
        "Vale",
        "--when",
        "3rd_age.year_300",
        "--campaign",
        MAIN,
    )
    play_scenes(tmp_path / "data", cli_env, ("horse", "Grey", None), ("exile", "North", "3rd_age.year_320"))

    early = run(cli, "campaign", "fork", MAIN, "After the horse", "--at-scene", "1")
    assert early["fork_scene_order"] == 1 and early["fork_world_date"] is None
    card = run(cli, "canon", "entity", "Aldric", "--campaign", "After the horse")
    assert (value(card, "horse"), value(card, "exile")) == ("Grey", None)
    missing = run(cli, "campaign", "fork", MAIN, "Too far", "--at-scene", "7", code=1)
    assert "no committed scene 7" in missing.output and "go up to 2" in missing.output
    both = run(
        cli, "campaign", "fork", MAIN, "Both", "--at-scene", "1", "--at-date", "3rd_age.year_310", code=1
    )
    assert "not both" in both.output

    dated = run(cli, "campaign", "fork", MAIN, "Year 310", "--at-date", "3rd_age.year_310")
    # Scene 2 is set in year 320: the branch's story stops before it.
    # Its date in the calendar's words, in --json as in the text.
    assert dated["fork_world_date"] == "year 310 of the 3rd age" and dated["fork_scene_order"] == 1
    card = run(cli, "canon", "entity", "Aldric", "--campaign", "Year 310")
    assert (value(card, "oath"), value(card, "horse"), value(card, "exile")) == ("Vale", "Grey", None)
    text = cli.invoke(app, ["campaign", "list"]).stdout
    assert "Year 310  (forked from Shattered Isles at changeset #" in text
    assert "after scene 1, world up to year 310 of the 3rd age" in text and "3rd_age" not in text, text
    undated = run(cli, "campaign", "fork", MAIN, "No year", "--at-date", "yesterday", code=1)
    assert "“yesterday” counts from the scene's date, and there is none here yet" in undated.output
    listed = run(cli, "campaign", "list")
    assert [n["name"] for n in listed] == [MAIN, "After the horse", "Year 310"]
    assert listed[2]["fork"]["world_date"] == listed[2]["fork_world_date"] == "year 310 of the 3rd age"
    assert "3rd_age" not in json.dumps(listed) and "3rd_age" not in json.dumps(
        run(cli, "campaign", "info", "Year 310")
    )


def test_an_abandoned_branch_stops_answering_on_the_command_line_but_can_be_read_and_deleted(
    cli: CliRunner, tmp_path: Path
) -> None:
    run(cli, "canon", "add", "entity", "Aldric", "npc", "--campaign", MAIN)
    run(cli, "campaign", "fork", MAIN, "Doomed")
    run(cli, "canon", "add", "fact", "Aldric", "fate", "lost", "--campaign", "Doomed")
    done = run(cli, "campaign", "abandon", "Doomed")
    assert done["status"] == "abandoned"

    # No answers, no writes: each says which branch and where its story goes on.
    for args in (
        ("canon", "entity", "Aldric", "--campaign", "Doomed"),
        ("canon", "add", "fact", "Aldric", "mood", "grim", "--campaign", "Doomed"),
        ("campaign", "fork", "Doomed", "From the ashes"),
        ("campaign", "rebase", "Doomed", "--yes"),
    ):
        refused = run(cli, *args, code=1)
        assert "“Doomed” is a branch that was abandoned" in refused.output, args
        assert "“Shattered Isles”" in refused.output, args
    again = run(cli, "campaign", "abandon", "Doomed", code=1)
    assert "already abandoned" in again.output
    assert value(run(cli, "canon", "entity", "Aldric", "--campaign", MAIN), "mood") is None

    # Read-only inspection and export still work; so does delete.
    assert run(cli, "campaign", "info", "Doomed")["status"] == "abandoned"
    assert "Doomed [abandoned]" in cli.invoke(app, ["campaign", "list"]).stdout
    exported = run(cli, "export", str(tmp_path / "doomed.zip"), "--campaign", "Doomed")
    assert exported["tables"]["statements"] >= 1 and (tmp_path / "doomed.zip").exists()
    gone = run(cli, "campaign", "delete", "Doomed", "--yes")
    assert gone["deleted"] is True
    assert [n["name"] for n in run(cli, "campaign", "list")] == [MAIN]
