"""Two Canon sources that disagree: flagged at import with both places, never guessed, settled by the GM.

The GM picks the source that prevails for one disagreement, or sets the campaign's source order; answers then put
the prevailing passage first and say the other disagrees. The choices live in the campaign's settings (SQLite and
PostgreSQL alike).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.errors import InvalidInput, NotFound
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.disagreements import disagreements_of, statements_of
from memory.knowledge.models import KnowledgeClass, LoreResult
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign

GAZETTEER = """# Gazetteer

## Greyhaven

- **Ruler** Queen Maren Vell
- **Population** 9,000

A walled port of grey stone on the Saltmere.
"""

CHRONICLE = """# Chronicle of the Coast

## Greyhaven

- **Ruler** Lord Aldous Crane
- **Population** 9,000

The harbour city where the salt road ends.
"""

QUESTION = "Who is the ruler of Greyhaven?"


async def _two_sources(db: Database, tmp_path: Path):  # type: ignore[no-untyped-def]
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Saltmere")
    first = await service.import_bytes(
        campaign, "gazetteer.md", GAZETTEER.encode(), knowledge_class=KnowledgeClass.CANON
    )
    second = await service.import_bytes(
        campaign, "chronicle.md", CHRONICLE.encode(), knowledge_class=KnowledgeClass.CANON
    )
    return service, campaign, first, second


async def test_a_disagreement_is_flagged_at_import_with_both_places_and_never_guessed(
    db: Database, tmp_path: Path
) -> None:
    service, campaign, first, second = await _two_sources(db, tmp_path)
    assert not first.warnings  # alone, nothing disagrees
    said = [w for w in second.warnings if "disagrees" in w]
    assert len(said) == 1  # the ruler; the same population is no disagreement
    assert "“Queen Maren Vell” in gazetteer.md, Gazetteer › Greyhaven" in said[0]
    assert "“Lord Aldous Crane” in chronicle.md, Chronicle of the Coast › Greyhaven" in said[0]
    assert "/canon conflicts" in said[0]
    [judged] = await service.disagreements.find(campaign)
    assert judged.open and judged.disagreement.label == "Ruler"
    # An answer never guesses: both passages say the GM has not chosen.
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    notes = [r.disagrees for r in answer.results if r.disagrees]
    assert len(notes) == 2 and all("has not chosen" in n for n in notes)
    # A Reference source saying otherwise is no disagreement between Canon sources.
    await service.set_source(campaign, second.source.id, knowledge_class=KnowledgeClass.REFERENCE)
    assert await service.disagreements.find(campaign) == []


async def test_the_gm_picks_the_source_that_prevails_and_answers_follow_it(
    db: Database, tmp_path: Path
) -> None:
    service, campaign, _first, second = await _two_sources(db, tmp_path)
    [judged] = await service.disagreements.find(campaign)
    decided = await service.disagreements.decide(campaign, judged.disagreement.key, "chronicle.md", "Gemma")
    assert decided.prevailing is not None and decided.prevailing.filename == "chronicle.md"
    [after] = await service.disagreements.find(campaign)
    assert not after.open and after.prevailing is not None and after.prevailing.value == "Lord Aldous Crane"
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    ruled = [r for r in answer.results if r.disagrees]
    assert ruled[0].source_id == second.source.id and not ruled[0].overruled
    assert "disagrees" in (ruled[0].disagrees or "")
    assert ruled[1].overruled and "Chronicle of the Coast prevails" in (ruled[1].disagrees or "")
    assert answer.reply is not None and "Lord Aldous Crane" in answer.reply.text
    # Bad choices: said plainly, nothing kept.
    with pytest.raises(InvalidInput):
        await service.disagreements.decide(campaign, judged.disagreement.key, "atlas.md", "Gemma")
    with pytest.raises(NotFound):
        await service.disagreements.decide(campaign, "0123456789abcdef", "chronicle.md", "Gemma")


async def test_a_source_order_settles_every_disagreement_between_its_sources(
    db: Database, tmp_path: Path
) -> None:
    service, campaign, first, _second = await _two_sources(db, tmp_path)
    order = await service.disagreements.set_order(campaign, ["Gazetteer", "chronicle.md"])
    assert [s.filename for s in order] == ["gazetteer.md", "chronicle.md"]
    assert await service.disagreements.order(campaign) == ["gazetteer.md", "chronicle.md"]
    [judged] = await service.disagreements.find(campaign)
    assert judged.prevailing is not None and judged.prevailing.filename == "gazetteer.md"
    answer = await service.ask(campaign, QUESTION, viewer=Viewer.PLAYER, config="lexical")
    assert answer.results[0].source_id == first.source.id
    assert answer.reply is not None and "Queen Maren Vell" in answer.reply.text
    # The GM's pick for one disagreement comes before the order.
    await service.disagreements.decide(campaign, judged.disagreement.key, "chronicle.md", "Gemma")
    [picked] = await service.disagreements.find(campaign)
    assert picked.prevailing is not None and picked.prevailing.filename == "chronicle.md"
    for bad in (["Atlas of Nowhere"], ["Gazetteer", "gazetteer.md"]):
        with pytest.raises(InvalidInput):
            await service.disagreements.set_order(campaign, bad)
    assert await service.disagreements.order(campaign) == ["gazetteer.md", "chronicle.md"]
    await service.disagreements.set_order(campaign, [])
    assert await service.disagreements.order(campaign) == []


def test_a_books_page_is_named_with_its_place() -> None:
    def passage(source_id: int, filename: str, path: list[str], text: str, place: str | None) -> LoreResult:
        return LoreResult(
            chunk_id=source_id,
            source_id=source_id,
            source_title=filename,
            filename=filename,
            knowledge_class=KnowledgeClass.CANON,
            heading_path=path,
            text=text,
            token_count=10,
            score=1.0,
            reasons=[],
            place=place,
        )

    found = disagreements_of(
        statements_of(
            [
                passage(1, "rules.pdf", ["Cities", "Greyhaven"], "- **Ruler** Queen Maren Vell", "p. 12"),
                passage(2, "gazetteer.md", ["Gazetteer", "Greyhaven"], "- **Ruler** Lord Aldous Crane", None),
            ]
        )
    )
    assert [d.sentence() for d in found] == [
        "Greyhaven, Ruler: “Queen Maren Vell” in rules.pdf, p. 12 (Cities › Greyhaven) but “Lord Aldous Crane” in "
        "gazetteer.md, Gazetteer › Greyhaven."
    ]


async def test_a_sentence_of_one_canon_source_disagreeing_with_anothers_field_is_flagged(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Prose")
    await service.import_bytes(
        campaign, "gazetteer.md", GAZETTEER.encode(), knowledge_class=KnowledgeClass.CANON
    )
    letters = "# Letters\n\n## Greyhaven\n\nGreyhaven's ruler is Lord Aldous Crane. The population of Greyhaven is 9,000.\n"
    report = await service.import_bytes(
        campaign, "letters.md", letters.encode(), knowledge_class=KnowledgeClass.CANON
    )
    said = [w for w in report.warnings if "disagrees" in w]
    assert len(said) == 1  # the ruler; the same population is no disagreement
    assert "“Lord Aldous Crane” in letters.md, Letters › Greyhaven" in said[0], said
    assert "“Queen Maren Vell” in gazetteer.md, Gazetteer › Greyhaven" in said[0], said
    # A sentence that is no plain claim is never read as one.
    vague = "# Rumours\n\n## Greyhaven\n\nSome say Greyhaven's ruler is Lord Crane, others disagree.\n"
    quiet = await service.import_bytes(
        campaign, "rumours.md", vague.encode(), knowledge_class=KnowledgeClass.CANON
    )
    assert not [w for w in quiet.warnings if "disagrees" in w]
