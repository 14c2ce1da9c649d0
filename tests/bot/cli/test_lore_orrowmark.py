"""How /lore answers canon an outsider's world found answered wrongly, on a small world of our own
(tests/fixtures/orrowmark): a fact a culture's or a group's entry keeps, asked loosely; two values compared; who
founded a group; a name typed with a slip. Each is asked as players type it, as a player and as the GM; what only
the GM may read reads to a player as its twin nobody hid anything about does; on SQLite, then PostgreSQL.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, asker, import_world
from tests.helpers.paths import REPO

CAMPAIGN = "orrowmark"
ORROWMARK = REPO / "tests" / "fixtures" / "orrowmark"

#: What the GM adds at the table (`lorekeeper canon add fact`): subject, attribute, value, and whether only the
#: GM may read it.
TABLE = (
    ("Old Grimmick", "age", "140", False),
    ("The Lantern Circle", "founder", "Wenlow Harrowgate", False),
    ("The Lantern Circle", "religion", "the Quiet Lamp", False),
    ("The Lantern Circle", "headquarters", "the Star Library of Belgarun Deep", False),
    ("The Quiet Knives", "founder", "Sella Vey", True),
    ("The Quiet Knives", "language", "Knife-cant", True),
    ("Kessarine", "population", "900", True),
    ("Sella Vey", "age", "33", True),
    ("Marda Quill", "age", "60", False),
    ("The Ember Wardens", "strength", "about 300 wardens", False),
    ("The Gravel Guild", "strength", "forty haulers", False),
    ("Kessarion", "area", "3 square leagues", False),
    ("Cinderholt", "area", "12 acres", False),
)


def _import(calendar: str) -> CliRunner:
    """Return a runner on the test's database with Orrowmark's calendar, its files and the GM's facts."""
    runner = import_world(
        CAMPAIGN,
        ORROWMARK,
        ("annals", "lore", "companies", "halls", "folk", "ashfells"),
        calendar,
        calendar_first=True,
    )
    for subject, attribute, value, hidden in TABLE:
        known = attribute in ("age", "founder", "religion", "headquarters", "language", "population")
        flags = [*([] if known else ["--new-detail"]), *(["--gm-only"] if hidden else [])]
        added = runner.invoke(
            app, ["canon", "add", "fact", subject, attribute, value, "-c", CAMPAIGN, *flags]
        )
        assert added.exit_code == 0, added.output
    return runner


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with Orrowmark's calendar (today set), its files and the GM's facts."""
    return _import("calendar.yaml")


def test_an_age_against_a_birth_with_no_today_says_both(cli_env: DatabaseTarget, tmp_path: Path) -> None:
    runner = _import("calendar_undated.yaml")
    said = ask(runner, tmp_path, ["who is older, old grimmick or dagna stoutmantle"])
    assert said["who is older, old grimmick or dagna stoutmantle"] == (
        "Nothing the table knows says which is older: Old Grimmick is 140 years old; Dagna Stoutmantle was born in "
        "year 371 of the Hollow Crown, and canon holds no date for today to count from."
    )


ask = asker(CAMPAIGN, marks="none")


MORRUK = "The Stonekin worships Morruk the Anvil."
SEAT = "Hallowforge is the seat of the Ember Wardens."
SUNDERING_FIRST = (
    "The Sundering of the Gate came first, on 14 Oremonth, year 150 of the First Delving; the Fall of Cinderholt "
    "took place in Emberwane of year 398 of the Hollow Crown."
)
GRIMMICK = "Old Grimmick is older, 140 years old; Dagna Stoutmantle was born in year 371 of the Hollow Crown."
FOUNDED_WARDENS = (
    "Wenlow Harrowgate founded the Ember Wardens, at the Founding of the Ember Wardens in year 310 of the Hollow "
    "Crown."
)
FOUNDER_CIRCLE = "The Lantern Circle's founder is Wenlow Harrowgate."

#: Question -> its whole answer, as a player reads it (the GM too).
READS = {
    # What a culture's or a group's entry keeps, asked loosely: its ties, or a fact kept under the asked word.
    "what god do the stonekin pray to": MORRUK,
    "who do the stonekin worship": MORRUK,
    "which deity do the stonekin revere": MORRUK,
    "who do the ember wardens worship": "The Ember Wardens worship Morruk the Anvil.",
    "what religion is the lantern circle": "The Lantern Circle's religion is the Quiet Lamp.",
    "whats the faith of the lantern circle": "The Lantern Circle's religion is the Quiet Lamp.",
    "where are the ember wardens based": SEAT,
    "where is the base of the ember wardens": SEAT,
    "where do the ember wardens meet": SEAT,
    "where is the ember wardens headquarters": SEAT,
    "where is the lantern circle based": "The Lantern Circle's headquarters are the Star Library of Belgarun Deep.",
    "what language do the stonekin speak": "The Stonekin speaks Old Delvish.",
    "where are the stonekin based": "Belgarun Deep is the homeland of the Stonekin.",
    "what do the stonekin believe in": MORRUK,
    "what tongue do the stonekin speak": "The Stonekin speaks Old Delvish.",
    # Two values compared: both said, and which wins.
    "who is older, thane borik or dagna": (
        "Thane Borik Ashfell is older, born in year 360 of the Hollow Crown; Dagna Stoutmantle was born in year 371 "
        "of the Hollow Crown."
    ),
    "who is older, old grimmick or dagna stoutmantle": GRIMMICK,
    "is dagna older than old grimmick": f"No: {GRIMMICK}",
    "who is younger, grimmick or wenlow": (
        "Wenlow Harrowgate is younger, born in year 300 of the Hollow Crown; Old Grimmick is 140 years old."
    ),
    "who is older, old grimmick or marda quill": (
        "Old Grimmick is older, 140 years old; Marda Quill is 60 years old."
    ),
    "who is older, marda quill or thane borik": (
        "Nothing the table knows says which is older: Marda Quill is 60 years old; Thane Borik Ashfell was "
        "born in year 360 of the Hollow Crown."
    ),
    "which has more people, cinderholt or hallowforge": (
        "Hallowforge has more people: its population is 2400; Cinderholt's population is a few hundred souls."
    ),
    "is belgarun deep bigger than hallowforge": (
        "Yes: Belgarun Deep is bigger: its population is about 12,000 dwarves; Hallowforge's population is 2400."
    ),
    "which is larger, hallowforge or cinderholt": (
        "Hallowforge is larger: its population is 2400; Cinderholt's population is a few hundred souls."
    ),
    "which is smaller, belgarun deep or hallowforge": (
        "Hallowforge is smaller: its population is 2400; Belgarun Deep's population is about 12,000 dwarves."
    ),
    "are the ember wardens bigger than the gravel guild": (
        "Yes: The Ember Wardens is bigger: its strength is about 300 wardens; the Gravel Guild's strength is forty "
        "haulers."
    ),
    # Two values said in ways that do not compare (two units, people against a group's strength): both said.
    "is kessarion bigger than cinderholt": (
        "Nothing the table knows says which is bigger: Kessarion's area is 3 square leagues; Cinderholt's area is "
        "12 acres."
    ),
    "is hallowforge bigger than the ember wardens": (
        "Nothing the table knows says which is bigger: Hallowforge's population is 2400; the Ember Wardens' strength "
        "is about 300 wardens."
    ),
    "which came first, the sundering of the gate or the fall of cinderholt": SUNDERING_FIRST,
    "did the fall of cinderholt happen before the sundering of the gate": f"No: {SUNDERING_FIRST}",
    "which happened later, the sundering of the gate or the founding of the ember wardens": (
        "The Founding of the Ember Wardens came later, in year 310 of the Hollow Crown; the Sundering of the Gate "
        "took place on 14 Oremonth, year 150 of the First Delving."
    ),
    # Who founded a group: a founder kept on it, or those who took part in its founding.
    "who founded the lantern circle": FOUNDER_CIRCLE,
    "who started the lantern circle": FOUNDER_CIRCLE,
    "the lantern circle was founded by whom": FOUNDER_CIRCLE,
    "who is the founder of the lantern circle": FOUNDER_CIRCLE,
    "who founded house ashfell": "House Ashfell's founding ancestor is Orm Ashfell.",
    "who founded the ember wardens": FOUNDED_WARDENS,
    "who started the ember wardens": FOUNDED_WARDENS,
    # Asked from the value's end, or when: the older forms still answer.
    "when was the ember wardens founded": (
        "The Founding of the Ember Wardens took place at Hallowforge in year 310 of the Hollow Crown."
    ),
}


def test_a_player_reads_what_canon_keeps(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in player.items() if a != READS[q]} == {}
    gm = ask(cli, tmp_path, list(READS), gm=True)
    assert {q: a for q, a in gm.items() if a != READS[q]} == {}


def test_an_answer_cites_the_card_it_comes_from(cli: CliRunner, tmp_path: Path) -> None:
    cited = ask_world(
        cli, tmp_path, CAMPAIGN, ["where are the ember wardens based", "who founded the lantern circle"]
    )
    assert all(re.search(r"\. \[\d\]$", a) for a in cited.values()), cited


#: A question touching GM-only canon -> the same question of its twin nobody hid anything about, the words the
#: answers write differently of the two, and the GM's answer.
HIDDEN = {
    # A worship tie kept for the GM; a GM-only language; a seat in `gm_only`; a GM-only fact kept under the word.
    "who do the ashfolk worship": (
        "who do the rillfolk worship",
        {"ashfolk": "rillfolk"},
        "The Ashfolk worships the Veiled Flame.",
    ),
    "what language do the ashfolk speak": (
        "what language do the rillfolk speak",
        {"ashfolk": "rillfolk"},
        "The Ashfolk speaks Hushtongue.",
    ),
    "where are the quiet knives based": (
        "where are the gravel guild based",
        {"quiet knives": "gravel guild"},
        "The Sunken Vault is the seat of the Quiet Knives.",
    ),
    "what language do the quiet knives speak": (
        "what language do the gravel guild speak",
        {"quiet knives": "gravel guild"},
        "The Quiet Knives' language is Knife-cant.",
    ),
    # A founder only the GM may read.
    "who founded the quiet knives": (
        "who founded the gravel guild",
        {"quiet knives": "gravel guild"},
        "The Quiet Knives' founder is Sella Vey.",
    ),
    # Who took part in a founding, kept for the GM; a GM-only event.
    "who founded cinderholt": (
        "who founded kessarion",
        {"cinderholt": "kessarion"},
        "Old Grimmick founded Cinderholt, at the Founding of Cinderholt in year 300 of the Hollow Crown.",
    ),
    "which came first, the drowning of debts or the fall of cinderholt": (
        "which came first, the quarn flood or the fall of cinderholt",
        {"drowning of debts": "quarn flood"},
        "The Fall of Cinderholt came first, in Emberwane of year 398 of the Hollow Crown; the Drowning of Debts took "
        "place in year 405 of the Hollow Crown.",
    ),
    # A population and an age only the GM may read: the comparison reads as one canon cannot make.
    "is kessarine bigger than hallowforge": (
        "is the sunken vault bigger than hallowforge",
        {"Kessarine": "the Sunken Vault"},
        "No: Hallowforge is bigger: its population is 2400; Kessarine's population is 900.",
    ),
    "who is older, sella vey or dagna": (
        "who is older, tobble finch or dagna",
        {"Sella Vey": "Tobble Finch"},
        "Dagna Stoutmantle is older, born in year 371 of the Hollow Crown; Sella Vey is 33 years old.",
    ),
}


def _as_twin(text: str, swaps: dict[str, str]) -> str:
    """Return an answer about the hidden one with its words the twin's."""
    return re.sub("|".join(map(re.escape, swaps)), lambda m: swaps[m.group()], text)


