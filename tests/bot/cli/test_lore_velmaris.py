"""How /lore reads names and word forms on a small world of our own (tests/fixtures/velmaris): a name typed with
its title and followed by words that are no part of it ("who does sergeant tobin crale spy for") names the person
and leaves those words to the question; a question's word in another form than the bible's ("spy" and "spies",
"leave" and "left") finds its sentence, and a yes/no question is answered "Yes" only by a sentence saying so; what
only the GM may read (a GM-only section of the bible) answers the GM, while a player reads, word for word, what a
world that never wrote it answers. Asked as a player and as the GM; on SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import (
    TWIN,
    asker,
    import_with_twin,
)
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "velmaris"
FILES = ("places", "folk", "factions")
CAMPAIGN = "velmaris"
#: The same world with its GM-only sections out: what a player's answers must read like.
ABSENT = TWIN


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Velmaris and its bible (Canon) imported, and its twin without the
    GM's sections beside it."""
    return import_with_twin(CAMPAIGN, WORLD, FILES, tmp_path / "absent")


ask = asker(CAMPAIGN, marks="none")


SPIES = "Sergeant Tobin Crale spies for the Margrave of Oskel, who pays him in silver."
LEFT = "The Brothers of the Reed left Fallow Keep after the great storm in year 12 of the Tide Reckoning."

#: Question -> its whole answer as the GM reads it: a name typed with its title, in part or with a slip, and
#: followed by the question's own words; a word asked in another form than the bible's.
GM_READS = {
    "who does sergeant tobin crale spy for": SPIES,
    "who does sergeant tobin crale spy for?": SPIES,
    "who does tobin crale spy for": SPIES,
    "who does sergent tobin crale spy for": SPIES,
    "who does crale spy for": SPIES,
    "is sergeant crale a spy": f"Yes: {SPIES}",
    "is tobin crale a spy": f"Yes: {SPIES}",
    "did the brothers of the reed leave fallow keep": f"Yes: {LEFT}",
    "why did the brothers of the reed leave fallow keep": LEFT,
    # No sentence says so: no "yes", no "no", nothing known.
    "is pellam voss a spy": "Nothing the table knows answers “is pellam voss a spy”.",
    "who does pellam voss spy for": "Nothing the table knows answers “who does pellam voss spy for?”.",
}
#: Questions only the GM-only section answers.
SECRET = [q for q, a in GM_READS.items() if a.endswith(SPIES)]


def test_a_name_leaves_the_question_its_words_and_a_word_reads_in_its_forms(
    cli: CliRunner, tmp_path: Path
) -> None:
    assert ask(cli, tmp_path, list(GM_READS), gm=True) == GM_READS


def test_a_player_reads_what_a_world_without_the_gm_s_section_answers(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, list(GM_READS))
    assert said == ask(cli, tmp_path, list(GM_READS), campaign=ABSENT)
    for question in SECRET:
        # Word for word what a question about a name nobody wrote reads.
        shown = question if question.endswith("?") or question.startswith("is ") else f"{question}?"
        assert said[question] == f"Nothing the table knows answers “{shown}”.", question
        assert "Margrave" not in said[question] and "Oskel" not in said[question]
    assert said["did the brothers of the reed leave fallow keep"] == f"Yes: {LEFT}"
