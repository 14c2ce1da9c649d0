"""The rule for free text naming a GM-only era (`canon.visibility.era_text_seen`), on the player's calendar of a
world whose Sunken Reign (SR) is the GM's: its dates read as no date, a sentence about it is left out, and a
one-word name or an abbreviation counts only with a year beside it."""

from __future__ import annotations

import pytest

from canon.calendar_seen import calendar_seen
from canon.campaign_calendar import CampaignCalendar, EraDef, MonthDef
from canon.era_mentions import era_mentions
from canon.visibility import era_text_seen
from canon.wording.dates import CalendarWords
from memory.journal import CitedTurn, Recap

ERAS = (
    EraDef(key="after_the_crowning", name="After the Crowning", abbreviations=("AC",), start=10),
    EraDef(key="sunken_reign", name="The Sunken Reign", abbreviations=("SR",), start=50),
    EraDef(key="dawn", name="The Dawn", abbreviations=("TD",), start=1, end=9),
)
WHOLE = CampaignCalendar(
    eras=ERAS, months=(MonthDef(name="Rainmoot", days=30), MonthDef(name="Max", days=30))
)
PLAYER = calendar_seen(WHOLE.model_copy(update={"eras": ERAS[:1]}), WHOLE, {"sunken_reign", "dawn"})


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("The court drowned in the 52nd year of the Sunken Reign.", "The court drowned at an unknown time."),
        (
            "Born on 3 Rainmoot, year 52 of the Sunken Reign, she grew up.",
            "Born at an unknown time, she grew up.",
        ),
        ("52 SR", "an unknown date"),
        ("sr 52", "an unknown date"),
        ("Since year 60 of the SUNKEN REIGN the bells ring.", "Since an unknown date the bells ring."),
        (
            "During the Sunken Reign the marsh rose. Marra cut reeds.",
            "At an unknown time the marsh rose. Marra cut reeds.",
        ),
        ("Marra cut reeds. The Sunken Reign ended in fire.\nShe left.", "Marra cut reeds.\nShe left."),
        (
            "In year 3 of the Dawn they rode; at the dawn they slept.",
            "At an unknown time they rode; at the dawn they slept.",
        ),
        ("The sunken reign was a dark age.", ""),
        ("sunken_reign.52", "an unknown date"),
    ],
)
def test_a_player_reads_free_text_without_a_gm_only_era(written: str, read: str) -> None:
    assert PLAYER.words().told(written) == read


@pytest.mark.parametrize(
    "written",
    [
        "The SR ruleset says a short rest is an hour.",  # an abbreviation without a year: a common word
        "At the Dawn they rode out.",  # a one-word name without a year
        "Wenna was born in year 12 of After the Crowning (12 AC).",  # an era the player may see
        "The reign sank into the marsh.",  # words of the name, not the name
    ],
)
def test_common_words_and_visible_eras_are_left_as_written(written: str) -> None:
    assert PLAYER.words().told(written) == written


def test_the_gm_and_a_campaign_without_a_hidden_era_read_text_as_written() -> None:
    text = "The court drowned in the 52nd year of the Sunken Reign."
    assert WHOLE.words().told(text) == text
    assert era_text_seen(text, None) == text
    assert era_mentions([]) is None
    assert CalendarWords().told("") == ""


def test_a_recap_tells_a_model_s_summary_without_a_gm_only_era() -> None:
    from bot.services.recap_canon import _recap_told

    recap = Recap(
        scene_id=1,
        campaign_id=1,
        story_order=1,
        title="Bells of 57 SR",
        summary="The party heard bells from the 57th year of the Sunken Reign. They rowed home.",
        method="llm",
        facts=("The Sunken Reign ended in fire.", "Marra Quill lives in Ashcrown."),
        cited=(CitedTurn(number=1, author="Pat", text="We row."),),
    )
    told = _recap_told(recap, PLAYER.words().told)
    assert told.title == "Bells of an unknown date"
    assert told.summary == "The party heard bells from an unknown date. They rowed home."
    assert told.facts == ("Marra Quill lives in Ashcrown.",)
    assert _recap_told(recap, WHOLE.words().told) == recap
