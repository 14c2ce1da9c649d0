"""What an import's report says of its warnings: every time, "No warnings." when the checks found none, and the
same warnings again when the same files are imported unchanged.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign
from tests.helpers.valdorn import GM

_FOLK = b"""characters:
  - name: Orla Fenn
    died: 1201
    cause_of_death: a knife in the reeds
    public_cause_of_death: drowned in the spring flood
    killed_by: Tamsin Reed
  - name: Tamsin Reed
"""
_PLACES = b"""locations:
  - name: The Drowned Keep
"""


async def test_a_leak_is_warned_on_the_first_import_and_again_when_the_file_is_unchanged(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    files = [("folk.yaml", _FOLK), ("places.yaml", _PLACES)]
    first = await importer.import_files(campaign, files, GM)
    assert first.status == "ingested", first.summary()
    again = await importer.import_files(campaign, files, GM)
    assert again.status == "unchanged"
    for report in (first, again):
        (warning,) = [w for w in report.warnings if w.kind == "truth_shown"]
        assert warning.message.startswith("folk.yaml, line 6: ")
        text = report.summary()
        assert "1 warning:" in text and "`gm_only: [killed_by]`" in text, text
        assert "No warnings." not in text


async def test_the_summary_says_no_warnings_when_the_checks_found_none(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    first = await importer.import_files(campaign, [("places.yaml", _PLACES)], GM)
    again = await importer.import_files(campaign, [("places.yaml", _PLACES)], GM)
    assert (first.status, again.status) == ("ingested", "unchanged")
    for report in (first, again):
        assert report.warnings == () and report.summary().endswith("No warnings."), report.summary()


async def test_an_unchanged_file_beside_a_changed_one_still_shows_its_warnings(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    await importer.import_files(campaign, [("folk.yaml", _FOLK), ("places.yaml", _PLACES)], GM)
    more = _PLACES + b"  - name: The Salt Stair\n"
    report = await importer.import_files(campaign, [("folk.yaml", _FOLK), ("places.yaml", more)], GM)
    assert report.status == "ingested", report.summary()
    assert [w.message[:19] for w in report.warnings if w.kind == "truth_shown"] == ["folk.yaml, line 6: "]


async def test_a_hidden_import_warns_of_nothing_players_could_read(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    report = await importer.import_files(campaign, [("folk.yaml", _FOLK)], GM, hidden=True)
    assert report.status == "ingested" and report.warnings == (), report.summary()


async def test_a_conflict_left_open_is_shown_again_when_the_files_are_unchanged(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    # A child born before its father: a continuity warning, recorded as an open conflict.
    tree = b"""kind: family_tree
name: House Fenn
members:
  - name: Aldo Fenn
    born: 1100
    died: 1150
  - name: Pell Fenn
    born: 1090
    parents: [Aldo Fenn]
"""
    first = await importer.import_files(campaign, [("house.yaml", tree)], GM)
    assert first.status == "ingested" and first.warnings, first.summary()
    again = await importer.import_files(campaign, [("house.yaml", tree)], GM)
    assert again.status == "unchanged"
    assert {w.message for w in again.warnings} == {w.message for w in first.warnings}, again.summary()
    assert "Born before a parent" in again.summary()


async def test_an_event_naming_among_its_dead_one_told_missing_is_warned_in_its_file_and_again(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    folk = b"""characters:
  - name: Hesper Vane
    status: dead
    public_status: missing
    gm_only: [died]
"""
    chronicle = b"""kind: timeline
events:
  - name: Sinking of the Gull
    year: 1201
    deaths: [Hesper Vane]
"""
    files = [("folk.yaml", folk), ("chronicle.yaml", chronicle)]
    for _ in range(2):  # written, then unchanged: the same warning
        report = await importer.import_files(campaign, files, GM)
        assert report.ok, report.summary()
        (warning,) = [w for w in report.warnings if w.kind == "truth_shown"]
        assert warning.message.startswith("chronicle.yaml, line 5: Players are told Hesper Vane is missing")
        assert "`{name: Hesper Vane, gm_only: true}`" in warning.message


async def test_a_leader_s_years_said_two_ways_are_warned_again_when_unchanged(
    importer: StructuredImportService, campaign: Campaign
) -> None:
    world = b"""characters:
  - name: Oda Varr
    titles:
      - {title: Speaker of the Brinemoot, from: 620}
---
factions:
  - name: The Brinemoot
    leaders:
      - {name: Oda Varr, from: 625}
"""
    first = await importer.import_files(campaign, [("world.yaml", world)], GM)
    again = await importer.import_files(campaign, [("world.yaml", world)], GM)
    assert (first.status, again.status) == ("ingested", "unchanged")
    for report in (first, again):
        assert [w.kind for w in report.warnings] == ["leader_spans_differ"], report.summary()
