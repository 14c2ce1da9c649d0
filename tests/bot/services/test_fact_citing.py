"""A proposal's `relies_on` names facts by their words, picked as `/retcon` picks one (`FactPicker.pick_many`):
several separated by “;”, a handle typed by habit still understood; words that fit none, or several, are
answered in words (nothing guessed), and a GM-only fact named by a player gets the answer unknown words get."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.app import Services
from canon.errors import GameError, NotFound
from canon.models import Viewer, Visibility
from canon.proposals import FactContent, Ref
from tests.conftest import DatabaseTarget
from tests.helpers.voice_fixtures import GM, open_services, seed, settings_for

HANDLE = re.compile(r"\(?fact #?\d+\)?|#\d", re.I)


async def _fact(
    services: Services, campaign: object, text: tuple[str, str, str], hidden: bool = False
) -> int:
    subject, attribute, value = text
    content = FactContent(
        subject=Ref(name=subject),
        attribute=attribute,
        value=value,
        visibility=Visibility.GM_ONLY if hidden else Visibility.PUBLIC,
    )
    result = await services.canon.add_direct(campaign, content, GM, command="/canon add")  # type: ignore[arg-type]
    return result.statement_ids[-1]


async def _answer(services: Services, campaign: object, typed: str, viewer: Viewer) -> str:
    with pytest.raises(GameError) as raised:
        await services.facts.pick_many(campaign, typed, viewer=viewer)  # type: ignore[arg-type]
    return raised.value.message


async def test_relies_on_takes_facts_by_their_words_and_answers_bad_words_in_words(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    campaign = (await seed(services)).campaign
    job = await _fact(services, campaign, ("Mira", "occupation", "keeper of the ledger"))
    oath = await _fact(services, campaign, ("Mira", "oath", "sworn to the harbour"))
    pick = services.facts.pick_many

    assert await pick(campaign, None, viewer=Viewer.GM) == ()
    assert await pick(campaign, "Mira's occupation: keeper of the ledger", viewer=Viewer.GM) == (job,)
    assert await pick(campaign, "Mira's job; oath sworn", viewer=Viewer.PLAYER) == (job, oath)
    assert await pick(campaign, "ledger, harbour", viewer=Viewer.GM) == (job, oath)
    assert await pick(campaign, f"fact {oath}", viewer=Viewer.GM) == (oath,)  # an old habit, never asked for

    unknown = await _answer(services, campaign, "Mira's ledger burned", viewer=Viewer.GM)
    assert unknown.startswith("No fact of canon says all of “Mira's ledger burned”. The nearest"), unknown
    assert "• Mira's occupation: keeper of the ledger" in unknown, unknown
    none = await _answer(services, campaign, "the Brass Lantern burned", viewer=Viewer.GM)
    assert none.startswith("No fact of canon says “the Brass Lantern burned”. Type some of its words"), none
    several = await _answer(services, campaign, "ledger; Mira", viewer=Viewer.GM)
    assert several.startswith("“Mira” fits") and "say which one by more of its words" in several, several
    assert (
        "Mira's occupation: keeper of the ledger" in several
        and "Mira's oath: sworn to the harbour" in several
    )
    for answer in (unknown, none, several):
        assert not HANDLE.search(answer), answer
    too_many = await _answer(services, campaign, ";".join(["ledger"] * 21), viewer=Viewer.GM)
    assert "at most 20 facts" in too_many


async def test_a_gm_only_fact_named_by_a_player_is_answered_as_unknown_words_are(
    db_target: DatabaseTarget, tmp_path: Path, made: list[Services]
) -> None:
    services = await open_services(db_target, settings_for(tmp_path, None))
    made.append(services)
    campaign = (await seed(services)).campaign
    await _fact(services, campaign, ("Mira", "occupation", "keeper of the ledger"))
    typed = "Mira's debt: owes the Guild"
    before = await _answer(services, campaign, typed, viewer=Viewer.PLAYER)  # no such fact yet
    secret = await _fact(services, campaign, ("Mira", "debt", "owes the Guild"), hidden=True)
    assert await services.facts.pick_many(campaign, typed, viewer=Viewer.GM) == (secret,)
    after = await _answer(services, campaign, typed, viewer=Viewer.PLAYER)
    assert after == before, (before, after)
    assert "Guild" not in after.split("”", 1)[1] and "debt" not in after.split("”", 1)[1]
    # By its handle too: the same answer as a number that names nothing.
    by_handle = await _answer(services, campaign, f"fact {secret}", viewer=Viewer.PLAYER)
    nothing = await _answer(services, campaign, f"fact {secret + 1000}", viewer=Viewer.PLAYER)
    assert by_handle.replace(str(secret), "N") == nothing.replace(str(secret + 1000), "N")
    with pytest.raises(NotFound):
        await services.facts.pick_many(campaign, f"fact {secret}", viewer=Viewer.PLAYER)
