"""`lorekeeper vault check | prune | copy` and the doctor's vault check, on a folder and on a real S3 server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from config.settings import Settings
from memory.vault import digest_of
from memory.vault_setup import vault_from_settings
from tests.conftest import DatabaseTarget, sql_run_below
from tests.helpers.chroma_server import free_port
from tests.helpers.s3_server import ACCESS_KEY, SECRET_KEY, S3Server, new_bucket

pytestmark = sql_run_below(
    "tests/bot/services/branches/test_branches.py", "tests/bot/archive/test_export_import.py"
)

CAMPAIGN = "Shattered Isles"
WORLD = b"# Shattered Isles\n\n## Saltmarsh\n\nA fishing town ruled by the Council of Three.\n"
ORPHAN = b"bytes an import stored before the machine lost power\n"


@pytest.fixture(params=["folder", "s3"])
def vault_env(
    request: pytest.FixtureRequest, cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The command line's settings with the vault in a folder, or in a bucket of the session's S3 server."""
    if request.param == "s3":
        server: S3Server = request.getfixturevalue("s3_server")
        monkeypatch.setenv("LOREKEEPER_VAULT__S3_ENDPOINT", server.endpoint)
        monkeypatch.setenv("LOREKEEPER_VAULT__S3_BUCKET", new_bucket())
        monkeypatch.setenv("LOREKEEPER_VAULT__S3_ACCESS_KEY", ACCESS_KEY)
        monkeypatch.setenv("LOREKEEPER_VAULT__S3_SECRET_KEY", SECRET_KEY)
        monkeypatch.setenv("LOREKEEPER_VAULT__S3_REGION", "us-east-1")
    return str(request.param)


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_check_prune_and_copy_keep_the_vault_and_the_sources_in_step(vault_env: str, tmp_path: Path) -> None:
    invoke("campaign", "create", CAMPAIGN)
    (tmp_path / "world.md").write_bytes(WORLD)
    invoke("ingest", str(tmp_path / "world.md"), "--campaign", CAMPAIGN)
    vault = vault_from_settings(Settings(_env_file=None).vault, tmp_path / "data")  # type: ignore[call-arg]
    assert vault.get(digest_of(WORLD)) == WORLD
    if vault_env == "folder":
        assert (tmp_path / "data" / "sources" / digest_of(WORLD)).read_bytes() == WORLD
    else:  # nothing in the data folder: every original is in the bucket
        assert not (tmp_path / "data" / "sources").exists()

    vault.put(digest_of(ORPHAN), ORPHAN)  # what a crash between storing and writing the source leaves
    checked = json.loads(invoke("vault", "check", "--json"))
    assert (checked["originals"], checked["orphans"], checked["missing"]) == (2, 1, [])
    text = invoke("vault", "check")
    assert "2 originals" in text and "1 of them" in text and "lorekeeper vault prune" in text
    pruned = json.loads(invoke("vault", "prune", "--json"))
    assert (pruned["removed"], pruned["kept_recent"]) == (0, 1)  # an import may still be writing its rows

    out = tmp_path / "copy.md"
    assert "Wrote the original of world.md" in invoke(
        "vault", "copy", "world.md", "-c", CAMPAIGN, "--to", str(out)
    )
    assert out.read_bytes() == WORLD
    unknown = invoke("vault", "copy", "nowhere.md", "-c", CAMPAIGN, "--to", str(out), code=1)
    assert "has no source named nowhere.md" in unknown

    vault.delete(digest_of(WORLD))
    lost = invoke("vault", "check", code=1)
    assert f"The original of world.md (campaign “{CAMPAIGN}”) is missing" in lost


def test_the_doctor_checks_the_vault(vault_env: str) -> None:
    invoke("db", "upgrade")
    output = invoke("doctor")
    assert "ok    vault: the originals of imported files are kept in" in output
    assert ("the bucket “lk-test-" if vault_env == "s3" else "data/sources on the bot's machine") in output


def test_the_doctor_names_an_object_store_that_does_not_answer(
    cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke("db", "upgrade")
    monkeypatch.setenv("LOREKEEPER_VAULT__S3_ENDPOINT", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("LOREKEEPER_VAULT__S3_SECRET_KEY", "do-not-print-me")
    output = invoke("doctor", code=1)
    assert "FAIL  vault: The file store at http://127.0.0.1:" in output and "did not answer" in output
    assert "do-not-print-me" not in output


@pytest.mark.parametrize(
    "endpoint", ["127.0.0.1:9000", "ftp://store", "http://store/path", "http://user:pw@store"]
)
def test_a_malformed_endpoint_is_a_setting_to_fix(
    endpoint: str, cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOREKEEPER_VAULT__S3_ENDPOINT", endpoint)
    output = invoke("vault", "check", code=2)
    assert "vault.s3_endpoint" in output or "VAULT__S3_ENDPOINT" in output
