"""How /lore answers who died in an event, who did a deed, how many live in a place, a tie only the GM's notes
tell and a GM-only section of a world bible, on a small world of our own (tests/fixtures/thistlewick). Each is
asked as players type it, in several forms; on SQLite, then PostgreSQL. Taking part is no death and no guilt;
what is GM-only reads to a player word for word as the same question of a twin nobody hid anything about.
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

WORLD = REPO / "tests" / "fixtures" / "thistlewick"
CAMPAIGN = "thistlewick"
FILES = ("places", "folk", "wardens", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, the Thistlewick world and its bible imported."""
    runner = import_world(CAMPAIGN, WORLD, FILES, "calendar.yaml", calendar_first=True)
    result = runner.invoke(app, ["ingest", str(WORLD / "bible.md"), "-c", CAMPAIGN])
    assert result.exit_code == 0, result.output
    return runner


ask = asker(CAMPAIGN)


HOW_AT_THISTLE_BRIDGE = (
    "Maudlin Crae was cut down on the crown of the bridge. Jory Flint is a toll-man who fell at Thistle Bridge, "
    "defending the toll-chain."
)
# A death dated the day and tied to the event, one its description tells, one told by someone canon does not list as
# taking part.
THISTLE_BRIDGE = (
    f"Osk Venner, Maudlin Crae and Jory Flint died in the Battle of Thistle Bridge. {HOW_AT_THISTLE_BRIDGE}"
)
CAIRN_MOOR_SKIRMISH = (
    "Skirmish at Cairn Moor; canon names Hale Brannock, the Moor Wardens and Bram Ketter as taking part."
)
THISTLEWICK_FOLK = "In Thistlewick, some four thousand souls dwell within its walls, most of them weavers."
DORRAN = "Dorran Pike started the riot in the Wool Market when the toll was doubled."

