"""Questions of two parts, asked through `lorekeeper lore` of a small world of our own (tests/fixtures/skarholt),
in forms no other world's tests ask: each part answered or said unknown, one after the other, with their
citations; the second part's pronoun read as the first part's answer when it agrees with it ("who was Idony's
mother and what was her trade": the mother's), a bare "why" answered by a reason or said unknown, a thing asked
by its other name in either part, parts joined by "and", "and also", a comma or a semicolon, a name before a colon.
A part only the GM may read answers the GM, while a player reads, word for word, what a world that never wrote it
answers; a question of one part is never split. On SQLite, then PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import TWIN, asker, import_with_twin
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "skarholt"
FILES = ("places", "factions", "folk", "kin", "items", "chronicle")
CAMPAIGN = "skarholt"
#: The same world without what only the GM may read: what a player's answers must read like.
ABSENT = TWIN


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Skarholt and its bible (Canon) imported, and its twin without the
    GM's lines beside it."""
    return import_with_twin(CAMPAIGN, WORLD, FILES, tmp_path / "absent")


ask = asker(CAMPAIGN, marks="kept")


def unmarked(answer: str) -> str:
    return re.sub(r" \[\d+\]", "", answer)


LEADS = "Gethin Ardwyn leads the Cinder Oath."
SEATED = "Ostrel Tower is the seat of the Cinder Oath."
EXILED = "Torvald Lorn went into exile on the Isle of Merrow in year 301 of the Long Count."
BANISHED = "Torvald Lorn was banished because he struck the queen's cousin at the midwinter feast."
MOTHER = "Idony Tarrow's mother was Brisca Tarrow (died in year 301)."
DYER = "Brisca Tarrow is a dyer of Vasht who sold crimson cloth to the court."
HELD = "Gethin Ardwyn has the Sword of Tamsk."
FORGED = "Haldis Forr made the Sword of Tamsk in year 280."
QUEEN = "Queen Lowenna Corrigan is Queen of Skarholt, the young queen of Skarholt, who rules from Vasht."

#: Question -> its whole answer without citation marks, as a player (and the GM) reads it.
READS = {
    # A group's leader and its seat, however the parts are joined.
    "Who leads the Cinder Oath and where are they based?": f"{LEADS} {SEATED}",
    "Who leads the Cinder Oath, where is it based?": f"{LEADS} {SEATED}",
    "Who leads the Cinder Oath and also where are they based?": f"{LEADS} {SEATED}",
    "Who leads the Cinder Oath; where are they based?": f"{LEADS} {SEATED}",
    # The second part asks of the first part's answer: the mother, the leader, the ruler.
    "Who was Idony's mother and what was her trade?": f"{MOTHER} {DYER}",
    "Who was Idony's mother and when was she born?": f"{MOTHER} Brisca Tarrow was born in year 250.",
    "Who leads the Cinder Oath and where was he born?": (
        f"{LEADS} Nothing the table knows answers “where was Gethin Ardwyn born?”."
    ),
    "Who rules Skarholt and where does she live?": f"{QUEEN} Queen Lowenna Corrigan lives in Vasht.",
    # Why: the reason the bible gives beside the exile, or the reason said not known; never dropped.
    "Where did Torvald Lorn go into exile, and why?": f"{EXILED} {BANISHED}",
    "Where did Torvald Lorn go into exile and why did he go?": f"{EXILED} {BANISHED}",
    "Who is Torvald Lorn, and why was he exiled?": (
        f"Torvald Lorn is a former steward of the queen, now an exile. {BANISHED}"
    ),
    "Where did Wenna Dray go into exile, and why?": (
        "Wenna Dray is a harper who went into exile on the Isle of Merrow in year 290 of the Long Count. "
        "Nothing the table knows answers “why did Wenna Dray go into exile?”."
    ),
    # A thing asked by its other name, in either part.
    "Who carries Greyfang and who forged it?": f"{HELD} {FORGED}",
    "Who forged Greyfang and also who carries it?": f"{FORGED} {HELD}",
    "What is Greyfang and who wields it?": (
        f"The Sword of Tamsk, called Greyfang, is a grey blade of star-iron. The Sword of Tamsk was made in year 280. "
        f"{HELD}"
    ),
    # Who someone is and what they do; a treaty's day and who signed it; a capital and its ruler.
    "Who is Ebba Skell and what does she do?": (
        "Ebba Skell is the smiling mistress of the Grey Lanterns, who deals in stolen salt. "
        "Ebba Skell leads the Grey Lanterns."
    ),
    "When was the Treaty of Ravik Ford signed and who signed it?": (
        "The Treaty of Ravik Ford took place at Ravik Ford on 12 Thaw, year 298 of the Long Count. Queen Lowenna "
        "Corrigan and the Cinder Oath took part in the Treaty of Ravik Ford: The pact that ended the beacon quarrel."
    ),
    "When was the Treaty of Ravik Ford and who signed it?": (
        "The Treaty of Ravik Ford took place at Ravik Ford on 12 Thaw, year 298 of the Long Count. Queen Lowenna "
        "Corrigan and the Cinder Oath took part in the Treaty of Ravik Ford: The pact that ended the beacon quarrel."
    ),
    "What's the capital of Skarholt, and who rules it?": f"Skarholt: Its capital is Vasht. {QUEEN}",
    "Where is Ostrel Tower and who lives there?": "Ostrel Tower is in Skarholt. Gethin Ardwyn lives in Ostrel Tower.",
    # A name before a colon: both parts ask of it.
    "Ysolt Barra: alive or dead, and where is she now?": (
        "Ysolt Barra is imprisoned. Ysolt Barra is held at Tamsk Gaol."
    ),
    "Haldis Forr: what does she make, and where does she live?": (
        "Haldis Forr made the Beacon Horn and the Sword of Tamsk. Haldis Forr lives in Vasht."
    ),
    # A part nothing answers says so.
    "Who is Idony Tarrow's father, and where does he live?": (
        "Idony Tarrow's father is Edwy Tarrow. Nothing the table knows answers “where does Edwy Tarrow live?”."
    ),
    # One question, never split.
    "when did Brisca and Edwy marry": (
        "Brisca Tarrow is married to Edwy Tarrow; nothing the table knows says when they married."
    ),
    "who is the lord of war and peace": "Nothing the table knows says who the lord of war and peace is.",
}


