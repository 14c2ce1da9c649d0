"""The beasts of a place and what came of an event, asked through `lorekeeper lore` of a small world of our own
(the Mirefen, a drowned country and its towns, and its world bible): the creatures a bestiary sets in a place or a
place within it, and the bible's sentences telling of beasts there; an event's result written only in the bible's
prose, quoted and cited. A player reads exactly what the same world without the GM's lines (YAML lines marked
"# secret", the bible's "(GM only)" sections) says; a GM-only name reads as a name nobody knows. On SQLite, then
PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_unmarked, import_written, public_written

CAMPAIGN = "mirefen"
FILES = {
    "calendar": """
eras:
  - {name: The Lantern Count, abbreviation: LC, start: 1}
months: [Ashmonth, Thawing, Greening, Highsun, Reaping, Frostfall]
today: 1 Thawing, 420 LC
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Lantern Count, abbreviation: LC, start: 1}
events:
  - name: The Siege of Corbel Weir
    year: 410
    era: The Lantern Count
    location: Corbel Weir
  - name: The Drowning Fair
    year: 412
    era: The Lantern Count
    location: Corbel Weir
    outcome: the fair was never held again
  - name: The Tallow Riot
    year: 414
    era: The Lantern Count
    location: Corbel Weir
  - name: The Burning of the Reedmarket
    year: 416
    description: It started in the cloth stalls at dusk. The reeves fled and never came back.
  - name: The Lock Flood
    year: 417
    description: The water rose over the lock gates. In the end the town moved uphill.  # secret
    gm_only: [description]  # secret
  - name: The Night of Lamps  # secret
    year: 415  # secret
    era: The Lantern Count  # secret
    visibility: gm_only  # secret
""",
    "world": """
characters:
  - name: Lune Penhallow
    sex: female
    home: Corbel Weir
  - name: Orrin Vale
    sex: male
    description: Steward of the Corbel Weir mills.
---
locations:
  - name: Corbel Weir
    part_of: The Mirefen
    population: about 900
    description: A mill town of forty shops on the river Sallow.
  - name: Sallow Stair
    part_of: The Mirefen
    description: Stone steps down to the black pools.
  - name: Gorse Hollow
    part_of: The Dry Downs
    description: A dell of gorse. Wild dogs hunt the gorse at dusk.
  - name: The Sunken Chapel  # secret
    part_of: The Mirefen  # secret
    visibility: gm_only  # secret
regions:
  - name: The Mirefen
    description: A drowned country of reeds and pools.
  - name: The Dry Downs
    description: Chalk hills without water.
  - name: The Salt Flats
    description: White salt to the edge of the sky.
---
creatures:
  - name: Glassjaw Pike
    habitat: Sallow Stair
    description: A pike as long as a boat, with teeth like shards; it drags swimmers under.
  - name: Reed Hob
    habitat: The Mirefen
    description: A shy, harmless reed-dweller.
  - name: Bell Eel
    habitat: The Sunken Chapel  # secret
    description: An eel that rings like a bell.
  - name: The Drowned Lady  # secret
    habitat: Sallow Stair  # secret
    visibility: gm_only  # secret
""",
}
PUBLIC = public_written(FILES)
BIBLE = """# The Mirefen

## Corbel Weir

Corbel Weir is a mill town on the Sallow.

**Shops:** forty

## The Siege of Corbel Weir

In 410 the river-lords besieged Corbel Weir for forty days. On the forty-first day the millers opened the
sluices and drowned the siege camp; the river-lords withdrew and paid a blood-price of a thousand marks.

## The Mirefen

Marsh-wights haunt the pools below Sallow Stair and drown travellers who stray from the causeway.

## The Tallow Riot (GM only)

The Tallow Riot ended when the guild hanged its own candle-master to buy peace.

## What Lune Hides (GM only)

Lune Penhallow is dying of the grey cough, and hides it from her mother.

## The Steward (GM only)

Orrin Vale sells the guild's ledgers to the river-lords.

