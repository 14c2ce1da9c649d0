"""The one writer of dates, for a player: a date in a GM-only era is no date, word for word as a date written
`unknown` reads, never the era's name, abbreviation or key; the GM's writer names the era. The player's calendar
(`canon.calendar_seen`) carries its hidden eras, so every date written from it is written so: a card's state and
its facts, an answer's birth and event day, a finding's sentence, a scene's header on the wiki."""

from __future__ import annotations

import dataclasses
import re

from bot.wiki.context import Reading
from bot.wiki.pages.home import scene_heading
from bot.wiki.store import JournalEntry
from canon.calendar import UNKNOWN
from canon.calendar_seen import calendar_seen
from canon.campaign_calendar import calendar_from
from canon.models import StatementKind, Validity, Viewer
from canon.wording import Wording
from canon.wording.statements import state_words, statement_words, told_words
from memory.scenes import Scene
from tests.canon.test_calendar_seen import CANON, HIDDEN, SEEN, block
from tests.helpers.canon_samples import statement

WHOLE = calendar_from(block(None), CANON)
PLAYER = calendar_seen(calendar_from(block(None), SEEN), WHOLE, HIDDEN)
GM_WORDS, PLAYER_WORDS = WHOLE.words(), PLAYER.words()
DAY = "sunken_reign.52.2.3"
LEAK = re.compile(r"sunken|\bS\.?R\b|52|hidden|secret", re.IGNORECASE)


def _dated(view: object, start: str) -> object:
    s = view.statement  # type: ignore[attr-defined]
    return view.model_copy(update={"statement": dataclasses.replace(s, validity=Validity(world_from=start))})  # type: ignore[attr-defined]


def test_a_date_in_a_gm_only_era_is_no_date_for_a_player_and_the_gm_s_in_its_words() -> None:
    assert GM_WORDS.date(DAY) == "3 Rainmoot, year 52 of the Sunken Reign"
    assert GM_WORDS.when(DAY) == "on 3 Rainmoot, year 52 of the Sunken Reign"
    said = {
        "date": PLAYER_WORDS.date(DAY),
        "when": PLAYER_WORDS.when(DAY),
        "span": PLAYER_WORDS.span(Validity(world_from=DAY)),
        "until": PLAYER_WORDS.span(Validity(world_from="after_the_crowning.12", world_until=DAY)),
        "key in a sentence": PLAYER_WORDS.in_words(f"Oswin died in {DAY}; sunken_reign.year_55 came first."),
    }
    # As `unknown` reads: nothing of the era, its key or its year.
    assert said == {
        "date": PLAYER_WORDS.date(UNKNOWN),
        "when": PLAYER_WORDS.when(UNKNOWN),
        "span": PLAYER_WORDS.span(Validity(world_from=UNKNOWN)),
        "until": "from year 12 of After the Crowning to an unknown date",
        "key in a sentence": "Oswin died at an unknown time; an unknown date came first.",
    }
    assert said["date"] == "an unknown date" and said["when"] == "at an unknown time"
    assert not PLAYER_WORDS.dated(DAY) and GM_WORDS.dated(DAY) and PLAYER_WORDS.dated("after_the_crowning.12")
    assert PLAYER_WORDS.date("after_the_crowning.12") == GM_WORDS.date("after_the_crowning.12")


def test_a_card_s_and_an_answer_s_lines_read_a_hidden_date_as_one_nobody_knows() -> None:
    player, gm = Wording(calendar=PLAYER_WORDS), Wording(calendar=GM_WORDS)
    alive = statement(1, StatementKind.STATE, "state", value="alive")
    dead = statement(2, StatementKind.STATE, "state", value="dead")
    for view in (alive, dead):
        hidden, unknown = _dated(view, DAY), _dated(view, UNKNOWN)
        for write in (state_words, told_words, statement_words):
            args = (Viewer.PLAYER,) if write is not state_words else ()
            assert write(hidden, player, *args) == write(unknown, player, *args)  # type: ignore[operator]
            assert not LEAK.search(write(hidden, player, *args))  # type: ignore[operator]
            assert "year 52 of the Sunken Reign" in write(hidden, gm, *args)  # type: ignore[operator]
    assert told_words(_dated(dead, DAY), player, Viewer.PLAYER).endswith("the date of death is not known")


def test_the_wiki_s_scene_heading_has_no_date_in_a_gm_only_era_for_a_player() -> None:
    scene = Scene.model_construct(
        id=1, story_order=4, title="Below the hill", status="completed", world_date=DAY, location="Ashcrown"
    )
    reading = Reading(
        grant=None,
        campaign=None,
        viewer=Viewer.PLAYER,
        knowing=None,
        root="",
        token="t",
        session=None,  # type: ignore[arg-type]
    )
    player = scene_heading(JournalEntry(scene, None), reading, Wording(calendar=PLAYER_WORDS))
    assert "Ashcrown" in player and not LEAK.search(player) and "unknown" not in player
    gm = scene_heading(JournalEntry(scene, None), reading, Wording(calendar=GM_WORDS))
    assert "3 Rainmoot, year 52 of the Sunken Reign · Ashcrown" in gm


def test_the_player_s_calendar_keeps_its_hidden_eras_and_never_dumps_them() -> None:
    assert PLAYER.hidden_eras == frozenset(HIDDEN) and not WHOLE.hidden_eras
    assert "hidden_eras" not in PLAYER.model_dump() and "sunken" not in str(PLAYER.model_dump(mode="json"))
