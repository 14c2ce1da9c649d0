"""/lore on Glassreach (`tests.helpers.glassreach`), a world written from the user docs alone: the questions its GM
asked, each answered by a rule any world shares; a player's answers read as those of the world without what the GM
keeps, word for word."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.glassreach import CAMPAIGN, FILES, import_glassreach
from tests.helpers.lore_worlds import ask_world, public_written

KC = "of the Kindled Count"


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_glassreach(CAMPAIGN, tmp_path / "glassreach", FILES)


def _public(tmp_path: Path, asked: list[str]) -> dict[str, str]:
    """Return a player's answers in the world written without its lines the GM keeps."""
    folder = tmp_path / "open"
    folder.mkdir()
    plain = import_glassreach("glassreach-open", folder / "glassreach", public_written(FILES))
    return ask_world(plain, folder, "glassreach-open", asked)


def test_who_holds_a_thing_now_whatever_its_name_says(cli: CliRunner, tmp_path: Path) -> None:
    """ "First" of "the Lamp of First Dawn" names it: it asks no first holder; "now", "these days", "currently"
    ask who holds it today."""
    asked = [
        "who has the Lamp of First Dawn now?",
        "who has the lamp of first dawn these days",
        "who currently has the lamp of first dawn",
        "who had the lamp of first dawn first",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    now = (
        f"Cole Holt has the Lamp of First Dawn (since 1 Rime, year 301 {KC}); before, Bran Holt had the Lamp of "
        f"First Dawn (from year 270 to 300 {KC})."
    )
    assert said == {
        asked[0]: now,
        asked[1]: now,
        asked[2]: now,
        asked[3]: f"Edda Holm had the Lamp of First Dawn first (from year 110 to 140 {KC}).",
    }
    player = ask_world(cli, tmp_path, CAMPAIGN, asked)
    assert player == _public(tmp_path, asked)
    assert "Osk" not in " ".join(player.values())


def test_a_guilds_masters_before_one_named_whatever_its_apostrophe(cli: CliRunner, tmp_path: Path) -> None:
    """The Glassmakers' Guild's Wardens are titles on its people; its founder Edda Holm is no member of it: its
    name's apostrophe, typed or not, finds every title naming it."""
    asked = [
        "who led the glassmakers guild before tam reed",
        "who led the Glassmakers' Guild before Tam Reed?",
        "who led the glassmakers guild in 120",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    edda = f"Edda Holm was Warden of the Glassmakers' Guild (from year 110 to 140 {KC})"
    assert said == {
        asked[0]: f"Before Tam Reed, {edda}.",
        asked[1]: f"Before Tam Reed, {edda}.",
        asked[2]: f"In year 120, {edda}.",
    }


def test_what_happened_at_a_place_says_what_each_event_was(cli: CliRunner, tmp_path: Path) -> None:
    """What happened at a place (in a year) is each event there on its day, then what it was; a year with no event
    there is a year nothing is known of."""
    asked = [
        "what happened at ember hall in 285",
        "what happened at ember hall",
        "what happened at ember hall in 290",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    fall = (
        f"The Kiln Fall took place at Ember Hall on 14 Reap, year 285 {KC}. The kiln roof fell during a firing and "
        "killed six glassmakers."
    )
    assert said == {
        asked[0]: fall,
        asked[1]: fall,
        asked[2]: "Nothing the table knows says what happened at Ember Hall in year 290.",
    }


def test_a_wedding_is_said_where_it_took_place_never_as_a_place(cli: CliRunner, tmp_path: Path) -> None:
    """The Wedding of Cole and Neve took place at Highfold: the marriage is at Highfold, the wedding named after it.
    The Wedding of Bran and Mave took place where only the GM knows: a player reads it as of a wedding placed
    nowhere."""
    asked = ["when did neve holt get married", "when did mave holt marry"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]] == (
        f"Neve Holt married Cole Holt on 5 Bloom, year 305 {KC}, at Highfold (the Wedding of Cole and Neve)."
    )
    assert (
        said[asked[1]]
        == f"Mave Holt married Bran Holt on 4 Reap, year 285 {KC}, at the Wedding of Bran and Mave."
    )
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[1:], gm=True, citations=False)
    assert gm[asked[1]] == (
        f"Mave Holt married Bran Holt on 4 Reap, year 285 {KC}, at Grey Mere (the Wedding of Bran and Mave)."
    )
    player = ask_world(cli, tmp_path, CAMPAIGN, asked)
    assert player == _public(tmp_path, asked)


def test_what_a_thing_is_worth_is_its_price_in_the_bible(cli: CliRunner, tmp_path: Path) -> None:
    """The shard is named only inside the bible's Market section: "how much is X worth" asks its price, which the
    sentence naming it says in silver; a thing no sentence prices is one nothing is known of, in plain words."""
    asked = ["how much is a shard worth", "what's a shard worth?", "how much is a boat worth"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    money = "Money is the shard, a chip of blue glass; a hundred shards make one bar of silver."
    assert said == {
        asked[0]: money,
        asked[1]: money,
        asked[2]: "Nothing the table knows says how much a boat is worth.",
    }


def test_what_a_table_types_after_its_question_asks_nothing(cli: CliRunner, tmp_path: Path) -> None:
    """ "my pc wants to find him" after the question mark is the table talking: the question before it is
    answered, as asked by an alias; a second question after the first is still asked."""
    asked = [
        "is wynn the wanderer still alive? my pc wants to find him",
        "is wynn the wanderer still alive?",
        "who has the lamp of first dawn now? and where was he born",
    ]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    missing = "Nothing the table knows says whether Wynn Holt is alive; he is missing."
    assert said[asked[0]] == missing
    assert said[asked[1]] == missing
    assert said[asked[2]].startswith("Cole Holt has the Lamp of First Dawn"), said
    assert "born" in said[asked[2]], said  # the second question is asked, not dropped as talk


def test_a_treatys_terms_kept_for_the_gm_read_to_a_player_as_its_outcome(
    cli: CliRunner, tmp_path: Path
) -> None:
    """The Pact of Greymere's terms are the GM's: a player asking them reads what is known of what it settled, its
    outcome, as of a pact whose terms were never written; the GM reads the terms."""
    asked = ["what were the terms of the pact of greymere"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]] == (
        "The outcome of the Pact of Greymere was peace between the Holts and the Marrows, the mere's fish shared half "
        "and half."
    )
    assert ask_world(cli, tmp_path, CAMPAIGN, asked) == _public(tmp_path, asked)
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True, citations=False)
    assert gm[asked[0]] == (
        "Under the Pact of Greymere, the fish are shared; and should a Holt die leaving a child heir, a Marrow shall "
        "sit as steward."
    )


