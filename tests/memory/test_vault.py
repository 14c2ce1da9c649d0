"""The vault: originals kept once under their SHA-256, in a folder or in a real S3-compatible server (moto_server on
127.0.0.1, not a mock of the client), and kept consistent with the sources by imports, deletes, exports and prunes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from canon.errors import InvalidInput
from canon.storage import Database
from memory.knowledge import importer as importer_module
from memory.knowledge.archive import export_knowledge, restore_knowledge
from memory.knowledge.originals import check_vault, prune_vault
from memory.knowledge.service import KnowledgeService
from memory.vault import FolderVault, MissingOriginal, Vault, VaultUnavailable, digest_of
from memory.vault_s3 import S3Vault
from tests.helpers.chroma_server import free_port
from tests.helpers.knowledge_helpers import new_campaign
from tests.helpers.s3_server import ACCESS_KEY, SECRET_KEY, S3Server, new_bucket

RULES = b"# Basic Rules\n\n## Cover\n\nHalf cover gives +2 to AC and Dexterity saving throws.\n"
NOTES = b"# Harbor notes\n\n## Lighthouse\n\nThe keeper, Old Tam, counts ships at dawn.\n"


def s3_vault(server: S3Server, bucket: str | None = None) -> S3Vault:
    return S3Vault(
        server.endpoint,
        bucket or new_bucket(),
        access_key=ACCESS_KEY,
        secret_key=SECRET_KEY,
        region="us-east-1",
    )


@pytest.fixture(params=["folder", "s3"])
def vault(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Vault]:
    """Each adapter of the port: a folder, and a bucket of the session's S3 server."""
    if request.param == "folder":
        yield FolderVault(tmp_path / "vault")
    else:
        yield s3_vault(request.getfixturevalue("s3_server"))


def knowledge(db: Database, tmp_path: Path, vault: Vault) -> KnowledgeService:
    """A knowledge service on the test database with this vault (words only: vectors are not the point here)."""
    return KnowledgeService(db, data_dir=tmp_path / "data", vault=vault)


def test_the_port_keeps_bytes_once_under_their_hash(vault: Vault) -> None:
    digest = digest_of(RULES)
    assert not vault.has(digest) and list(vault.originals()) == []
    assert vault.put(digest, RULES) is True
    assert vault.put(digest, RULES) is False  # the same file twice is stored once
    assert vault.get(digest) == RULES and vault.has(digest)
    (stored,) = vault.originals()
    assert stored.digest == digest and stored.size == len(RULES)
    assert abs(stored.stored_at - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=5)
    assert vault.delete(digest) is True and vault.delete(digest) is False
    with pytest.raises(MissingOriginal):
        vault.get(digest)


def test_the_port_refuses_a_key_that_is_not_the_bytes_hash(vault: Vault) -> None:
    with pytest.raises(ValueError, match="do not have the hash"):
        vault.put(digest_of(NOTES), RULES)
    for bad in ("../../etc/passwd", "ABC", digest_of(RULES).upper()):
        with pytest.raises(InvalidInput, match="fingerprint"):
            vault.get(bad)
    assert list(vault.originals()) == []


def test_an_unreachable_object_store_is_said_plainly() -> None:
    vault = S3Vault(f"http://127.0.0.1:{free_port()}", "lk-nowhere", access_key="a", secret_key="b")
    with pytest.raises(VaultUnavailable) as raised:
        vault.put(digest_of(RULES), RULES)
    assert "did not answer" in raised.value.message and "lk-nowhere" in raised.value.message
    assert "secret" not in raised.value.message


