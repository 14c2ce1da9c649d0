"""How /lore answers the forms an outsider's world found answered wrongly, on a small world of our own
(tests/fixtures/quillhaven): what only the world bible's prose says of an entity the graph holds, a common noun for a
group, an event named by a
clause, who died in a battle, a deed an event's description says, a question of two
parts, … Each is asked as players type it (lowercase, typos,
"who's", short forms), as a player and as the GM; on SQLite, then PostgreSQL.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_quillhaven

CAMPAIGN = "quillhaven"


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, the Quillhaven world and its bible (Canon) imported."""
    return import_quillhaven(CAMPAIGN)


ask = asker(CAMPAIGN, marks="none")


EEL_OPENED = "The Gilded Eel opened at Quillhaven on 3 Frostfall, year 12 of the Harbour Reckoning."
CROWNED = "At the Coronation of Queen Ysolde, Archbishop Fenn handed Queen Ysolde the Pearl Crown before the whole city."
SALTMERE_WON = (
    "At the Siege of Saltmere, the corsairs held the village for a month until the Tideguard broke them and won the "
    "day."
)
SALTMERE_WHEN = (
    "The Siege of Saltmere took place at Saltmere on 9 Thawmonth, year 18 of the Harbour Reckoning."
)
FORTY_THOUSAND = "About forty thousand people live in Quillhaven, most of them fisherfolk and dockhands."
WED = "Tomas Reed and Ilse Marr were wed in year 9 of the Harbour Reckoning, at the harbour chapel."
COLE = "Admiral Cole is a grey old sailor who commands the Tideguard."
VESSA = "Vessa Crane is a sharp-eyed widow who leads the dock smugglers of Quillhaven."
GREY_POINT_DEAD = (
    "Bran Tull and Mott Harl died in the Battle of Grey Point. Bran Tull, a member of the Tideguard, died that day. "
    "Mott Harl is a corsair of the Red Sails, drowned off Grey Point."
)

#: Question -> its whole answer, as a player reads it (the GM too, but for the deaths at Grey Point).
READS = {
    # An event named by a clause: said in the past where it opens a sentence, quoted as a name inside one.
    "when did the Gilded Eel open": EEL_OPENED,
    "when was the gilded eel opens": EEL_OPENED,
    "wat happened in year 12": f"{EEL_OPENED} A tavern opens on the quay.",  # then what it was
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
        "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes. Admiral Cole is a "
        "member of the Tideguard; Bran Tull (died on 3 Reaping, year 16 of the Harbour Reckoning) was a member too."
    ),
    # Each part searched on its own: the second's "it" found by what the first names.
    "what is the navy and who commands it": (
        "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes. Admiral Cole is a "
        "grey old sailor who commands the Tideguard."
    ),
    "where was corin vale born and when": (
        "Nothing the table knows answers “where was corin vale born?”. Corin Vale is alive, born in year 15 of the "
        "Harbour Reckoning."
    ),
    # What only the bible's prose says of an entity the graph holds: its sentence, where the card falls short.
    "how many people live in Quillhaven": f"{FORTY_THOUSAND} Canon names three of them: Tomas Reed, Ilse Marr and Vessa Crane.",
    "how many ppl live in quillhaven?": f"{FORTY_THOUSAND} Canon names three of them: Tomas Reed, Ilse Marr and Vessa Crane.",
    "whats quillhavens population": FORTY_THOUSAND,
    "how populous is quillhaven": FORTY_THOUSAND,
    "when did tomas and ilse get hitched": WED,
    "what year did tomas reed wed ilse marr": WED,
    "who's ilse marr married to": WED,
    "how many cutters does the tideguard have": "The Tideguard keeps forty cutters in the inner harbour.",
    "what do ppl in quillhaven do at midwinter": (
        "At midwinter the people of Quillhaven float paper lanterns on the harbour to honour the drowned."
    ),
    "how many people live in saltmere": "Nothing the table knows says how many people live in Saltmere; Saltmere is a village.",
    # A thing nothing says: declined, never a neighbouring fact of the one asked about.
    "what is the name of vessa crane's dog": "Nothing the table knows says what the name of vessa crane's dog is.",
    "whats vessa cranes dogs name": "Nothing the table knows says what vessa cranes dogs name is.",
    "what is admiral cole's first name": "Nothing the table knows says what admiral cole's first name is.",
    "whats the name of the tideguard's flagship": (
        "Nothing the table knows says what the name of the tideguard's flagship is."
    ),
    "how many ships does the tideguard have": "Nothing the table knows answers “how many ships does the tideguard have?”.",
    # Who died in a battle: a death that day of a member of a group that took part, one a description places
    # there; never all who took part.
    "who died in the battle of grey point": GREY_POINT_DEAD,
    "who was killed at grey point": GREY_POINT_DEAD,
    "did anyone die in the battle of grey point": f"Yes: {GREY_POINT_DEAD}",
    "who died at the siege of saltmere": (
        "Nothing the table knows says who died in the Siege of Saltmere; canon names the Tideguard and the Red Sails "
        "as taking part."
    ),
    # Canon says more than "nothing known": it stands against the bible's rumour.
    "when did hesk doran die": (
        "Nothing the table knows says Hesk Doran died; Hesk Doran is alive, born in year 6 of the Harbour Reckoning."
    ),
    # A deed canon names no doer of: nothing known says who; taking part is no guilt.
    "who set the fire": (
        "Nothing the table knows says who set the Chandlery Fire; canon names Pell Varn and Vessa Crane as taking "
        "part."
    ),
    "who torched the chandlery": "Nothing the table knows says who torched the chandlery.",
    # A common noun the world uses for one entity: the one its description says it is, or leads.
    "who leads the navy": COLE,
    "whos in charge of the navy": COLE,
    "who is the boss of the fleet": COLE,
    "what is the navy": "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes.",
    # "Who are" a group: what it is, then whom canon names in it; "what is" a group: what it is.
    "who are the tideguard": (
        "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes. Admiral Cole is a "
        "member of the Tideguard; Bran Tull (died on 3 Reaping, year 16 of the Harbour Reckoning) was a member too."
    ),
    "what is the tideguard": "The Tideguard is the navy of Quillhaven, a fleet of grey cutters that keeps the sea lanes.",
    "who leads the dock smugglers": VESSA,
    "who's the leader of the dock smugglers": VESSA,
    "who runs the smugglers": VESSA,
    "who leads the corsairs": "Nothing the table knows says who leads the corsairs.",  # no one said to
}