def test_two_who_adopted_a_child_on_one_day_are_said_with_that_day_once(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = ["was pip sorrel adopted", "who adopted pip sorrel"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    adopted = f"Pip Sorrel was adopted by Cole Holt and Neve Holt on 3 Thaw, year 318 {KC}."
    assert said == {asked[0]: f"Yes: {adopted}", asked[1]: adopted}


def test_a_sub_era_lies_within_its_parent(cli: CliRunner, tmp_path: Path) -> None:
    """The Grey Stewardship (the GM's) lies within the Kindled Count: it follows no era, and none follows it; a
    player has no such era."""
    asked = ["what was the grey stewardship", "what is the kindled count"]
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True, citations=False)
    assert gm == {
        asked[0]: (
            "The Grey Stewardship (GS) is an era of the calendar, from year 300 to year 310, within the Kindled Count. "
            "The years when Osk Marrow ruled the Reach from behind the steward's chair."
        ),
        asked[
            1
        ]: "The Kindled Count (KC) is an era of the calendar, from year 100 on; it followed the Age of Ash.",
    }
    assert "Grey Stewardship" not in " ".join(ask_world(cli, tmp_path, CAMPAIGN, asked).values())


def test_how_someone_really_died_the_gm_reads_the_truth_and_a_player_the_story(
    cli: CliRunner, tmp_path: Path
) -> None:
    """Bran Holt's cause of death is typed: it is read before his description's telling; the GM reads the true
    cause, who did it and what players are told; a player reads the story told, as if the truth were never
    written, "really" or not."""
    asked = ["how did bran holt really die?", "how did bran holt die"]
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[:1], gm=True, citations=False)[asked[0]]
    assert gm.startswith(
        "Osk Marrow killed Bran Holt; Bran Holt's cause of death was held under the water"
    ), gm
    assert (
        "Players are told Bran Holt's cause of death was drowned when his boat overturned on the Grey Mere."
        in gm
    )
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    for answer in player.values():
        assert answer.startswith(
            "Bran Holt drowned when his boat overturned on the Grey Mere; he died on 9 Bloom"
        ), player
        assert "Osk" not in answer and "held under" not in answer, player
    assert ask_world(cli, tmp_path, CAMPAIGN, asked) == _public(tmp_path, asked)


