"""How /lore answers the forms an outsider's world found answered wrongly, on a small world of our own
(tests/fixtures/quillhaven): an event named by a clause, a deed an event's description says, a question of two
parts, … Each is asked as players type it (lowercase, typos,
"who's", short forms), as a player and as the GM; on SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "quillhaven"
CAMPAIGN = "quillhaven"
FILES = ("places", "folk", "factions", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, the Quillhaven world and its bible (Canon) imported."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    result = runner.invoke(app, ["ingest", str(WORLD / "bible.md"), "-c", CAMPAIGN, "--class", "canon"])
    assert result.exit_code == 0, result.output
    return runner


def ask(cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False) -> dict[str, str]:
    """Return each question's answer without its citation."""
    return ask_world(cli, tmp_path, CAMPAIGN, questions, gm=gm, citations=False)


EEL_OPENED = "The Gilded Eel opened at Quillhaven on 3 Frostfall, year 12 of the Harbour Reckoning."
CROWNED = "At the Coronation of Queen Ysolde, Archbishop Fenn handed Queen Ysolde the Pearl Crown before the whole city."
SALTMERE_WON = (
    "At the Siege of Saltmere, the corsairs held the village for a month until the Tideguard broke them and won the "
    "day."
)
SALTMERE_WHEN = (
    "The Siege of Saltmere took place at Saltmere on 9 Thawmonth, year 18 of the Harbour Reckoning."
)

#: Question -> its whole answer, the same to a player and to the GM.
READS = {
    # An event named by a clause: said in the past where it opens a sentence, quoted as a name inside one.
    "when did the Gilded Eel open": EEL_OPENED,
    "when was the gilded eel opens": EEL_OPENED,
    "wat happened in year 12": EEL_OPENED,
    "who took part in the gilded eel opens": "Pell Varn took part in “The Gilded Eel opens”: A tavern opens on the quay.",
    "was pell varn at the gilded eel opens": (
        "Yes: Pell Varn took part in “The Gilded Eel opens” on 3 Frostfall, year 12 of the Harbour Reckoning."
    ),
    # A deed an event's description says, with its doer: that sentence, never all who took part.
    "who handed queen ysolde the pearl crown at the coronation": CROWNED,
    "who crowned ysolde": CROWNED,
    "who's the one that crowned the queen": CROWNED,
    "who gave ysolde the crown": CROWNED,
    # Who took part: all of them.
    "who was at the coronation": (
        "Queen Ysolde, Archbishop Fenn and Admiral Cole took part in the Coronation of Queen Ysolde: Archbishop Fenn "
        "handed Queen Ysolde the Pearl Crown before the whole city."
    ),
    # A question of two parts: each part answered, in the order asked.
    "who won the siege of saltmere and when was it": f"{SALTMERE_WON} {SALTMERE_WHEN}",
    "when was the siege of saltmere and who won it": f"{SALTMERE_WHEN} {SALTMERE_WON}",
    "whos the winner of the siege of saltmere, and when did it happen": f"{SALTMERE_WON} {SALTMERE_WHEN}",
    "who won the siege of saltmere and where": f"{SALTMERE_WON} {SALTMERE_WHEN}",
    "what is the tideguard and who is in it": (
        "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes. Bran Tull and "
        "Admiral Cole are members of the Tideguard."
    ),
    "where was corin vale born and when": (
        "Nothing the table knows answers “where was corin vale born?”. Corin Vale is alive, born in year 15 of the "
        "Harbour Reckoning."
    ),
}


def test_answers_say_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in player.items() if a != READS[q]} == {}
    gm = ask(cli, tmp_path, list(READS), gm=True)
    assert {q: a for q, a in gm.items() if a != READS[q]} == {}