def test_answers_say_what_is_asked(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(READS))
    assert {q: a for q, a in player.items() if a != READS[q]} == {}
    # The GM reads the same, but where GM-only canon says more (a membership: `HIDDEN`'s test).
    gm = ask(cli, tmp_path, [q for q in READS if "grey point" not in q], gm=True)
    assert {q: a for q, a in gm.items() if a != READS[q]} == {}


#: A question touching GM-only canon -> the same question of its twin nobody hid anything about, the words the
#: answers write differently of the two, and the GM's answer.
HIDDEN = {
    # A tie the GM's notes alone tell; one a GM-only section of the bible tells; a GM-only parent.
    "who's lira's real father": (
        "who's wyn's real father",
        {"Lira": "Wyn"},
        "Lira Reed's real father is Admiral Cole, who never knew her.",
    ),
    "who is corin vale's real mother": (
        "who is tam vale's real mother",
        {"Corin": "Tam", "corin": "tam"},
        "Corin Vale's true mother is Queen Ysolde, who gave him up at birth.",
    ),
    "who is corin's real mum": (
        "who is tam's real mum",
        {"corin": "tam"},
        "Corin Vale's true mother is Queen Ysolde, who gave him up at birth.",
    ),
    "whos dara fenn's father": (
        "whos hesk doran's father",
        {"dara fenn": "hesk doran"},
        "Dara Fenn's father is Archbishop Fenn.",
    ),
    # A common noun only a GM-only group's description says.
    "who leads the secret police": (
        "who leads the river police",
        {"secret": "river"},
        "Inspector Mabry is a soft-spoken clerk who heads the Grey Hand.",
    ),
}


def _as_twin(text: str, swaps: dict[str, str]) -> str:
    """Return an answer about the hidden one with its words the twin's."""
    return re.sub("|".join(map(re.escape, swaps)), lambda m: swaps[m.group()], text)


def test_gm_only_canon_reads_to_a_player_as_a_twin_nobody_hid(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, [q for hidden, (twin, _, _) in HIDDEN.items() for q in (hidden, twin)])
    differ = {h: player[h] for h, (t, swaps, _) in HIDDEN.items() if _as_twin(player[h], swaps) != player[t]}
    assert differ == {}
    assert not any("Ysolde" in a or "Cole" in a or "Grey Hand" in a for a in player.values()), player
    gm = ask(
        cli,
        tmp_path,
        [
            *HIDDEN,
            "who is lira reed's true mother",
            "who is lira's real mum",
            "who died in the battle of grey point",
        ],
        gm=True,
    )
    assert {q: a for q, a in gm.items() if q in HIDDEN and a != HIDDEN[q][2]} == {}
    # A secret of the other sex is no answer: "her real father" says no mother; her true mother is the one canon
    # names, said as a mother, never as one of her "parents".
    assert gm["who is lira reed's true mother"] == "Lira Reed's mother is Ilse Marr."
    assert gm["who is lira's real mum"] == "Lira Reed's mother is Ilse Marr."
    # A member whose membership only the GM may read died that day: the GM's dead, never a player's.
    assert gm["who died in the battle of grey point"] == (
        "Orrin Salt, Bran Tull and Mott Harl died in the Battle of Grey Point. Orrin Salt, a member of the Red "
        "Sails, died that day. Bran Tull, a member of the Tideguard, died that day. Mott Harl is a corsair of the "
        "Red Sails, drowned off Grey Point."
    )
    # A GM-only section's heading is never quoted, to the GM either.
    assert not any("GM only" in a or "Corin's Mother" in a for a in gm.values()), gm
