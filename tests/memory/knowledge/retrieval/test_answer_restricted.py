"""Yes or no read from a rule's limit ("can't ... unless", "only with", "no more than two"), in a harbour game's
book laid out unlike the SRD."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.retrieval.answer_restricted import limit_of, restricted
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

HARBOUR = """# Harbour Rules

## Towing

A sloop can tow no more than two barges at a time. Towing halves the sloop's speed.

## The Lighthouse Keeper

The keeper can't be bribed unless the harbour bell has rung. The keeper trims the lamp at dusk.

## Hull Rot

Rot can be scraped out only with a tar knife or a hot iron. Scraping takes an hour for each plank.

## Storm Charms

A storm charm can't calm a gale of 8 knots or more. Charms are sold by the harbour witch.

## Ward Stones

Wardens make ward stones from river flint. A ward stone fades after a week. You can create a permanent ward
stone by burying it under a lighthouse for one winter.

## Crew Morale

The crew's morale is noted on the ship's sheet. A crew's morale equals 10 + the captain's Charisma modifier.
"""


@pytest.mark.parametrize(
    ("question", "sentence", "expected"),
    [
        # An allowance: within it yes, beyond it no.
        ("can my sloop tow three barges", "A sloop can tow no more than two barges at a time.", "No"),
        ("could a sloop tow 2 barges?", "A sloop can tow no more than two barges at a time.", "Yes"),
        ("may I carry four lanterns?", "You can carry up to four lanterns.", "Yes"),
        ("is a 3 foot rope enough?", "A climb needs at least 10 feet of rope.", "No"),  # "foot" is "feet"
        (
            "is a 3 foot rope enough?",
            "A climb needs at least two helpers.",
            None,
        ),  # an amount of another unit
        # A range the rule speaks of: within it the rule's own word, beyond it the opposite.
        ("will a charm calm a gale of 12 knots", "A storm charm can't calm a gale of 8 knots or more.", "No"),
        ("will a charm calm a gale of 5 knots", "A storm charm can't calm a gale of 8 knots or more.", "Yes"),
        (
            "can a 2nd-level spell affect the golem",
            "The golem can't be affected by spells of 3rd level or lower.",
            "No",
        ),
        (
            "can a 5th-level spell affect the golem",
            "The golem can't be affected by spells of 3rd level or lower.",
            "Yes",
        ),
        # An exception met, or not.
        ("can I bribe the keeper", "The keeper can't be bribed unless the harbour bell has rung.", "No"),
        (
            "can I bribe the keeper once the bell has rung",
            "The keeper can't be bribed unless the bell has rung.",
            "Yes",
        ),
        (
            "can rot be scraped with a spoon",
            "Rot can be scraped out only with a tar knife or a hot iron.",
            "No",
        ),
        (
            "can I scrape rot with a hot iron",
            "Rot can be scraped out only with a tar knife or a hot iron.",
            "Yes",
        ),
        ("do ghosts cross running water", "Ghosts cross water freely unless it is running water.", "No"),
        # "Only" of a manner, or of a condition the question does not offer an alternative to: no verdict.
        ("can a dazed sailor talk", "A dazed sailor can speak only in whispers.", None),
        ("can I sail at night", "You can sail only when the moon is up.", None),
        # The exception's head word must be said: "with a knife" is not "with a tar knife ... " alone.
        ("can I scrape rot with my spoon and a knife", "Rot can be scraped out only with tar.", "No"),
        # No limit: not this module's.
        ("can the keeper swim", "The keeper swims well.", None),
    ],
)
def test_a_limiting_sentence_answers_yes_or_no_by_its_limit(
    question: str, sentence: str, expected: str
) -> None:
    assert restricted(question, sentence) == expected


def test_a_limit_is_read_with_its_unit_and_its_alternatives() -> None:
    limit = limit_of("A creature can't carry more than three sacks of flour unless it is a mule or a cart.")
    assert limit is not None and limit.negated and (limit.least, limit.most) == (4, 10**9)
    assert limit.unit[:1] == ("sacks",) and limit.kind == "unless"
    assert limit.exception == (("mule",), ("cart",))
    assert limit_of("The keeper trims the lamp at dusk.") is None


async def test_a_yes_no_question_is_answered_by_the_limit_of_the_rule_it_asks_about(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Saltmarsh Crossing")
    await service.import_bytes(campaign, "harbour.md", HARBOUR.encode())

    async def said(question: str) -> str:
        answer = await service.ask(campaign, question, viewer=Viewer.PLAYER)
        assert answer.reply is not None and answer.reply.known, question
        return answer.reply.text

    assert (await said("can a sloop tow three barges?")).startswith("No")
    assert (await said("can my sloop tow three barges at once?")).startswith("No")
    assert (await said("could the sloop tow 2 barges?")).startswith("Yes")
    assert (await said("can we bribe the lighthouse keeper?")).startswith("No")
    assert (await said("can we bribe the lighthouse keeper after the harbour bell has rung?")).startswith(
        "Yes"
    )
    assert (await said("can hull rot be scraped out with a chisel?")).startswith("No")
    assert (await said("would a storm charm calm a gale of 12 knots?")).startswith("No")
    assert (await said("would a storm charm calm a gale of 5 knots?")).startswith("Yes")
    # A rule without a limit is read as before: said outright, yes.
    assert (await said("does the keeper trim the lamp?")).startswith("Yes")


async def test_how_a_thing_is_made_or_worked_out_is_answered_in_the_books_words(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Saltmarsh Crossing")
    await service.import_bytes(campaign, "harbour.md", HARBOUR.encode())
    # "make" is said "create"; a formula is said "equals".
    answer = await service.ask(campaign, "how do I make a ward stone permanent?", viewer=Viewer.PLAYER)
    assert answer.reply is not None and "burying it under a lighthouse" in answer.reply.text
    answer = await service.ask(campaign, "crew morale formula?", viewer=Viewer.PLAYER)
    assert answer.reply is not None and "10 + the captain's Charisma modifier" in answer.reply.text
