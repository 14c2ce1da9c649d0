"""YAML files in what-if branches: a branch compares a file with the version of its record it inherited.

A file's record is kept by version (a new row per changeset, never updated), so a parent's re-import after the
fork leaves what its branches inherited alone: the same file imported in a branch writes nothing, a changed one
only the difference against the inherited version, and neither the parent nor a sibling sees any of it.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.app import CanonServices, build_canon
from bot.services.branches import BranchService
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign, ChangesetRow
from canon.graph import CanonReader
from canon.models import CanonLevel, Viewer
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured.ingest import ChangeCounts
from canon.structured.tables import StructuredFileRow
from canon.tables import ConflictRow, EntityRow, EvidenceRow, StatementRow, StatusChangeRow
from memory.scene_service import SceneService
from tests.helpers.paths import YAML_FIXTURES as FIXTURES
from tests.helpers.valdorn import GM, KINDS, add_factions, fixture_files

TREE = (FIXTURES / "family_tree.yaml").read_text()
# The parent's change after the fork: Maric renamed (his entity replaced, his facts carried over).
PARENT_TREE = TREE.replace("name: Maric Vyr", "name: Maric the Bold", 1)
# The branch's own change: one more title for Aldric (one fact changed in its slot).
BRANCH_TREE = TREE.replace(
    "titles: [Slayer of the Pale Worm]", "titles: [Slayer of the Pale Worm, Lord of Thornwall]", 1
)
OWN_TABLES = {
    "entities": EntityRow,
    "statements": StatementRow,
    "evidence": EvidenceRow,
    "status": StatusChangeRow,
    "changesets": ChangesetRow,
    "files": StructuredFileRow,
    "conflicts": ConflictRow,
}


@pytest.fixture
async def canon(db: Database) -> CanonServices:
    return build_canon(db, SceneService(db))


@pytest.fixture
def importer(db: Database, canon: CanonServices) -> StructuredImportService:
    return StructuredImportService(db, canon.access.ontology_for)


@pytest.fixture
def branches(db: Database, canon: CanonServices) -> BranchService:
    return BranchService(db, canon.access, canon.proposals, canon.reviews)


@pytest.fixture
async def root(db: Database, importer: StructuredImportService, canon: CanonServices) -> Campaign:
    """A root campaign with the six fixture files imported."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))
    await add_factions(canon, campaign)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "ingested", report.summary()
    return campaign


async def own_rows(db: Database, campaign: Campaign) -> dict[str, int]:
    """Count the rows a campaign wrote, table by table."""
    async with db.session() as session:
        return {
            name: int(
                await session.scalar(
                    select(func.count()).select_from(model).where(model.campaign_id == campaign.id)
                )
                or 0
            )
            for name, model in OWN_TABLES.items()
        }


async def seen(db: Database, campaign: Campaign) -> tuple[dict[int, tuple[str, str | None]], dict[int, Any]]:
    """Return what a campaign sees standing: its entities (name, key) and its facts, by id."""
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.GM)
        entities = {i: (e.name, e.key) for i, e in (await reader.all_entities()).items()}
        facts = {
            s.id: (s.kind, s.subject_id, s.predicate, s.object_id, s.value, s.validity, s.visibility)
            for s in await reader.statements(with_evidence=False)
        }
    return entities, facts


def doubled(facts: dict[int, Any]) -> list[Any]:
    """Return the facts that stand more than once."""
    return [fact for fact, n in Counter(facts.values()).items() if n > 1]


async def names_of(db: Database, campaign: Campaign, key: str) -> list[str]:
    entities, _ = await seen(db, campaign)
    return sorted(name for name, k in entities.values() if k == key)


async def facts_about(db: Database, campaign: Campaign, key: str, predicate: str) -> list[Any]:
    async with db.session() as session:
        reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.GM)
        found = [e for e in await reader.find_exact(key) if e.key == key]
        assert len(found) == 1, found
        return [s.value for s in await reader.statements(subject_ids=[found[0].id], predicates=[predicate])]


async def versions(db: Database, campaign: Campaign, file: str) -> list[StructuredFileRow]:
    async with db.session() as session:
        query = (
            select(StructuredFileRow)
            .where(StructuredFileRow.campaign_id == campaign.id, StructuredFileRow.file == file)
            .order_by(StructuredFileRow.changeset_id)
        )
        return list((await session.execute(query)).scalars())


