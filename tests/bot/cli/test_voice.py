"""`lorekeeper ingest --extract` and `lorekeeper voice ...` through typer's runner, the LLM stub in a thread."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget, sql_run_below
from tests.helpers.llm_stub import STUB_MODEL, LLMStub
from tests.helpers.voice_stub import VoiceScript, items_reply

pytestmark = sql_run_below(
    "tests/bot/services/test_structured_import.py", "tests/bot/voice/test_extraction.py"
)

CAMPAIGN = "Shattered Isles"
CHRONICLE = "# The Fall of Greywatch\n\nCaptain Ilsa Marrow held Greywatch for nine days.\n"


@contextmanager
def stub_in_thread(script: VoiceScript) -> Iterator[LLMStub]:
    """Run the stub server on its own event loop (the CLI runs `asyncio.run` in the test's thread)."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, LLMStub] = {}

    def serve() -> None:
        asyncio.set_event_loop(loop)
        stub = LLMStub(responder=script)
        loop.run_until_complete(stub.__aenter__())
        holder["stub"] = stub
        ready.set()
        loop.run_forever()
        loop.run_until_complete(stub.__aexit__(None, None, None))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(10), "the stub did not start"
    try:
        yield holder["stub"]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    (tmp_path / "chronicle.md").write_text(CHRONICLE)
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_ingest_with_extract_leaves_source_proposals_for_the_gm(
    cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = VoiceScript(
        extraction=items_reply(
            {"kind": "entity", "name": "Ilsa Marrow", "entity_type": "NPC", "turns": [1]},
            {"kind": "entity", "name": "Greywatch", "entity_type": "Location", "turns": [1]},
        )
    )
    with stub_in_thread(script) as stub:
        monkeypatch.setenv("LOREKEEPER_LLM__BASE_URL", stub.base_url)
        monkeypatch.setenv("LOREKEEPER_LLM__MODEL", STUB_MODEL)
        outcome = run(cli, "ingest", "chronicle.md", "--campaign", CAMPAIGN, "--extract")
        (extracted,) = outcome["extracted"]
        assert extracted["stored"] == 2 and extracted["batch"].startswith(
            f"extract:{extracted['source_id']}:"
        )
        usage = run(cli, "voice", "usage", "--campaign", CAMPAIGN)
        assert [(u["purpose"], u["model"], u["calls"]) for u in usage] == [
            ("prose_extraction", STUB_MODEL, 1)
        ]
    assert len(script.seen["extraction"]) == 1

    # Nothing is canon until the GM accepts and commits (prose is never accepted by the policy alone).
    listed = run(cli, "voice", "batch", extracted["batch"], "--campaign", CAMPAIGN)
    assert [(p["status"], p["authority"], p["confidence"]) for p in listed] == [
        ("pending", "source", 0.6)
    ] * 2
    assert cli.invoke(app, ["canon", "entity", "Ilsa Marrow", "--campaign", CAMPAIGN]).exit_code == 1
    greywatch = next(p["id"] for p in listed if p["content"]["name"] == "Greywatch")
    ilsa = next(p["id"] for p in listed if p["content"]["name"] == "Ilsa Marrow")
    committed = run(
        cli,
        "voice",
        "commit-batch",
        extracted["batch"],
        "--campaign",
        CAMPAIGN,
        "--accept",
        str(ilsa),
        "--reject",
        str(greywatch),
    )
    assert committed["accepted"] == [ilsa] and committed["rejected"] == [greywatch]
    card = run(cli, "canon", "entity", "Ilsa Marrow", "--campaign", CAMPAIGN)
    assert card["entity"]["name"] == "Ilsa Marrow" and card["entity"]["provenance"]["authority"] == "source"


def test_without_an_llm_extract_is_reported_as_failed_and_the_import_stands(cli: CliRunner) -> None:
    result = cli.invoke(app, ["ingest", "chronicle.md", "--campaign", CAMPAIGN, "--extract", "--json"])
    assert result.exit_code == 1
    outcome = json.loads(result.stdout)
    assert len(outcome["imported"]) == 1 and outcome["extracted"] == []
    (failure,) = outcome["failed"]
    assert failure["error"].startswith("extraction: No language model is configured")
    assert run(cli, "voice", "usage", "--campaign", CAMPAIGN) == []
    missing = cli.invoke(app, ["voice", "memories", "Nobody", "--campaign", CAMPAIGN])
    assert missing.exit_code == 1 and "Nothing in this campaign's canon is called" in missing.output
