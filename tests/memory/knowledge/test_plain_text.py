"""A plain-text manual's layout read as Markdown: underlined titles, definitions, field lists, aligned tables."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.fields import read_fields
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.plain_text import plain_markdown
from memory.knowledge.tables import KnowledgeChunkRow
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

MANUAL = """\
~~~~~~~~~~~~~~~~
 THE CLOCKWORKS
~~~~~~~~~~~~~~~~

Part One: Tinkers
*****************

Gauges
++++++

Spring
   How hard a tinker can wind a mainspring.
   Rated 1 to 5.

Tick
   Steadiness of hand.

:Gear limit: Spring + 2, counted in cogs
   carried at once.
:Rust: 0 at the start.

Benches
+++++++

=========  =======  ==============
Bench      Cost     What it makes
=========  =======  ==============
Lathe      40 bits  axles and pins
Forge      95 bits  frames, hinges
                    and springs
=========  =======  ==============

   Tool           Weight   Note
   -------------  -------  ----------------
   Oilcan         1 lb     never runs dry
   Screw-key      2 lb     opens any case

A paragraph of plain prose
that wraps onto a second line, then a list:

- first item
  goes on here
"""


def test_titles_read_as_headings_in_the_order_their_underlines_first_appear() -> None:
    text = plain_markdown(MANUAL)
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# THE CLOCKWORKS", "## Part One: Tinkers", "### Gauges", "### Benches"]


def test_definitions_and_field_lists_read_as_fields_of_their_section() -> None:
    fields = {(f.subject, f.label): f.value for f in read_fields([], plain_markdown(MANUAL))}
    assert fields["Gauges", "Spring"] == "How hard a tinker can wind a mainspring. Rated 1 to 5."
    assert fields["Gauges", "Tick"] == "Steadiness of hand."
    assert fields["Gauges", "Gear limit"] == "Spring + 2, counted in cogs carried at once."
    assert fields["Gauges", "Rust"] == "0 at the start."


def test_tables_aligned_by_spaces_read_as_rows_of_their_section() -> None:
    fields = {(f.subject, f.label): f.value for f in read_fields([], plain_markdown(MANUAL))}
    assert fields["Benches › Lathe", "Cost"] == "40 bits"
    assert fields["Benches › Forge", "What it makes"] == "frames, hinges and springs"
    assert fields["Benches › Screw-key", "Weight"] == "2 lb"


def test_prose_lists_and_markdown_are_left_as_they_are() -> None:
    text = plain_markdown(MANUAL)
    assert "A paragraph of plain prose\nthat wraps onto a second line, then a list:" in text
    assert "- first item\n  goes on here" in text
    markdown = "# Title\n\nSome text.\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\n- **Bold**: value\n"
    assert plain_markdown(markdown) == markdown


async def test_a_text_manual_imports_with_its_sections_and_fields(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Clockworks")
    await service.import_bytes(
        campaign, "clockworks.txt", MANUAL.encode(), knowledge_class=KnowledgeClass.REFERENCE
    )
    async with db.session() as session:
        rows = list((await session.execute(select(KnowledgeChunkRow))).scalars())
    paths = {tuple(row.heading_path) for row in rows}
    assert ("THE CLOCKWORKS", "Part One: Tinkers") in paths  # small sections share a chunk
    kept = [tuple(field) for row in rows for field in row.fields or []]
    assert ("Benches › Lathe", "Cost", "40 bits") in kept
    assert ("Gauges", "Gear limit", "Spring + 2, counted in cogs carried at once.") in kept
    answer = await service.ask(campaign, "how much does a lathe cost", viewer=Viewer.PLAYER)
    assert answer.reply is not None and "40 bits" in answer.reply.text, answer.reply