async def test_the_same_file_in_a_branch_after_the_parent_changed_it_writes_nothing(
    db: Database, importer: StructuredImportService, branches: BranchService, root: Campaign
) -> None:
    branch = await branches.fork(root, "What if", actor=GM)
    at_fork = await seen(db, branch)
    assert doubled(at_fork[1]) == []
    first = await versions(db, root, "family_tree.yaml")
    assert len(first) == 1
    first_record = (first[0].id, first[0].changeset_id, dict(first[0].statements), dict(first[0].entries))

    changed = await importer.import_files(root, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert changed.status == "ingested" and changed.entities.changed == 1, changed.summary()
    # The parent's re-import adds a version; the one the branch inherited stays as it was.
    kept = await versions(db, root, "family_tree.yaml")
    assert len(kept) == 2
    assert (kept[0].id, kept[0].changeset_id, dict(kept[0].statements), dict(kept[0].entries)) == first_record
    assert kept[1].changeset_id == changed.changeset_id
    assert await names_of(db, root, "maric_vyr") == ["Maric the Bold"]
    assert await seen(db, branch) == at_fork

    # The branch imports the file it inherited, and then every fixture again: nothing new anywhere.
    parent_rows, branch_rows = await own_rows(db, root), await own_rows(db, branch)
    for files in ([("family_tree.yaml", TREE.encode())], fixture_files(*KINDS)):
        again = await importer.import_files(branch, files, GM)
        assert again.status == "unchanged", again.summary()
        assert {f.status for f in again.files} == {"unchanged"}
    assert await own_rows(db, branch) == branch_rows
    assert await own_rows(db, root) == parent_rows
    assert await seen(db, branch) == at_fork
    assert await names_of(db, branch, "maric_vyr") == ["Maric Vyr"]
    # And the parent's own version is what the parent compares with.
    same = await importer.import_files(root, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert same.status == "unchanged" and await own_rows(db, root) == parent_rows


async def test_a_changed_file_in_a_branch_writes_only_the_difference_and_nothing_elsewhere(
    db: Database, importer: StructuredImportService, branches: BranchService, root: Campaign
) -> None:
    branch = await branches.fork(root, "What if", actor=GM)
    sibling = await branches.fork(root, "Or else", actor=GM)
    changed = await importer.import_files(root, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert changed.status == "ingested", changed.summary()
    inherited = (await versions(db, root, "family_tree.yaml"))[0]
    entries, slots = len(inherited.entries), len(inherited.statements)
    parent_before, sibling_before = await seen(db, root), await seen(db, sibling)
    parent_rows, sibling_rows = await own_rows(db, root), await own_rows(db, sibling)
    branch_rows = await own_rows(db, branch)
    old_titles = await facts_about(db, branch, "aldric_raventhorne", "title")

    report = await importer.import_files(branch, [("family_tree.yaml", BRANCH_TREE.encode())], GM)
    assert report.status == "ingested", report.summary()
    assert report.files[0].status == "updated"
    # Against the version it inherited, the branch's file differs in Aldric's titles only (not in Maric's
    # name, which only the parent changed).
    assert report.entities == ChangeCounts(unchanged=entries)
    assert report.statements == ChangeCounts(changed=1, unchanged=slots - 1, retconned=1)
    after = await own_rows(db, branch)
    assert {name: after[name] - branch_rows[name] for name in after} == {
        "entities": 0,
        "statements": 1,
        "evidence": 1,
        "status": 1,
        "changesets": 1,
        "files": 1,
        "conflicts": 0,
    }
    assert await facts_about(db, branch, "aldric_raventhorne", "title") == [
        "Slayer of the Pale Worm, Lord of Thornwall"
    ]
    assert await names_of(db, branch, "maric_vyr") == ["Maric Vyr"]
    _, branch_facts = await seen(db, branch)
    assert doubled(branch_facts) == []
    # The parent and the sibling: not a row, not a fact changed.
    assert await own_rows(db, root) == parent_rows and await own_rows(db, sibling) == sibling_rows
    assert await seen(db, root) == parent_before and await seen(db, sibling) == sibling_before
    assert await facts_about(db, root, "aldric_raventhorne", "title") == old_titles
    assert await facts_about(db, sibling, "aldric_raventhorne", "title") == old_titles

    # The branch now compares with its own version; the sibling still with the one it inherited.
    again = await importer.import_files(branch, [("family_tree.yaml", BRANCH_TREE.encode())], GM)
    assert again.status == "unchanged" and await own_rows(db, branch) == after
    original = await importer.import_files(sibling, [("family_tree.yaml", TREE.encode())], GM)
    assert original.status == "unchanged" and await own_rows(db, sibling) == sibling_rows

    # A branch of the branch inherits the branch's version, and going back is one change again.
    deeper = await branches.fork(branch, "Deeper", actor=GM)
    same = await importer.import_files(deeper, [("family_tree.yaml", BRANCH_TREE.encode())], GM)
    assert same.status == "unchanged"
    back = await importer.import_files(deeper, [("family_tree.yaml", TREE.encode())], GM)
    assert back.status == "ingested", back.summary()
    assert back.statements == ChangeCounts(changed=1, unchanged=slots - 1, retconned=1)
    assert await facts_about(db, deeper, "aldric_raventhorne", "title") == old_titles
    assert await facts_about(db, branch, "aldric_raventhorne", "title") == [
        "Slayer of the Pale Worm, Lord of Thornwall"
    ]


async def test_a_branch_removing_an_entry_retcons_it_in_the_branch_only(
    db: Database, importer: StructuredImportService, branches: BranchService, root: Campaign
) -> None:
    branch = await branches.fork(root, "Without Serah", actor=GM)
    block = (
        "  - id: serah_raventhorne\n    name: Serah Raventhorne\n    born: 3rd_age.year_355\n"
        "    parents: [corvin_raventhorne]\n"
    )
    assert block in TREE
    parent_before = await seen(db, root)
    report = await importer.import_files(branch, [("family_tree.yaml", TREE.replace(block, "").encode())], GM)
    assert report.status == "ingested", report.summary()
    assert report.entities.retconned == 1 and report.statements.created == 0
    assert await names_of(db, branch, "serah_raventhorne") == []
    assert await names_of(db, root, "serah_raventhorne") == ["Serah Raventhorne"]
    assert await seen(db, root) == parent_before
    async with db.session() as session:
        retcons = (
            (
                await session.execute(
                    select(StatusChangeRow).where(StatusChangeRow.level == CanonLevel.RETCONNED)
                )
            )
            .scalars()
            .all()
        )
    assert retcons and {r.campaign_id for r in retcons} == {branch.id}


async def test_a_rebased_branch_compares_with_the_parents_newer_version(
    db: Database, importer: StructuredImportService, branches: BranchService, root: Campaign
) -> None:
    branch = await branches.fork(root, "Catching up", actor=GM)
    changed = await importer.import_files(root, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert changed.status == "ingested", changed.summary()
    assert await names_of(db, branch, "maric_vyr") == ["Maric Vyr"]
    await branches.rebase(branch, GM)
    assert await names_of(db, branch, "maric_vyr") == ["Maric the Bold"]
    rows = await own_rows(db, branch)
    same = await importer.import_files(branch, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert same.status == "unchanged" and await own_rows(db, branch) == rows
    # The file it had before the rebase is now a change: Maric renamed back, in the branch only.
    back = await importer.import_files(branch, [("family_tree.yaml", TREE.encode())], GM)
    assert back.status == "ingested" and back.entities.changed == 1, back.summary()
    assert await names_of(db, branch, "maric_vyr") == ["Maric Vyr"]
    assert await names_of(db, root, "maric_vyr") == ["Maric the Bold"]
    _, facts = await seen(db, branch)
    assert doubled(facts) == []


async def test_a_restored_branch_archive_still_knows_what_each_file_produced(
    db: Database, importer: StructuredImportService, branches: BranchService, root: Campaign, tmp_path: Path
) -> None:
    from bot.app import build_services
    from bot.archive.campaign_archive import CampaignArchive
    from bot.archive.file import read_archive
    from config.settings import Settings

    branch = await branches.fork(root, "Exported", actor=GM)
    changed = await importer.import_files(root, [("family_tree.yaml", PARENT_TREE.encode())], GM)
    assert changed.status == "ingested", changed.summary()
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", embedding={"enabled": False})  # type: ignore[call-arg]
    services = await build_services(settings, db=db)
    try:
        archive = CampaignArchive(db, services.knowledge)
        path = tmp_path / "branch.zip"
        await archive.export_campaign(branch.id, path)
        files = read_archive(path).tables["structured_files"]
        # One record per file, the version the branch inherited (before the parent's change).
        assert sorted(r["file"] for r in files) == sorted(f"{kind}.yaml" for kind in KINDS)
        restored = (await archive.import_campaign(path, name="Restored")).campaign
    finally:
        await services.close()
    again = await importer.import_files(restored, [("family_tree.yaml", TREE.encode())], GM)
    assert again.status == "unchanged", again.summary()
    assert doubled((await seen(db, restored))[1]) == []
    assert await names_of(db, restored, "maric_vyr") == ["Maric Vyr"]
