"""The continuity checks of an import: what they read of the entities its new facts point at finds what a check
of the whole graph finds about those facts.

An import reads of an existing entity its new facts only point at (a roster's factions, an event a new person
takes part in, a child given a new parent) only what a rule can pair with those facts. Each test imports in
steps and compares, at every step, the import's warnings with the whole-graph check's findings that involve
the facts the step wrote. Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.checks import whole_snapshot
from canon.continuity import check
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured.ingest import IngestReport
from canon.tables import StatementRow
from canon.wording import Wording, warning_sentence

ERAS = """\
kind: timeline
eras:
  - era: old_kingdom
    name: The Old Kingdom
    start: 100
    end: 500
  - era: late_kingdom
    name: The Late Kingdom
    parent_era: old_kingdom
"""
KINGS = """\
lineage: kings
members:
  - id: old_king
    name: The Old King
    born: old_kingdom.year_200
    died: old_kingdom.year_260
  - id: old_queen
    name: The Old Queen
    born: old_kingdom.year_210
  - id: prince
    name: The Prince
    born: old_kingdom.year_230
    parents: [old_king, old_queen]
"""
FEAST = """\
kind: timeline
events:
  - id: feast
    name: The Feast
    era: late_kingdom
    year: 300
    participants: [old_queen]
"""


async def import_steps(db: Database, steps: Sequence[dict[str, str]]) -> list[IngestReport]:
    """Import each step's files into one campaign; check every step against the whole-graph check."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Valdorn"))
    importer = StructuredImportService(db)
    reports = []
    for files in steps:
        report = await importer.import_files(campaign, [(n, t.encode()) for n, t in files.items()])
        assert report.status == "ingested", report.summary()
        async with db.session() as session:
            reader = await CanonReader.open(session, campaign.id, base_ontology(), viewer=Viewer.GM)
            written = select(StatementRow.id).where(StatementRow.changeset_id == report.changeset_id)
            new = set((await session.execute(written)).scalars())
            whole = check(await whole_snapshot(reader), focus=new)
            words = Wording(calendar=(await reader.calendar()).words())
        # The report's warnings are the checks' findings, their dates in the calendar's words for the GM.
        found = sorted((w.kind, w.statement_ids, w.message) for w in report.warnings)
        assert found == sorted(
            (f.kind.value, f.statement_ids, warning_sentence(f.message, words)) for f in whole
        )
        reports.append(report)
    return reports


def kinds(report: IngestReport) -> list[str]:
    return sorted(w.kind for w in report.warnings)


async def test_a_third_parent_given_to_an_existing_child_breaks_the_limit_of_two(db: Database) -> None:
    third = KINGS.replace("parents: [old_king, old_queen]", "parents: [old_king, old_queen, stranger]")
    third += "  - id: stranger\n    name: The Stranger\n    born: old_kingdom.year_250\n"
    first, second = await import_steps(db, [{"eras.yaml": ERAS, "kings.yaml": KINGS}, {"kings.yaml": third}])
    assert kinds(first) == []
    assert kinds(second) == ["born_before_parent", "cardinality"]
    (limit,) = [w for w in second.warnings if w.kind == "cardinality"]
    assert "The Old King" in limit.message and "The Old Queen" in limit.message
    assert "The Stranger" in limit.message and "The Prince" in limit.message


async def test_an_event_of_an_existing_sub_era_is_held_to_its_parent_era_s_bounds(db: Database) -> None:
    late = FEAST.replace("year: 300", "year: 700")
    (_, events) = await import_steps(db, [{"eras.yaml": ERAS, "kings.yaml": KINGS}, {"feast.yaml": late}])
    assert kinds(events) == ["event_outside_era"]
    assert "The Late Kingdom" in events.warnings[0].message and "after it ends" in events.warnings[0].message


async def test_a_new_person_taking_part_in_an_existing_event_after_dying_is_found(db: Database) -> None:
    ghost = "lineage: ghosts\nmembers:\n  - id: ghost\n    name: The Ghost\n    born: 120\n    died: 150\n"
    haunted = FEAST.replace("participants: [old_queen]", "participants: [old_queen, ghost]")
    steps = [
        {"eras.yaml": ERAS, "kings.yaml": KINGS, "feast.yaml": FEAST},
        {"ghosts.yaml": ghost, "feast.yaml": haunted},
    ]
    (first, second) = await import_steps(db, steps)
    assert kinds(first) == []
    assert kinds(second) == ["dead_acting"]
    assert "The Ghost" in second.warnings[0].message and "The Feast" in second.warnings[0].message


async def test_a_roster_of_existing_factions_and_a_member_moving_between_them_raise_nothing(
    db: Database,
) -> None:
    factions = "factions:\n" + "".join(
        f"  - id: house_{i}\n    name: House {i}\n    allies: [house_{(i + 1) % 4}]\n" for i in range(4)
    )
    roster = "characters:\n" + "".join(
        f"  - id: knight_{i}\n    name: Knight {i}\n    faction: house_{i % 4}\n    born: 300\n"
        for i in range(8)
    )
    moved = roster.replace("faction: house_0", "faction: house_3", 1)
    (_, first, second) = await import_steps(
        db, [{"factions.yaml": factions}, {"roster.yaml": roster}, {"roster.yaml": moved}]
    )
    assert kinds(first) == kinds(second) == []
    assert first.statements.created > 8
    assert (second.statements.created, second.statements.retconned) == (1, 1)  # the membership moved
