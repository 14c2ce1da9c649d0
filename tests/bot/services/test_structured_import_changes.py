"""Structured lore (YAML) re-ingested and refused on a real database: unresolved ids, references into canon, the calendar's bounds, changes by difference, broken files.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.app import CanonServices
from bot.services.structured_import import StructuredImportService
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign, ChangesetRow
from canon.errors import InvalidInput
from canon.models import AsOf, CanonLevel
from canon.storage import Database
from canon.structured import load_lore_file
from canon.structured.ingest import ChangeCounts
from canon.structured.tables import StructuredFileRow
from canon.tables import EntityRow
from tests.helpers.structured_import import FIXTURES, by_key, reader_of
from tests.helpers.valdorn import GM, KINDS, add_factions, counts, fixture_files, ingest_all


async def test_an_id_defined_nowhere_is_an_error_with_its_line_and_nothing_is_written(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    before = await counts(db)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "failed" and not report.ok
    assert await counts(db) == before
    missing = {(e.file, e.line, e.column): e.message for e in report.errors}
    assert ("timeline.yaml", 77, 62) in missing
    assert "names “Crimson Pact”, which is no entry of this file" in missing[("timeline.yaml", 77, 62)]
    assert "crimson_pact" not in missing[("timeline.yaml", 77, 62)]
    assert {e.file for e in report.errors} == {"timeline.yaml", "magic_system.yaml", "culture.yaml"}
    assert "Nothing was written" in report.summary()


async def test_a_reference_resolves_against_canon_by_key_and_by_type(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    # The gazetteer alone refers to a culture and to events no file of this import defines.
    report = await importer.import_files(campaign, fixture_files("gazetteer"), GM)
    assert report.status == "failed"
    assert any("“Valdorni”" in e.message for e in report.errors)
    await add_factions(canon, campaign)
    first = await importer.import_files(
        campaign,
        fixture_files("culture", "timeline", "family_tree", "bestiary", "magic_system", "gazetteer"),
        GM,
    )
    assert first.status == "ingested", first.summary()
    # Later files resolve ids against what earlier ones defined (the campaign's canon).
    tree = (FIXTURES / "family_tree.yaml").read_text()
    extra = tree.replace("  - id: serah_raventhorne", "  - id: serah_raventhorne\n    culture: valdorni", 1)
    changed = await importer.import_files(campaign, [("family_tree.yaml", extra.encode())], GM)
    assert changed.status == "ingested", changed.summary()
    # The wrong type: a language where a culture is expected.
    wrong = tree.replace("    culture: frostfolk", "    culture: old_valdorni", 1)
    failed = await importer.import_files(campaign, [("family_tree.yaml", wrong.encode())], GM)
    assert failed.status == "failed"
    (error,) = failed.errors
    assert "must name a Culture; “Old Valdorni” is the Language" in error.message and error.line > 1


async def test_years_at_the_calendar_s_bounds_are_stored_and_one_past_them_is_an_error_at_its_line(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    text = (
        "kind: timeline\neras:\n  - era: deep_age\n    start: -999999999999\n    end: 999999999999\n"
        "    events:\n      - id: last_light\n        name: Last Light\n        year: 999999999999\n"
    )
    report = await importer.import_files(campaign, [("deep.yaml", text.encode())], GM)
    assert report.status == "ingested", report.summary()
    async with db.session() as session:
        keys = dict((await session.execute(select(EntityRow.key, EntityRow.world_from_key))).all())
    assert keys == {"deep_age": -999_999_999_999 * 10000, "last_light": 999_999_999_999 * 10000}
    before = await counts(db)
    past = text.replace("year: 999999999999", "year: 1000000000000")
    failed = await importer.import_files(campaign, [("deep.yaml", past.encode())], GM)
    assert failed.status == "failed"
    assert [(e.line, e.column, e.message) for e in failed.errors] == [
        (
            9,
            15,
            '"year" is 1,000,000,000,000, outside the calendar, which runs over years -999,999,999,999 to '
            "999,999,999,999",
        )
    ]
    assert await counts(db) == before


# --- re-ingest ---------------------------------------------------------------------------------------------


async def test_the_same_files_again_write_nothing(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    again = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert again.status == "unchanged" and again.changeset_id is None
    assert {f.status for f in again.files} == {"unchanged"}
    assert again.counts["Person"] == 17
    assert await counts(db) == before
    assert "unchanged" in again.summary()


async def test_a_changed_file_applies_only_the_difference_with_retcons_never_deletes(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    async with db.session() as session:
        records_before = {
            row.file: dict(row.statements)
            for row in (await session.execute(select(StructuredFileRow))).scalars()
        }
    old_aldric, old_statements, _ = await by_key(db, campaign, "aldric_raventhorne")
    old_title = next(s for s in old_statements if s.predicate == "title")
    elara, _, _ = await by_key(db, campaign, "elara_raventhorne")
    serah, _, _ = await by_key(db, campaign, "serah_raventhorne")
    tree = (FIXTURES / "family_tree.yaml").read_text()
    changed = (
        tree.replace(
            "titles: [Slayer of the Pale Worm]", "titles: [Slayer of the Pale Worm, Lord of Thornwall]"
        )
        .replace("name: Elara Raventhorne", "name: Elara Raventhorne-Vyr")
        .replace(
            "  - id: serah_raventhorne\n    name: Serah Raventhorne\n    born: 3rd_age.year_355\n    parents: [corvin_raventhorne]\n",
            "",
        )
    )
    assert changed.count("serah") == 0
    report = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert report.status == "ingested", report.summary()
    assert report.files[0].status == "updated"
    # The tree's 18 entries: 16 kept as they were, Elara replaced (renamed), Serah retconned (removed).
    assert report.entities == ChangeCounts(unchanged=16, changed=1, retconned=1)
    # Its facts: Aldric's titles and Elara's five (alive, her lineage, her marriage, her two children) are
    # re-written in their slots; Serah's three (alive, her lineage, her parent) are retconned with the six
    # they replace; nothing else of the file is touched, and nobody else said anything about Elara.
    # The file stated 80 facts: 44 relations, 29 states (Orrin's unknown death among them: dead, the date not
    # known), 7 attributes.
    assert len(records_before["family_tree.yaml"]) == 80
    assert report.statements == ChangeCounts(changed=6, unchanged=80 - 6 - 3, retconned=6 + 3)
    after = await counts(db)
    # Exactly the difference, nothing deleted: 6 statements, 1 entity, their 7 pieces of evidence, 9 statement
    # and 2 entity retcons, one changeset; the file's record gets a new version (the old one is kept, for
    # the branches forked before).
    assert {name: after[name] - before[name] for name in before} == {
        "entities": 1,
        "statements": 6,
        "evidence": 7,
        "status": 11,
        "changesets": 1,
        "files": 1,
        "conflicts": 0,
    }
    # The changed value: the old fact retconned, the new one replaces it, with its evidence.
    aldric, statements, _ = await by_key(db, campaign, "aldric_raventhorne")
    assert aldric.id == old_aldric.id
    title = next(s for s in statements if s.predicate == "title")
    assert title.value == "Slayer of the Pale Worm, Lord of Thornwall" and title.replaces_id == old_title.id
    assert title.evidence[0].file == "family_tree.yaml"
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        history = await reader.statements(statement_ids=[old_title.id], include_retconned=True)
        assert (
            history[0].provenance.level == CanonLevel.RETCONNED
            and history[0].provenance.replaced_by == title.id
        )
        # The renamed entry: a new entity with the same key replaces the old one, its relations carried over.
        old_elara = await reader.entity(elara.id)
        assert old_elara.provenance.level == CanonLevel.RETCONNED
        new_elara = (await reader.find_exact("elara_raventhorne"))[0]
        assert new_elara.name == "Elara Raventhorne-Vyr" and old_elara.provenance.replaced_by == new_elara.id
        spouse = await reader.statements(
            subject_ids=[new_elara.id], object_ids=[new_elara.id], predicates=["SPOUSE_OF"]
        )
        assert len(spouse) == 1
        # The removed entry: retconned, still there as it was.
        gone = await reader.entity(serah.id)
        assert gone.provenance.level == CanonLevel.RETCONNED and gone.name == "Serah Raventhorne"
        assert await reader.statements(subject_ids=[serah.id], object_ids=[serah.id]) == []
        # What we believed before the re-ingest is still answerable.
        async with db.session() as s2:
            changesets = (await s2.execute(select(ChangesetRow).order_by(ChangesetRow.id))).scalars().all()
        before_reingest = AsOf(believed_at=changesets[-2].recorded_at)
        then = await reader.statements(
            subject_ids=[old_aldric.id], predicates=["title"], as_of=before_reingest
        )
        assert [s.value for s in then] == ["Slayer of the Pale Worm"]
    # The same changed file again: nothing new.
    again = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert again.status == "unchanged" and await counts(db) == after


async def test_removing_an_id_other_entries_still_use_is_an_error(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    before = await counts(db)
    tree = (FIXTURES / "family_tree.yaml").read_text()
    block = "  - id: tobin_vyr\n    name: Tobin Vyr\n    born: 3rd_age.year_270\n    died: 3rd_age.year_330\n    parents: [orrin_vyr]\n"
    assert block in tree
    report = await importer.import_files(
        campaign, [("family_tree.yaml", tree.replace(block, "").encode())], GM
    )
    assert report.status == "failed"
    assert any(
        "“Tobin Vyr”, which this import removes from family_tree.yaml" in e.message for e in report.errors
    )
    assert await counts(db) == before


# --- every validation rule: errors with lines, nothing written ---------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("broken_*.yaml")))
async def test_a_broken_file_reports_every_problem_and_writes_nothing(
    db: Database, importer: StructuredImportService, campaign: Campaign, name: str
) -> None:
    data = (FIXTURES / name).read_bytes()
    if name == "broken_too_large.yaml":  # too large for a 1 KiB limit (the default is 2 MiB)
        importer.max_bytes = 1024
    before = await counts(db)
    report = await importer.import_files(campaign, [(name, data)], GM)
    assert report.status == "failed" and report.errors, report.summary()
    assert all(e.file == name and e.line >= 1 and e.column >= 1 and e.message for e in report.errors)
    # The new campaign's calendar (no eras yet): a date not in the stored form is read in its words.
    loaded = load_lore_file(data, name, max_bytes=importer.max_bytes, calendar=CampaignCalendar())
    if loaded.problems:  # the loader's own rules: reported as the loader says
        assert [(e.line, e.column, e.message) for e in report.errors] == [
            (p.line, p.column, p.message) for p in loaded.problems
        ]
    assert report.error is not None and "nothing was written" in report.error
    assert await counts(db) == before


async def test_a_file_that_is_not_yaml_by_name_is_refused(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    with pytest.raises(InvalidInput, match=r"\.yaml or \.yml"):
        await importer.import_bytes(campaign, "notes.txt", b"creatures: []")
