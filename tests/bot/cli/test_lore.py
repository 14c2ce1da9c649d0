"""`lorekeeper ingest | lore | reindex | sources` through typer's runner, on SQLite then PostgreSQL."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from sqlalchemy import select
from typer.testing import CliRunner

from bot.cli.main import app
from bot.cli.progress import Progress, describe_report
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge.source_models import ImportStage
from memory.knowledge.tables import KnowledgeBookGlossaryRow
from tests.conftest import DatabaseTarget, sql_run_below
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.helpers.paths import REPO

pytestmark = sql_run_below("tests/bot/archive/test_export_import.py", "tests/memory/test_chroma_server.py")

CAMPAIGN = "Shattered Isles"

WORLD = """# Shattered Isles

## Saltmarsh

A fishing town ruled by the Council of Three. Its harbor master is Eliza Crane.

## The Drowned Temple

A sunken temple of the sea goddess, reachable only at low tide.
"""
SECRET = (
    "# GM notes\n\n## Eliza Crane\n\nEliza Crane secretly works for the smugglers of the Drowned Temple.\n"
)


@pytest.fixture
def cli(cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner whose settings point at tmp_path and the test's database; embedding on only when asked."""
    monkeypatch.setenv("LOREKEEPER_LORE__CHUNK_MIN_TOKENS", "20")  # small sections keep chunks of their own
    runner = CliRunner()
    created = runner.invoke(app, ["campaign", "create", CAMPAIGN])
    assert created.exit_code == 0, created.output
    return runner