def test_each_part_is_answered_or_said_unknown(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, list(READS))
    assert {q: unmarked(a) for q, a in said.items()} == READS
    # Each part keeps its citation: a part from another source than the one before it, its own mark.
    assert said["Who was Idony's mother and what was her trade?"] == f"{MOTHER} [3] {DYER} [1]"
    assert said["Where did Torvald Lorn go into exile, and why?"] == f"{EXILED} {BANISHED} [2]"
    assert said["Who carries Greyfang and who forged it?"] == f"{HELD} {FORGED} [1]"


#: Questions a part of which only the GM may read: the Grey Lanterns' seat, the Beacon Horn's holder.
SECRET = {
    "Who leads the Grey Lanterns and where are they based?": (
        "Ebba Skell leads the Grey Lanterns. Vasht is the seat of the Grey Lanterns.",
        "Ebba Skell leads the Grey Lanterns. Nothing the table knows answers “where are the Grey Lanterns based?”.",
    ),
    "Who leads the Grey Lanterns, and where is their seat?": (
        "Ebba Skell leads the Grey Lanterns. Vasht is the seat of the Grey Lanterns.",
        "Ebba Skell leads the Grey Lanterns. Nothing the table knows answers “where is the Grey Lanterns' seat?”.",
    ),
    "Who has the Beacon Horn and who made it?": (
        "Ebba Skell has the Beacon Horn. Haldis Forr made the Beacon Horn.",
        "Nothing the table knows says who has the Beacon Horn. Haldis Forr made the Beacon Horn.",
    ),
    "Who made the Beacon Horn and who has it now?": (
        "Haldis Forr made the Beacon Horn. Ebba Skell has the Beacon Horn.",
        "Haldis Forr made the Beacon Horn. Nothing the table knows says who has the Beacon Horn.",
    ),
}


def test_a_part_only_the_gm_may_read_reads_to_a_player_as_a_part_nobody_wrote(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = [*SECRET, *READS]
    player = ask(cli, tmp_path, asked)
    assert player == ask(cli, tmp_path, asked, campaign=ABSENT)
    gm = ask(cli, tmp_path, list(SECRET), gm=True)
    for question, (gm_reads, player_reads) in SECRET.items():
        assert unmarked(gm[question]) == gm_reads, question
        assert unmarked(player[question]) == player_reads, question
        assert "Vasht" not in player[question] and "Ebba Skell has" not in player[question]