#: Question -> its whole answer, as a player asks.
READS = {
    # Who died: a death dated the event's day and tied to it, a description's death; never all who took part.
    "who died in the battle of thistle bridge": THISTLE_BRIDGE,
    "who was killed at thistle bridge": THISTLE_BRIDGE,  # the events at a place
    "were any slain at the battle of thistle bridge": f"Yes: {THISTLE_BRIDGE}",
    "was anyone killed at the battle of thistle bridge": f"Yes: {THISTLE_BRIDGE}",
    "how many perished at the battle of thistle bridge": (
        "Canon names three who died in the Battle of Thistle Bridge: Osk Venner, Maudlin Crae and Jory Flint. "
        f"{HOW_AT_THISTLE_BRIDGE}"
    ),
    "who lost their lives in the flooding of ashby": "Pip Harrowgate died in the Flooding of Ashby.",
    "did anybody die in the flooding of ashby": "Yes: Pip Harrowgate died in the Flooding of Ashby.",
    "were there any casualties at the battle of thistle bridge": f"Yes: {THISTLE_BRIDGE}",
    "who was among the fallen at thistle bridge": THISTLE_BRIDGE,
    # How one canon has dead with no day of death died: an event they took part in tells it.
    "how did maudlin crae die": "Maudlin Crae was cut down on the crown of the bridge.",
    # A killing said of the one slain, not of the slayer.
    "who was killed in the ambush at wending mere": (
        "Crispin Dray died in Ambush at Wending Mere. Hale Brannock slew the outlaw Crispin Dray in the reeds."
    ),
    # A death told of no one canon names: the sentence, of the event.
    "who died in the siege of the tollhouse": (
        "In the Siege of the Tollhouse, the dockhands besieged the tollhouse for three days, and the toll-men starved "
        "behind its doors."
    ),
    # No death told: said so, with who took part (of a place: its events).
    "did anyone die at the skirmish at cairn moor": f"Nothing the table knows says anyone died in {CAIRN_MOOR_SKIRMISH}",
    "who fell at the skirmish at cairn moor": f"Nothing the table knows says who died in {CAIRN_MOOR_SKIRMISH}",
    "who died at cairn moor": (
        "Nothing the table knows says who died at Cairn Moor; canon tells of Skirmish at Cairn Moor, the Burning of "
        "the Chapel of Saint Orr and the Burning of the Chapel of Saint Bede there."
    ),
    # Who did it: one's own description saying the deed (or one of its kind), else nothing known, never guilt
    # by taking part.
    "who started the wool market riot": DORRAN,
    # A deed asked of a place: each event there; a thing that burned is no doer ("The moor chapel burned …").
    "who burned cairn moor": "Nothing the table knows says who burned cairn moor.",
    # The doer of the deed an event is named for started it ("besieged" of a siege).
    "who started the siege of the tollhouse": (
        "At the Siege of the Tollhouse, the dockhands besieged the tollhouse for three days, and the toll-men starved "
        "behind its doors."
    ),
    "how many died in the skirmish at cairn moor": f"Nothing the table knows says how many died in {CAIRN_MOOR_SKIRMISH}",
    "who was behind the wool market riot": DORRAN,
    "who set the mill row fire": (
        "Nothing the table knows says who set Mill Row Fire; canon names Gideon Farrow and Ysel Marr as taking part."
    ),
    "who's responsible for the mill row fire": (
        "Nothing the table knows says who was responsible for Mill Row Fire; canon names Gideon Farrow and Ysel "
        "Marr as taking part."
    ),
    "who was behind the poisoning of the ashby well": (
        "Nothing the table knows says who was behind the Poisoning of the Ashby Well; canon names Sorrel Quint and "
        "Corm Tallis as taking part."
    ),
    "who caused the flooding of ashby": (
        "Nothing the table knows says who caused the Flooding of Ashby; canon names Pip Harrowgate and Sorrel Quint "
        "as taking part."
    ),
    "who burned the chapel of saint orr": (
        "Nothing the table knows says who burned the chapel of saint orr; canon names Bram Ketter as taking part in "
        "the Burning of the Chapel of Saint Orr."
    ),
    # How many live in a place: the sentence giving a number of people, else nothing known, and what it is.
    "how many people live in thistlewick": THISTLEWICK_FOLK,
    "what is the population of thistlewick": THISTLEWICK_FOLK,
    "how populous is thistlewick": THISTLEWICK_FOLK,
    "how many inhabitants does thistlewick have": THISTLEWICK_FOLK,
    "how many people live in wending mere": "In Wending Mere, the hamlet on its shore holds barely sixty folk.",
    "what's the population of ashby": "Nothing the table knows says how many people live in Ashby; Ashby is a village.",
    "how big is cairn moor": "Nothing the table knows says how big Cairn Moor is; Cairn Moor is a moor.",
    # A thing nothing says of a known entity: said so, never a neighbouring fact of it (the town's wool, the day of
    # a fire there).
    "who founded thistlewick": "Nothing the table knows says who founded thistlewick.",
    "who is the mayor of thistlewick": "Nothing the table knows says who the mayor of thistlewick is.",
    "when was thistlewick founded": "Nothing the table knows answers “when was thistlewick founded?”.",
    "what weapon does hale brannock use": "Nothing the table knows answers “what weapon does hale brannock use?”.",
    "what does gideon farrow own": "Nothing the table knows answers “what does gideon farrow own?”.",  # not who he is
    "where was dorran pike born": "Nothing the table knows answers “where was dorran pike born?”.",  # not his home
    "where did dorran pike die": (
        "Nothing the table knows says Dorran Pike died; Dorran Pike is alive, born in year 388 of the Kestrel Years."
    ),
    "when did hale brannock die": (
        "Nothing the table knows says Hale Brannock died; Hale Brannock is alive, born in year 380 of the Kestrel "
        "Years."
    ),
}


def test_answers_say_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in answers.items() if a != READS[q]} == {}


#: A question touching GM-only canon -> the same question of its twin nobody hid anything about, the words the
#: answers write differently of the two, and the GM's answer.
HIDDEN = {
    # A culprit the GM's notes alone name; one a GM-only person's description names.
    "who set the mill row fire": (
        "who set the tanner lane fire",
        {"Mill": "Tanner", "Row": "Lane"},
        "Ysel Marr set the Mill Row fire herself, to hide her thefts from the granary.",
    ),
    "who burned the chapel of saint orr": (
        "who burned the chapel of saint bede",
        {"orr": "bede", "Orr": "Bede"},
        "Abbot Lune is a hooded abbot who paid the men who burned the Chapel of Saint Orr.",
    ),
    # A death only the GM may read.
    "who died in the raid on ashby mill": (
        "who died in the raid on ashby ford",
        {"Mill": "Ford", "Tanner": "Cooper"},
        "Hob Tanner died in Raid on Ashby Mill.",
    ),
    # A thing nothing says of a GM-only entity: as of a name nobody wrote, never of it by name.
    "who is abbot lune's mother": (
        "who is abbot lunk's mother",
        {"lune": "lunk"},
        "Nothing the table knows says who abbot lune's mother is.",
    ),
    # A tie only the GM's notes tell: beside the one canon states, and alone.
    "who is wren's real father": (
        "who is ned's real father",
        {"Wren": "Ned"},
        "Wren Tallis' real father is Hale Brannock, who has never owned her.",
    ),
    "who is mira's real father": (
        "who is nell's real father",
        {"mira": "nell"},
        "Mira Holt is secretly the daughter of Osk Venner.",
    ),
    "who is tobin's true mother": (
        "who is ansel's true mother",
        {"tobin": "ansel"},
        "Tobin Reed's true mother is Sorrel Quint, who left him at the drovers' door.",
    ),
}


