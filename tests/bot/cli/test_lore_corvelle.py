"""How /lore answers from a world bible's prose on a small world of our own (tests/fixtures/corvelle): what only the
prose defines ("what is the Greyhush", "what's a wickwright", "what does 'ulvo' mean") by its defining sentence;
what only a GM-only section says, for the GM, while a player reads word for word what a world that never wrote it
answers; and questions the world holds no answer to (a number, a name, a place, a time, a reason nobody wrote)
as "nothing known", though a sentence beside them shares their words. Asked as a player and as the GM; on SQLite,
then PostgreSQL.
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

WORLD = REPO / "tests" / "fixtures" / "corvelle"
FILES = ("places", "folk", "factions")
CAMPAIGN = "corvelle"
#: The same world without its GM-only sections: what a player's answers must read like.
ABSENT = TWIN


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Corvelle and its bible (Canon) imported, and its public twin."""
    return import_with_twin(CAMPAIGN, WORLD, FILES, tmp_path / "absent")


ask = asker(CAMPAIGN, marks="none")


GREYHUSH = "The Greyhush is the silence that falls over the Mirrowmere when the fog comes in at dusk."
MIRELINGS = "Mirelings are small grey-skinned folk who live among the reeds on the north shore."
WICKWRIGHT = "A wickwright is a craftsman who makes the reed lamps that hang in every doorway of Corvelle."
ULVO = 'In the fen-speech, "ulvo" means "keep faith with the water".'
SENNET = "A sennet, in the old tongue, is a lamp left burning in a window for the drowned."
MENDING = "The Mending is the week each Sowmoon when every household of Corvelle repairs the dykes."
SALTGLASS = "Saltglass: a brittle green glass blown from the ash of burnt reeds."
TITHE = "The kestrel-tithe refers to the tenth of each catch owed to the warden."

#: A thing only the prose defines, asked in the table's forms -> the sentence defining it, never one naming it in
#: passing ("Children of Corvelle are told that Mirelings steal boots.", "Every wickwright keeps a tally …").
DEFINED = {
    "What is the Greyhush?": GREYHUSH,
    "whats the greyhush": GREYHUSH,
    "what is greyhush exactly": GREYHUSH,
    "what are mirelings": MIRELINGS,
    "who are the mirelings?": MIRELINGS,
    "what is a mireling": MIRELINGS,  # the singular of the bible's plural
    "what r mirelings": MIRELINGS,
    "what kind of creature is a mireling": MIRELINGS,
    "what are the mirelings like": MIRELINGS,
    "what's a wickwright": WICKWRIGHT,  # a common word, not a name: a definition still answers
    "what does a wickwright do?": WICKWRIGHT,
    "define wickwright": WICKWRIGHT,
    "what does 'ulvo' mean": ULVO,
    'what\'s the meaning of "ulvo"': ULVO,
    "what does the word ulvo mean": ULVO,
    "what is a sennet": SENNET,  # "A sennet, in the old tongue, is …"
    "whats sennet mean": SENNET,
    "what is the mending": MENDING,  # defined after "During the Mending …" names it
    "what is saltglass": SALTGLASS,
    "what is the kestrel tithe?": TITHE,  # "kestrel-tithe" in the bible
    "what is the black throat": "Ferrymen call the deepest channel of the lake the Black Throat.",
    "what are the weeping stones": (
        "The Weeping Stones, seven standing stones on the north shore, mark where the old town drowned."
    ),
}


def test_what_only_the_prose_defines_is_answered_by_its_definition(cli: CliRunner, tmp_path: Path) -> None:
    assert ask(cli, tmp_path, list(DEFINED)) == DEFINED
    assert ask(cli, tmp_path, list(DEFINED), gm=True) == DEFINED


FIRES = (
    "Warden Tobiah Quarle set the granary fires himself, to hide that he had sold the winter grain to river "
    "smugglers."
)
MINE = (
    "The Quill Mine was never emptied: a vein of moon-silver still runs beneath it, and Mother Essa Ashgrove hides "
    "the only map of it in the chapel crypt."
)
ILL = "Queen Ilvane Dorsk is slowly dying of marsh-fever, and only Mother Essa Ashgrove knows."
HEIR = "The queen means to name Pellam Corrigan, her unacknowledged son, as her heir."

