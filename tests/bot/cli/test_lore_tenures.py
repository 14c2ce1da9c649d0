"""Who led, ruled or held something over time, asked through `lorekeeper lore` of a small world of our own (the
Gullwardens of Corvel Keep, whose Warden-Captains are titles held for spans; the Ashen Choir, whose leaders its
faction file lists with spans; the Saltglass Lantern, passed from holder to holder; the lords of Corvel Keep): who
came before or after whom, who holds it now, who held it in a year, first, all of them, and for how long, in the
calendar's words; typos in the names; a holder or a leader kept for the GM read to a player as never written."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written, public_written

CAMPAIGN = "marrowfen"
FILES = {
    "calendar": """
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1}
months: [Thawing, Greening, Sunfall, Frostmere]
today: 1 Sunfall, 500 RA
""",
    "chronicle": """
kind: timeline
eras:
  - {name: The Reed Age, abbreviation: RA, start: 1}
events:
  - name: The Drowning of Fenholt
    date: 445 RA
""",
    "places": """
locations:
  - name: Corvel Keep
  - name: Fenholt
  - name: Brindle Cross
""",
    "folk": """
characters:
  - name: Tobin Aske
    sex: male
    born: 400 RA
    died: 472 RA
    titles: [{title: Warden-Captain of the Gullwardens, from: 420 RA, to: 450 RA}]
  - name: Hesk Morrow
    sex: male
    titles: [{title: Warden-Captain of the Gullwardens, from: 450 RA, to: 460 RA, gm_only: true}]  # secret
  - name: Ilse Brannoc
    sex: female
    birthplace: Fenholt
    titles: [{title: Warden-Captain of the Gullwardens, from: 470 RA}]
  - name: Maud Corvel
    sex: female
    titles: [{title: Lady of Corvel Keep, from: 430 RA, to: 480 RA}]
  - name: Aldous Corvel
    sex: male
    spouse: Wenna Corvel
    titles: [{title: Lord of Corvel Keep, from: 480 RA}]
  - name: Wenna Corvel
    sex: female
    birthplace: Brindle Cross
  - name: Pell Stonehand
    titles: [{title: High Reeve, from: 400 RA, to: 440 RA}]
  - name: Reeve Hollis
    sex: male
    birthplace: Fenholt
    titles: [{title: High Reeve, from: 440 RA}, {title: Reeve of the Marsh Gate, from: 420 RA, to: 440 RA}]
  - name: Cask Rennet
    titles: [{title: Reeve of the Marsh Gate, from: 440 RA}]
  - name: Old Fenna
  - name: Mara Quell
    sex: female
    birthplace: Brindle Cross
    faction: Order of the Ash
    titles: [{title: Grand Master, from: 480 RA}]
  - name: Old Pell
    factions: [Order of the Ash]
    titles: [{title: Grand Master, from: 440 RA, to: 480 RA}]
  - name: Dunstan Vey
    faction: Order of the Ash
    titles: [{title: Grand Master, from: 420 RA, to: 440 RA, gm_only: true}]  # secret
  - name: Sable Grey
    faction: The Mire Brethren
    titles: [{title: Grand Master, from: 400 RA}]
  - name: Osric Thane
    titles: [{title: Thane, from: 380 RA, to: 410 RA}]
  - name: Ebba Thane
    titles: [{title: Thane, from: 430 RA}]
  - name: Gorm Hale
    sex: male
    birthplace: Brindle Cross
    titles: [{title: Thane, from: 410 RA, to: 430 RA}, {title: Thane of Skellig, from: 440 RA}]
""",
    "groups": """
factions:
  - name: The Gullwardens
    leader: Ilse Brannoc
    seat: Corvel Keep
  - name: The Ashen Choir
    seat: Fenholt
    leaders:
      - {name: Pell Stonehand, from: 410 RA, to: 440 RA}
      - {name: Cask Rennet, from: 440 RA, to: 460 RA, gm_only: true}  # secret
      - {name: Wenna Corvel, from: 3 Greening, 460 RA}
  - name: Order of the Ash
    leader: Mara Quell
  - name: The Mire Brethren
    leaders: [Old Fenna, Cask Rennet]
""",
    "things": """
kind: items
items:
  - name: The Saltglass Lantern
    held_by: Ilse Brannoc
    held_since: 470 RA
    holders:
      - {name: Pell Stonehand, from: 400 RA, to: 430 RA}
      - {name: Maud Corvel, from: 430 RA, to: 455 RA, gm_only: true}  # secret
      - {name: Tobin Aske, from: 455 RA, to: 470 RA}
  - name: The Reed Crown
    holders: [Old Fenna, {name: Cask Rennet, from: 490 RA}]