def _as_twin(text: str, swaps: dict[str, str]) -> str:
    """Return an answer about the hidden one with its words the twin's."""
    return re.sub(rf"\b(?:{'|'.join(map(re.escape, swaps))})\b", lambda m: swaps[m.group()], text)


def test_gm_only_canon_reads_to_a_player_as_a_twin_nobody_hid(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, [q for hidden, (twin, _, _) in HIDDEN.items() for q in (hidden, twin)])
    differ = {h: player[h] for h, (t, swaps, _) in HIDDEN.items() if _as_twin(player[h], swaps) != player[t]}
    assert differ == {}
    gm = ask(cli, tmp_path, [*HIDDEN, "who started the fire on mill row"], gm=True)
    assert {q: a for q, a in gm.items() if q in HIDDEN and a != HIDDEN[q][2]} == {}
    # Found by the notes' words where the event is not found for sure (two fires): the notes say it.
    assert gm["who started the fire on mill row"] == HIDDEN["who set the mill row fire"][2]


def test_a_cause_canon_states_names_the_culprit(cli: CliRunner, tmp_path: Path) -> None:
    for cause in (
        ["Corm Tallis", "CAUSED", "Poisoning of the Ashby Well"],
        ["Crispin Dray", "CAUSED", "Raid on Ashby Mill", "--gm-only"],
    ):
        result = cli.invoke(app, ["canon", "add", "relationship", *cause, "-c", CAMPAIGN])
        assert result.exit_code == 0, result.output
    answers = ask(
        cli, tmp_path, ["who poisoned the ashby well", "who was behind the poisoning of the ashby well"]
    )
    assert set(answers.values()) == {"Corm Tallis caused the Poisoning of the Ashby Well."}
    # A cause only the GM may read: to a player, as the raid's twin nobody wrote a cause of.
    raids = ["who was behind the raid on ashby mill", "who was behind the raid on ashby ford"]
    player = ask(cli, tmp_path, raids)
    assert _as_twin(player[raids[0]], {"Mill": "Ford", "Tanner": "Cooper"}) == player[raids[1]]
    assert player[raids[1]] == (
        "Nothing the table knows says who was behind Raid on Ashby Ford; canon names Hob Cooper as taking part."
    )
    assert ask(cli, tmp_path, raids[:1], gm=True) == {raids[0]: "Crispin Dray caused Raid on Ashby Mill."}


def test_a_population_typed_is_said(cli: CliRunner, tmp_path: Path) -> None:
    result = cli.invoke(app, ["canon", "add", "fact", "Ashby", "population", "200", "-c", CAMPAIGN])
    assert result.exit_code == 0, result.output
    answers = ask(cli, tmp_path, ["how many people live in ashby", "how big is ashby"])
    assert set(answers.values()) == {"Ashby's population is 200."}


def test_a_gm_section_of_the_bible_is_quoted_without_its_label(cli: CliRunner, tmp_path: Path) -> None:
    questions = ["what do the toll-men skim", "what is hidden in the old mine"]
    gm = ask(cli, tmp_path, questions, gm=True)
    assert gm == {
        "what do the toll-men skim": (
            "The toll-men have skimmed a tenth of every toll for twenty years, and the reeve knows it."
        ),
        "what is hidden in the old mine": (
            "A drowned mine lies under Cairn Moor, and the Moor Wardens hide smuggled salt in it."
        ),
    }
    player = ask(cli, tmp_path, questions)
    assert all(a.startswith("Nothing the table knows") for a in player.values()), player
