"""Offices held over time, asked through `lorekeeper lore` of a small world of our own (the stewards of Carrow: a
dead High Steward, his widow a regent and then High Steward, a steward before him only the GM knows of, a siege):
the holder today, who came before and after whom, who held it in a year or when an event took place, the titles
someone has held, in the campaign calendar's words; a span kept for the GM read to a player as if never written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, scene_on

CAMPAIGN = "carrow"
CALENDAR = """
eras:
  - {name: The Tide-Lamp Age, abbreviation: TL, start: 1}
months: [Frostwane, Bloomtide, Highsun, Emberfall]
today: 1 Highsun, 760 TL
"""
CHRONICLE = """
kind: timeline
eras:
  - {name: The Tide-Lamp Age, abbreviation: TL, start: 1}
events:
  - name: The Siege of Carrow
    date: 720 TL
"""
FOLK = """
characters:
  - name: Osmund Quarrendon
    born: 650 TL
    died: 731 TL
    titles: [{title: High Steward, from: 690 TL}, Keeper of the Lamps]
  - name: Wynna Quarrendon
    born: 700 TL
    titles:
      - {title: Lady Regent, from: 731 TL, to: 735 TL}
      - {title: High Steward, from: 3 Bloomtide, 735 TL, to: 770 TL}
  - name: Sefton Gale
    born: 640 TL
    titles:
      - {title: High Steward, from: 670 TL, to: 690 TL, gm_only: true}  # secret
"""
STEWARD = "the High Steward"
WYNNA_SPAN = "from 3 Bloomtide, year 735 of the Tide-Lamp Age to year 770 of the Tide-Lamp Age"
OSMUND_SPAN = "from year 690 to 731 of the Tide-Lamp Age"


def _world(folder: Path, secret: bool = True) -> dict[str, str]:
    folk = FOLK if secret else "\n".join(line for line in FOLK.splitlines() if "# secret" not in line) + "\n"
    if not secret:  # Sefton Gale is still a person the table knows; only his span is gone
        folk = folk.replace("    titles:\n\n", "\n").rstrip() + "\n"
    return {"calendar": CALENDAR, "chronicle": CHRONICLE, "folk": folk}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Carrow imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "carrow", _world(tmp_path))


def test_the_holder_today_and_the_one_before(cli: CliRunner, tmp_path: Path) -> None:
    asked = ["who is the High Steward?", "Who is the high steward", "who was the Lady Regent?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    today = f"Wynna Quarrendon is {STEWARD} ({WYNNA_SPAN}); before, Osmund Quarrendon held it, {OSMUND_SPAN}."
    assert said[asked[0]] == said[asked[1]] == today
    assert (
        said[asked[2]] == "Wynna Quarrendon was the Lady Regent (from year 731 to 735 of the Tide-Lamp Age)."
    )


def test_before_and_after_whom(cli: CliRunner, tmp_path: Path) -> None:
    before = ["who was High Steward before Wynna Quarrendon?", "who ruled before Wynna Quarrendon"]
    after = [
        "who succeeded Osmund Quarrendon?",
        "who came after Osmund Quarrendon",
        "who was Osmund's successor",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, [*before, *after], citations=False)
    for question in before:
        assert (
            said[question] == f"Before Wynna Quarrendon, Osmund Quarrendon was {STEWARD} ({OSMUND_SPAN})."
        ), said
    for question in after:
        assert said[question] == f"After Osmund Quarrendon, Wynna Quarrendon is {STEWARD} ({WYNNA_SPAN}).", (
            said
        )


def test_in_a_year_and_when_an_event_took_place(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who held High Steward in 700?",
        "who was High Steward in 733?",
        "who was High Steward when the Siege of Carrow began?",
        "who was the Lady Regent in 732",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said == {
        asked[0]: f"Osmund Quarrendon was {STEWARD} in year 700 ({OSMUND_SPAN}).",
        asked[1]: f"Nothing the table knows says who was {STEWARD} in year 733.",  # the regency: none
        asked[2]: (
            "When the Siege of Carrow took place, in year 720 of the Tide-Lamp Age, "
            f"Osmund Quarrendon was {STEWARD} ({OSMUND_SPAN})."
        ),
        asked[
            3
        ]: "Wynna Quarrendon was the Lady Regent in year 732 (from year 731 to 735 of the Tide-Lamp Age).",
    }


def test_the_titles_someone_has_held(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "what titles has Wynna Quarrendon held?",
        "what is Wynna Quarrendon's title?",
        "what titles did Osmund Quarrendon hold?",
        "who is Wynna Quarrendon",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]] == (
        "Wynna Quarrendon has been the Lady Regent (from year 731 to 735 of the Tide-Lamp Age) and "
        f"{STEWARD} ({WYNNA_SPAN})."
    )
    assert said[asked[1]] == f"Wynna Quarrendon is {STEWARD} ({WYNNA_SPAN})."
    assert said[asked[2]] == f"Osmund Quarrendon was Keeper of the Lamps and {STEWARD} ({OSMUND_SPAN})."
    assert said[asked[3]].startswith("Wynna Quarrendon is the High Steward."), said[
        asked[3]
    ]  # not the regent


def test_today_is_the_storys_date(cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path) -> None:
    """A scene dated after Wynna's span ended: no one the table knows holds the office now."""
    scene_on(cli_env, CAMPAIGN, "tide_lamp_age.771.1.1")
    said = ask_world(cli, tmp_path, CAMPAIGN, ["who is the High Steward?"], citations=False)
    assert said["who is the High Steward?"] == (
        f"Nothing the table knows says who is {STEWARD} now; the last was Wynna Quarrendon ({WYNNA_SPAN})."
    )


