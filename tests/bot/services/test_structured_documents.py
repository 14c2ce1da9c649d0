"""A world file of several YAML documents (`---` between them, each of its own kind) imported as one file, on
a real database: SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set."""

from __future__ import annotations

from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign
from canon.models import Viewer
from canon.storage import Database
from memory.scenes import Actor
from tests.helpers.structured_import import by_key, reader_of

GM = Actor(id=1, name="Gina", is_gm=True)
WORLD = """\
characters:
  - name: Ann Reed
    faction: Fen Wardens
    home: Mill Town
    spouse: Bo Reed
  - name: Bo Reed
---
kind: factions
factions:
  - name: Fen Wardens
    seat: Mill Town
---
locations:
  - name: Mill Town
  - name: Salt Gaol
"""


async def test_a_file_of_several_kinds_is_one_file_imported_whole_and_remembered_whole(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, [("world.yaml", WORLD.encode())], GM)
    assert report.status == "ingested", report.summary()
    assert report.counts == {"Faction": 1, "Location": 2, "NPC": 2}
    (file,) = report.files
    assert (file.file, file.kind, file.entries) == ("world.yaml", "characters, factions, gazetteer", 5)
    ann, statements, _ = await by_key(db, campaign, "ann_reed")
    tied = {s.predicate for s in statements if s.subject_id == ann.id and s.object_id}
    assert tied == {"MEMBER_OF", "LIVES_IN", "SPOUSE_OF"}
    again = await importer.import_files(campaign, [("world.yaml", WORLD.encode())], GM)
    assert again.status == "unchanged"
    # A place dropped from the last document is a retcon of that same file: asked first.
    fewer = WORLD.replace("  - name: Salt Gaol\n", "")
    asked = await importer.import_files(campaign, [("world.yaml", fewer.encode())], GM, replace=False)
    assert asked.status == "confirm" and "Salt Gaol" in asked.retcon_text()


async def test_a_problem_in_a_later_document_is_at_its_line_and_nothing_is_written(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    broken = WORLD.replace("    seat: Mill Town\n", "    seat: Mill Town\n    leader: Salt Gaol\n")
    report = await importer.import_files(campaign, [("world.yaml", broken.encode())], GM)
    assert report.status == "failed"
    ((line, column, message),) = [(e.line, e.column, e.message) for e in report.errors]
    assert (line, column) == (12, 13)
    assert message == '"leader" must name a Person or Deity; “Salt Gaol” is the Location at line 16'
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        assert await reader.find_exact("Ann Reed") == []  # nothing of the file: not its first document either


async def test_a_tie_one_file_keeps_for_the_gm_is_the_gm_s_though_another_file_of_the_import_says_it(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    factions = b"factions:\n  - name: Ash Raiders\n    members: [Ida Marsh, Bram Keel]\n"
    folk = b"characters:\n  - name: Ida Marsh\n    factions: [{name: Ash Raiders, gm_only: true}]\n  - name: Bram Keel\n"
    report = await importer.import_files(campaign, [("factions.yaml", factions), ("folk.yaml", folk)], GM)
    assert report.status == "ingested", report.summary()
    async with db.session() as session:
        for viewer, seen in ((Viewer.PLAYER, set()), (Viewer.GM, {"gm_only"})):
            reader = await reader_of(db, session, campaign, viewer)
            (ida,) = await reader.find_exact("Ida Marsh")
            ties = await reader.statements(subject_ids=[ida.id])
            assert [s.visibility.value for s in ties if s.predicate == "MEMBER_OF"] == sorted(seen)
        # Bram's membership, said openly by both files, stays public.
        reader = await reader_of(db, session, campaign, Viewer.PLAYER)
        (bram,) = await reader.find_exact("Bram Keel")
        assert [s.predicate for s in await reader.statements(subject_ids=[bram.id])] == ["MEMBER_OF"]


async def test_a_tie_kept_for_the_gm_that_a_file_imported_before_says_openly_is_told_to_the_gm(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    factions = b"factions:\n  - name: Ash Raiders\n    members: [Ida Marsh]\n"
    folk = b"characters:\n  - name: Ida Marsh\n    factions: [{name: Ash Raiders, gm_only: true}]\n"
    first = await importer.import_files(
        campaign, [("factions.yaml", factions), ("folk.yaml", b"characters:\n  - name: Ida Marsh\n")], GM
    )
    assert first.status == "ingested", first.summary()
    later = await importer.import_files(campaign, [("folk.yaml", folk)], GM)
    assert later.status == "ingested", later.summary()
    (warning,) = [w for w in later.warnings if w.kind == "secret_told"]
    assert warning.message == (
        "Ida Marsh is a member of Ash Raiders: folk.yaml keeps it for the GM, but factions.yaml says it "
        "openly, and players read it there. Hide it in factions.yaml too, or import the two files together."
    )
    # Done as told, the tie is the GM's alone and nothing more is said.
    hidden = b"factions:\n  - name: Ash Raiders\n    members: [{name: Ida Marsh, gm_only: true}]\n"
    again = await importer.import_files(campaign, [("factions.yaml", hidden)], GM, replace=True)
    assert again.status == "ingested" and not [w for w in again.warnings if w.kind == "secret_told"]
    async with db.session() as session:
        reader = await reader_of(db, session, campaign, Viewer.PLAYER)
        (ida,) = await reader.find_exact("Ida Marsh")
        assert [s.predicate for s in await reader.statements(subject_ids=[ida.id])] == []


async def test_a_tie_said_openly_that_a_file_imported_before_keeps_for_the_gm_is_the_gm_s(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    folk = b"characters:\n  - name: Ida Marsh\n    factions: [{name: Ash Raiders, gm_only: true}]\n"
    bare = b"factions:\n  - name: Ash Raiders\n"
    first = await importer.import_files(campaign, [("factions.yaml", bare), ("folk.yaml", folk)], GM)
    assert first.status == "ingested", first.summary()
    listed = b"factions:\n  - name: Ash Raiders\n    members: [Ida Marsh]\n"
    later = await importer.import_files(campaign, [("factions.yaml", listed)], GM)
    assert later.status == "ingested" and not later.warnings, later.summary()
    async with db.session() as session:
        for viewer, seen in ((Viewer.PLAYER, []), (Viewer.GM, ["gm_only"])):
            reader = await reader_of(db, session, campaign, viewer)
            (ida,) = await reader.find_exact("Ida Marsh")
            ties = await reader.statements(subject_ids=[ida.id])
            assert [s.visibility.value for s in ties if s.predicate == "MEMBER_OF"] == seen
