"""The /lore answer renderers without Discord: Inspiration never shown as fact, hidden passages dropped for
players and marked for the GM, huge answers within Discord's limits, the answer before its passages."""

from __future__ import annotations

import discord
import pytest

from canon.models import Viewer
from cogs import lore_answer_embeds
from cogs.embeds import escape_with_mentions
from cogs.lore_views import answer_view
from memory.knowledge.models import (
    Answer,
    KnowledgeClass,
)
from memory.knowledge.retrieval.answer import compose
from tests.helpers.discord_limits import assert_within_discord_limits
from tests.helpers.lore_samples import LONG, SECRET, answer, fact, result, text_of, trace


def test_inspiration_is_marked_as_not_fact_and_reference_is_not() -> None:
    embed = lore_answer_embeds.passages_embed(
        answer([result(1), result(2, cls=KnowledgeClass.INSPIRATION, text="Fog and gulls.")]),
        viewer=Viewer.PLAYER,
    )
    fields = embed.to_dict()["fields"]
    assert "Inspiration — not established fact" in fields[1]["value"]
    assert "Inspiration, not fact" in fields[1]["value"]
    assert "Inspiration" not in fields[0]["value"]
    assert "not established fact" in (embed.description or "")


def test_a_player_never_sees_hidden_passages_or_gm_only_facts_and_the_gm_sees_them_marked() -> None:
    given = answer(
        [result(1), result(2, cls=KnowledgeClass.CANON, hidden=True, text=SECRET)],
        [fact("Aldric"), fact("Orsolya", hidden=True, facts=[SECRET])],
    )
    player = text_of(lore_answer_embeds.passages_embed(given, viewer=Viewer.PLAYER))
    assert SECRET not in player and "Orsolya" not in player and "🔒" not in player
    gm = text_of(lore_answer_embeds.passages_embed(given, viewer=Viewer.GM))
    assert SECRET in gm and "🔒 hidden (GM only)" in gm and "Orsolya (NPC) 🔒 GM only" in gm


def test_huge_answers_stay_inside_discords_limits_and_imported_text_is_inert() -> None:
    results = [result(i, text=LONG, title="T" * 400) for i in range(25)]
    facts = [fact("N" * 300, facts=[LONG] * 30) for _ in range(6)]
    embed = lore_answer_embeds.passages_embed(answer(results, facts), viewer=Viewer.GM)
    assert_within_discord_limits(embed)
    shown = text_of(embed)
    assert "](https://" not in shown and "@everyone" not in shown  # links escaped, no mention
    assert_within_discord_limits(lore_answer_embeds.passages_embed(answer([]), viewer=Viewer.PLAYER))
    assert "Nothing in this campaign" in (
        lore_answer_embeds.passages_embed(answer([]), viewer=Viewer.PLAYER).description or ""
    )


def test_an_answer_found_by_words_only_says_so_in_the_answer_itself() -> None:
    down = "semantic search unavailable (failed: the vector index failed to search: [Errno 111]): words only"
    degraded = answer([result(1)]).model_copy(
        update={"trace": trace().model_copy(update={"semantic_status": "failed", "warnings": [down]})}
    )
    for viewer in (Viewer.PLAYER, Viewer.GM):
        embed = lore_answer_embeds.passages_embed(degraded, viewer=viewer)
        assert f"⚠️ {escape_with_mentions(down)}" in (embed.description or "")
        assert_within_discord_limits(embed)
    assert "⚠️" not in (
        lore_answer_embeds.passages_embed(answer([result(1)]), viewer=Viewer.PLAYER).description or ""
    )
    # Nothing found at all: the warning still explains why.
    empty = degraded.model_copy(update={"results": []})
    shown = lore_answer_embeds.passages_embed(empty, viewer=Viewer.PLAYER).description or ""
    assert "Nothing in this campaign" in shown and "words only" in shown
    # Many long warnings stay inside the limits, each markdown-escaped.
    noisy = degraded.model_copy(
        update={"trace": trace().model_copy(update={"warnings": ["**bold** " + "w" * 5000] * 10})}
    )
    embed = lore_answer_embeds.passages_embed(noisy, viewer=Viewer.PLAYER)
    assert_within_discord_limits(embed)
    assert (embed.description or "").count("⚠️") == 3
    assert "\\*\\*bold" in (embed.description or "")


