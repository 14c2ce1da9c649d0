"""/lore on a second world of our own (tests/fixtures/emberwake: the calendar set before the import, references
written as names, ids left to the names), asked as new players ask: lives whose dates nobody knows, statuses
given in a family tree, titles and nicknames as names, where a prisoner is held, how someone died, two-step and
yes/no questions. On SQLite, then PostgreSQL. What is GM-only reads to a player exactly as what nobody knows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from canon.structured import files
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import asker, import_world
from tests.helpers.paths import REPO

WORLD = REPO / "tests" / "fixtures" / "emberwake"
CAMPAIGN = "emberwake"
FILES = ("isles", "house_dray", "cast", "powers", "chronicle")


@pytest.fixture
def cli(cli_env: DatabaseTarget) -> CliRunner:
    """A runner on the test's database with the calendar set, then the Emberwake world imported."""
    return import_world(CAMPAIGN, WORLD, FILES, "reckoning.yaml", calendar_first=True)


ask = asker(CAMPAIGN)


#: Question -> its whole answer (citation aside), as a player asks.
LIVES = {
    # `died: unknown` is a death whose day nobody knows: never "alive".
    "is osric alive": "No: Osric Dray is dead; the date of death is not known.",
    "is osric dead": "Yes: Osric Dray is dead; the date of death is not known.",
    "when did osric die": "Osric Dray is dead; the date of death is not known.",
    "when was osric born": "Osric Dray was born on 4 Thawmoon, year 700 of the Ashen Reckoning.",
    # `born: unknown`.
    "when was hild born": "Hild Dray's date of birth is not known.",
    "when was corwen born": "Corwen Dray's date of birth is not known.",
    "when did hild die": (
        "Hild Dray died on 1 Highsun, year 760 of the Ashen Reckoning, in the Sinking of the Tallow Barge."
    ),
    # `status:` in a family tree, and a status with no dates.
    "is fennick alive": "Yes: Fennick Dray is imprisoned (born in year 744 of the Ashen Reckoning).",
    "is corwen alive": "Nothing the table knows says whether Corwen Dray is alive; they are missing.",
    "is dunmore alive": "No: Dunmore Pike is dead.",
    # Where a prisoner is held, from the description; a prisoner nobody places.
    "where is fennick held": "Fennick Dray is imprisoned, kept in the Glass Gaol for plotting against her.",
    "where is sefa imprisoned": "Sefa Orrow is imprisoned, held in the Glass Gaol since the Ember Revolt.",
    "where is Sefa Orrow kept?": "Sefa Orrow is imprisoned, held in the Glass Gaol since the Ember Revolt.",
    "where is corwen held": "Corwen Dray is missing; nothing the table knows says where.",
    # How someone died, when only the description says it (and the day when canon has one).
    "how did dunmore die": "Dunmore Pike drowned in the Weeping Sound during the autumn gales.",
    "how did hild die": (
        "Hild Dray drowned when her barge overturned in the Weeping Sound; Hild Dray died on 1 Highsun, "
        "year 760 of the Ashen Reckoning, in the Sinking of the Tallow Barge."
    ),
    "how did osric die": (
        "Nothing the table knows says how Osric Dray died; Osric Dray is dead; the date of death is not known."
    ),
    # Where a death was: the description's place, the event of its day; or that nothing says where.
    "where did dunmore die": "Dunmore Pike drowned in the Weeping Sound during the autumn gales.",
    "where did osric die": "Osric Dray is dead; the date of death is not known; nothing the table knows says where.",
}