## The Dry Downs (GM only)

Chalk wyrms nest under the Dry Downs, asleep for a hundred years.
"""

BEASTS = {
    "are there any dangerous beasts in the Mirefen?": (
        "Reed Hob lives in the Mirefen: a shy, harmless reed-dweller. Glassjaw Pike lives in Sallow Stair, in the "
        "Mirefen: a pike as long as a boat, with teeth like shards; it drags swimmers under. Marsh-wights haunt "
        "the pools below Sallow Stair and drown travellers who stray from the causeway."
    ),
    "are there any dangerous creatures in Sallow Stair?": (
        "Glassjaw Pike lives in Sallow Stair: a pike as long as a boat, with teeth like shards; it drags swimmers "
        "under. Marsh-wights haunt the pools below Sallow Stair and drown travellers who stray from the causeway."
    ),
    "what lives in the Dry Downs?": "Gorse Hollow: Wild dogs hunt the gorse at dusk.",
    "what lives in the Salt Flats?": "Nothing the table knows says what lives in the Salt Flats.",
    "are there monsters in the Salt Flats?": (
        "Nothing the table knows answers “are there monsters in the Salt Flats”."
    ),
    "who lives in Corbel Weir?": "Lune Penhallow lives in Corbel Weir.",
}
#: The bible's sentence saying how the siege ended names no siege: the answer names the event it tells of.
SIEGE = (
    "The Siege of Corbel Weir: On the forty-first day the millers opened the sluices and drowned the siege camp; "
    "the river-lords withdrew and paid a blood-price of a thousand marks."
)
CAME_OF = {
    "what came of the Siege of Corbel Weir?": SIEGE,
    "how did the Siege of Corbel Weir end?": SIEGE,
    "what happened after the siege of corbel weir?": SIEGE,
    "what came of the Drowning Fair?": "At the Drowning Fair, the outcome was the fair was never held again.",
    # The timeline's description says it; its words "came back" are no answer to "what came of".
    "what came of the Burning of the Reedmarket?": (
        "The Burning of the Reedmarket: The reeves fled and never came back."
    ),
    "what was the result of the burning of the reedmarket?": (
        "At the Burning of the Reedmarket, the reeves fled and never came back."
    ),
    "what came of the Lock Flood?": "Nothing the table knows says what came of the Lock Flood.",
}


def _bible(folder: Path, *, gm: bool) -> Path:
    """Write the bible, whole or without its "(GM only)" sections, and return its path."""
    text = BIBLE if gm else re.sub(r"(?ms)^## [^\n]*\(GM only\)\n.*?(?=^## |\Z)", "", BIBLE)
    path = folder / "bible.md"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with the Mirefen world and its bible, and its copy without the secrets."""
    for campaign, files, gm in ((f"{CAMPAIGN}-public", PUBLIC, False), (CAMPAIGN, FILES, True)):
        folder = tmp_path / campaign
        runner = import_written(campaign, folder, files)
        bible = _bible(folder, gm=gm)
        result = runner.invoke(app, ["ingest", str(bible), "-c", campaign, "--class", "canon"])
        assert result.exit_code == 0, result.output
    return runner


def test_beasts_and_results_read_from_canon_and_prose(cli: CliRunner, tmp_path: Path) -> None:
    expected = {**BEASTS, **CAME_OF}
    questions = list(expected)
    player = ask_unmarked(cli, tmp_path, CAMPAIGN, questions)
    assert {q: a for q, a in player.items() if a != expected[q]} == {}
    assert ask_unmarked(cli, tmp_path, f"{CAMPAIGN}-public", questions) == player
    gm = ask_unmarked(cli, tmp_path, CAMPAIGN, [*questions, "how did the Tallow Riot end?"], gm=True)
    assert (
        "The Drowned Lady lives in Sallow Stair" in gm["are there any dangerous creatures in Sallow Stair?"]
    )
    assert (
        "Bell Eel lives in the Sunken Chapel, in the Mirefen"
        in gm["are there any dangerous beasts in the Mirefen?"]
    )
    assert gm["what lives in the Dry Downs?"] == (
        "Gorse Hollow: Wild dogs hunt the gorse at dusk. Chalk wyrms nest under the Dry Downs, asleep for a "
        "hundred years."
    )
    assert gm["what came of the Lock Flood?"] == "The Lock Flood: In the end the town moved uphill."
    assert gm["how did the Tallow Riot end?"] == (
        "The Tallow Riot ended when the guild hanged its own candle-master to buy peace."
    )


