"""The text defects a table once read: a markdown escape shown, a parent "until" a death, "coordinates is", a raw
score, a conflict notice that did not say it was settled. Each read as Discord renders it."""

from __future__ import annotations

import dataclasses
import re

from canon.continuity import ConflictKind, Finding
from canon.models import StatementKind, Validity, Viewer
from canon.proposals import FactContent, Ref
from canon.wording import PLAIN, describe, proposal_sentence, statement_words
from canon.wording.relations import is_or_are
from cogs import canon_embeds, review_embeds, voice_embeds
from memory.digests import Moment
from memory.knowledge.retrieval.superseded import Change
from tests.e2e.jargon import rendered
from tests.helpers.canon_samples import ref, statement


def test_an_attribute_is_said_in_words_before_it_is_escaped() -> None:
    view = statement(1, StatementKind.ATTRIBUTE, "secret_passage", value="behind the_altar")
    line = canon_embeds.statement_line(view, evidence=False)
    assert "Mara's secret passage: behind the\\_altar" in line  # the value is the user's, escaped
    assert rendered(line).startswith("Mara's secret passage: behind the_altar")
    content = FactContent(subject=Ref(name="Mara"), attribute="secret_passage", value="x")
    assert (
        proposal_sentence(content, PLAIN.rich(canon_embeds.escape), Viewer.GM) == "Mara's secret passage: x"
    )
    assert "\\" not in describe(content, PLAIN)


def test_a_parent_is_a_parent_after_a_death() -> None:
    view = statement(1, StatementKind.RELATION, "PARENT_OF", obj=ref(2, "Ysolde"))
    dated = dataclasses.replace(
        view.statement,
        validity=Validity(
            world_from="3rd_age.year_301", world_from_key=3010000, world_until="3rd_age.year_330"
        ),
    )
    view = view.model_copy(update={"statement": dated})
    said = statement_words(view, PLAIN, Viewer.GM, evidence=False)
    assert "since year 301" in said and "330" not in said, said
    assert "330" not in canon_embeds.statement_line(view, evidence=False)
    ally = view.model_copy(update={"statement": dataclasses.replace(dated, predicate="ALLY_OF")})
    assert "330" in statement_words(ally, PLAIN, Viewer.GM, evidence=False)  # an alliance does end


def test_grammar_by_number() -> None:
    assert [is_or_are(w) for w in ("coordinates", "title", "status", "eye colour", "titles", "address")] == [
        "are",
        "is",
        "is",
        "is",
        "are",
        "is",
    ]
    change = Change("Gullhaven", StatementKind.ATTRIBUTE, "coordinates", "12N 4W", frozenset())
    assert change.sentence() == "Gullhaven's coordinates are 12N 4W"


def test_similar_moments_show_no_raw_score() -> None:
    embed = voice_embeds.moments_embed(
        "a gate", [Moment(scene_id=2, story_order=2, title="The gate", summary="x", similarity=0.23)]
    )
    assert not re.search(r"\d\.\d", embed.fields[0].name or ""), embed.fields[0].name


def finding(fingerprint: str) -> Finding:
    return Finding(
        kind=ConflictKind.DEAD_ACTING,
        message="Aldric takes part in the march after dying.",
        sides=(),
        entity_ids=(1,),
        statement_ids=(5,),
        fingerprint=fingerprint,
    )


def test_the_public_conflict_notice_says_what_happened() -> None:
    from memory.scenes import SceneStatus
    from tests.helpers.canon_samples import big_review

    review = big_review(3, status=SceneStatus.COMPLETED)
    settled = review_embeds.committed_embed(review, [finding("a")], reveal=False, accepted={"a"})
    assert "1 continuity conflict: accepted with the GM's reason; nothing open." in (
        settled.description or ""
    )
    both = review_embeds.committed_embed(review, [finding("a"), finding("b")], reveal=False, accepted={"a"})
    assert "2 continuity conflicts: 1 accepted with the GM's reason, 1 open for the GM" in (
        both.description or ""
    )
    open_ = review_embeds.committed_embed(review, [finding("b")], reveal=True)
    text = open_.description or ""
    assert "1 continuity conflict: open for the GM (/canon conflicts)." in text and "takes part" in text