#: Titles and nicknames asked as names; yes/no about taking part and ties, "Yes" only when canon holds it.
NAMES_AND_DEEDS = {
    # The description names the title: said once, with its article.
    "who is the ember queen": "Maren Dray is the Ember Queen, who rules the isles from Kestrel Keep.",
    "whos the master of lanterns": (
        "Quell Amberly is Master of Lanterns, the patient old master of the Lantern Guild."
    ),
    "whos the grey wren": (
        "Sefa Orrow, called the Grey Wren, is a smuggler poet, held in the Glass Gaol since the Ember Revolt. "
        "Sefa Orrow is imprisoned (born in year 748 of the Ashen Reckoning)."
    ),
    "who's the ash fox": (
        "Harrak Voss, called the Ash Fox, is a scarred corsair captain who burned the tithe ships. Harrak Voss "
        "leads the Ash Brotherhood. Harrak Voss is alive, born in year 720 of the Ashen Reckoning, and lives in "
        "Port Ashby."
    ),
    "whos the warden": (
        "Osric Dray is a grim old warden who kept the Cinder Gate for forty years. Osric Dray was Warden of the "
        "Cinder Gate. Osric Dray is dead; the date of death is not known."
    ),
    "who is the ember queen married to": "Maren Dray is married to Quell Amberly.",
    "where did the ember queen's husband die": (
        "Maren Dray, the Ember Queen, is married to Quell Amberly; nothing the table knows says Quell Amberly died; "
        "Quell Amberly is alive, born in year 715 of the Ashen Reckoning."
    ),
    "where is the grey wren held": "Sefa Orrow is imprisoned, held in the Glass Gaol since the Ember Revolt.",
    "did harrak fight at cindershoal": "Yes: Harrak Voss took part in the Battle of Cindershoal, at Cindershoal.",
    "was harrak at the battle of cindershoal": (
        "Yes: Harrak Voss took part in the Battle of Cindershoal on 12 Highsun, year 768 of the Ashen Reckoning."
    ),
    "was ilin at the battle of cindershoal": (
        "Nothing the table knows says Ilin Sarr took part in the Battle of Cindershoal; canon names Harrak Voss, "
        "Osric Dray, the Ember Crown and the Ash Brotherhood as taking part."
    ),
    "did ilin fight at cindershoal": (
        "Nothing the table knows says Ilin Sarr took part in the Battle of Cindershoal, which took place at "
        "Cindershoal."
    ),
    "is maren married to quell": "Yes: Maren Dray is married to Quell Amberly.",
    # A deed nobody is said to have done: never "leads the Ember Crown" read from "crowned".
    "who crowned maren dray": "Nothing the table knows says who crowned maren dray.",
    "is maren married to harrak": (
        "Nothing the table knows says Maren Dray is married to Harrak Voss; canon says Maren Dray is married "
        "to Quell Amberly."
    ),
}


def test_titles_nicknames_and_deeds_are_answered_from_canon(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(NAMES_AND_DEEDS))
    assert {q: a for q, a in answers.items() if a != NAMES_AND_DEEDS[q]} == {}
    assert not any(a.startswith("No:") for a in answers.values())


def test_lives_are_told_as_canon_says_them(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(LIVES))
    assert {q: a for q, a in answers.items() if a != LIVES[q]} == {}


def test_who_is_says_a_death_nobody_can_date(cli: CliRunner, tmp_path: Path) -> None:
    (osric,) = ask(cli, tmp_path, ["who is osric"]).values()
    assert osric.endswith(
        "Osric Dray was Warden of the Cinder Gate. Osric Dray is dead; the date of death is not known."
    )
    assert "alive" not in osric


def test_importing_the_same_world_again_writes_nothing(cli: CliRunner, tmp_path: Path) -> None:
    again = cli.invoke(
        app, ["ingest", *[str(WORLD / f"{n}.yaml") for n in FILES], "-c", CAMPAIGN, "--replace"]
    )
    assert again.exit_code == 0, again.output
    assert "nothing written" in again.output
    assert ask(cli, tmp_path, ["is osric alive"]) == {"is osric alive": LIVES["is osric alive"]}


def test_a_misspelt_status_in_a_family_tree_is_refused_with_its_line(cli: CliRunner, tmp_path: Path) -> None:
    tree = tmp_path / "misspelt.yaml"
    tree.write_text(
        "lineage: pike\nmembers:\n  - name: Orla Pike\n    born: unknown\n    stauts: dead\n",
        encoding="utf-8",
    )
    result = cli.invoke(app, ["ingest", str(tree), "-c", CAMPAIGN])
    assert 'line 5, column 5: unknown field "stauts" (did you mean "status"?)' in result.output
    tree.write_text("lineage: pike\nmembers:\n  - name: Orla Pike\n    status: asleep\n", encoding="utf-8")
    result = cli.invoke(app, ["ingest", str(tree), "-c", CAMPAIGN])
    assert "line 4, column 13:" in result.output and "one of: alive, wounded, missing" in result.output


#: Two-step questions: the inner part first, both steps said in one answer.
TWO_STEPS = {
    "who leads the faction ilin belongs to": (
        "Ilin Sarr is a member of the Lantern Guild; Quell Amberly leads the Lantern Guild."
    ),
    "who leads ilin's faction": "Ilin Sarr is a member of the Lantern Guild; Quell Amberly leads the Lantern Guild.",
    "where did the ember queen's mother die": (
        "Maren Dray is the Ember Queen; Maren Dray's parents are Osric Dray and Hild Dray (canon does not say which "
        "is the mother). Osric Dray is dead; the date of death is not known; nothing the table knows says where. "
        "Hild Dray drowned when her barge overturned in the Weeping Sound. Hild Dray died on 1 Highsun, year 760 "
        "of the Ashen Reckoning, in the Sinking of the Tallow Barge."
    ),
    "is the ember queen's husband alive": (
        "Yes: Maren Dray, the Ember Queen, is married to Quell Amberly; Quell Amberly is alive, born in "
        "year 715 of the Ashen Reckoning."
    ),
    "who are osric's children": "Osric Dray's children are Corwen Dray, Fennick Dray and Maren Dray.",
}