#: Asked of GM-only prose in other words than the question's: the GM reads it, a player never.
OTHER_WORDS = {
    "is Lune sick?": "Lune Penhallow is dying of the grey cough, and hides it from her mother.",
    "is Lune Penhallow ill?": "Lune Penhallow is dying of the grey cough, and hides it from her mother.",
    "is Orrin Vale a traitor?": "Orrin Vale sells the guild's ledgers to the river-lords.",
}


def test_the_gm_reads_a_secret_said_in_other_words_and_a_player_never(cli: CliRunner, tmp_path: Path) -> None:
    questions = [*OTHER_WORDS, "is Lune tall?", "is Lune mad?"]
    gm = ask_unmarked(cli, tmp_path, CAMPAIGN, questions, gm=True)
    assert {q: gm[q] for q in OTHER_WORDS} == OTHER_WORDS
    # A state of no family the secret's words say is not answered by it.
    assert "cough" not in gm["is Lune tall?"] and "cough" not in gm["is Lune mad?"], gm
    player = ask_unmarked(cli, tmp_path, CAMPAIGN, questions)
    assert player == ask_unmarked(cli, tmp_path, f"{CAMPAIGN}-public", questions)
    assert not any(w in a for a in player.values() for w in ("cough", "ledgers", "dying")), player


#: A count asked of a thing near-spelled to one canon counts ("ships" beside "shops", "brides" beside "bridges")
#: is no count of it; a typo of a word the world never uses still finds the field ("popluation").
COUNTS = {
    "how many ships does Corbel Weir have?": "Nothing the table knows answers “how many ships does Corbel Weir have?”.",
    "how many brides does Corbel Weir have?": (
        "Nothing the table knows answers “how many brides does Corbel Weir have?”."
    ),
    "how many people live in Corbel Weir?": "Corbel Weir's population is about 900.",
    "what is the popluation of Corbel Weir?": "Corbel Weir's population is about 900.",
}


def test_a_count_is_of_the_thing_asked_only(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_unmarked(cli, tmp_path, CAMPAIGN, [*COUNTS, "how many shops does Corbel Weir have?"])
    assert {q: said[q] for q in COUNTS} == COUNTS
    assert "forty" in said["how many shops does Corbel Weir have?"], said


def test_typos_unknown_and_gm_only_names(cli: CliRunner, tmp_path: Path) -> None:
    questions = [
        "what came of the Siege of Corbel Wier?",
        "how did the Tallow Riot end?",
        "what came of the Night of Lamps?",
        "what came of the Night of Ashes?",
        "are there any dangerous beasts in the Sunken Chapel?",
        "are there any dangerous beasts in the Sunken Abbey?",
    ]
    said = ask_unmarked(cli, tmp_path, CAMPAIGN, questions)
    assert said[questions[0]] == CAME_OF["what came of the Siege of Corbel Weir?"]
    # The riot's end is only in a GM-only section: nothing a player reads says it.
    assert "hanged" not in said["how did the Tallow Riot end?"]
    assert said["how did the Tallow Riot end?"].startswith("Nothing the table knows")
    for hidden, unknown, words in (
        (2, 3, ("Night of Lamps", "Night of Ashes")),
        (4, 5, ("Sunken Chapel", "Sunken Abbey")),
    ):
        assert said[questions[hidden]].replace(words[0], "X") == said[questions[unknown]].replace(
            words[1], "X"
        )
