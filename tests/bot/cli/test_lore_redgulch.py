"""Redgulch, a silver-mining town of the frontier (tests/fixtures/redgulch): a world a new GM wrote and asked forty
questions of, as a player and as the GM, before reading any answer. Answered from canon in the calendar's words: a
death only a description tells ("is Eli Hatch alive?"), never one it hedges ("was thought dead") or one of another's
it speaks of; someone asked about by their birth name; who held an office when an event took place; the dead of a
group's members said as members once, with when they died; an event's other name said once on its card. A player
reads every answer word for word as in the world without the GM's lines (those marked "# secret"): a GM-only
person, group, place, event or birth name is the same "nothing known" as a name nobody wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_texts, public_written
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "redgulch"
FILES = ("calendar", "places", "people", "factions", "chronicle")
LY = "of the Lode Years"

#: The forty questions the GM wrote before reading an answer, and what a player reads.
PLAYER_READS = {
    "where is Redgulch?": "Redgulch is in the Ironback Hills.",
    "when was Redgulch founded?": f"Redgulch was founded in year 89 {LY}.",
    "who founded the Silverback Mining Company?": "Josiah Crane founded the Silverback Mining Company.",
    "who is Josiah Crane?": (
        f"Josiah Crane is the prospector who struck silver in Coldwater Creek and founded the Silverback Mining Company. Josiah Crane was Mayor of Redgulch. Josiah Crane died on 3 Ashsnow, year 108 {LY}, and lived in Redgulch."
    ),
    "is Josiah Crane alive?": f"No: Josiah Crane died on 3 Ashsnow, year 108 {LY}.",
    "is Eli Hatch alive?": "No: Eli Hatch was shot dead outside the Lucky Strike Saloon in the summer of 119 LY.",
    "is Samuel Crane alive?": f"Yes: Samuel Crane is alive, born in year 93 {LY}.",
    "is Tomas Reyes alive?": f"Yes: Tomas Reyes is alive, born in year 92 {LY}.",
    "how did Doc Whitlock die?": f"Amos Whitlock's cause of death was mountain fever; he died in year 113 {LY}.",
    "when did Jed Hatch die?": f"Jed Hatch died on 3 Ashsnow, year 108 {LY}.",
    "who died in the Cave-In of Shaft Nine?": "Josiah Crane and Jed Hatch died in the Cave-In of Shaft Nine.",
    "where did the Shaft Nine Disaster happen?": (
        f"The Cave-In of Shaft Nine took place at the Silverback Mine on 3 Ashsnow, year 108 {LY}."
    ),
    "when was the Big Strike?": f"The Silver Strike took place at Coldwater Creek on 14 Dustwind, year 89 {LY}.",
    "who is the mayor of Redgulch?": (
        f"Abigail Crane is Mayor of Redgulch (since year 109 {LY}); before, Josiah Crane was Mayor of Redgulch (from year 91 to 108 {LY})."
    ),
    "who was mayor of Redgulch when the Lucky Strike Fire happened?": (
        f"When the Lucky Strike Fire took place, on 2 Highsun, year 102 {LY}, Josiah Crane was Mayor of Redgulch (from year 91 to 108 {LY})."
    ),
    "who was sheriff of Redgulch during the Long Strike?": (
        f"When the Long Strike took place, in year 117 {LY}, Nell Harper was Sheriff of Redgulch (since year 116 {LY})."
    ),
    "who were the sheriffs of Redgulch?": (
        f"Sheriff of Redgulch was held by Wade Callow (from year 98 to 116 {LY}) and Nell Harper (since year 116 {LY})."
    ),
    # Eli Hatch's death only his description tells: a late member all the same, nobody knows since when.
    "who are the members of the Miners' Union?": (
        "Tomas Reyes and Maggie Doyle are members of the Miners' Union; Jed Hatch (died on 3 Ashsnow, year 108 "
        f"{LY}) and the late Eli Hatch were members too."
    ),
    "who leads the Miners' Union?": "Tomas Reyes leads the Miners' Union.",
    "who was Abigail Crane's husband?": "Abigail Crane was married to Josiah Crane.",
    "who are Josiah Crane's children?": "Josiah Crane's children are Ruth Crane and Samuel Crane.",
    "how is Ruth Crane related to Tomas Reyes?": "Ruth Crane is married to Tomas Reyes.",
    "who was Eli Hatch's father?": f"Eli Hatch's father was Ezekiel Hatch (died in year 100 {LY}).",
    "who is Wade Callow?": (
        "Wade Callow is a grey-moustached lawman who hung up his star and now keeps a livery stable. Wade Callow was Sheriff of Redgulch. Wade Callow is alive, born in year 75 of the Territorial Years, and lives in Redgulch."
    ),
    "what was Maggie Doyle's birth name?": "Maggie Doyle was born Margaret Quinn.",
    "who is Margaret Quinn?": (
        "Maggie Doyle, born Margaret Quinn, is an owner of the Lucky Strike Saloon and the union's banker. Maggie Doyle is a member of the Miners' Union. Maggie Doyle is alive, born in year 85 of the Territorial Years, and lives in Redgulch."
    ),
    "who is Abigail Pryce?": (
        "Abigail Crane, born Abigail Pryce, is Josiah's widow, who runs the Silverback Mining Company with a ledger in one hand and a pistol in the other. Abigail Crane is Mayor of Redgulch. Abigail Crane is alive, born in year 70 of the Territorial Years, and lives in Redgulch."
    ),
    "who is Deadeye Nell?": (
        f"Nell Harper, called Deadeye Nell, is a sharpshooter from the cattle country who took the sheriff's star when Wade Callow gave it up. Nell Harper is Sheriff of Redgulch. Nell Harper is alive, born in year 94 {LY}, and lives in Redgulch."
    ),
    "how many children did Josiah Crane have?": "Josiah Crane has two children: Ruth Crane and Samuel Crane.",
    "how long ago was the Cave-In of Shaft Nine?": (
        f"The Cave-In of Shaft Nine took place 13 years ago: on 3 Ashsnow, year 108 {LY}; the story stands at 12 Claimfall, year 122 {LY}."
    ),
    "what happened in 117 LY?": (
        f"The Long Strike took place at the Silverback Mine in year 117 {LY}. For a whole summer no man went down the Silverback shafts."
    ),
    "what was the outcome of the Long Strike?": (
        "At the Long Strike, the winner was the Miners' Union, and the outcome was the company raised the day wage and shored up the timbers."
    ),
    "what was the Cave-In of Shaft Nine?": (
        f"The Cave-In of Shaft Nine took place at the Silverback Mine on 3 Ashsnow, year 108 {LY}. Rotten timbers gave way and buried forty men in Shaft Nine."
    ),
    "who is Silas Vane?": "Nothing the table knows says who Silas Vane is.",
    "what is the Vigilance Committee?": "Nothing the table knows says what the Vigilance Committee is.",
    "where is the Sealed Drift?": "Nothing the table knows says where the Sealed Drift is.",
    "who leads the Vigilance Committee?": "Nothing the table knows says who leads the Vigilance Committee.",
    "what happened in 119 LY?": "Nothing the table knows says what happened in 119 LY.",
    "who is Barnaby Quist?": "Nothing the table knows says who Barnaby Quist is.",
    "who was sheriff before Nell Harper?": (
        f"Before Nell Harper, Wade Callow was Sheriff of Redgulch (from year 98 to 116 {LY})."
    ),
}
#: Questions asked of what was built after the forty (a player reads them so too).
MORE_READS = {
    "is Eli Hatch dead?": "Yes: Eli Hatch was shot dead outside the Lucky Strike Saloon in the summer of 119 LY.",
    "who is Eli Hatch?": (
        "Eli Hatch is a union organizer with a loud voice. Eli Hatch was a member of the Miners' Union. Eli Hatch "
        "was shot dead outside the Lucky Strike Saloon in the summer of 119 LY."
    ),
    "who was the sheriff at the time of the Long Strike?": (
        f"When the Long Strike took place, in year 117 {LY}, Nell Harper was Sheriff of Redgulch (since year 116 {LY})."
    ),
    "who held the office of Mayor of Redgulch when the Cave-In of Shaft Nine happened?": (
        f"When the Cave-In of Shaft Nine took place, on 3 Ashsnow, year 108 {LY}, Josiah Crane was Mayor of Redgulch "
        f"(from year 91 to 108 {LY})."
    ),
    "who led the Silverback Mining Company during the Long Strike?": (
        f"When the Long Strike took place, in year 117 {LY}, Abigail Crane led the Silverback Mining Company (since "
        f"year 108 {LY})."
    ),
    "who was mayor of Redgulch in 100?": f"In year 100, Josiah Crane was Mayor of Redgulch (from year 91 to 108 {LY}).",
    "how many members does the Miners' Union have?": (
        "The Miners' Union has two living members: Tomas Reyes and Maggie Doyle; Jed Hatch (died on 3 Ashsnow, year "
        f"108 {LY}) and the late Eli Hatch were members too."
    ),
    "who is Eleanor Voss?": "Nothing the table knows says who Eleanor Voss is.",
    "when did Eli Hatch die?": "Eli Hatch was shot dead outside the Lucky Strike Saloon in the summer of 119 LY.",
    "where was Eli Hatch killed?": "Eli Hatch was shot dead outside the Lucky Strike Saloon in the summer of 119 LY.",
    "who was the sheriff back when the Lucky Strike Fire broke out?": (
        f"When the Lucky Strike Fire took place, on 2 Highsun, year 102 {LY}, Wade Callow was Sheriff of Redgulch "
        f"(from year 98 to 116 {LY})."
    ),
    "who was Redgulch's mayor when the Cave-In of Shaft Nine happened?": (
        f"When the Cave-In of Shaft Nine took place, on 3 Ashsnow, year 108 {LY}, Josiah Crane was Mayor of "
        f"Redgulch (from year 91 to 108 {LY})."
    ),
    "who was mayor at the time of the Silver Strike?": (
        "Nothing the table knows says who was Mayor of Redgulch when the Silver Strike took place, on 14 Dustwind, "
        f"year 89 {LY}."
    ),
    "who is Abigail Crane married to?": f"Abigail Crane was married to Josiah Crane (died on 3 Ashsnow, year 108 {LY}).",
    "where was Tomas Reyes killed?": (
        f"Nothing the table knows says Tomas Reyes died; Tomas Reyes is alive, born in year 92 {LY}."
    ),
}
#: What the GM reads otherwise.
GM_READS = {
    "who is Wade Callow?": (
        "Wade Callow is a grey-moustached lawman who hung up his star and now keeps a livery stable. Wade Callow "
        "leads the Vigilance Committee. Wade Callow is alive, born in year 75 of the Territorial Years, and lives in "
        "Redgulch."
    ),
    "who is Silas Vane?": (
        "Silas Vane is a hired gun from back east who answers to the Vigilance Committee. Silas Vane is a member of "
        f"the Vigilance Committee. Silas Vane is alive, born in year 95 {LY}."
    ),
    "what is the Vigilance Committee?": (
        "The Vigilance Committee: Masked men who break strikes for the company's money."
    ),
    "where is the Sealed Drift?": "The Sealed Drift is in the Silverback Mine, in Redgulch, in the Ironback Hills.",
    "who leads the Vigilance Committee?": "Wade Callow leads the Vigilance Committee.",
    "what happened in 119 LY?": (
        f"The Midnight Bargain took place at the Sealed Drift in year 119 {LY}. Abigail Crane paid Wade Callow's "
        "committee to break the union for good."
    ),
    "who is Eleanor Voss?": (
        "Nell Harper, born Eleanor Voss, is a sharpshooter from the cattle country who took the sheriff's star when "
        f"Wade Callow gave it up. Nell Harper is Sheriff of Redgulch. Nell Harper is alive, born in year 94 {LY}, and "
        "lives in Redgulch."
    ),
}


@pytest.fixture
def texts() -> dict[str, str]:
    return {name: (WORLD / f"{name}.yaml").read_text(encoding="utf-8") for name in FILES}


def test_the_forty_questions_were_written_first() -> None:
    asked = (WORLD / "questions.txt").read_text(encoding="utf-8").splitlines()
    assert asked == list(PLAYER_READS) and len(asked) == 40


def test_redgulch_is_answered_from_canon_for_a_player_and_the_gm(
    cli_env: DatabaseTarget, tmp_path: Path, texts: dict[str, str]
) -> None:
    cli = import_texts("redgulch", tmp_path / "redgulch", texts)
    questions = [*PLAYER_READS, *(q for q in MORE_READS if q not in PLAYER_READS)]
    player = ask_world(cli, tmp_path, "redgulch", questions, citations=False)
    assert player == {**PLAYER_READS, **MORE_READS}
    gm = ask_world(cli, tmp_path, "redgulch", questions, gm=True, citations=False)
    assert gm == {**PLAYER_READS, **MORE_READS, **GM_READS}
    # What the GM keeps is, to a player, a name nobody wrote: the same words.
    unknown = player["who is Barnaby Quist?"]
    assert player["who is Silas Vane?"] == unknown.replace("Barnaby Quist", "Silas Vane")
    assert player["who is Eleanor Voss?"] == unknown.replace("Barnaby Quist", "Eleanor Voss")
    public = import_texts("open", tmp_path / "open", public_written(texts))
    assert ask_world(cli, tmp_path, "redgulch", questions) == ask_world(public, tmp_path, "open", questions)


def test_an_events_card_says_its_other_name_once(
    cli_env: DatabaseTarget, tmp_path: Path, texts: dict[str, str]
) -> None:
    cli = import_texts("redgulch", tmp_path / "redgulch", texts)
    for name in ("The Shaft Nine Disaster", "Deadeye Nell"):
        shown = cli.invoke(app, ["canon", "entity", name, "-c", "redgulch"])
        assert shown.exit_code == 0, shown.output
        assert f"Also known as: {name}" in shown.output and shown.output.count(name) == 1, shown.output
