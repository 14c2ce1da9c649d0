"""How /lore finds events, factions and places a player asks about in their own words, on a world of our own
(tests/fixtures/duskholm): a year in the calendar's words, an event by its deed's verb, who fought at a place,
a faction's members and their count, a short name, where a prisoner was last put, who rules a place. On SQLite,
then PostgreSQL; what is GM-only (a member, an event) reads to a player as what nobody knows, and is never
counted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "duskholm"
CAMPAIGN = "duskholm"
FILES = ("harbours", "companies", "folk", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Duskholm world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


_BURNING = (
    "The Burning of the Harbour Lights took place at Greyquay on 14 Gloaming, year 212 of the Reign of Lamps."
)
_SIEGE = (
    "The Ashen Corsairs of Morrow, House Orrow and Cassel Orrow took part in the Siege of Fenwatch: The corsairs "
    "besieged Fenwatch until Cassel Orrow broke their blockade."
)
_VIGIL = "The Lamplighters' Vigil took place in year 212 of the Reign of Lamps."
#: What happened in a year or an era of few events: each on its day, then what it was.
_IN_212 = (
    f"{_VIGIL} The guild kept watch over the last lamp for forty nights. [1] {_BURNING} The corsairs fired the "
    "lamp-towers of Greyquay in one night."
)

#: Question -> its whole answer, as a player asks.
READS = {
    # A year in the calendar's words (its abbreviation, or the era's name), its events in the calendar's order (a
    # year before its days), one with no place among them.
    "what happened in 212 RL": _IN_212,
    "what happened in year 212 of the reign of lamps": _IN_212,
    "what happened in the year 305 of the long dusk": (
        "The Siege of Fenwatch took place at Fenwatch in Hearthmoon of year 305 of the Long Dusk. The corsairs "
        "besieged Fenwatch until Cassel Orrow broke their blockade."
    ),
    # Who was there: the events at the place named (a "battle" of a rout), or the event named.
    "who fought at fenwatch": _SIEGE,
    "who was at the siege of fenwatch": _SIEGE,
    "who was at the battle of saltcombe": (
        "House Orrow and Kell Varrow took part in the Rout at Saltcombe: The royal riders scattered a corsair "
        "landing on the dunes."
    ),
    # Members named on the group and groups named on the people alike.
    "members of house orrow": "Maelis Orrow and Cassel Orrow are members of House Orrow.",
    "who is in the lamplighters guild": "Tobin Sallow is a member of the Lamplighters' Guild.",
    # A prisoner canon gives no prison: the last place canon puts him, not said to be where he is held.
    "where is kell varrow being held": (
        "Kell Varrow is imprisoned; nothing the table knows says where; the last place canon puts them is Saltcombe."
    ),
    # Who rules a place: the group seated there and who leads it; a title of the place; the larger place's ruler.
    "who governs the lantern keep": "The Lantern Keep is the seat of House Orrow; Maelis Orrow leads House Orrow.",
    "who controls greyquay": (
        "Greyquay is the seat of the Ashen Corsairs of Morrow; Ysra Dunmore leads the Ashen Corsairs of Morrow."
    ),
    "who rules fenwatch": "Cassel Orrow is Warden of Fenwatch, the queen's cousin, a patient soldier.",
    "who rules saltcombe": "Saltcombe is part of Duskholm; Maelis Orrow is Queen of Duskholm.",
    # An event asked by its deed's verb, not its name: when, where, who did it (the description's doer).
    "when were the harbour lights burned": _BURNING,
    "who burned the harbour lights": (
        "At the Burning of the Harbour Lights, the corsairs fired the lamp-towers of Greyquay in one night."
    ),
    "when was maelis crowned": (
        "The Coronation of Queen Maelis took place at the Lantern Keep on 1 Wickmoon, year 220 of the Reign of Lamps."
    ),
    # Two events fit: both are named, neither picked in silence.
    "where was the queen crowned": (
        "Two events fit: The Coronation of Queen Ysolde took place at the Lantern Keep in year 150 of the Reign of "
        "Lamps. [1] The Coronation of Queen Maelis took place at the Lantern Keep on 1 Wickmoon, year 220 of the "
        "Reign of Lamps."
    ),
    "when was the coronation": (
        "Two events fit: The Coronation of Queen Ysolde took place at the Lantern Keep in year 150 of the Reign of "
        "Lamps. [1] The Coronation of Queen Maelis took place at the Lantern Keep on 1 Wickmoon, year 220 of the "
        "Reign of Lamps."
    ),
    "who was at the coronation": (
        "Two are called Coronation: the Coronation of Queen Maelis and the Coronation of Queen Ysolde; which one do "
        "you mean?"
    ),
    # Canon dates an event once: its end is that day, said as such.
    "when did the siege of fenwatch end": (
        "The Siege of Fenwatch took place at Fenwatch in Hearthmoon of year 305 of the Long Dusk; canon gives no "
        "other date for its end. The corsairs besieged Fenwatch until Cassel Orrow broke their blockade."
    ),
    # A short name: a family name several share, a group's one word, a word of two names the form tells apart.
    "who is orrow": "Orrow may be House Orrow, Maelis Orrow or Cassel Orrow; which one do you mean?",
    "what is the corsairs": (
        "Corsairs may be the Ashen Corsairs of Morrow or the Corsairs' Rest; which one do you mean?"
    ),
    "who leads the corsairs": "Ysra Dunmore leads the Ashen Corsairs of Morrow.",
    "who leads morrow": "Ysra Dunmore leads the Ashen Corsairs of Morrow.",
    "who is in the lamplighters": "Tobin Sallow is a member of the Lamplighters' Guild.",
    # More of the same in other words: an era, "which events", "attended", "serves", a deed with a shared word.
    "what happened during the long dusk": (
        "The Siege of Fenwatch took place at Fenwatch in Hearthmoon of year 305 of the Long Dusk. The corsairs "
        "besieged Fenwatch until Cassel Orrow broke their blockade. [1] The Rout at Saltcombe took place at "
        "Saltcombe in year 306 of the Long Dusk. The royal riders scattered a corsair landing on the dunes."
    ),
    "which events took place at greyquay": _BURNING,
    "who attended the coronation of queen maelis": (
        "Maelis Orrow and Tobin Sallow took part in the Coronation of Queen Maelis: Maelis Orrow was crowned beneath "
        "the great lamp."
    ),
    "who serves the ashen corsairs": (
        "Ysra Dunmore, Kell Varrow and Bram Tulley are members of the Ashen Corsairs of Morrow."
    ),
    "when did the corsairs burn the harbour lights": _BURNING,
}

#: Question -> what a player reads and what the GM reads, when GM-only canon answers it for the GM.
HIDDEN = {
    "what happened in 214 RL": (
        "Nothing the table knows says what happened in 214 RL.",
        "The Drowning of the Pilot took place at Greyquay in year 214 of the Reign of Lamps. The harbour pilot was "
        "drowned to blind the port.",
    ),
    "who drowned the pilot": (
        "Nothing the table knows says who drowned the pilot.",
        # Taking part is no guilt: the description says the pilot was drowned, not by whom.
        "Nothing the table knows says who drowned the pilot; canon names Oona Greave as taking part in the "
        "Drowning of the Pilot.",
    ),
    # A family name a GM-only person shares: a player reads the one they may see, with no hint of another.
    "who is greave": (
        "Hollis Greave is a net-mender who works the Saltcombe dunes. Hollis Greave lives in Saltcombe.",
        "Two people are called Greave: Hollis Greave and Oona Greave; which one do you mean?",
    ),
    # A GM-only member and a membership the GM keeps to themself: neither named nor counted for a player.
    "who is in the ashen corsairs of morrow": (
        "Ysra Dunmore, Kell Varrow and Bram Tulley are members of the Ashen Corsairs of Morrow.",
        "Ysra Dunmore, Kell Varrow, Bram Tulley, Oona Greave and Nessa Quill are members of the Ashen Corsairs of "
        "Morrow.",
    ),
    "how many people are in the ashen corsairs": (
        "The Ashen Corsairs of Morrow has three members: Ysra Dunmore, Kell Varrow and Bram Tulley.",
        "The Ashen Corsairs of Morrow has five members: Ysra Dunmore, Kell Varrow, Bram Tulley, Oona Greave and "
        "Nessa Quill.",
    ),
    "is nessa quill a member of the ashen corsairs of morrow": (
        "Nothing the table knows says Nessa Quill is a member of the Ashen Corsairs of Morrow.",
        "Yes: Nessa Quill is a member of the Ashen Corsairs of Morrow.",
    ),
    # Each event at the place, the GM-only one for the GM alone.
    "who fought at greyquay": (
        "The Ashen Corsairs of Morrow and Ysra Dunmore took part in the Burning of the Harbour Lights: The corsairs "
        "fired the lamp-towers of Greyquay in one night.",
        "The Ashen Corsairs of Morrow and Ysra Dunmore took part in the Burning of the Harbour Lights. [2] Oona "
        "Greave took part in the Drowning of the Pilot.",
    ),
}


def test_answers_read_as_a_person_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


def test_gm_only_canon_reads_to_a_player_as_unknown(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(HIDDEN))
    gm = ask(cli, tmp_path, list(HIDDEN), gm=True)
    assert {q: (player[q], gm[q]) for q in HIDDEN if (player[q], gm[q]) != HIDDEN[q]} == {}