def run(cli: CliRunner, *args: str, code: int = 0) -> Any:
    """Run a command with --json in the campaign; return its parsed JSON (or the result on failure)."""
    result = cli.invoke(app, [*args, "--campaign", CAMPAIGN, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if code == 0 else result


def bible(tmp_path: Path) -> Path:
    folder = tmp_path / "bible"
    (folder / "gm").mkdir(parents=True)
    (folder / "world.md").write_text(WORLD, encoding="utf-8")
    (folder / "gm" / "secrets.md").write_text(SECRET, encoding="utf-8")
    (folder / "cover.png").write_bytes(b"\x89PNG")
    return folder


def test_ingest_a_folder_then_ask_as_player_and_gm(cli: CliRunner, tmp_path: Path) -> None:
    folder = bible(tmp_path)
    world = run(cli, "ingest", str(folder / "world.md"), "--class", "canon", "--tag", "isles")
    (report,) = world["imported"]
    assert report["outcome"] == "created" and report["source"]["knowledge_class"] == "canon"
    assert report["source"]["tags"] == ["isles"] and report["vector_status"] == "disabled"
    secret = run(cli, "ingest", str(folder / "gm"), "--hidden")
    assert [r["source"]["filename"] for r in secret["imported"]] == ["secrets.md"]
    assert secret["imported"][0]["source"]["hidden"] is True

    player = run(cli, "lore", "who is Eliza Crane?")
    assert set(player) >= {"results"}
    assert [r["source"] for r in player["results"]] == ["world.md"]
    first = player["results"][0]
    assert first["heading_path"] == ["Shattered Isles", "Saltmarsh"] and first["class"] == "canon"
    assert isinstance(first["score"], float) and "Eliza Crane" in first["text"]
    # The short answer, with its citation: the player's from the visible source only.
    answer = player["answer"]
    assert answer["known"] and answer["mode"] == "extractive"
    assert answer["text"] == "Its harbor master is Eliza Crane. [1]"
    assert [(c["number"], c["label"], c["source_id"]) for c in answer["citations"]] == [
        (1, "Shattered Isles › Saltmarsh", first["source_id"])
    ]
    unknown = run(cli, "lore", "Who is Eliza Crane's brother?")
    assert unknown["answer"] == {
        "text": "Nothing the table knows says who Eliza Crane's brother is.",
        "mode": "nothing",
        "known": False,
        "citations": [],
    }
    gm = run(cli, "lore", "who is Eliza Crane?", "--as", "gm", "--limit", "1")
    assert (
        len(gm["results"]) == 1 and gm["results"][0]["source"] == "secrets.md" and gm["results"][0]["hidden"]
    )

    listed = run(cli, "sources", "--as", "gm")
    assert [(s["filename"], s["hidden"]) for s in listed] == [("world.md", False), ("secrets.md", True)]
    assert [s["filename"] for s in run(cli, "sources", "--as", "player")] == ["world.md"]
    assert [s["filename"] for s in run(cli, "sources")] == ["world.md"]  # a player's, as `lore` reads
    again = run(cli, "ingest", str(folder))
    outcomes = sorted((r["filename"], r["outcome"]) for r in again["imported"])
    assert outcomes == [("gm/secrets.md", "duplicate"), ("world.md", "duplicate")]

    text = cli.invoke(app, ["lore", "drowned temple", "--campaign", CAMPAIGN])
    assert text.exit_code == 0 and "[Canon] world.md" in text.stdout


def test_a_file_imported_again_takes_the_settings_asked(cli: CliRunner, tmp_path: Path) -> None:
    """A world bible first imported as Reference, then again `--class canon`: the source becomes Canon (it used
    to stay Reference, silently); asked nothing new, nothing changes."""
    world = bible(tmp_path) / "world.md"
    (first,) = run(cli, "ingest", str(world))["imported"]
    assert first["source"]["knowledge_class"] == "reference"
    (again,) = run(cli, "ingest", str(world), "--class", "canon", "--hidden")["imported"]
    assert again["outcome"] == "duplicate" and again["source"]["knowledge_class"] == "canon"
    assert again["changed"] == ["now Canon (was Reference)", "now hidden from players"]
    assert [(s["knowledge_class"], s["hidden"]) for s in run(cli, "sources", "--as", "gm")] == [
        ("canon", True)
    ]
    (same,) = run(cli, "ingest", str(world), "--class", "canon")["imported"]
    assert same["changed"] == [] and same["source"]["hidden"]
    shown = cli.invoke(app, ["ingest", str(world), "--visible", "--campaign", CAMPAIGN])
    assert shown.exit_code == 0 and "nothing new to import; now visible to players" in shown.output


def test_prose_imported_without_a_class_says_it_went_in_as_reference(cli: CliRunner, tmp_path: Path) -> None:
    folder = bible(tmp_path)
    said = cli.invoke(app, ["ingest", str(folder / "world.md"), "--campaign", CAMPAIGN])
    assert said.exit_code == 0 and "world.md: imported as Reference" in said.stdout
    assert "Import it again with --class canon." in said.stdout
    canon = cli.invoke(app, ["ingest", str(folder / "gm"), "--class", "canon", "--campaign", CAMPAIGN])
    assert canon.exit_code == 0 and "as Reference" not in canon.stdout


def test_lore_queries_file_prints_one_json_line_per_question(cli: CliRunner, tmp_path: Path) -> None:
    folder = bible(tmp_path)
    run(cli, "ingest", str(folder / "world.md"))
    run(cli, "ingest", str(folder / "gm"), "--hidden")
    queries = tmp_path / "questions.jsonl"
    queries.write_text(
        'who is the harbor master?\n\n{"q": "where is the sunken temple?", "id": "q2"}\nplain question about tides\n',
        encoding="utf-8",
    )
    result = cli.invoke(app, ["lore", "--queries", str(queries), "--campaign", CAMPAIGN, "--json", "-k", "2"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 3 and lines[1]["id"] == "q2"
    assert lines[0]["results"][0]["heading_path"][-1] == "Saltmarsh"
    assert lines[1]["results"][0]["heading_path"][-1] == "The Drowned Temple"
    assert all(len(line["results"]) <= 2 for line in lines)
    assert all(r["source"] != "secrets.md" for line in lines for r in line["results"])
    # The help says where the answer's words are and how a question file is written, as used above.
    assert all("text" in line["answer"] for line in lines)
    shown = " ".join(cli.invoke(app, ["lore", "--help"], terminal_width=200).stdout.split())
    assert '"answer" -> "text"' in shown and '{"id": "q7", "q": "Who rules Saltmarsh?"}' in shown


def test_bad_files_fail_clearly_and_yaml_is_handed_on(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "broken.md"
    bad.write_bytes(b"# Broken\n\nok \xc3\x28 no")
    good = tmp_path / "good.txt"
    good.write_text("The tide comes twice a day.", encoding="utf-8")
    yaml_file = tmp_path / "bestiary.yaml"
    yaml_file.write_text("creatures:\n  - id: tide_hag\n    name: Tide Hag\n", encoding="utf-8")
    result = run(cli, "ingest", str(bad), str(good), str(yaml_file), code=1)
    payload = json.loads(result.stdout)
    assert [r["source"]["filename"] for r in payload["imported"]] == ["good.txt"]
    (failure,) = payload["failed"]
    assert failure["filename"] == "broken.md" and "byte offset 13" in failure["error"]
    # YAML goes, all files together, to the structured-lore importer: the creature is now canon.
    (handed,) = payload["yaml"]
    assert handed["status"] == "ingested" and handed["files"][0]["file"] == "bestiary.yaml"
    assert handed["entities"]["created"] == 1 and "Tide Hag" not in json.dumps(payload["imported"])
    missing = cli.invoke(app, ["ingest", str(tmp_path / "nope.md"), "--campaign", CAMPAIGN])
    assert missing.exit_code == 2 and "Not found" in missing.stderr
    unknown = cli.invoke(app, ["lore", "who?", "--campaign", "Nowhere", "--json"])
    assert unknown.exit_code == 1 and "no campaign named" in unknown.stderr


@pytest.mark.slow
def test_semantic_lore_and_reindex_with_the_real_model(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "true")
    imported = run(cli, "ingest", str(bible(tmp_path) / "world.md"))
    assert imported["imported"][0]["vector_status"] == "indexed"
    answer = run(cli, "lore", "which place can you only visit when the sea goes out?")
    assert answer["results"][0]["heading_path"][-1] == "The Drowned Temple"
    assert any(r["kind"] == "semantic" for r in answer["results"][0]["reasons"])
    rebuilt = run(cli, "reindex")
    assert rebuilt["vector_status"] == "indexed" and rebuilt["vectors"] == rebuilt["chunks"] >= 1
    status = run(cli, "reindex", "--status")
    assert status["state"] == "done" and status["done"] == status["total"] == rebuilt["chunks"]
    assert run(cli, "reindex", "--views") == status
    said = cli.invoke(app, ["reindex", "--status", "--campaign", CAMPAIGN])
    assert f"The search index is complete: {rebuilt['chunks']} passages" in said.stdout


def test_the_index_status_of_a_campaign_searched_by_words_alone(cli: CliRunner, tmp_path: Path) -> None:
    run(cli, "ingest", str(bible(tmp_path) / "world.md"))
    assert run(cli, "reindex", "--status") == {"state": "none"}
    said = cli.invoke(app, ["reindex", "--status", "--campaign", CAMPAIGN])
    assert said.exit_code == 0 and "searched by words alone" in said.stdout


def test_always_include_makes_a_canon_source_that_every_answer_carries(
    cli: CliRunner, tmp_path: Path
) -> None:
    folder = bible(tmp_path)
    run(cli, "ingest", str(folder / "world.md"))
    rules = tmp_path / "rules.md"
    rules.write_text("# House rules\n\nNo magic works inside the Drowned Temple.\n", encoding="utf-8")
    (report,) = run(cli, "ingest", str(rules), "--always-include")["imported"]
    assert report["source"]["knowledge_class"] == "canon" and report["source"]["always_include"] is True
    assert not report["warnings"]  # a few tokens of the Canon budget: nothing to say

    answer = run(cli, "lore", "who is the harbor master?", "--limit", "1")
    first, best = answer["results"]  # the always-included passage comes on top of the limit
    assert first["source"] == "rules.md" and first["always_include"] is True
    assert first["reasons"][0]["kind"] == "always_include"
    assert best["heading_path"][-1] == "Saltmarsh" and best["always_include"] is False

    lesser = tmp_path / "lesser.md"
    lesser.write_text("# Almanac\n\nThe tide comes twice a day.\n", encoding="utf-8")
    refused = run(cli, "ingest", str(lesser), "--always-include", "--class", "reference", code=1)
    (failure,) = json.loads(refused.stdout)["failed"]
    assert "Only Canon sources can be always included" in failure["error"]
    assert [s["filename"] for s in run(cli, "sources")] == ["world.md", "rules.md"]

    # Always-included Canon past half of an answer's Canon budget: the GM is told at import.
    codex = tmp_path / "codex.md"
    codex.write_text("# Codex\n\n" + "The old laws of the isles bind every captain. " * 160, encoding="utf-8")
    (big,) = run(cli, "ingest", str(codex), "--always-include")["imported"]
    (warning,) = [w for w in big["warnings"] if "Always-included Canon" in w]
    assert "(House rules, Codex)" in warning and "of the 2,400 tokens of Canon an answer holds" in warning


async def test_the_progress_bar_follows_an_import_stage_by_stage(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, settings=LoreSettings(chunk_min_tokens=20))
    campaign = await new_campaign(db, CAMPAIGN)
    path = tmp_path / "world.md"
    path.write_text(WORLD, encoding="utf-8")
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=120, color_system=None)
    progress = Progress(terminal, out=terminal)  # a terminal's: the lines are printed above the bars
    update = progress.callback("world.md")
    seen: list[tuple[ImportStage, str, float, float | None]] = []

    def watch(event: Any) -> None:
        update(event)
        (task,) = progress.progress.tasks
        seen.append((event.stage, task.description, task.completed, task.total))

    try:
        report = await service.import_path(campaign, path, progress=watch)
        progress.progress.refresh()
        progress.finish("world.md", describe_report(report))
    finally:
        progress.stop()
    n = report.chunk_count
    assert n >= 2 and report.vector_status.value == "indexed"
    assert [stage for stage, *_ in seen] == [
        ImportStage.CHUNKING,
        ImportStage.STORING,
        ImportStage.EMBEDDING,
        ImportStage.DONE,
    ]
    assert seen[1][1:] == ("world.md (storing)", 0, n)
    assert seen[2][1:] == ("world.md (embedding)", n, n)
    shown = screen.getvalue()
    assert "world.md (done)" in shown and f"{n}/{n}" in shown and "━" in shown
    assert f"✓ world.md: imported as “Shattered Isles”, source #{report.source.id}" in shown
    assert not progress.progress.tasks  # a finished file leaves the bar


def test_ingest_prints_each_file_then_the_summary_on_stdout_each_on_a_line_of_its_own(
    cli: CliRunner, tmp_path: Path
) -> None:
    folder = bible(tmp_path)
    long_name = folder / "the-glass-reach-setting-and-its-many-drowned-places-for-the-table.md"
    long_name.write_text(WORLD.replace("Shattered Isles", "Glass Reach"), encoding="utf-8")
    result = cli.invoke(
        app, ["ingest", str(folder / "world.md"), str(long_name), "-c", CAMPAIGN, "--class", "canon"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert result.stdout.endswith("\n")
    assert [line[:12] for line in lines[:2]] == ["✓ world.md: ", "✓ the-glass-"]
    # A long line is left whole for the screen to wrap.
    assert lines[1].endswith("2 passages, found by words (search by meaning is switched off)")
    assert lines[2] == f"Campaign “{CAMPAIGN}”: 2 prose files imported." and len(lines) == 3
    assert result.stderr == ""  # the bars are drawn on a terminal only


def test_a_source_is_listed_by_its_first_heading_with_its_file_beside_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    (tmp_path / "world.md").write_text(WORLD, encoding="utf-8")
    (tmp_path / "rules.md").write_text("# House Rules [draft]\n\nCritical hits explode.\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("Saltmarsh smells of tar.\n", encoding="utf-8")
    paths = [str(tmp_path / name) for name in ("world.md", "rules.md", "notes.md")]
    imported = cli.invoke(app, ["ingest", *paths, "-c", CAMPAIGN, "--class", "canon"]).stdout
    assert "✓ world.md: imported as “Shattered Isles”, source #1 (Canon)" in imported
    assert "✓ rules.md: imported as “House Rules [draft]”, source #2 (Canon)" in imported
    listed = [
        line.split("  [")[0] for line in cli.invoke(app, ["sources", "-c", CAMPAIGN]).stdout.splitlines()
    ]
    assert listed == [
        "#1     Shattered Isles (world.md)",
        "#2     House Rules [draft] (rules.md)",
        "#3     notes.md",
    ]


def test_ingest_a_folder_of_books_and_cite_their_pages(cli: CliRunner, tmp_path: Path) -> None:
    books = REPO / "tests" / "fixtures" / "books"
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    for name in ("basic-rules.pdf", "basic-rules.docx", "basic-rules.epub", "basic-rules.html"):
        (shelf / name).write_bytes((books / name).read_bytes())
    (shelf / "notes.odt").write_bytes(b"PK\x03\x04")  # not a kind that imports: left out of a folder
    first = run(cli, "ingest", str(shelf / "basic-rules.pdf"))
    assert first["imported"][0]["source"]["title"] == "Basic Rules"
    found = run(cli, "lore", "three-quarters cover", "-k", "3")
    cover = next(r for r in found["results"] if r["heading_path"][-1:] == ["Cover"])
    assert (cover["source"], cover["place"]) == ("basic-rules.pdf", "p. 6")
    imported = run(cli, "ingest", str(shelf))
    assert sorted(r["filename"] for r in imported["imported"]) == [
        "basic-rules.docx",
        "basic-rules.epub",
        "basic-rules.html",
        "basic-rules.pdf",
    ]


def test_the_sources_list_says_a_source_holds_gm_only_sections_to_the_gm(
    cli: CliRunner, tmp_path: Path
) -> None:
    book = tmp_path / "isles.md"
    book.write_text(WORLD + "\n## The Smugglers' Pact (GM only)\n\nEliza Crane takes the smugglers' coin.\n")
    run(cli, "ingest", str(book))
    (listed,) = run(cli, "sources", "--as", "gm")
    assert listed["hidden"] is False and listed["hidden_chunks"] == 1
    gm = cli.invoke(app, ["sources", "--campaign", CAMPAIGN, "--as", "gm"])
    assert gm.exit_code == 0, gm.output
    assert f"GM-only sections: 1 of its {listed['chunk_count']} passages" in gm.stdout
    player = cli.invoke(app, ["sources", "--campaign", CAMPAIGN, "--as", "player"])
    assert "isles.md" in player.stdout and "GM-only" not in player.stdout
    assert cli.invoke(app, ["sources", "--campaign", CAMPAIGN]).stdout == player.stdout  # the default


def test_ingest_keeps_the_book_glossaries_once_its_files_are_in(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    folder = tmp_path / "reef"
    folder.mkdir()
    (folder / "words.md").write_text(
        "# Reef\n\n## Words\n\n- **Drift**: the slow current between the reefs\n", encoding="utf-8"
    )
    (folder / "more.md").write_text(
        "# Boats\n\n## Hulls\n\nHulls are tarred each spring.\n", encoding="utf-8"
    )
    run(cli, "ingest", str(folder))

    async def kept() -> list[dict[str, str]]:
        db = cli_env.open()
        try:
            async with db.session() as session:
                rows = await session.execute(select(KnowledgeBookGlossaryRow.terms))
                return [dict(terms) for (terms,) in rows.all()]
        finally:
            await db.dispose()

    (terms,) = asyncio.run(kept())  # one: players and the GM read the same sources
    assert terms["current"] == "drift"