def test_gm_only_canon_reads_to_a_player_as_a_twin_nobody_hid(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, [q for hidden, (twin, _, _) in HIDDEN.items() for q in (hidden, twin)])
    differ = {h: player[h] for h, (t, swaps, _) in HIDDEN.items() if _as_twin(player[h], swaps) != player[t]}
    assert differ == {}
    secrets = (
        "Veiled Flame",
        "Hushtongue",
        "seat of the Quiet Knives",
        "Knife-cant",
        "Sella Vey is",
        "900",
        "33",
        "Grimmick founded",
        "405",
    )
    assert not any(s in a for a in player.values() for s in secrets), player
    gm = ask(cli, tmp_path, list(HIDDEN), gm=True)
    assert gm == {h: said for h, (_, _, said) in HIDDEN.items()}


#: A name typed with a slip or two -> the answer the name spelt right gets.
SLIPS = {
    "whre is belgrun deep": "where is belgarun deep",
    "where is belgarn dep": "where is belgarun deep",
    "where is halowforje": "where is hallowforge",
    "who is dgana stoutmantle": "who is dagna stoutmantle",
    "who is wenlow harowgat": "who is wenlow harrowgate",
}


def test_a_name_typed_with_a_slip_finds_the_one_name_it_is_close_to(cli: CliRunner, tmp_path: Path) -> None:
    said = ask(cli, tmp_path, [*SLIPS, *dict.fromkeys(SLIPS.values())])
    assert {typed: said[typed] for typed in SLIPS} == {typed: said[right] for typed, right in SLIPS.items()}
    assert said["whre is belgrun deep"] == "Belgarun Deep is in the Orrow Peaks."


