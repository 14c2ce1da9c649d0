"""The GM's conflict, check and retcon cards say dates in the campaign calendar's words they are given."""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.services.canon_admin import RetconResult
from canon.checks import RecordedConflict
from canon.conflicts import ConflictPage, Show
from canon.continuity import ConflictKind, Finding, Side
from canon.models import StatementKind, Validity
from canon.wording import CalendarWords, Wording
from cogs import canon_embeds, retcon_embeds
from cogs.conflict_embeds import conflict_page_embed
from tests.helpers.canon_samples import statement

FROST = Wording(calendar=CalendarWords(eras={"third_age": "The Third Age"}, months=("Thaw", "Frostmoot")))
MESSAGE = "Oswin died in third_age.year_363.month_2.day_3; back in third_age.year_363.month_2.day_9."


def said(embed: object) -> str:
    data = embed.to_dict()  # type: ignore[attr-defined]
    return " ".join(
        [data.get("description", ""), *(f["name"] + " " + f["value"] for f in data.get("fields", []))]
    )


SIDE = Side(statement_id=5, sentence="Oswin is dead since third_age.year_363.month_2.day_3", evidence=())
FINDING = Finding(
    kind=ConflictKind.FORBIDDEN_TRANSITION,
    message=MESSAGE,
    sides=(SIDE,),
    entity_ids=(1,),
    statement_ids=(5,),
    fingerprint="f",
)


def test_check_and_retcon_cards_name_the_months() -> None:
    finding = FINDING
    text = said(canon_embeds.check_embed([finding], [finding], FROST))
    assert "Oswin died on 3 Frostmoot, year 363 of the Third Age" in text and "of month" not in text
    assert "since 3 Frostmoot" in text
    old = statement(20, StatementKind.STATE, "state", value="dead")
    dated = Validity(world_from="third_age.year_363.month_2.day_3")
    old = old.model_copy(update={"statement": dataclasses.replace(old.statement, validity=dated)})
    result = RetconResult(retconned_id=20, replacement_id=None, dependents=[old], words=FROST, retconned=old)
    text = said(retcon_embeds.retcon_embed(result, "He was only stunned"))
    assert "3 Frostmoot, year 363 of the Third Age" in text and "of month" not in text, text
    assert "third age" not in text


def test_the_conflicts_page_names_the_months() -> None:
    conflict = RecordedConflict(
        id=1,
        kind="forbidden_transition",
        message=MESSAGE,
        details=FINDING,
        status="open",
        rationale=None,
        first_seen_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )
    page = ConflictPage([conflict], 1, 0, 1, Show.OPEN, words=FROST)
    text = said(conflict_page_embed(page))
    assert "Oswin died on 3 Frostmoot, year 363 of the Third Age" in text and "of month" not in text, text
    assert "since 3 Frostmoot" in text
