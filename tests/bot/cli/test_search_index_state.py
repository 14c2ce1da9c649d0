"""A source's search index as `ingest`, `sources`, `reindex --status` and `doctor` tell it, with the real model.

Files imported together, or one command after another, are each found by meaning: none reads as out of date
because a later file's import renamed the campaign's collection. A source that search by meaning truly misses
(its vectors made another way) is named alike by `sources`, `reindex --status` and `doctor`, each with the
command that rebuilds it; after that rebuild all three say it is whole again.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from typer.testing import CliRunner

from bot.cli.main import app
from memory.knowledge.tables import KnowledgeSourceRow
from tests.conftest import DatabaseTarget

pytestmark = pytest.mark.slow

CAMPAIGN = "Salt Reach"
FILES = {
    "core.md": "# Core Rules\n\n## Strain\n\nStrain rises when a singer pushes the glass too far.\n",
    "setting.md": "# The Reach\n\n## The Ebb\n\nThe sea went away a thousand years ago and left salt flats.\n",
    "gear.md": "# Armoury\n\n## Harpoon\n\nA harpoon deals 4 damage and pins its target.\n",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "true")
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    return runner


def written(tmp_path: Path, *names: str) -> list[str]:
    for name in names:
        (tmp_path / name).write_text(FILES[name], encoding="utf-8")
    return [str(tmp_path / name) for name in names]


def run(cli: CliRunner, *args: str) -> Any:
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def states(cli: CliRunner) -> list[str]:
    return [s["vector_status"] for s in run(cli, "sources", "--as", "gm")]


def said(cli: CliRunner, *args: str) -> str:
    result = cli.invoke(app, list(args))
    return " ".join(result.stdout.split())


def test_files_imported_together_or_one_after_another_are_each_found_by_meaning(
    cli: CliRunner, tmp_path: Path
) -> None:
    together = run(cli, "ingest", *written(tmp_path, "core.md", "setting.md"))
    assert [r["vector_status"] for r in together["imported"]] == ["indexed", "indexed"]
    assert states(cli) == ["indexed", "indexed"]
    # A later command (a new process: the collection's owner learnt again) leaves the earlier ones alone.
    run(cli, "ingest", *written(tmp_path, "gear.md"))
    assert states(cli) == ["indexed", "indexed", "indexed"]
    assert run(cli, "reindex", "--status")["sources_missed"] == {}


def test_a_source_search_by_meaning_misses_is_named_alike_by_every_view_until_a_reindex(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    imported = said(cli, "ingest", *written(tmp_path, "core.md", "setting.md"), "-c", CAMPAIGN)
    assert (
        "✓ core.md: imported as “Core Rules”, source #1 (Reference), 1 passage, found by meaning and by words"
        in (imported)
    )
    mark_stale(cli_env, "core.md")
    assert states(cli) == ["stale", "indexed"]
    listed = cli.invoke(app, ["sources", "--campaign", CAMPAIGN, "--as", "gm"]).stdout.splitlines()
    assert listed[0].startswith(
        "#1     Core Rules (core.md)  [Reference, enabled]  version 1, 1 passage, found by "
    )
    assert "found by words only (its search by meaning is out of date), imported " in listed[0]
    assert "found by meaning and by words, imported " in listed[1] and listed[1].endswith("used in 0 answers")
    assert listed[2].startswith("Search by meaning misses 1 source of “Salt Reach” (1 out of date)")
    status = said(cli, "reindex", "--status", "--campaign", CAMPAIGN)
    assert status.startswith("The search index is not complete. ") and "is complete" not in status
    assert "Search by meaning misses 1 source of “Salt Reach” (1 out of date); words still find it." in status
    assert "Run `lorekeeper reindex --campaign 'Salt Reach'` to rebuild the search index" in status
    doctor = said(cli, "doctor")
    assert "note search index: Search by meaning misses 1 source of “Salt Reach”" in doctor
    assert run(cli, "reindex", "--status")["sources_missed"] == {"stale": 1}

    rebuilt = said(cli, "reindex", "--campaign", CAMPAIGN)
    assert rebuilt.startswith("Rebuilt the search index of 2 sources (2 passages) in ")
    assert rebuilt.endswith(" s: each found by meaning and by words.")
    assert states(cli) == ["indexed", "indexed"]
    assert len(cli.invoke(app, ["sources", "--campaign", CAMPAIGN, "--as", "gm"]).stdout.splitlines()) == 2
    assert "The search index is complete" in said(cli, "reindex", "--status", "--campaign", CAMPAIGN)
    assert "ok search index: every imported source is found by meaning and by words" in said(cli, "doctor")


def mark_stale(target: DatabaseTarget, filename: str) -> None:
    """Mark one source's vectors as made another way (as a change of embedding model does)."""

    async def work() -> None:
        db = target.open()
        try:
            async with db.session() as session, session.begin():
                await session.execute(
                    update(KnowledgeSourceRow)
                    .where(KnowledgeSourceRow.filename == filename)
                    .values(vector_status="stale")
                )
        finally:
            await db.dispose()

    asyncio.run(work())