def test_a_slip_between_two_names_names_neither(cli: CliRunner, tmp_path: Path) -> None:
    # Kessarin is one letter from Kessarine and from Kessarion: never a guess.
    said = ask(cli, tmp_path, ["where is kessarin", "where is quarnshire", "where is kessarine"])
    assert said["where is kessarin"] == said["where is quarnshire"].replace("quarnshire", "kessarin")
    assert said["where is kessarine"] == "Kessarine is in the Orrow Peaks."


def test_a_slip_near_a_gm_only_name_reads_to_a_player_as_an_unknown_name(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Vaultmere is GM-only: a player's "vaultmire" is as unknown as "quarnshire"; the GM's finds the lake.
    questions = [
        "what is vaultmire",
        "what is quarnshire",
        "tell me about vaultmre",
        "tell me about quarnshre",
    ]
    player = ask(cli, tmp_path, questions)
    assert player["what is vaultmire"] == player["what is quarnshire"].replace("quarnshire", "vaultmire")
    assert player["tell me about vaultmre"] == player["tell me about quarnshre"].replace(
        "quarnshre", "vaultmre"
    )
    assert not any("Vaultmere" in a or "lake" in a for a in player.values()), player
    gm = ask(cli, tmp_path, ["what is vaultmire"], gm=True)
    assert gm["what is vaultmire"] == "Vaultmere is a hidden lake where the Quiet Knives drown their debts."
