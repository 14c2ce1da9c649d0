"""A GM writes a world file with names, not storage keys: an entry's name gives its id, a reference may name
an entry, and every problem's example is a name from the GM's own file."""

from __future__ import annotations

from sqlalchemy import func, select

from canon import campaigns
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured import load_lore_file
from canon.structured.ingest import ingest, load_files
from canon.tables import EntityRow, StatementRow

VYR = """\
kind: family tree
name: House Vyr
members:
  - id: aldric
    name: Ser Aldric
  - name: Mira Vyr
    parents: [Ser Aldric]
"""


def test_entries_without_ids_take_them_from_their_names_and_references_may_name_them() -> None:
    result = load_lore_file(VYR, "vyr.yaml")
    assert result.ok, [str(p) for p in result.problems]
    assert [(e.id, e.name) for e in result.entries] == [
        ("house_vyr", "House Vyr"),
        ("aldric", "Ser Aldric"),
        ("mira_vyr", "Mira Vyr"),
    ]
    assert ("aldric", "PARENT_OF", "mira_vyr") in [
        (r.source_id, r.type, r.target_id) for r in result.relations
    ]


def test_a_missing_name_is_asked_for_with_a_name_from_the_file() -> None:
    (problem,) = load_lore_file(VYR + "  - parents: [Mira Vyr]\n", "vyr.yaml").problems
    assert (problem.line, problem.message) == (
        8,
        "this entry needs a name, written like `name: House Vyr` (the id comes from the name)",
    )
    assert "house_vyr" not in problem.message and "slug" not in problem.message


def test_a_field_that_wants_a_name_gives_an_example_from_the_file() -> None:
    (bad,) = load_lore_file("creatures:\n  - name: Grey Wolf\n    habitat: [a]\n").problems
    assert bad.message == '"habitat" must be a name like “Grey Wolf” (or its id, grey_wolf); got a list'
    assert "house_vyr" not in bad.message


async def test_a_name_defined_nowhere_is_reported_in_names_and_nothing_is_written(db: Database) -> None:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Valdorn"))
    text = VYR + "    spouse_of: [Tobin Marsh]\n"
    report = await db.run(
        lambda s: ingest(s, campaign.id, load_files([("vyr.yaml", text.encode())]), base_ontology())
    )
    assert report.status == "failed"
    (error,) = report.errors
    assert error.line == 8
    assert error.message == (
        '"spouse_of" of Mira Vyr names “Tobin Marsh”, which is no entry of this file, of the other files of '
        "this import, or of the campaign's canon (expected a Person); this import names Ser Aldric, Mira Vyr"
    )
    async with db.session() as session:
        for table in (EntityRow, StatementRow):
            assert await session.scalar(select(func.count()).select_from(table)) == 0
