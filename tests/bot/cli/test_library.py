"""`lorekeeper library import | list | attach | detach` through typer's runner, on SQLite then PostgreSQL."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget, sql_run_below

#: The commands below whose SQL is run on PostgreSQL by other tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

RULES = "# Basic Rules\n\n## Cover\n\nHalf cover gives a +2 bonus to AC and Dexterity saving throws.\n"
SECRET = RULES + "\n## The Lich (GM only)\n\nIts phylactery is in the lighthouse.\n"


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_the_operator_imports_once_and_gms_attach(cli_env: DatabaseTarget, tmp_path: Path) -> None:
    for name in ("Westhaven", "Saltmarsh"):
        invoke("campaign", "create", name)
    (tmp_path / "rules.md").write_text(RULES, encoding="utf-8")
    (tmp_path / "secret.md").write_text(SECRET, encoding="utf-8")
    assert invoke("library", "list").startswith("The shared library is empty")

    imported = invoke("library", "import", str(tmp_path / "rules.md"))
    assert "rules.md: created" in imported and "for every campaign" in imported
    refused = invoke("library", "import", str(tmp_path / "secret.md"), code=1)
    assert "marks sections as GM-only" in refused
    assert "Invalid value" in invoke(
        "library", "import", str(tmp_path / "rules.md"), "--class", "canon", code=2
    )

    for name in ("Westhaven", "Saltmarsh"):
        assert "Attached Basic Rules" in invoke("library", "attach", "rules.md", "-c", name)
    (listed,) = json.loads(invoke("library", "list", "--json"))
    assert (listed["filename"], listed["campaigns"], listed["server"]) == ("rules.md", 2, None)
    answer = json.loads(invoke("lore", "how much AC does half cover give?", "-c", "Saltmarsh", "--json"))
    assert "+2 bonus to AC" in json.dumps(answer)

    assert "Detached Basic Rules" in invoke("library", "detach", "Basic Rules", "-c", "Saltmarsh")
    (mine,) = json.loads(invoke("library", "list", "-c", "Saltmarsh", "--json"))
    assert not mine["attached"] and mine["campaigns"] == 1
    assert "There is no library source called" in invoke(
        "library", "detach", "rules.md", "-c", "Saltmarsh", code=1
    )
    # The holder of the library's sources is no campaign of anyone's.
    assert "library:" not in invoke("campaign", "list")
    assert "There is no campaign named" in invoke("lore", "cover", "-c", "library:installation", code=1)
    (rebuilt,) = json.loads(invoke("library", "reindex", "--json"))
    assert (rebuilt["sources"], rebuilt["chunks"]) == (1, listed["chunks"])

    # The operator deletes it: gone for every campaign, its original with it (no source names it any more).
    assert "Deleted Basic Rules from the shared library" in invoke("library", "delete", "Basic Rules")
    assert json.loads(invoke("library", "list", "--json")) == []
    answer = json.loads(invoke("lore", "how much AC does half cover give?", "-c", "Westhaven", "--json"))
    assert "+2 bonus to AC" not in json.dumps(answer)
    assert json.loads(invoke("vault", "check", "--json"))["originals"] == 0


@SQL_RUN_BELOW
def test_a_server_library_is_named_by_its_server(cli_env: DatabaseTarget, tmp_path: Path) -> None:
    """Which campaigns may read a server's library is tested in tests/memory/test_library.py (campaigns of
    servers are made by Discord, not by the command line)."""
    (tmp_path / "house.md").write_text(RULES, encoding="utf-8")
    imported = invoke("library", "import", str(tmp_path / "house.md"), "--server", "11")
    assert "for the campaigns of server 11" in imported
    (listed,) = json.loads(invoke("library", "list", "--json"))
    assert (listed["filename"], listed["server"], listed["class"]) == ("house.md", 11, "reference")


@SQL_RUN_BELOW
def test_an_export_names_the_library_it_reads_and_an_import_attaches_it_again(
    cli_env: DatabaseTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke("campaign", "create", "Westhaven")
    (tmp_path / "rules.md").write_text(RULES, encoding="utf-8")
    invoke("library", "import", str(tmp_path / "rules.md"))
    invoke("library", "attach", "rules.md", "-c", "Westhaven")
    invoke("export", str(tmp_path / "named.zip"), "-c", "Westhaven")
    invoke("export", str(tmp_path / "carried.zip"), "-c", "Westhaven", "--with-library")
    with zipfile.ZipFile(tmp_path / "named.zip") as archive:
        (named,) = json.loads(archive.read("manifest.json"))["libraries"]
    assert (named["title"], named["filename"], named["included"]) == ("Basic Rules", "rules.md", False)

    # Here, where the library holds the same text: attached again, nothing copied into the campaign.
    restored = json.loads(invoke("import", str(tmp_path / "named.zip"), "--as", "Westhaven again", "--json"))
    assert restored["warnings"] == []
    (again,) = json.loads(invoke("library", "list", "-c", "Westhaven again", "--json"))
    assert again["attached"] and again["campaigns"] == 2
    assert "+2 bonus" in json.dumps(
        json.loads(invoke("lore", "half cover AC", "-c", "Westhaven again", "--json"))
    )

    # Elsewhere (another installation, no library): named in a warning, or kept as the campaign's own if carried.
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("LOREKEEPER_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'elsewhere.sqlite3'}")
    invoke("db", "upgrade")
    warned = json.loads(invoke("import", str(tmp_path / "named.zip"), "--json"))
    assert "import the file with `lorekeeper library import`" in " ".join(warned["warnings"])
    kept = json.loads(invoke("import", str(tmp_path / "carried.zip"), "--as", "Carried", "--json"))
    assert "now the campaign's own source" in " ".join(kept["warnings"])
    assert "+2 bonus" in json.dumps(json.loads(invoke("lore", "half cover AC", "-c", "Carried", "--json")))
