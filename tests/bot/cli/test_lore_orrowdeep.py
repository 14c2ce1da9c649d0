"""How /lore answers from a world bible's prose on a small world of our own (tests/fixtures/orrowdeep): "what is
X" and "why …" by the sentence that says it, never one naming X in passing; a question the world holds no answer
to (a number or a name nobody wrote) as "nothing known"; and what only the GM may read (a secret alias, a GM-only
section of the bible) for the GM, while a player reads, word for word, what a world that never wrote it answers.
Asked as a player and as the GM; on SQLite, then PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import (
    TWIN,
    asker,
    import_with_twin,
)
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "orrowdeep"
FILES = ("places", "folk", "factions")
CAMPAIGN = "orrowdeep"
#: The same world with nothing of the GM's in it: its YAML lines marked "# secret" and its GM-only sections out.
ABSENT = TWIN


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Orrowdeep world and its bible (Canon) imported, and its twin
    without the GM's secrets beside it."""
    return import_with_twin(CAMPAIGN, WORLD, FILES, tmp_path / "absent")


ask = asker(CAMPAIGN, marks="none")


LANTERN_VIGIL = "The Lantern Vigil is a night of silence kept for the miners lost in the flood."
BELLWATER = "The Bellwater, a cold river that runs beneath the city, turns the wheels of the Mint."
LEFT = "The Order of the Lamp left the Ember Mine because the lower galleries flooded in year 40 of the Deep Count."
CLOSED = "King Adric Solen closed the Mint to strangers so that no coin of Orrowdeep would be forged."

#: "what is X" and "why …" -> the sentence saying what X is, or why; a sentence merely naming X is no answer.
SAYS_WHAT_OR_WHY = {
    # The bible says what it is after naming it in passing ("Every miner walks … on the night of the Lantern Vigil").
    "what is the lantern vigil": LANTERN_VIGIL,
    "whats the lantern vigil?": LANTERN_VIGIL,
    # "X, a …, …" says what X is.
    "what is the bellwater": BELLWATER,
    # A card's description outranks any sentence ("The Salt Road ends at …" names no stair).
    "what is the cinder stair": "The Cinder Stair is a stairway of black steps cut into the cliff below Orrowdeep.",
    # Only named in passing ("The Salt Road ends at the Gloam Gate."): nothing says what it is.
    "what is the gloam gate": "Nothing the table knows says what the gloam gate is.",
    # Nothing defines it, but a sentence tells of it: what is known, said of it.
    "what is the salt road": "The Salt Road ends at the Gloam Gate.",
    # The reason, though it says "left" for "leave" and a sentence beside it names both.
    "why did the order of the lamp leave the ember mine": LEFT,
    "why did the king close the mint": CLOSED,
    "why does king adric close the mint?": CLOSED,
    # What was done, but never why: nothing known of the why.
    "why does the king ride to the cinder stair": (
        "Nothing the table knows answers “why does the king ride to the cinder stair?”."
    ),
    "why do the soldiers of the iron watch wear black cloaks": (
        "Nothing the table knows answers “why do the soldiers of the iron watch wear black cloaks?”."
    ),
}


def test_what_and_why_are_answered_by_the_sentence_that_says_it(cli: CliRunner, tmp_path: Path) -> None:
    assert ask(cli, tmp_path, list(SAYS_WHAT_OR_WHY)) == SAYS_WHAT_OR_WHY
    assert ask(cli, tmp_path, list(SAYS_WHAT_OR_WHY), gm=True) == SAYS_WHAT_OR_WHY


#: Questions the world holds no answer to, each beside a sentence sharing its words -> "nothing known"; and the
#: answerable ones beside them, still answered.
HOLDS_WHAT_IS_ASKED = {
    # A name asked: "a grey horse" is named nowhere.
    "what is the name of the king's horse": "Nothing the table knows says what the name of the king's horse is.",
    "what is the name of the king's hound": "The king's hound is named Cinder, and it sleeps at his door.",
    "what is the king's hound called": "The king's hound is named Cinder, and it sleeps at his door.",
    "what is the name of the river under the city": BELLWATER,
    # A number asked: soldiers, gates and crossbows are said, never counted.
    "how many soldiers does the iron watch have": (
        "Nothing the table knows answers “how many soldiers does the iron watch have?”."
    ),
    "how many gates does orrowdeep have": "Nothing the table knows answers “how many gates does orrowdeep have?”.",
    "how many crossbows does the iron watch have": (
        "Nothing the table knows answers “how many crossbows does the iron watch have?”."
    ),
    # A card's description counts no steps.
    "how many steps does the cinder stair have": (
        "Nothing the table knows answers “how many steps does the cinder stair have?”."
    ),
    "how many miners work the ember mine": "Some three hundred miners work the Ember Mine.",
    "how many days does the salt road follow the bellwater": (
        "The Salt Road follows the Bellwater north for three days."
    ),
}


