"""How /lore answers what a world writes mostly in prose, on a small world of our own (tests/fixtures/brackenhythe):
how someone died, who won a battle, where someone is held, a treaty's terms, who leads a group, an age at an
event, parents canon gives no sex, and a spouse beside a wedding. Each is asked as players type it (lowercase,
typos, "who's"); on SQLite, then PostgreSQL. What is GM-only reads to a player word for word as a name nobody
wrote.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "brackenhythe"
CAMPAIGN = "brackenhythe"
FILES = ("places", "folk", "marrows", "factions", "tarrs", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Brackenhythe world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


OTTER_FORD = "3 Sheaf, year 650 of the Tallow Years"
#: When Alda Tarr died, as the answers naming her say it.
ALDA_DIED = "year 651 of the Tallow Years"
TREATY = (
    "Under the Treaty of Hythe, the Iron Host keeps the hill forts, the Reed Clans keep the fords, and each pays "
    "the other a tithe of salt every spring."
)
WON_OTTER_FORD = (
    "At the Battle of Otter Ford, the Reed Clans won the day and drove the Iron Host back across the river."
)
LISS = "Liss Harrow has been locked in the Gull Tower since the spring."
GERRIT = "Gerrit Vane is a grim old soldier who heads the Iron Host from the hill forts."

#: Question -> its whole answer, as a player asks.
READS = {
    # How a death was: the description's sentence, then the day and the event; an event alone says it; a date
    # alone is no manner.
    "how did ansel die": (
        "Ansel Crowe fell at Otter Ford, shot through the throat by a crossbow bolt; Ansel Crowe died on "
        f"{OTTER_FORD}, in the Battle of Otter Ford."
    ),
    "How did Mirela Sand die?": (
        "Mirela Sand was hanged at the Tide Gate for smuggling; Mirela Sand died in year 655 of the Tallow Years."
    ),
    # How an event's description says they died in it, when theirs does not.
    "hw did oswin tarr die": (
        "Old Oswin Tarr drowned in the shallows holding the ferry rope; Oswin Tarr died on "
        f"{OTTER_FORD}, in the Battle of Otter Ford."
    ),
    "what was the cause of mirela's death": (
        "Mirela Sand was hanged at the Tide Gate for smuggling; Mirela Sand died in year 655 of the Tallow Years."
    ),
    "how did ansel crowe meet his end": (
        "Ansel Crowe fell at Otter Ford, shot through the throat by a crossbow bolt; Ansel Crowe died on "
        f"{OTTER_FORD}, in the Battle of Otter Ford."
    ),
    "how was ansel killed": (
        "Ansel Crowe fell at Otter Ford, shot through the throat by a crossbow bolt; Ansel Crowe died on "
        f"{OTTER_FORD}, in the Battle of Otter Ford."
    ),
    "how did wenna die": (
        "Nothing the table knows says Wenna Tarr died; Wenna Tarr is alive, born in year 631 of the Tallow Years."
    ),
    "how did alda die": (
        "Nothing the table knows says how Alda Tarr died; Alda Tarr died in year 651 of the Tallow Years."
    ),
    # Who won: the event's sentence saying it, named; at a place, its events'; none said is said so.
    "who won the battle of otter ford": WON_OTTER_FORD,
    "who won at otter ford": WON_OTTER_FORD,
    "Who won the battle at Otter Ford?": WON_OTTER_FORD,
    "who won the battle of gallows hill": (
        "At the Battle of Gallows Hill, the Iron Host prevailed by nightfall, and the clans fled east."
    ),
    "who lost at gallows hill": (
        "At the Battle of Gallows Hill, the Iron Host prevailed by nightfall, and the clans fled east."
    ),
    "what was the outcome of the battle of otter ford": WON_OTTER_FORD,
    "who was victorious at otter ford": WON_OTTER_FORD,
    # A sentence naming the event by its kind ("The siege was broken by …") says it by name.
    "who won the siege of hythe": "The Siege of Hythe was broken by the Reed Clans at harvest.",
    "who won the quay wedding": (
        "Nothing the table knows says who won the Quay Wedding; canon names Bettany Quell, Hesk Marrow and "
        "Mirela Sand as taking part."
    ),
    # Where someone is held: a state and the description, or the description alone.
    "where is cato being held": "Cato Venn is imprisoned, chained in the cellars beneath the Counting House.",
    # Where someone is, by a description that places them; one that does not is no answer to where.
    "where does gerrit live": GERRIT,
    "where is bran from": "Nothing the table knows answers “where is bran from?”.",
    # A prisoner in the table's words: the state imprisoned asked.
    "is cato venn locked up": "Yes: Cato Venn is imprisoned.",
    "is corwin a captive": "Yes: Corwin Ash is imprisoned.",
    "is gerrit a prisoner": "No: Gerrit Vane is alive, born in year 610 of the Tallow Years.",
    "where is liss kept": LISS,
    "where's liss harrow imprisoned": LISS,
    "where is corwin held": "Corwin Ash is imprisoned; nothing the table knows says where.",
    "where is nell fairweather imprisoned": "Nell Fairweather languishes in the Bone Pit beneath the quay.",
    # A treaty's terms: the sentence saying them, the treaty named.
    "what are the terms of the treaty of hythe": TREATY,
    "what did the treaty of hythe say": TREATY,
    "What were the terms of the Treaty of Hythe?": TREATY,
    "what was agreed in the treaty of hythe": TREATY,
    "what did the truce of reedmere say": (
        "The Truce of Reedmere bound both sides to keep their swords sheathed until the thaw."
    ),
    # A group's leader: a relation, a title, a member described as its head; a count of members.
    "who runs the reed clans": "Hesk Marrow leads the Reed Clans.",
    "who leads the tallow guild": (
        "Bettany Quell is Guildmistress of the Tallow Guild, a chandler with a sharp tongue."
    ),
    "who's the head of the tallow guild": (
        "Bettany Quell is Guildmistress of the Tallow Guild, a chandler with a sharp tongue."
    ),
    "who leads the iron host": GERRIT,
    "whos the leader of the iron host": GERRIT,
    "who is the iron host's leader": GERRIT,
    "who is in charge of the reed clans": "Hesk Marrow leads the Reed Clans.",
    "who is the ferry guild's current leader": "Bran Holt is the Guildmaster.",
    "who runs the lantern watch": "The Lantern Watch is a company of lamplighters led by old Captain Brisk.",
    "how many members does the reed clans have": (
        "The Reed Clans have two living members: Hesk Marrow and Wenna Tarr; Ansel Crowe (died on 3 Sheaf, year 650 "
        "of the Tallow Years) and Oswin Tarr (died on 3 Sheaf, year 650 of the Tallow Years) were members too."
    ),
    "how many members does the lantern watch have": "Some forty of the Lantern Watch keep the quay lamps lit.",
    # An age at an event: its day less the birth; dead or unborn by then said so.
    "how old was ansel at the battle of otter ford": (
        "Ansel Crowe was about 38 years old at the Battle of Otter Ford: born in year 612 of the Tallow Years; "
        f"the Battle of Otter Ford took place at Otter Ford on {OTTER_FORD}."
    ),
    "how old was mirela when the treaty of hythe was signed": (
        "Mirela Sand was about 33 years old at the Treaty of Hythe: born in year 620 of the Tallow Years; the "
        "Treaty of Hythe took place at Hythe Quay on 4 Leaffall, year 653 of the Tallow Years."
    ),
    "how old was hesk at the quay wedding": (
        "Hesk Marrow was 28 years old at the Quay Wedding: born on 2 Mudmonth, year 618 of the Tallow Years; "
        "the Quay Wedding took place at Hythe Quay on 9 Bloomtide, year 646 of the Tallow Years."
    ),
    "how old was ansel at the treaty of hythe": (
        f"Ansel Crowe had died before the Treaty of Hythe: died on {OTTER_FORD}; the Treaty of Hythe took place "
        "at Hythe Quay on 4 Leaffall, year 653 of the Tallow Years."
    ),
    "how old was wenna when oswin died": (
        "Wenna Tarr was about 19 years old when Oswin Tarr died: born in year 631 of the Tallow Years; Oswin Tarr "
        f"died on {OTTER_FORD}."
    ),
    # Parents canon gives no sex: both named, and that canon does not say which.
    "who is wenna's dad": (
        f"Wenna Tarr's parents were Oswin Tarr (died on {OTTER_FORD}) and Alda Tarr (died in {ALDA_DIED}); canon "
        "does not say which is the father."
    ),
    "who's jory tarr's mum": (
        f"Jory Tarr's parents were Oswin Tarr (died on {OTTER_FORD}) and Alda Tarr (died in {ALDA_DIED}); canon "
        "does not say which is the mother."
    ),
    # A spouse, not the wedding's guests.
    "who is bettany married to": "Bettany Quell is married to Hesk Marrow.",
    "whos hesk marrow's wife": "Hesk Marrow is married to Bettany Quell.",
    "who did bettany marry": "Bettany Quell is married to Hesk Marrow.",
    "who did hesk wed": "Hesk Marrow is married to Bettany Quell.",
}


def test_answers_say_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


#: A question touching GM-only canon -> the same question of a name nobody wrote, and the GM's answer.
HIDDEN = {
    "how did sabel dunn die": (
        "how did sabel brune die",
        "Sabel Dunn was poisoned by her own lamp-keepers; Sabel Dunn died in year 656 of the Tallow Years.",
    ),
    "where is sabel dunn held": (
        "where is sabel brune held",
        "Sabel Dunn is dead, kept in the Drowned Cells.",
    ),
    "who won the drowning of saltmere": (
        "who won the drowning of greymere",
        "At the Drowning of Saltmere, the Lamp's agents won the quay by night and sank the salt barges.",
    ),
    "what were the terms of the pact of blackwater": (
        "what were the terms of the pact of kelpmoor",
        "Under the Pact of Blackwater, the Iron Host pays the Quiet Lamp to sink the clans' barges.",
    ),
    "who leads the salt wardens": (
        "who leads the dusk lanterns",
        "Ivo Rusk is a smiling toll-man who heads the Salt Wardens from the shadows.",
    ),
    "how many members does the quiet lamp have": (
        "how many members does the dusk choir have",
        "The Quiet Lamp has no living member; Sabel Dunn (died in year 656 of the Tallow Years) was one.",
    ),
    "how old was tamsin at the drowning of saltmere": (
        "how old was tamsin at the drowning of greymere",
        "Tamsin Rook was about 24 years old at the Drowning of Saltmere: born in year 630 of the Tallow Years; "
        "the Drowning of Saltmere took place at Hythe Quay in year 654 of the Tallow Years.",
    ),
}


def test_gm_only_canon_reads_to_a_player_as_a_name_nobody_wrote(cli: CliRunner, tmp_path: Path) -> None:
    pairs = [(hidden, nobody) for hidden, (nobody, _) in HIDDEN.items()]
    player = ask(cli, tmp_path, [q for pair in pairs for q in pair])
    for hidden, nobody in pairs:
        said = player[hidden]
        for word, other in zip(hidden.split(), nobody.split(), strict=True):
            said = re.sub(rf"\b{word}\b", other, said) if word != other else said
        assert said == player[nobody], hidden
    gm = ask(cli, tmp_path, list(HIDDEN), gm=True)
    assert {q: a for q, a in gm.items() if a != HIDDEN[q][1]} == {}


def test_gm_only_fields_and_events_are_no_player_answer(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["where is corwin held", "who won at hythe quay"]
    siege = "The Siege of Hythe was broken by the Reed Clans at harvest."
    player = ask(cli, tmp_path, questions)
    assert player == {
        "where is corwin held": "Corwin Ash is imprisoned; nothing the table knows says where.",
        "who won at hythe quay": siege,  # of the events at the quay a player may read
    }
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm["where is corwin held"] == "Corwin Ash is imprisoned, held in the Reeve's salt cellar."
    assert gm["who won at hythe quay"].startswith(siege)
    assert gm["who won at hythe quay"].endswith(
        "At the Drowning of Saltmere, the Lamp's agents won the quay by night and sank the salt barges."
    )


def _typed(cli: CliRunner, *facts: tuple[str, ...]) -> None:
    """Write facts as the GM types them: `canon add fact SUBJECT ATTRIBUTE VALUE` (or a state), each written."""
    for fact in facts:
        kind, *args = fact
        result = cli.invoke(app, ["canon", "add", kind, *args, "-c", CAMPAIGN])
        assert result.exit_code == 0, result.output


def test_typed_facts_answer_as_prose_does(cli: CliRunner, tmp_path: Path) -> None:
    _typed(
        cli,
        ("state", "Tamsin Rook", "dead", "--when", "year 656 of the Tallow Years"),
        ("fact", "Tamsin Rook", "cause of death", "a poisoned arrow"),
        ("fact", "Battle of Gallows Hill", "winner", "The Iron Host"),
        ("fact", "Jory Tarr", "held at", "the Gull Tower"),
        ("fact", "The Salt Wardens", "leader", "Ivo Rusk", "--gm-only"),
        ("fact", "Corwin Ash", "prison", "the Salt Tower", "--gm-only"),
    )
    questions = [
        "how did tamsin die",
        "who won the battle of gallows hill",
        "where is jory held",
        "who leads the salt wardens",
        "who leads the dusk lanterns",
        "where is corwin held",
    ]
    player = ask(cli, tmp_path, questions)
    assert player == {
        "how did tamsin die": (
            "Tamsin Rook's cause of death was a poisoned arrow; Tamsin Rook died in year 656 of the Tallow Years."
        ),
        "who won the battle of gallows hill": "At the Battle of Gallows Hill, the winner was the Iron Host.",
        "where is jory held": "Jory Tarr is held at the Gull Tower.",
        # GM-only facts: as a group and a prison nobody wrote.
        "who leads the salt wardens": "Nothing the table knows says who leads the salt wardens.",
        "who leads the dusk lanterns": "Nothing the table knows says who leads the dusk lanterns.",
        "where is corwin held": "Corwin Ash is imprisoned; nothing the table knows says where.",
    }
    gm = ask(cli, tmp_path, ["who leads the salt wardens", "where is corwin held"], gm=True)
    assert gm == {
        "who leads the salt wardens": "The Salt Wardens' leader is Ivo Rusk.",
        "where is corwin held": "Corwin Ash is imprisoned, held in the Reeve's salt cellar.",
    }


def test_a_gm_only_parent_reads_to_a_player_as_one_canon_never_named(cli: CliRunner, tmp_path: Path) -> None:
    # Pell's mother is GM-only; Sel's tree names Oswin alone: a player reads both alike, names apart.
    questions = [
        "who is pell's mum",
        "who is sel's mum",
        "who are pell tarr's parents",
        "who are sel tarr's parents",
    ]
    player = ask(cli, tmp_path, questions)
    assert player["who is pell's mum"].replace("Pell", "Sel") == player["who is sel's mum"]
    assert (
        player["who are pell tarr's parents"].replace("Pell", "Sel") == player["who are sel tarr's parents"]
    )
    assert player["who are sel tarr's parents"] == f"Sel Tarr's parent was Oswin Tarr (died on {OTTER_FORD})."
    gm = ask(cli, tmp_path, ["who is pell's mum"], gm=True)
    assert gm["who is pell's mum"] == (
        f"Pell Tarr's parents are Oswin Tarr (died on {OTTER_FORD}) and Maud Reyne; canon does not say which is "
        "the mother."
    )
