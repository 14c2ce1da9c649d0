"""Ostmere, a merchant republic (tests/fixtures/ostmere): a world in its own shape asked as a player and the GM
would ask it. A death an event's `deaths:` tells, a death only words tell, how long ago something was, when one
took an office and how long they have held it, an office asked by its plural or as "the office of": each answered
from canon in the table's words; and a player reads every answer word for word as in the world without the GM's
lines (those marked "# secret")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_texts, public_written
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "ostmere"
FILES = ("calendar", "places", "people", "factions", "chronicle")
SC = "of the Second Charter"
STORY = f"the story stands at 3 Ledgermoon, year 342 {SC}"

#: What a player reads (the GM reads the same, but for `GM_READS`).
PLAYER_READS = {
    # A tie over by the story's date reads in the past; a victory on its day, never "since" it.
    "which guild did Ottavio Brenn lead?": f"Ottavio Brenn led the Weighers' Guild (from year 310 to 323 {SC}).",
    "what did Duke Harald of Harrowmark win?": (
        f"Duke Harald of Harrowmark won the Battle of the Reedmouth on 14 Highmarket, year 322 {SC}."
    ),
    "what was Sister Orla called before?": "Sister Orla is also called Orla Fenwright.",
    "what was Casimir Vell's former name?": "Casimir Vell was born Casimir Rook.",
    "list the events of 324 SC": (
        f"The Treaty of the Two Tolls took place at Ostmere on 5 Emberfall, year 324 {SC}. The peace that ended "
        "the Salt War."
    ),
    "what happened during the Plague Year?": (
        f"The Grey Cough took place at Ostmere in year 318 {SC}. A plague that emptied a third of the canal houses. "
        "Nella Tamsin, the Provost's youngest, was carried off by the cough in its first month."
    ),
    # An adoption dated, though the adoptive father has died since ("was … from year 305").
    "who adopted Casimir Vell?": f"Casimir Vell was adopted by Aurelio Tamsin in year 305 {SC}.",
    "is Aurelio Tamsin alive?": f"No: Aurelio Tamsin died in year 318 {SC}.",
    "is Benedetta Tamsin alive?": "Yes: Benedetta Tamsin is alive, born in year 274 of the Age of Tolls.",
    "how did Tobiah Marsh die?": f"Tobiah Marsh died in the Battle of the Reedmouth on 14 Highmarket, year 322 {SC}.",
    "how did Ottavio Brenn die?": "Ottavio Brenn was drowned in the harbour chain during the Siege of Fennick Light.",
    "how did Garrow Fenn die?": "Garrow Fenn was mauled by the lagoon serpent off Fennick Light in the last winter of the war.",
    "how did Nella Tamsin die?": "Nella Tamsin, the Provost's youngest, was carried off by the cough in its first month.",
    "how did Aurelio Tamsin die?": f"Aurelio Tamsin died in the Grey Cough in year 318 {SC}.",
    "how long ago was the Grey Cough?": f"The Grey Cough took place about 24 years ago: in year 318 {SC}; {STORY}.",
    "how many years ago did the Battle of the Reedmouth happen?": f"The Battle of the Reedmouth took place 20 years ago: on 14 Highmarket, year 322 {SC}; {STORY}.",
    "how long ago did Aurelio Tamsin die?": f"Aurelio Tamsin died about 24 years ago: in year 318 {SC}; {STORY}.",
    "how long ago was the Poisoned Tally?": "Nothing the table knows answers “how long ago was the Poisoned Tally?”.",
    "when did Casimir Vell become Provost?": f"Casimir Vell has been Provost of Ostmere since year 319 {SC}.",
    "how long has Casimir Vell been Provost?": f"Casimir Vell has been Provost of Ostmere for about 23 years, since year 319 {SC}.",
    "who were the Provosts of Ostmere?": f"Provost of Ostmere was held by Aurelio Tamsin (from year 301 to 318 {SC}) and Casimir Vell (since year 319 {SC}).",
    "who holds the office of Provost?": f"Casimir Vell is Provost of Ostmere (since year 319 {SC}); before, Aurelio Tamsin held it, from year 301 to 318 {SC}.",
    "who is the current Provost?": f"Casimir Vell is Provost of Ostmere (since year 319 {SC}); before, Aurelio Tamsin held it, from year 301 to 318 {SC}.",
    "who leads the Quiet Scale?": "Nothing the table knows says who leads the Quiet Scale.",
    "what happened in year 319 of the Second Charter?": f"The Contested Election took place at the Counting House on 2 Coinrise, year 319 {SC}. Its outcome: The Signoria chose Casimir Vell over Ilaria Tamsin by two votes.",
    "who is Ilaria Tamsin's mother?": "Ilaria Tamsin's mother is Benedetta Tamsin.",
    "how is Ilaria Tamsin related to Casimir Vell?": "Ilaria Tamsin is Casimir Vell's sister (through his adoptive father Aurelio Tamsin).",
}
GM_READS = {
    "is Benedetta Tamsin alive?": f"No: Benedetta Tamsin died on 9 Greenhold, year 319 {SC}.",
    "how long ago was the Poisoned Tally?": f"The Poisoned Tally took place 23 years ago: on 9 Greenhold, year 319 {SC}; {STORY}.",
    "who leads the Quiet Scale?": "Mother Quessa leads the Quiet Scale.",
    "what happened in year 319 of the Second Charter?": f"The Contested Election took place at the Counting House on 2 Coinrise, year 319 {SC}. Its outcome: The Signoria chose Casimir Vell over Ilaria Tamsin by two votes. [1] The Poisoned Tally took place at the Counting House on 9 Greenhold, year 319 {SC}. The Quiet Scale poisoned Benedetta Tamsin to silence her ledgers.",
    "who is Ilaria Tamsin's mother?": f"Ilaria Tamsin's mother was Benedetta Tamsin (died on 9 Greenhold, year 319 {SC}).",
}


@pytest.fixture
def texts() -> dict[str, str]:
    return {name: (WORLD / f"{name}.yaml").read_text(encoding="utf-8") for name in FILES}


def test_ostmere_is_answered_from_canon_for_the_gm_and_a_player(
    cli_env: DatabaseTarget, tmp_path: Path, texts: dict[str, str]
) -> None:
    cli = import_texts("ostmere", tmp_path / "ostmere", texts)
    questions = list(PLAYER_READS)
    player = ask_world(cli, tmp_path, "ostmere", questions, citations=False)
    assert player == PLAYER_READS
    gm = ask_world(cli, tmp_path, "ostmere", questions, gm=True, citations=False)
    assert gm == {**PLAYER_READS, **GM_READS}
    public = import_texts("open", tmp_path / "open", public_written(texts))
    assert ask_world(cli, tmp_path, "ostmere", questions) == ask_world(public, tmp_path, "open", questions)