#: What only a GM-only section says -> the GM reads it, though public prose shares the question's words.
GM_READS = {
    "who is really behind the granary fires?": FIRES,
    "who set the granary fires": FIRES,
    "who started the fires in the granaries?": FIRES,  # "set" a fire is a deed of "started"'s kind
    "why did warden quarle burn the granaries": FIRES,
    "what happened to the winter grain": FIRES,
    "who did the warden sell the grain to": FIRES,
    "what is the secret of the quill mine?": MINE,  # not the public tale of its bad air
    "where is the map of the moon-silver": MINE,
    "who hides the map of the quill mine": MINE,
    "what is moon-silver": MINE,
    "is the bad air in the quill mine real?": "The bad air was a tale she spread to keep miners out.",
    "who pays pellam corrigan": f"{FIRES} He pays Pellam Corrigan to keep silent about the boats he saw that night.",
    "what is wrong with the queen": ILL,
    "who knows about the queen's illness": ILL,
    "who will be the queen's heir": HEIR,  # canon names no heir: the GM's section does
    "who is pellam corrigan's mother": HEIR,
}


def test_the_gm_reads_the_gm_only_section_that_answers(cli: CliRunner, tmp_path: Path) -> None:
    assert ask(cli, tmp_path, list(GM_READS), gm=True) == GM_READS


def test_a_player_reads_what_a_world_without_the_gms_sections_answers(cli: CliRunner, tmp_path: Path) -> None:
    player = ask(cli, tmp_path, list(GM_READS))
    assert player == ask(cli, tmp_path, list(GM_READS), campaign=ABSENT)
    assert player["who set the granary fires"] == "Nothing the table knows says who set the granary fires."
    assert player["what is the secret of the quill mine?"] == (
        "Nothing the table knows says what the secret of the quill mine is."
    )
    # The public tale, as of a world that never wrote the truth: no hint of it.
    assert player["is the bad air in the quill mine real?"] == (
        "The Quill Mine was closed because its lower shafts filled with bad air."
    )
    said = " ".join(player.values())
    secrets = (
        "never emptied",
        "smugglers",
        "marsh-fever",
        "unacknowledged",
        "crypt",
        "tale she spread",
        "GM only",
    )
    assert not any(w in said for w in secrets), player


#: Questions the world holds no answer to, each beside a sentence sharing its words -> "nothing known".
UNANSWERED = [
    "what is the name of the queen's horse?",  # "rides a white mare": no name
    "what's the queen's mare called",
    "how many ships does the heron fleet have",  # fleet sentences count nothing
    "how many boats are in the heron fleet?",  # its one member is no count of its boats
    "where was pellam corrigan born",
    "when was the chapel of saint aubrel built",
    "when did the quill mine close",  # closed "because …": no time
    "when did the old town drown",  # "the Drowning Fair … each Frostmoon": a name says no deed
    "in what year was the heron fleet founded",  # "after the old town drowned": no year
    "why did the old town drown",  # its drowning is the time of another deed, not a reason of its own
    "who founded corvelle",  # "The fleet was founded after …": nobody named
    "who cast the bell old wend",  # a sentence naming the bell and a chapel, casting nothing
    "who painted the boats of the heron fleet",  # "painted white": by nobody named
    "how far is the north shore from corvelle",  # "seven standing stones on the north shore": no distance
    "how tall are mirelings",
    "how deep is the mirrowmere",
    "how old is queen ilvane dorsk",
    "who leads the heron fleet",
    "what year was the drowning fair first held",
]

#: Their neighbours the world does answer: still answered.
ANSWERED = {
    "how many bells hang in the chapel": (
        "Nine bells hang in the Chapel of Saint Aubrel, and the largest is called Old Wend."
    ),
    "how many granaries does corvelle have": "Warden Tobiah Quarle keeps the keys of the three granaries of Corvelle.",
    "how many standing stones are there": (
        "The Weeping Stones, seven standing stones on the north shore, mark where the old town drowned."
    ),
    "who keeps the keys of the granaries": "Warden Tobiah Quarle keeps the keys of the three granaries of Corvelle.",
    "who ferries travellers to the north shore": (
        "Pellam Corrigan ferries travellers to the north shore for a copper penny."
    ),
    "why was the quill mine closed": "The Quill Mine was closed because its lower shafts filled with bad air.",
    "when does the mirrowmere freeze": (
        "The Mirrowmere freezes hard in Frostmoon, and the reed-cutters walk across it to the north shore."
    ),
    "where do the mirelings live": MIRELINGS,
    "how many people are in the heron fleet": "The Heron Fleet has one member: Pellam Corrigan.",
}


def test_a_question_the_world_does_not_answer_is_nothing_known(cli: CliRunner, tmp_path: Path) -> None:
    for gm in (False, True):
        answers = ask(cli, tmp_path, [*UNANSWERED, *ANSWERED], gm=gm)
        wrong = {q: answers[q] for q in UNANSWERED if not answers[q].startswith("Nothing the table knows")}
        assert wrong == {}
        assert {q: answers[q] for q in ANSWERED} == ANSWERED
