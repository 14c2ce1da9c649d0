"""A world file without `kind:` is read as a kind only when its top-level keys say it alone; else the GM is told,
in one sentence at line 1, which kinds exist and how to write the `kind:` line. Nothing is written."""

from __future__ import annotations

from sqlalchemy import func, select

from canon import campaigns
from canon.ontology import base_ontology
from canon.storage import Database
from canon.structured import load_lore_file
from canon.structured.ingest import ingest, load_files
from canon.tables import EntityRow, StatementRow

KINDS_IN_WORDS = "the kinds are timeline, family tree, gazetteer, bestiary, magic system, culture, characters, factions and items"

#: A GM's first world file: a kingdom, with its people, and a `start:` year.
KINGDOM = """\
name: The Kingdom of Valdorn
start: 1
people:
  - id: ser_aldric
    name: Ser Aldric
"""


def test_a_file_whose_keys_fit_no_one_kind_is_not_read_as_a_timeline() -> None:
    result = load_lore_file(KINGDOM, "valdorn.yaml")
    assert result.kind is None and not result.ok
    (problem,) = result.problems
    assert (problem.line, problem.column) == (1, 1)
    assert problem.message == (
        "this file has no `kind:` line, and its top-level keys (name, start, people) do not say which kind of "
        f"world file it is: say which one in a line such as `kind: timeline` at the top; {KINDS_IN_WORDS}"
    )
    assert "family_tree" not in problem.message and "magic_system" not in problem.message


def test_a_file_whose_keys_are_all_one_kind_s_is_read_as_that_kind() -> None:
    era = "era: third_age\nname: Third Age\nstart: 1\nevents:\n  - id: the_burning\n    name: The Burning\n"
    assert load_lore_file(era, "ages.yaml").kind == "timeline"
    assert load_lore_file("creatures:\n  - id: grey_wolf\n    name: Grey Wolf\n").kind == "bestiary"


def test_a_kind_line_in_words_is_understood() -> None:
    tree = (
        "kind: Family Tree\nlineage: house_vyr\nname: House Vyr\nmembers:\n  - id: oswin\n    name: Oswin\n"
    )
    result = load_lore_file(tree, "vyr.yaml")
    assert result.ok and result.kind == "family_tree", result.problems
    assert load_lore_file("kind: character\ncharacters: []\n").kind == "characters"


def test_an_unknown_kind_line_lists_the_kinds_in_words() -> None:
    (problem,) = load_lore_file("kind: kingdom\nname: Valdorn\n", "valdorn.yaml").problems
    assert (problem.line, problem.column) == (1, 7)
    assert problem.message.startswith("“kind: kingdom” is not a kind of world file: say which one in a line")
    assert "`kind: timeline`" in problem.message and problem.message.endswith(KINDS_IN_WORDS)


async def test_importing_a_file_of_no_clear_kind_writes_nothing(db: Database) -> None:
    campaign = await db.run(lambda s: campaigns.create_campaign(s, "Valdorn"))
    report = await db.run(
        lambda s: ingest(s, campaign.id, load_files([("valdorn.yaml", KINGDOM.encode())]), base_ontology())
    )
    assert report.status == "failed"
    assert report.summary().splitlines()[0] == "Nothing was written: 1 problem in valdorn.yaml."
    async with db.session() as session:
        for table in (EntityRow, StatementRow):
            assert await session.scalar(select(func.count()).select_from(table)) == 0


def test_a_calendar_given_as_a_world_file_says_where_a_calendar_goes() -> None:
    calendar = (
        "eras:\n  - {name: The Age of Tides, abbreviation: AT}\n"
        "months:\n  - {name: Saltwane, days: 30}\n  - {name: Gullmoon, days: 30}\n"
        "seasons:\n  - {name: calm, months: [Saltwane]}\n"
    )
    result = load_lore_file(calendar, "calendar.yaml")
    assert result.kind is None and not result.ok
    (problem,) = result.problems
    assert (problem.line, problem.column) == (1, 1)
    assert problem.message == (
        "this file looks like the campaign's calendar (it lists months), which is not imported as lore: set it "
        "with /calendar set in Discord; on the command line, `lorekeeper ingest` sets it first when it is given "
        "with the world's files (or `lorekeeper canon calendar --set FILE`)"
    )