@pytest.mark.parametrize("retrieval_id", [1, 2**53])
def test_the_buttons_carry_the_record_id_and_why_these_is_the_gms_only(retrieval_id: int) -> None:
    (sources,) = answer_view(retrieval_id).children
    assert isinstance(sources, discord.ui.DynamicItem)
    assert sources.custom_id == f"lk:lore:src:{retrieval_id}" and len(sources.custom_id) <= 100
    sources, why = answer_view(retrieval_id, viewer=Viewer.GM).children
    assert isinstance(why, discord.ui.DynamicItem)
    assert why.custom_id == f"lk:lore:why:{retrieval_id}" and len(why.custom_id) <= 100
    assert not answer_view(None).children


def test_the_answer_comes_first_citing_its_sources_and_the_passages_wait_behind_sources() -> None:
    gate = result(1, cls=KnowledgeClass.CANON, text="The north gate of Westhaven is open to travellers.")
    stale = gate.model_copy(update={"out_of_date": "North Gate is collapsed"})
    given = answer([stale, result(2)]).model_copy(update={"question": "Is the north gate of Westhaven open?"})
    for viewer in (Viewer.PLAYER, Viewer.GM):
        embed = lore_answer_embeds.answer_embed(given, viewer=viewer)
        shown = embed.description or ""
        assert shown.startswith("The north gate of Westhaven is open to travellers. [1]")
        assert "[1] is out of date: North Gate is collapsed now." in shown
        assert "[1] Westhaven › Section 1 · ⚠️ Out of date" in shown
        assert not embed.fields and ("score" not in text_of(embed)) == (viewer == Viewer.PLAYER)
        assert (embed.footer.text or "").startswith("See the 2 sources.")
        assert_within_discord_limits(embed)
    one = answer([gate]).model_copy(update={"question": "Is the north gate of Westhaven open?"})
    assert lore_answer_embeds.answer_embed(one, viewer=Viewer.PLAYER).footer.text == "See the 1 source."
    sources = text_of(lore_answer_embeds.passages_embed(given, viewer=Viewer.PLAYER))
    assert "[1] Westhaven › Section 1" in sources and "⚠️ Out of date: now North Gate is collapsed." in sources
    assert "[2] Westhaven › Section 2" in sources and "score" not in sources


def test_an_answer_a_gm_saw_more_of_is_written_again_for_a_player() -> None:
    given = answer(
        [result(1, cls=KnowledgeClass.CANON, hidden=True, text=SECRET), result(2)],
        [fact("Orsolya", hidden=True, facts=[SECRET])],
    ).model_copy(update={"question": "Who is the abbot?"})
    given = given.model_copy(update={"reply": compose(given.question, given.canon_facts, given.results)})
    assert SECRET in text_of(lore_answer_embeds.answer_embed(given, viewer=Viewer.GM))
    player = text_of(lore_answer_embeds.answer_embed(given, viewer=Viewer.PLAYER))
    assert SECRET not in player and "Orsolya" not in player and "🔒" not in player
    assert "Nothing the table knows says who the abbot is." in player


def test_an_unsaved_answer_says_why_it_has_no_inspector() -> None:
    answer = Answer(
        campaign_id=1,
        question="What does the mill grind?",
        viewer="player",
        results=[],
        canon_facts=[],
        trace=trace(),
        unsaved="the disk is full",
    )
    footer = lore_answer_embeds.answer_embed(answer, viewer=Viewer.PLAYER).footer.text or ""
    assert footer == "This answer could not be saved (the disk is full), so its sources cannot be opened"