SECRET_ASKED = [
    "who was High Steward before Osmund Quarrendon?",
    "who held High Steward in 680?",
    "what titles has Sefton Gale held?",
    "who is the High Steward?",
    "who preceded Osmund Quarrendon",
]


def test_a_span_kept_for_the_gm_reads_to_a_player_as_never_written(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, SECRET_ASKED)
    open_world = tmp_path / "open"
    open_world.mkdir()
    plain = import_written("carrow-open", open_world / "carrow", _world(tmp_path, secret=False))
    unsaid = ask_world(plain, open_world, "carrow-open", SECRET_ASKED)
    assert player == unsaid  # word for word, citations too
    assert not any("670" in answer or "Sefton Gale was" in answer for answer in player.values()), player
    assert player[SECRET_ASKED[0]] == (
        f"Nothing the table knows says who was {STEWARD} before Osmund Quarrendon; Osmund Quarrendon held it "
        f"{OSMUND_SPAN}, the first High Steward the table knows of. [1]"
    )
    gm = ask_world(cli, tmp_path, CAMPAIGN, SECRET_ASKED[:2], gm=True, citations=False)
    assert gm == {
        SECRET_ASKED[0]: (
            f"Before Osmund Quarrendon, Sefton Gale was {STEWARD} (from year 670 to 690 of the Tide-Lamp Age)."
        ),
        SECRET_ASKED[
            1
        ]: f"Sefton Gale was {STEWARD} in year 680 (from year 670 to 690 of the Tide-Lamp Age).",
    }


def test_reimport_unchanged_writes_nothing_and_overlaps_warn(cli: CliRunner, tmp_path: Path) -> None:
    folder = tmp_path / "carrow"
    again = cli.invoke(app, ["ingest", str(folder / "folk.yaml"), "-c", CAMPAIGN])
    assert again.exit_code == 0 and "unchanged" in again.output and "nothing new was written" in again.output
    rival = folder / "rival.yaml"
    rival.write_text(
        "characters:\n"
        "  - name: Corla Wick\n"
        "    born: 730 TL\n"
        "    titles:\n"
        "      - {title: High Steward, from: 720 TL, to: 740 TL}\n"
        "      - {title: Keeper of the Lamps, from: 700 TL, shared: true}\n",
        encoding="utf-8",
    )
    said = cli.invoke(app, ["ingest", str(rival), "-c", CAMPAIGN])
    assert said.exit_code == 0, said.output
    assert (
        "An office held outside its holder's life: Corla Wick holds “High Steward” (from year 720 to 740 of the "
        "Tide-Lamp Age) before being born (year 730 of the Tide-Lamp Age): carrow/rival.yaml, line 5."
        in said.output
    )
    # Beside the spans of a file imported before: each holder she overlaps, named, with when and where.
    for other, span in (("Osmund Quarrendon", OSMUND_SPAN), ("Wynna Quarrendon", WYNNA_SPAN)):
        assert (
            f"Two holders of one office at once: Corla Wick and {other} both hold “High Steward” at one time: Corla "
            f"Wick from year 720 to 740 of the Tide-Lamp Age (carrow/rival.yaml, line 5), {other} {span} (as canon says it)."
        ) in " ".join(said.output.split()), said.output
    assert said.output.count("Two holders of one office") == 2  # a shared office warns of no one