""",
}
REED = "of the Reed Age"
TOBIN = f"Tobin Aske was Warden-Captain of the Gullwardens (from year 420 to 450 {REED})"
ILSE = f"Ilse Brannoc is Warden-Captain of the Gullwardens (since year 470 {REED})"


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    """A runner on the test's database with Marrowfen imported, its calendar first."""
    return import_written(CAMPAIGN, tmp_path / "marrowfen", FILES)


def test_a_factions_leaders_over_time(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who led the Gullwardens before Ilse Brannoc?",
        "who leads the Gullwardens now?",
        "who was leader of the Gullwardens in year 430 RA?",
        "how long did Tobin Aske lead the Gullwardens?",
        "how long has Ilse Brannoc led the Gullwardens?",
        "who led the Ashen Choir before Wenna Corvel?",
        "who leads the Ashen Choir?",
        "who led the Ashen Choir after Pell Stonehand?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said == {
        asked[0]: f"Before Ilse Brannoc, {TOBIN}.",
        asked[1]: f"{ILSE}; before, {TOBIN}.",
        asked[2]: f"In year 430, {TOBIN}.",
        asked[
            3
        ]: f"Tobin Aske was Warden-Captain of the Gullwardens for 30 years, from year 420 to 450 {REED}.",
        asked[4]: f"Ilse Brannoc has been Warden-Captain of the Gullwardens since year 470 {REED}.",
        asked[5]: f"Before Wenna Corvel, Pell Stonehand led the Ashen Choir (from year 410 to 440 {REED}).",
        asked[6]: (
            f"Wenna Corvel leads the Ashen Choir (since 3 Greening, year 460 {REED}); before, Pell Stonehand led "
            f"the Ashen Choir (from year 410 to 440 {REED})."
        ),
        asked[
            7
        ]: f"After Pell Stonehand, Wenna Corvel leads the Ashen Choir (since 3 Greening, year 460 {REED}).",
    }


def test_a_time_with_no_holder_and_typos(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who was leader of the Gullwardens in 465?",
        "who led the Gulwardens before Ilse Branoc?",
        "who had the Saltglas Lantern before Ilse Brannoc",
        "who had the Saltglass Lantern in 480?",
        "who had the Saltglass Lantern in 390?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said == {
        asked[0]: "Nothing the table knows says who led the Gullwardens in year 465.",
        asked[1]: f"Before Ilse Brannoc, {TOBIN}.",
        asked[2]: f"Before Ilse Brannoc, Tobin Aske had the Saltglass Lantern (from year 455 to 470 {REED}).",
        asked[3]: f"In year 480, Ilse Brannoc had the Saltglass Lantern (since year 470 {REED}).",
        asked[4]: "Nothing the table knows says who had the Saltglass Lantern in year 390.",
    }


