"""The calendar a player reads: a GM-only era left out even where the GM's block names it, and a today in one
no date for them."""

from __future__ import annotations

from typing import Any

from canon.calendar import WorldDate
from canon.calendar_seen import calendar_seen, story_date_seen
from canon.campaign_calendar import calendar_from
from canon.date_reading import present, read_date

CANON = {
    "dawn_reckoning": ("The Dawn Reckoning", 1, 9, ("DR",)),
    "after_the_crowning": ("After the Crowning", 10, None, ("AC",)),
    "sunken_reign": ("The Sunken Reign", 50, None, ("SR",)),  # GM-only
}
SEEN = {k: v for k, v in CANON.items() if k != "sunken_reign"}
HIDDEN = {"sunken_reign"}


def block(today: str | None, *, naming_the_hidden: bool = True) -> dict[str, Any]:
    eras = [{"name": "After the Crowning", "abbreviation": "A.C."}]
    if naming_the_hidden:
        eras.append({"name": "The Sunken Reign", "abbreviation": "S.R."})
    return {"eras": eras, "months": ["Emberly", "Rainmoot"], **({"today": today} if today else {})}


def player(today: str | None, *, naming_the_hidden: bool = True) -> tuple[Any, Any]:
    typed = block(today, naming_the_hidden=naming_the_hidden)
    whole = calendar_from(typed, CANON)
    return calendar_seen(calendar_from(typed, SEEN), whole, HIDDEN), whole


def test_a_gm_only_era_the_block_names_is_no_era_of_the_player_s_calendar() -> None:
    seen, whole = player(None)
    assert [e.key for e in whole.eras] == ["dawn_reckoning", "after_the_crowning", "sunken_reign"]
    assert [e.key for e in seen.eras] == ["dawn_reckoning", "after_the_crowning"]
    said = seen.describe()
    assert "Sunken" not in said and "SR" not in said and "S.R." not in said
    assert read_date("year 55 of the Sunken Reign", seen).date is None
    assert read_date("55 S.R.", seen).date is None


def test_a_today_in_a_gm_only_era_is_no_date_for_a_player() -> None:
    for naming in (True, False):
        seen, whole = player("3 Emberly, year 60 of the Sunken Reign", naming_the_hidden=naming)
        assert present(whole) == WorldDate(era="sunken_reign", year=60, month=1, day=3)
        # Word for word the calendar of a campaign whose GM set no today.
        assert seen.today is None and present(seen) is None
        assert seen == player(None, naming_the_hidden=naming)[0]
        assert "Today" not in seen.describe() and "Sunken" not in seen.describe()


def test_a_today_by_its_year_alone_is_a_player_s_only_where_it_is_the_gm_s() -> None:
    # "60" reads as year 60 After the Crowning on a calendar without the Sunken Reign, but the GM's calendar places
    # it in two eras: not the GM's date, so none. "20" is After the Crowning's on both: the player's too.
    def seen(today: str) -> Any:
        return calendar_seen(
            calendar_from({"today": today}, SEEN), calendar_from({"today": today}, CANON), HIDDEN
        )

    assert read_date("60", calendar_from({}, SEEN)).date == WorldDate(era="after_the_crowning", year=60)
    assert seen("60").today is None
    assert present(seen("20")) == WorldDate(era="after_the_crowning", year=20)


def test_a_today_in_an_era_the_player_may_see_stays() -> None:
    seen, _ = player("3 Emberly, year 20 of After the Crowning")
    assert seen.today == "3 Emberly, year 20 of After the Crowning"
    assert present(seen) == WorldDate(era="after_the_crowning", year=20, month=1, day=3)
    assert "Today is 3 Emberly, year 20 of After the Crowning." in seen.describe()


def test_the_story_s_date_in_a_gm_only_era_is_no_date_for_a_player() -> None:
    whole = calendar_from(block("3 Emberly, year 20 of After the Crowning"), CANON)
    # A later scene in the hidden era is the story's date: the player reads none, never the earlier today.
    assert story_date_seen("sunken_reign.60.1.3", whole, HIDDEN) is None
    assert story_date_seen("sunken_reign.60.1.3", whole, ()) == "sunken_reign.60.1.3"
    # An earlier scene (a flashback) leaves the story at today, which the player may read.
    assert story_date_seen("after_the_crowning.15", whole, HIDDEN) == str(present(whole))
    hidden_today = calendar_from(block("3 Emberly, year 60 of the Sunken Reign"), CANON)
    assert story_date_seen("after_the_crowning.15", hidden_today, HIDDEN) is None
    assert story_date_seen(None, calendar_from(block(None), CANON), HIDDEN) is None