def test_a_sentence_not_holding_the_number_or_name_asked_is_no_answer(cli: CliRunner, tmp_path: Path) -> None:
    assert ask(cli, tmp_path, list(HOLDS_WHAT_IS_ASKED)) == HOLDS_WHAT_IS_ASKED
    assert ask(cli, tmp_path, list(HOLDS_WHAT_IS_ASKED), gm=True) == HOLDS_WHAT_IS_ASKED


#: What only the GM may read: a secret alias, a GM-only section -> the GM's answer.
GM_READS = {
    "who is the moth": (
        "The Moth is Marisol Teague's secret name. Marisol Teague is the king's keeper of keys. Marisol Teague "
        "lives in Orrowdeep."
    ),
    "what are marisol teague's aliases": "Marisol Teague is also called the Spymistress or the Moth.",
    "who is the spymistress": (
        "Marisol Teague, called the Spymistress, is the king's keeper of keys. Marisol Teague lives in Orrowdeep."
    ),
    "who does marisol teague sell secrets to": (
        "Marisol Teague sells the king's secrets to the Duke of Vell, because the duke holds her brother hostage."
    ),
    "why does marisol teague sell the king's secrets": (
        "Marisol Teague sells the king's secrets to the Duke of Vell, because the duke holds her brother hostage."
    ),
    "where is the crown of orrow": (
        "The Crown of Orrow lies in the Sealed Vault beneath the Mint, walled up by Marisol Teague in year 52 of "
        "the Deep Count."
    ),
}


def _cited(cli: CliRunner, tmp_path: Path, question: str, *, gm: bool) -> str:
    """Return the label of the first source an answer cites, as the command line prints it."""
    file = tmp_path / "one.txt"
    file.write_text(question + "\n", encoding="utf-8")
    result = cli.invoke(
        app, ["lore", "-c", CAMPAIGN, "--queries", str(file), *(["--as", "gm"] if gm else [])]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    answer = next(i for i, line in enumerate(lines) if line.startswith("A: "))
    return lines[answer + 1].strip()


def test_the_gm_reads_a_secret_alias_and_a_gm_only_section(cli: CliRunner, tmp_path: Path) -> None:
    assert ask(cli, tmp_path, list(GM_READS), gm=True) == GM_READS
    assert _cited(cli, tmp_path, "who does marisol teague sell secrets to", gm=True) == (
        "[2] The Mountain of Orrow › Marisol's Secret"
    )
    assert _cited(cli, tmp_path, "where is the crown of orrow", gm=True) == (
        "[1] The Mountain of Orrow › The Sealed Vault"
    )


def test_nothing_of_the_gms_reaches_a_player(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        *GM_READS,
        *SAYS_WHAT_OR_WHY,
        *HOLDS_WHAT_IS_ASKED,
        "what did marisol teague wall up",
        "what is the sealed vault",
    ]
    player = ask(cli, tmp_path, questions)
    # Word for word what the same world without the GM's secrets answers: a name nobody knows, nothing known.
    assert player == ask(cli, tmp_path, questions, campaign=ABSENT)
    assert player["who is the moth"] == "Nothing the table knows says who the moth is."
    assert player["what are marisol teague's aliases"] == "Marisol Teague is also called the Spymistress."
    assert player["who does marisol teague sell secrets to"] == (
        "Nothing the table knows answers “who does marisol teague sell secrets to?”."
    )
    said = " ".join(player.values())
    assert not any(w in said for w in ("Moth", "Duke", "Crown of Orrow", "Sealed Vault", "GM only")), player