def test_the_import_report_says_the_calendar_file_is_a_calendar(
    cli_env: DatabaseTarget, tmp_path: Path
) -> None:
    from bot.cli.main import app

    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    folder = tmp_path / "files"
    folder.mkdir()
    paths = []
    for name in ("calendar", "chronicle", "places", "folk", "guild", "holts"):
        (folder / f"{name}.yaml").write_text(FILES[name].lstrip(), encoding="utf-8")
        paths.append(str(folder / f"{name}.yaml"))
    said = " ".join(runner.invoke(app, ["ingest", *paths, "-c", CAMPAIGN]).output.split())
    assert "calendar.yaml (calendar): " in said and "chronicle.yaml (timeline): " in said, said


def test_how_someone_died_and_who_did_it_is_one_answer(cli: CliRunner, tmp_path: Path) -> None:
    """ "how did X die, and who did it" asks of one death: how and when in one sentence, the name said once, then
    that nothing names a killer for a player (as of a world that never named one); the GM reads who did it."""
    asked = ["how did bran holt die, and who did it?"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]] == (
        f"Bran Holt drowned when his boat overturned on the Grey Mere; he died on 9 Bloom, year 300 {KC}. Nothing "
        "the table knows names anyone who killed Bran Holt."
    )
    assert ask_world(cli, tmp_path, CAMPAIGN, asked) == _public(tmp_path, asked)
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked, gm=True, citations=False)[asked[0]]
    assert gm.startswith(
        "Osk Marrow killed Bran Holt; Bran Holt's cause of death was held under the water"
    ), gm
    assert "Nothing the table knows names" not in gm


def test_several_spouses_are_said_in_the_order_they_married(cli: CliRunner, tmp_path: Path) -> None:
    """Bran Holt's file lists Mave before Lida; he married Lida first (270) and Mave after (285)."""
    asked = ["who was bran holt married to", "who did bran holt marry"]
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    turns = f"twice: first to Lida Holt, in year 270 {KC}, then to Mave Holt, on 4 Reap, year 285 {KC}."
    assert said == {
        asked[0]: f"Bran Holt was married {turns}",
        asked[1]: f"Bran Holt married {turns.replace('to ', '')}",
    }


def test_what_happened_in_a_year_says_what_each_event_was(cli: CliRunner, tmp_path: Path) -> None:
    """What happened in a year of few events is each on its day, then what it was (its description's first
    sentence); a player reads the year as if the GM's event and the GM's description of the wedding were never
    written. An era of many events lists them, each on its day, and no more."""
    asked = [
        "what happened in 285",
        "what happened in the year 285",
        "what happened during the kindled count",
    ]
    wedding = f"The Wedding of Bran and Mave took place on 4 Reap, year 285 {KC}."
    fall = (
        f"The Kiln Fall took place at Ember Hall on 14 Reap, year 285 {KC}. The kiln roof fell during a firing and "
        "killed six glassmakers."
    )
    said = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert said[asked[0]] == said[asked[1]] == f"{wedding} [1] {fall}"
    era = said[asked[2]]
    assert era.startswith(wedding) and "took place at Highfold on 20 Reap, year 290" in era, era
    assert "The kiln roof fell" not in era and "great hall" not in era, era
    player = ask_world(cli, tmp_path, CAMPAIGN, asked)
    assert player == _public(tmp_path, asked)
    assert not any("Hiring" in a or "boat" in a for a in player.values()), player
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[:1], gm=True, citations=False)
    assert gm[asked[0]] == (
        f"The Wedding of Bran and Mave took place at Grey Mere on 4 Reap, year 285 {KC}. Bran Holt wed Mave Sorrel "
        f"on a boat on the mere. [1] {fall} [2] The Hiring of the Blade took place at Grey Mere on 1 Rime, year 285 "
        f"{KC}. Osk Marrow paid a blade to wait by the Grey Mere."
    )


def test_a_missing_person_is_said_by_the_sex_canon_gives(cli: CliRunner, tmp_path: Path) -> None:
    """Whether one missing is alive nobody knows: said "he" or "she" by their sex, "they" when a player may not
    read it (Ilse Fairweather's the GM keeps), as of a file that never gave one."""
    asked = ["is wynn holt dead", "is ilse fairweather alive?"]
    unknown = "Nothing the table knows says whether {} is alive; {} missing."
    player = ask_world(cli, tmp_path, CAMPAIGN, asked, citations=False)
    assert player == {
        asked[0]: unknown.format("Wynn Holt", "he is"),
        asked[1]: unknown.format("Ilse Fairweather", "they are"),
    }
    assert ask_world(cli, tmp_path, CAMPAIGN, asked) == _public(tmp_path, asked)
    gm = ask_world(cli, tmp_path, CAMPAIGN, asked[1:], gm=True, citations=False)
    assert gm[asked[1]] == unknown.format("Ilse Fairweather", "she is")