def test_an_items_holders_one_after_another(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who has the Saltglass Lantern?",
        "who had the Saltglass Lantern before Ilse Brannoc?",
        "who has held the Saltglass Lantern?",
        "who owned the Saltglass Lantern first?",
        "who had the Saltglass Lantern after Pell Stonehand?",
        "who has held the Reed Crown?",
        "who has the Reed Crown?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    pell = f"Pell Stonehand had the Saltglass Lantern (from year 400 to 430 {REED})"
    assert said == {
        asked[0]: (
            f"Ilse Brannoc has the Saltglass Lantern (since year 470 {REED}); before, Tobin Aske had the Saltglass "
            f"Lantern (from year 455 to 470 {REED})."
        ),
        asked[1]: f"Before Ilse Brannoc, Tobin Aske had the Saltglass Lantern (from year 455 to 470 {REED}).",
        asked[2]: (
            f"{pell}, then Tobin Aske (from year 455 to 470 {REED}), then Ilse Brannoc (since year 470 {REED})."
        ),
        asked[3]: f"Pell Stonehand had the Saltglass Lantern first (from year 400 to 430 {REED}).",
        asked[
            4
        ]: f"After Pell Stonehand, Tobin Aske had the Saltglass Lantern (from year 455 to 470 {REED}).",
        # A holder with no dates is said after those whose dates are known, as such.
        asked[5]: (
            f"Cask Rennet has the Reed Crown (since year 490 {REED}); Old Fenna also had the Reed Crown, when is "
            "not known."
        ),
        asked[6]: f"Cask Rennet has the Reed Crown (since year 490 {REED}).",
    }


def test_who_rules_a_place(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who rules Corvel Keep?",
        "who is lord of Corvel Keep?",
        "who ruled Corvel Keep in 440?",
        "who was Lady of Corvel Keep before Aldous Corvel?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    aldous = f"Aldous Corvel is Lord of Corvel Keep (since year 480 {REED})"
    maud = f"Maud Corvel was Lady of Corvel Keep (from year 430 to 480 {REED})"
    assert said == {
        asked[0]: f"{aldous}; before, {maud}; Corvel Keep is the seat of the Gullwardens.",
        asked[1]: f"{aldous}; before, {maud}; Corvel Keep is the seat of the Gullwardens.",
        asked[2]: f"In year 440, {maud}.",
        asked[3]: f"Before Aldous Corvel, {maud}.",
    }


def test_a_leader_field_beside_a_title_held_for_a_span(cli: CliRunner, tmp_path: Path) -> None:
    """Mara Quell leads the Order (its `leader:`) and is its Grand Master since 480: the Order's Grand Masters
    before her are its leaders before her; Sable Grey, Grand Master of another group, never is."""
    asked = [
        "who led the Order of the Ash before Mara Quell?",
        "who leads the Order of the Ash?",
        "who led the Order of the Ash in 450?",
        "how long has Mara Quell led the Order of the Ash?",
        "who leads the Order of the Ash and where was she born?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    pell = f"Old Pell led Order of the Ash (from year 440 to 480 {REED})"
    mara = f"Mara Quell leads Order of the Ash (since year 480 {REED})"
    assert said == {
        asked[0]: f"Before Mara Quell, {pell}.",
        asked[1]: f"{mara}; before, {pell}.",
        asked[2]: f"In year 450, {pell}.",
        asked[3]: f"Mara Quell has led Order of the Ash since year 480 {REED}.",
        asked[4]: f"{mara}; before, {pell}. Mara Quell was born in Brindle Cross.",
    }


def test_a_place_no_title_names_is_ruled_by_whoever_led_the_group_seated_there(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = ["who rules Fenholt?", "who ruled Fenholt in 420?", "who ruled Fenholt before Wenna Corvel?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    seat = "Fenholt is the seat of the Ashen Choir"
    pell = f"Pell Stonehand led the Ashen Choir (from year 410 to 440 {REED})"
    assert said == {
        asked[
            0
        ]: f"{seat}; Wenna Corvel leads the Ashen Choir (since 3 Greening, year 460 {REED}); before, {pell}.",
        asked[1]: f"{seat}; in year 420, {pell}.",
        asked[2]: f"{seat}; before Wenna Corvel, {pell}.",
    }


def test_a_second_part_asks_of_the_first_parts_answer(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who's the current Lord of Corvel Keep and who is he married to?",
        "who leads the Gullwardens and where was she born?",
        "who leads the Ashen Choir and where was she born?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]].endswith(" Aldous Corvel is married to Wenna Corvel."), said[asked[0]]
    assert said[asked[1]].endswith(" Ilse Brannoc was born in Fenholt."), said[asked[1]]
    assert said[asked[2]].endswith(" Wenna Corvel was born in Brindle Cross."), said[asked[2]]


def test_a_title_word_inside_names_and_other_titles(cli: CliRunner, tmp_path: Path) -> None:
    """ "Thane" is Osric's and Ebba's name and a word of "Thane of Skellig"; "Reeve" is Reeve Hollis's name and a
    word of two titles: the name asked settles whom the question means, and nothing asks back which."""
    asked = [
        "who was Thane before Ebba Thane?",
        "who was thane before ebba?",
        "who was the Thane after Osric Thane?",
        "who was Thane of Skellig before Gorm Hale?",
        "who was High Reeve before Reeve Hollis?",
        "who was the high reve before reeve holis?",
        "who was Reeve before Cask Rennet?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    gorm = f"Gorm Hale was the Thane (from year 410 to 430 {REED})"
    assert said == {
        asked[0]: f"Before Ebba Thane, {gorm}.",
        asked[1]: f"Before Ebba Thane, {gorm}.",
        asked[2]: f"After Osric Thane, {gorm}.",
        asked[3]: (
            "Nothing the table knows says who was Thane of Skellig before Gorm Hale; Gorm Hale has held it since "
            f"year 440 {REED}."
        ),
        asked[4]: f"Before Reeve Hollis, Pell Stonehand was the High Reeve (from year 400 to 440 {REED}).",
        asked[5]: f"Before Reeve Hollis, Pell Stonehand was the High Reeve (from year 400 to 440 {REED}).",
        asked[
            6
        ]: f"Before Cask Rennet, Reeve Hollis was Reeve of the Marsh Gate (from year 420 to 440 {REED}).",
    }


def test_a_second_part_asks_of_an_office_holder(cli: CliRunner, tmp_path: Path) -> None:
    asked = [
        "who is the current High Reeve and where was he born?",
        "who was the Thane before Ebba Thane and where was he born?",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]].endswith(" Reeve Hollis was born in Fenholt."), said[asked[0]]
    assert said[asked[1]].endswith(" Gorm Hale was born in Brindle Cross."), said[asked[1]]


SECRET_ASKED = [
    "who led the Gullwardens before Ilse Brannoc?",
    "who led the Gullwardens in 455?",
    "who led the Gullwardens after Tobin Aske?",
    "who led the Ashen Choir before Wenna Corvel?",
    "who led the Ashen Choir in 450?",
    "who has held the Saltglass Lantern?",
    "who had the Saltglass Lantern before Tobin Aske?",
    "who had the Saltglass Lantern in 440?",
    "how long did Maud Corvel have the Saltglass Lantern?",
    "who ruled Fenholt in 450?",
    "who led the Order of the Ash before Old Pell?",
]


def test_a_holder_kept_for_the_gm_reads_to_a_player_as_never_written(
    cli: CliRunner, cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    player = ask_world(cli, tmp_path, CAMPAIGN, SECRET_ASKED)
    open_world = tmp_path / "open"
    open_world.mkdir()
    plain = import_written("marrowfen-open", open_world / "marrowfen", public_written(FILES))
    unsaid = ask_world(plain, open_world, "marrowfen-open", SECRET_ASKED)
    assert player == unsaid  # word for word, citations too: no gap where the GM's holder was
    for answer in player.values():
        assert "Hesk" not in answer and "Cask" not in answer and "430 to 455" not in answer, player
        assert "Maud Corvel had" not in answer and "Dunstan" not in answer, player
    assert player[SECRET_ASKED[-2]] == (
        "Fenholt is the seat of the Ashen Choir; nothing the table knows says who led the Ashen Choir in year 450. [2]"
    )
    gm = ask_world(cli, tmp_path, CAMPAIGN, SECRET_ASKED[:5], gm=True, citations=False)
    assert gm == {
        SECRET_ASKED[0]: (
            f"Before Ilse Brannoc, Hesk Morrow was Warden-Captain of the Gullwardens (from year 450 to 460 {REED})."
        ),
        SECRET_ASKED[1]: (
            f"In year 455, Hesk Morrow was Warden-Captain of the Gullwardens (from year 450 to 460 {REED})."
        ),
        SECRET_ASKED[2]: (
            f"After Tobin Aske, Hesk Morrow was Warden-Captain of the Gullwardens (from year 450 to 460 {REED})."
        ),
        SECRET_ASKED[
            3
        ]: f"Before Wenna Corvel, Cask Rennet led the Ashen Choir (from year 440 to 460 {REED}).",
        SECRET_ASKED[4]: f"In year 450, Cask Rennet led the Ashen Choir (from year 440 to 460 {REED}).",
    }


def test_a_leader_or_holder_no_file_defines_is_an_error_at_its_line(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "marrowfen" / "bad.yaml"
    bad.write_text(
        "factions:\n"
        "  - name: The Reed Wardens\n"
        "    leaders:\n"
        "      - {name: Tobin Aske, from: 400 RA, to: 410 RA}\n"
        "      - {name: Bo Nobody, from: 410 RA}\n"
        "---\n"
        "kind: items\n"
        "items:\n"
        "  - name: The Reed Horn\n"
        "    holders: [{name: Tobin Aske, from: 12 Frostmere, 400 RA}]\n",
        encoding="utf-8",
    )
    said = cli.invoke(app, ["ingest", str(bad), "-c", CAMPAIGN])
    assert said.exit_code == 1, said.output
    out = " ".join(said.output.split())
    assert "nothing written, 1 problem" in out, out
    assert 'bad.yaml: line 5, column 16: "leaders" of The Reed Wardens names “Bo Nobody”' in out, out
