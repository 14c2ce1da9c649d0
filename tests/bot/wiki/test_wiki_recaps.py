"""A recap on the wiki as canon holds it now: what a retcon took out of canon is struck through, never listed as
canon still (pure rendering; the marking itself is read by `bot.services.recap_canon`, tested end to end)."""

from __future__ import annotations

from bot.wiki.pages.home import recap_html
from bot.wiki.store import JournalEntry
from memory.journal import Recap, RetconnedFact
from memory.scenes import Scene


def _entry(recap: Recap) -> JournalEntry:
    scene = Scene.model_construct(id=recap.scene_id, story_order=1, title="Fire", status="completed")
    return JournalEntry(scene, recap)


RECAP = Recap(
    scene_id=1,
    campaign_id=1,
    story_order=1,
    title="Fire at the Lantern",
    summary="Oswin fell <in> the fire.",
    method="llm",
    facts=("Oswin Harrow becomes dead", "Tobin's debt: owes Mirela 40 silver", "Mara is a baker"),
    retconned=(
        RetconnedFact(fact="Oswin Harrow becomes dead"),
        RetconnedFact(fact="Tobin's debt: owes Mirela 40 silver", now="Tobin's debt: owes Mirela 10 silver"),
    ),
)


def test_a_retconned_fact_is_struck_through_with_what_canon_says_now() -> None:
    html = recap_html(_entry(RECAP))
    canon = html[html.index("What became canon") : html.index("Since retconned")]
    assert "Mara is a baker" in canon and "Oswin" not in canon and "40 silver" not in canon
    assert "<del>Oswin Harrow becomes dead</del></li>" in html
    assert (
        "<del>Tobin&#x27;s debt: owes Mirela 40 silver</del> → now Tobin&#x27;s debt: owes Mirela 10 silver"
        in html
    )
    assert "&lt;in&gt;" in html  # the summary is escaped


def test_a_recap_without_retcons_lists_its_facts_only() -> None:
    html = recap_html(_entry(RECAP.model_copy(update={"retconned": ()})))
    assert "Since retconned" not in html and "<del>" not in html and "Oswin Harrow becomes dead" in html