def test_two_step_questions_resolve_the_inner_part_first(cli: CliRunner, tmp_path: Path) -> None:
    answers = ask(cli, tmp_path, list(TWO_STEPS))
    assert {q: a for q, a in answers.items() if a != TWO_STEPS[q]} == {}


#: A question about something GM-only, beside the same question about something nobody knows (or about someone
#: canon gives no such tie): a player reads both alike, word for word but the names.
HIDDEN_AND_UNKNOWN = [
    ("who is ysa", "who is yorla"),
    ("is ysa alive", "is yorla alive"),
    ("how did ysa die", "how did yorla die"),
    ("who is the pale hand", "who is the pale foot"),
    ("whos the voice of the choir", "whos the voice of the deep"),
    ("where is nim held", "where is zorn held"),
    ("was vesk at the choir's bargain", "was vesk at the choir's feast"),
    ("who leads the hollow choir", "who leads the hollow chapel"),
    ("who leads the faction vesk belongs to", "who leads the faction sefa belongs to"),
    ("who leads vesk's faction", "who leads sefa's faction"),
]


def test_gm_only_canon_reads_to_a_player_as_what_nobody_knows(cli: CliRunner, tmp_path: Path) -> None:
    questions = [q for pair in HIDDEN_AND_UNKNOWN for q in pair]
    player = ask(cli, tmp_path, questions)

    def alike(text: str, names: tuple[str, ...]) -> str:
        for name in names:
            text = text.replace(name, "X")
        return text

    for hidden, nobody in HIDDEN_AND_UNKNOWN:
        names = tuple(
            w
            for w in (*hidden.split(), *nobody.split())
            if w not in nobody.split() or w not in hidden.split()
        )
        assert alike(player[hidden], names) == alike(player[nobody], names), (hidden, player[hidden])
    children = ask(cli, tmp_path, ["who are osric's children"])
    assert "Ysa" not in children["who are osric's children"]
    gm = ask(cli, tmp_path, [*questions, "who are osric's children"], gm=True)
    assert gm["is ysa alive"] == "No: Ysa Dray is dead (born in year 750 of the Ashen Reckoning)."
    assert gm["who leads the faction vesk belongs to"] == (
        "Vesk Morrow is a member of the Hollow Choir; Nim the Pale leads the Hollow Choir."
    )
    assert gm["whos the voice of the choir"].startswith("Nim the Pale is Voice of the Choir, a masked singer")
    assert gm["where is nim held"] == "Nim the Pale is imprisoned, chained in the Glass Gaol."
    assert gm["was vesk at the choir's bargain"].startswith(
        "Yes: Vesk Morrow took part in the Choir's Bargain"
    )
    assert "Ysa Dray" in gm["who are osric's children"]


def test_the_card_of_a_death_nobody_can_date_says_dead_and_the_date_unknown(cli: CliRunner) -> None:
    card = cli.invoke(app, ["canon", "entity", "Osric Dray", "-c", CAMPAIGN, "--as", "player"])
    assert card.exit_code == 0, card.output
    assert "State: Osric Dray is dead (the date is not known)" in card.output
    # As of a day before anyone can say he died, his birth is what canon dates.
    then = cli.invoke(
        app, ["canon", "entity", "Osric Dray", "-c", CAMPAIGN, "--as-of", "year 720 of the Ashen Reckoning"]
    )
    assert "State: Osric Dray is alive (since 4 Thawmoon, year 700 of the Ashen Reckoning)" in then.output
    hild = cli.invoke(app, ["canon", "entity", "Hild Dray", "-c", CAMPAIGN])
    assert "State: Hild Dray is dead (since 1 Highsun, year 760 of the Ashen Reckoning)" in hild.output


def test_a_world_imported_under_an_older_reading_is_read_again_writing_only_the_difference(
    cli_env: DatabaseTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    runner.invoke(app, ["canon", "calendar", "-c", CAMPAIGN, "--set", str(WORLD / "reckoning.yaml")])
    paths = [str(WORLD / f"{n}.yaml") for n in FILES]
    with monkeypatch.context() as older:
        older.setattr(files, "READING", b"")
        assert runner.invoke(app, ["ingest", *paths, "-c", CAMPAIGN]).exit_code == 0
    again = runner.invoke(app, ["ingest", *paths, "-c", CAMPAIGN])
    assert again.exit_code == 0, again.output
    # Read again (the reading is not the one the files were imported under), and every fact found the same.
    assert "changed since it was imported" in again.output
    assert re.search(
        r"In all: (\d+) entities \(\1 unchanged\) and (\d+) facts \(\2 unchanged\)", again.output
    )
