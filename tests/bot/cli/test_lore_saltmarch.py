"""/lore on an outsider's world (tests/fixtures/saltmarch: a GM's own YAML), asked as a table asks: lower-case
first names, aliases, events, lives, titles; each question's answer holds the words expected. On SQLite, then
PostgreSQL. A GM-only name or fact answers a player exactly as a name nobody knows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "saltmarch"
CAMPAIGN = "saltmarch"
FILES = ("timeline", "places", "family", "people", "factions")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the Saltmarch world imported and its calendar set."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=False)


ask = asker(CAMPAIGN, marks="kept")


#: Question -> the words its answer holds (all of them), as a player asks.
PLAYER = {
    # Names as typed: a first name in lower case, an alias, a first name an event's name also holds.
    "who is idris": ["Idris Fenn", "captain", "Harrowport"],
    "who is tamsin": ["Tamsin Vaske is the young lady of Tidehall", "Lady of Saltmarch"],
    "who is mother eel": ["Nell Quarrow, called Mother Eel, is the smuggler queen"],
    "who is tamsin married to": ["Idris Fenn"],
    # Lives told as births and deaths, not as states "since" a date.
    "when did orrin die": ["Orrin Vaske died on 3 Sunmoon, year 871 of the Age of Tides"],
    "is orrin still alive": ["No: Orrin Vaske died on 3 Sunmoon"],
    "when was Tamsin born": ["Tamsin Vaske is alive, born on 20 Saltmoon, year 845"],
    "is pip alive": ["Nothing the table knows says whether Pip Marrowby is alive; they are missing"],
    # Events: on their day, at their place.
    "when was the battle of gull rock": ["took place at Gull Rock on 3 Sunmoon, year 871"],
    "who took part in the battle of gull rock": [
        "Orrin Vaske, Idris Fenn, The Tidewardens and Blackwater Compact"
    ],
    "what happened at gull rock": ["Battle of Gull Rock took place at Gull Rock on 3 Sunmoon"],
    "who died in the wreck of the sable": ["Corran Vaske died in the Wreck of the Sable", "drowned"],
    "who crowned tamsin": ["Brother Halvard is the old priest of the Deep Chapel, who crowned Tamsin"],
    "who crowned Tamsin Vaske": ["Brother Halvard"],
    "when was tamsin crowned": ["Investiture of Tamsin took place at Tidehall on 1 Reedmoon"],
    "how did orrin die": [
        "Orrin Vaske died on 3 Sunmoon, year 871 of the Age of Tides, in the Battle of Gull Rock"
    ],
    "when did lord orrin die": ["Orrin Vaske died on 3 Sunmoon"],
    "where did Corran die": ["in the Wreck of the Sable"],
    "where is pip": ["Pip Marrowby is missing", "Harrowport"],
    # The calendar's seasons, named in lower case by the GM.
    "which months are summer": ["Summer is Sunmoon and Reedmoon."],
    "what season is icemoon in?": ["Icemoon falls in winter."],
    "how long is spring": ["Spring lasts 3 months (90 days): Kelpmoon, Squallmoon and Saltmoon."],
    "where is tidehall": ["Tidehall is in Harrowport, in the Saltmarch"],
    "what does the tidewardens want": ["The Tidewardens want to clear the marsh of smugglers"],
    "who was wenna": ["Wenna Vaske was Lady of Saltmarch", "Wenna Vaske died on 14 Ashmoon, year 850"],
    # One of them dead: when he died, beside his name.
    "who are orrins kids": [
        "Orrin Vaske's children are Corran Vaske (died on 12 Squallmoon, year 866 of the Age of Tides) and Tamsin Vaske"
    ],
    "who are the Tidewardens allies": ["The Tidewardens' ally is House Vaske"],
    "who is corran's mother": ["Mereth Vaske"],
    "what happened in 866": ["Wreck of the Sable took place at Sable Reef on 12 Squallmoon, year 866"],
    "how many factions are there": [
        "There are four factions: Blackwater Compact, House Vaske, The Glass Court"
    ],
    "what is the salt crown": ["Investiture of Tamsin: Tamsin Vaske was given the salt crown"],
    # Who holds a title of a place or a group: the living holder, then those before.
    "who rules the saltmarch": ["Tamsin Vaske is Lady of Saltmarch; before, Wenna Vaske was"],
    "who is the lady of saltmarch": ["Tamsin Vaske is Lady of Saltmarch"],
    "who is the high priest of the glass court": ["Nothing the table knows says who the high priest"],
    # Relations asked yes or no, and a faction asked.
    "is nell a member of the blackwater compact": ["Yes: Nell Quarrow is a member of Blackwater Compact"],
    "is tamsin married to idris": ["Yes: Tamsin Vaske is married to Idris Fenn"],
    "what faction is idris in": ["Idris Fenn is a member of The Tidewardens"],
    # Ages, from the births and deaths canon dates.
    "how old was corran when he died": ["Corran Vaske was about 18 years old", "born in year 848"],
    "who is older, tamsin or idris": ["Idris Fenn is older, born in year 830"],
    "who is older hal or nell": ["Brother Halvard is older"],
    "who is older, Hal or Nell": ["Brother Halvard is older"],
    "is tamsin older than corran": ["Yes: Tamsin Vaske is older"],
    "is Idris older than Nell": ["Yes: Idris Fenn is older"],
    "how old is tamsin": ["Tamsin Vaske was born on 20 Saltmoon, year 845"],
    # Nothing known, said in a whole sentence (the question quoted when its words cannot be turned round).
    "where was Orrin born": ["Nothing the table knows answers “where was Orrin born?”."],
    "where was tamsin's father born": ["Nothing the table knows answers “where was tamsin's father born?”."],
}

#: Asked in words of our own, not the prober's.
PLAYER_OWN = {
    "tell me who nell is": ["Nell Quarrow"],
    "what year did corran die": ["Corran Vaske died on 12 Squallmoon, year 866"],
    "is pip marrowby dead": ["Nothing the table knows says whether Pip Marrowby is alive; they are missing"],
    "who is the heron": ["Idris Fenn, called The Heron"],
    "who fought at the battle of gull rock": ["Idris Fenn"],
    "what took place at tidehall": ["Investiture of Tamsin took place at Tidehall"],
    "what is house vaske after": ["House Vaske wants to keep the salt roads open"],
    "what happened in 871?": ["Battle of Gull Rock took place", "Investiture of Tamsin took place"],
    "what happened in the year 869": ["Nothing the table knows"],
    "who governs saltmarch?": ["Tamsin Vaske is Lady of Saltmarch"],
    "who is the captain of the tidewardens": ["Idris Fenn is Captain of the Tidewardens"],
    "is nell older than idris": ["No: Idris Fenn is older"],
    "who is younger, orrin or mereth": ["Mereth Vaske is younger"],
    "how old was orrin": ["Orrin Vaske was 59 years old"],
    # A "battle of" a place: the event there, not the Battle of Gull Rock the word "battle" also names.
    "who was at the battle of glassmere": [
        "Orrin Vaske, Sabine Orle, House Vaske and the Glass Court took part in the Treaty of Glassmere: House Vaske "
        "and the Glass Court agreed to share the salt roads."
    ],
    "when was tamsin invested": ["The Investiture of Tamsin took place at Tidehall on 1 Reedmoon, year 871"],
    "where did orrin fall": [
        "Orrin Vaske died on 3 Sunmoon, year 871 of the Age of Tides, in the Battle of Gull Rock"
    ],
}


def test_a_player_is_answered_from_canon_in_sentences(cli: CliRunner, tmp_path: Path) -> None:
    expected = {**PLAYER, **PLAYER_OWN}
    answers = ask(cli, tmp_path, list(expected))
    wrong = {
        q: answers[q]
        for q, words in expected.items()
        if not all(w.casefold() in answers[q].casefold() for w in words)
    }
    assert not wrong
    assert not any("since" in a or "'s description:" in a for a in answers.values())


def test_gm_only_canon_answers_the_gm_and_reads_as_unknown_to_a_player(
    cli: CliRunner, tmp_path: Path
) -> None:
    questions = ["who is the drowned king", "who is aubric thane", "who is ysolde", "who poisoned orrin"]
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm["who poisoned orrin"].startswith("Nell Quarrow poisoned Lord Orrin's wine")
    # A count counts what the asker may see: the GM-only people are the GM's only.
    (people,) = ask(cli, tmp_path, ["how many people are there"], gm=True).values()
    assert people.startswith("There are twelve people: Aubric Thane, Brother Halvard")
    (master,) = ask(cli, tmp_path, ["what is the hidden master"], gm=True).values()
    assert master.startswith("The Pact of the Drowned: Nell Quarrow swore herself to the hidden master")
    (master,) = ask(cli, tmp_path, ["what is the hidden master"]).values()
    assert master == "Nothing the table knows says what the hidden master is."
    (people,) = ask(cli, tmp_path, ["how many people are there"]).values()
    assert people.startswith("There are ten people: Brother Halvard") and "Ysolde" not in people
    (year,) = ask(cli, tmp_path, ["what happened in the year 869"], gm=True).values()
    assert year.startswith("The Pact of the Drowned took place at Gull Rock in year 869")
    assert gm["who is the drowned king"].startswith("Aubric Thane, called the Drowned King, is a sorcerer")
    assert "Orrin's hidden daughter" in gm["who is ysolde"]
    unknown = [
        "who is zorbul the nameless",
        "who is the sunken duke",
        "who is ysoldine",
        "who strangled orrin",
    ]
    player = ask(cli, tmp_path, questions + unknown)
    for hidden, nobody in zip(questions, unknown, strict=True):
        said = player[hidden].replace(hidden.removeprefix("who is "), "X")
        assert said == player[nobody].replace(nobody.removeprefix("who is "), "X")
    assert player["who is ysolde"] == "Nothing the table knows says who ysolde is."
    assert player["who poisoned orrin"] == "Nothing the table knows says who poisoned orrin."
    assert player["who strangled orrin"] == "Nothing the table knows says who strangled orrin."


def test_a_gm_only_relation_reads_to_a_player_as_one_canon_does_not_hold(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Sabine Orle's faction is GM-only; Pip Marrowby has none. A player reads both alike; the GM reads hers.
    questions = [
        "what faction is sabine in",
        "what faction is pip in",
        "is Sabine a member of the Blackwater Compact",
        "is Pip a member of the Blackwater Compact",
    ]
    player = ask(cli, tmp_path, questions)

    def alike(text: str) -> str:
        return (
            text.replace("Sabine Orle", "X")
            .replace("Pip Marrowby", "X")
            .replace("sabine", "x")
            .replace("pip", "x")
        )

    assert alike(player[questions[0]]) == alike(player[questions[1]])
    assert alike(player[questions[2]]) == alike(player[questions[3]])
    assert player[questions[2]].startswith(
        "Nothing the table knows says Sabine Orle is a member of Blackwater"
    )
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm[questions[0]].startswith("Sabine Orle is a member of Blackwater Compact")
    assert gm[questions[2]].startswith("Yes: Sabine Orle is a member of Blackwater Compact")


def test_a_family_name_many_share_names_those_the_asker_may_see_and_asks_which(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Five Vaskes a player may see, and Ysolde Vaske the GM's only: a family name more than three names hold
    # names each person seen, counts only them, and asks which; a question that fits one of them answers it.
    questions = ["who is vaske", "how old is Vaske", "is vaske married to idris", "which vaske drowned"]
    player = ask(cli, tmp_path, [*questions, "who is the vaske who keeps the accounts"])
    five = (
        "Five people are called Vaske: Corran Vaske, Mereth Vaske, Orrin Vaske, Tamsin Vaske and Wenna Vaske"
    )
    assert player["who is vaske"] == f"{five}; which one do you mean? [1]"
    assert player["how old is Vaske"] == f"{five}; which one do you mean? [1]"
    assert player["is vaske married to idris"] == f"{five}; which one do you mean? [2]"
    assert player["which vaske drowned"] == "Corran Vaske is Orrin's son, drowned at sea. [2]"
    assert player["who is the vaske who keeps the accounts"] == (
        "Mereth Vaske is Orrin's widow, who keeps the accounts of Tidehall. [2]"
    )
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm["who is vaske"].startswith(
        "Six people are called Vaske: Corran Vaske, Mereth Vaske, Orrin Vaske"
    )
    assert "and Ysolde Vaske; which one do you mean?" in gm["who is vaske"]


def test_what_happened_in_a_place_holds_what_happened_in_the_places_within_it(
    cli: CliRunner, tmp_path: Path
) -> None:
    # Tidehall is in Harrowport, in the Saltmarch; the Pact of the Drowned at Gull Rock is the GM's only.
    surge = "The Great Surge took place at the Saltmarch in year -12 of the Drowned Age. [1]"
    founding = "The Founding of Harrowport took place at Harrowport in year 3 of the Age of Tides."
    battle = "The Battle of Gull Rock took place at Gull Rock on 3 Sunmoon, year 871 of the Age of Tides."
    pact = "The Pact of the Drowned took place at Gull Rock in year 869 of the Age of Tides."
    wreck = (
        "The Wreck of the Sable took place at Sable Reef on 12 Squallmoon, year 866 of the Age of Tides. [4]"
    )
    crowned = "The Investiture of Tamsin took place at Tidehall on 1 Reedmoon, year 871 of the Age of Tides."
    questions = ["what happened in saltmarch", "what happened at harrowport", "what happened at tidehall"]
    player = ask(cli, tmp_path, questions)
    assert (
        player["what happened in saltmarch"] == f"{surge} {founding} [2] {battle} [3] {wreck} {crowned} [5]"
    )
    # What the event at the place named was is said; the events within it are listed.
    pier = "Fisherfolk raised the first pier where Harrowport now stands."
    assert player["what happened at harrowport"] == f"{founding} {pier} [1] {crowned} [2]"
    salt = "Tamsin Vaske was given the salt crown of Saltmarch at Tidehall."
    assert player["what happened at tidehall"] == f"{crowned} {salt} [1]"
    gm = ask(cli, tmp_path, questions[:1], gm=True)
    assert (
        gm["what happened in saltmarch"]
        == f"{surge} {founding} [2] {battle} {pact} [3] {wreck} {crowned} [5]"
    )