def test_a_folder_that_cannot_be_written_is_said_plainly(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(VaultUnavailable, match="could not be kept"):
        FolderVault(blocker / "sources").put(digest_of(RULES), RULES)


async def test_one_original_for_two_campaigns_and_a_delete_keeps_what_another_needs(
    db: Database, tmp_path: Path, vault: Vault
) -> None:
    service = knowledge(db, tmp_path, vault)
    first, second = await new_campaign(db, "Westhaven"), await new_campaign(db, "Saltmarsh")
    one = await service.import_bytes(first, "rules.md", RULES)
    two = await service.import_bytes(second, "basic-rules.md", RULES)
    assert one.source.file_hash == two.source.file_hash == digest_of(RULES)
    assert [item.digest for item in vault.originals()] == [digest_of(RULES)]
    original = await service.original(second, two.source.id, max_bytes=10_000)
    assert original.data == RULES and not original.missing

    deleted = await service.delete_source(first, one.source.id)
    assert not deleted.file_removed and vault.get(digest_of(RULES)) == RULES  # Saltmarsh still needs it
    await service.disable_source(second, two.source.id)  # disabled: kept, and still readable by the GM
    assert vault.has(digest_of(RULES))
    deleted = await service.delete_source(second, two.source.id)
    assert deleted.file_removed and not vault.has(digest_of(RULES))
    report = await check_vault(db, vault)
    assert (report.originals, report.orphans, report.missing) == (0, 0, [])


async def test_a_large_original_is_not_read_and_a_lost_one_is_named(
    db: Database, tmp_path: Path, vault: Vault
) -> None:
    service = knowledge(db, tmp_path, vault)
    campaign = await new_campaign(db, "Westhaven")
    report = await service.import_bytes(campaign, "rules.md", RULES)
    large = await service.original(campaign, report.source.id, max_bytes=len(RULES) - 1)
    assert large.data is None and not large.missing and large.where == vault.describe()
    vault.delete(digest_of(RULES))  # lost behind the bot's back (a disk restored without its data folder)
    lost = await service.original(campaign, report.source.id, max_bytes=10_000)
    assert lost.data is None and lost.missing
    checked = await check_vault(db, vault)
    assert [(m.campaign, m.filename) for m in checked.missing] == [("Westhaven", "rules.md")]


async def test_a_crash_between_storing_and_indexing_leaves_nothing_half_visible(
    db: Database, tmp_path: Path, vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = knowledge(db, tmp_path, vault)
    campaign = await new_campaign(db, "Westhaven")

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("the machine lost power")

    # A failure the importer sees: the row is never written, and the original it had just stored goes.
    monkeypatch.setattr(importer_module, "write_import", crash)
    with pytest.raises(OSError, match="lost power"):
        await service.import_bytes(campaign, "rules.md", RULES)
    monkeypatch.undo()
    assert await service.list_sources(campaign) == [] and not vault.has(digest_of(RULES))

    # A crash the importer never sees the end of: the bytes are stored, no row names them (an orphan).
    vault.put(digest_of(NOTES), NOTES)
    assert await service.list_sources(campaign) == []
    answer = await service.ask(campaign, "who counts ships at dawn?")
    assert "Old Tam" not in " ".join(r.text for r in answer.results)
    checked = await check_vault(db, vault)
    assert (checked.orphans, checked.orphan_bytes, checked.missing) == (1, len(NOTES), [])
    kept = await prune_vault(db, vault)  # stored a moment ago: an import may still be writing its rows
    assert (kept.removed, kept.kept_recent) == (0, 1) and vault.has(digest_of(NOTES))
    imported = await service.import_bytes(campaign, "rules.md", RULES)
    pruned = await prune_vault(db, vault, grace=dt.timedelta(0))
    assert (pruned.removed, pruned.bytes) == (1, len(NOTES))
    assert not vault.has(digest_of(NOTES)) and vault.get(imported.source.file_hash) == RULES


async def test_export_and_import_carry_the_originals_between_vaults(
    db: Database, tmp_path: Path, s3_server: S3Server
) -> None:
    """A campaign kept in a folder moves to an installation whose vault is an object store, originals and all."""
    here = knowledge(db, tmp_path / "here", FolderVault(tmp_path / "here-vault"))
    there_vault = s3_vault(s3_server)
    there = knowledge(db, tmp_path / "there", there_vault)
    campaign = await new_campaign(db, "Westhaven")
    await here.import_bytes(campaign, "rules.md", RULES, hidden=True)
    await here.import_bytes(campaign, "rules.md", RULES + b"\nFull cover blocks every attack.\n")
    archive = await export_knowledge(here, campaign)
    copy = await new_campaign(db, "Westhaven restored")
    (restored,) = await restore_knowledge(there, copy, archive)
    assert restored.source.version == 2 and restored.source.hidden
    assert {item.digest for item in there_vault.originals()} == {digest_of(RULES), restored.source.file_hash}
    original = await there.original(copy, restored.source.id, max_bytes=10_000)
    assert original.data is not None and original.data.endswith(b"Full cover blocks every attack.\n")
