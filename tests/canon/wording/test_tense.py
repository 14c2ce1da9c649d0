"""A card read in tense (`canon.wording.tense`): a tie or title over at the card's point reads in the past, one that
holds reads in the present, and an end in an era hidden from the reader is no end, so a player's card never hints
at it by its tense."""

from __future__ import annotations

import dataclasses

from canon.models import StatementKind, StatementView, Validity, Viewer
from canon.wording import Wording
from canon.wording.statements import statement_sentence, statement_words
from canon.wording.tense import in_past
from tests.canon.wording.test_hidden_era_dates import GM_WORDS as GM_CALENDAR
from tests.canon.wording.test_hidden_era_dates import PLAYER_WORDS as PLAYER_CALENDAR
from tests.helpers.canon_samples import ref, statement

GM_WORDS, PLAYER_WORDS = Wording(calendar=GM_CALENDAR), Wording(calendar=PLAYER_CALENDAR)
KEY_FROM, KEY_UNTIL = 100000, 120000  # years 10 and 12 (After the Crowning)


def _ally(until: str, until_key: int) -> StatementView:
    view = statement(7, StatementKind.RELATION, "ALLY_OF", obj=ref(2, "Hale Brun"))
    span = Validity(
        world_from="after_the_crowning.10",
        world_from_key=KEY_FROM,
        world_until=until,
        world_until_key=until_key,
    )
    return view.model_copy(update={"statement": dataclasses.replace(view.statement, validity=span)})


def test_a_tie_over_at_the_card_s_point_reads_in_the_past_and_one_that_holds_in_the_present() -> None:
    tie = _ally("after_the_crowning.12", KEY_UNTIL)
    later = dataclasses.replace(GM_WORDS, tensed=True, now_key=150000)
    during = dataclasses.replace(GM_WORDS, tensed=True, now_key=110000)
    assert statement_sentence(tie, later) == "Mara was an ally of Hale Brun"
    assert statement_words(tie, during, Viewer.GM, evidence=False).startswith(
        "Mara is an ally of Hale Brun ("
    )
    assert statement_sentence(tie, GM_WORDS) == "Mara is an ally of Hale Brun"  # an answer's words: untensed
    # No story date known: a span with an end is over.
    assert (
        statement_sentence(tie, dataclasses.replace(GM_WORDS, tensed=True)) == "Mara was an ally of Hale Brun"
    )


def test_an_end_in_an_era_hidden_from_the_player_is_no_end_to_them() -> None:
    tie = _ally("sunken_reign.52", 520000)
    assert statement_sentence(tie, dataclasses.replace(GM_WORDS, tensed=True, now_key=600000)).startswith(
        "Mara was"
    )
    player = statement_sentence(tie, dataclasses.replace(PLAYER_WORDS, tensed=True, now_key=600000))
    assert player == "Mara is an ally of Hale Brun", player


def test_a_sentence_s_first_verb_goes_into_the_past() -> None:
    said = {
        "Idra Venn leads the Lamplighters": "Idra Venn led the Lamplighters",
        "Idra Venn has the Osk Lamp": "Idra Venn had the Osk Lamp",
        "Idra Venn carries the Bell": "Idra Venn carried the Bell",
        "Idra Venn rules Harl": "Idra Venn ruled Harl",
        "Idra Venn is High Steward": "Idra Venn was High Steward",
        "Idra Venn": "Idra Venn",  # nothing after the name: as it is
        "The Bellwardens have the Bell": "The Bellwardens had the Bell",
    }
    for present, past in said.items():
        subject = "The Bellwardens" if present.startswith("The") else "Idra Venn"
        assert in_past(present, subject) == past, present
    assert in_past("Hale Brun is an ally of Idra Venn", "Idra Venn") == "Hale Brun is an ally of Idra Venn"
