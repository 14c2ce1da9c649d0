"""What retrieval brings back and in which order: relevance then class, canon always there, one copy of a text, budgets, named entities, misspellings and large campaigns."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon import campaigns
from canon.errors import InvalidInput
from canon.models import Authority, StatementKind, Viewer, Visibility
from canon.ontology import base_ontology
from canon.storage import Database
from config.settings import LoreSettings
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.retrieval import PRESETS, SearchConfig
from tests.helpers.knowledge_helpers import (
    EMBEDDER,
    gm_writer,
    knowledge_service,
    new_campaign,
)
from tests.helpers.retrieval_worlds import ALPHA_WORLD


async def test_relevance_first_then_class_and_inspiration_is_never_fact(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    body = "The Drowned Lantern is a tavern on the harbor where sailors trade rumours of the {x}."
    canon = await service.import_bytes(
        campaign,
        "canon.md",
        ("# Canon\n\n" + body.format(x="north")).encode(),
        knowledge_class=KnowledgeClass.CANON,
    )
    reference = await service.import_bytes(
        campaign, "reference.md", ("# Reference\n\n" + body.format(x="east")).encode()
    )
    inspiration = await service.import_bytes(
        campaign,
        "inspiration.md",
        ("# Inspiration\n\n" + body.format(x="west")).encode(),
        knowledge_class=KnowledgeClass.INSPIRATION,
    )
    unrelated = await service.import_bytes(
        campaign,
        "rules.md",
        b"# Rules\n\nResurrection magic does not exist in this world.",
        knowledge_class=KnowledgeClass.CANON,
    )
    # Equally relevant by words (same length, same matching words): the class decides.
    answer = await service.ask(
        campaign, "Drowned Lantern tavern rumours", viewer=Viewer.PLAYER, config="lexical"
    )
    order = [r.source_id for r in answer.results]
    assert order[:3] == [canon.source.id, reference.source.id, inspiration.source.id]
    assert unrelated.source.id not in order  # Canon that is not relevant does not jump the queue
    # Relevance first: a much better Inspiration passage beats a barely relevant Canon one.
    await service.import_bytes(
        campaign,
        "mood.md",
        b"# Mood\n\nFog rolls over the Drowned Lantern; the tavern smells of tar and the rumours never stop.",
        knowledge_class=KnowledgeClass.INSPIRATION,
    )
    foggy = await service.ask(campaign, "fog over the tavern, smell of tar", viewer=Viewer.PLAYER)
    assert foggy.results[0].filename == "mood.md"
    answer = await service.ask(campaign, "Drowned Lantern tavern rumours", viewer=Viewer.PLAYER)
    scores = [r.score for r in answer.results]
    assert scores == sorted(scores, reverse=True)
    inspired = [r for r in answer.results if r.knowledge_class == KnowledgeClass.INSPIRATION]
    assert inspired and all(not r.is_fact and "not established fact" in r.label for r in inspired)
    assert all(r.is_fact for r in answer.results if r.knowledge_class != KnowledgeClass.INSPIRATION)
    # Provenance on every result.
    for result in answer.results:
        assert result.chunk_id and result.source_title and result.filename and result.heading_path
        assert result.reasons and all(
            r.kind in {"lexical", "semantic", "entity", "coverage"} for r in result.reasons
        )


async def test_always_include_canon_is_always_there_within_its_budget(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    rules = await service.import_bytes(
        campaign, "rules.md", b"# Hard rules\n\nNobody can be raised from the dead.", always_include=True
    )
    assert rules.source.always_include and rules.source.knowledge_class == KnowledgeClass.CANON
    await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    answer = await service.ask(campaign, "King Aldric gull sigil", viewer=Viewer.PLAYER, limit=1)
    assert [r.always_include for r in answer.results] == [True, False]
    assert answer.results[0].reasons[0].kind == "always_include"
    assert answer.results[1].source_id != rules.source.id
    tight = SearchConfig(budgets={KnowledgeClass.CANON: 5, KnowledgeClass.REFERENCE: 2000})
    squeezed = await service.ask(campaign, "King Aldric", viewer=Viewer.PLAYER, config=tight)
    assert all(not r.always_include for r in squeezed.results)
    with pytest.raises(InvalidInput, match="Only Canon"):
        await service.import_bytes(
            campaign, "x.md", b"# X\n\ntext", always_include=True, knowledge_class=KnowledgeClass.REFERENCE
        )
    moved = await service.set_source(campaign, rules.source.id, knowledge_class=KnowledgeClass.REFERENCE)
    assert not moved.always_include


async def test_the_same_text_in_two_sources_is_shown_once_the_better_copy_kept(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False, settings=LoreSettings(chunk_min_tokens=20))
    campaign = await new_campaign(db, "Westhaven")
    shared = (
        "## The Gull Steps\n\nThe tide rises twice a day over the Gull Steps, and the ferrymen of Westhaven "
        "wait at the top with lanterns until the water falls back below the seventh step.\n\n"
    )
    copies = {}
    for name, cls, extra in (
        ("almanac.md", KnowledgeClass.REFERENCE, "## Markets\n\nFish are sold at dawn by the old quay."),
        ("canon.md", KnowledgeClass.CANON, "## Bells\n\nThe abbey bell rings at dusk for the drowned."),
    ):
        report = await service.import_bytes(
            campaign, name, f"# Westhaven\n\n{shared}{extra}\n".encode(), knowledge_class=cls
        )
        assert report.chunk_count == 2
        copies[cls] = report.source.id
    answer = await service.ask(campaign, "when does the tide cover the Gull Steps?", viewer=Viewer.PLAYER)
    steps = [r for r in answer.results if r.heading_path[-1] == "The Gull Steps"]
    assert [r.source_id for r in steps] == [copies[KnowledgeClass.CANON]]  # Canon outranks Reference
    (dropped,) = [c for c in answer.trace.candidates if c.dropped_because == "duplicate text"]
    assert dropped.source_id == copies[KnowledgeClass.REFERENCE] and dropped.heading.endswith("Gull Steps")


async def test_results_are_cut_to_a_token_budget_per_class(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    for number in range(6):
        await service.import_bytes(
            campaign,
            f"tavern-{number}.md",
            f"# Tavern {number}\n\nThe lantern tavern number {number} serves fish stew to sailors.".encode(),
            knowledge_class=KnowledgeClass.INSPIRATION,
        )
    everything = await service.ask(campaign, "lantern tavern fish stew", viewer=Viewer.PLAYER, limit=10)
    assert len(everything.results) == 6
    per_chunk = everything.results[0].token_count
    budget = SearchConfig(budgets={KnowledgeClass.INSPIRATION: per_chunk * 2 + 1})
    cut = await service.ask(
        campaign, "lantern tavern fish stew", viewer=Viewer.PLAYER, limit=10, config=budget
    )
    assert len(cut.results) == 2
    assert cut.trace.used_tokens["inspiration"] <= per_chunk * 2 + 1
    assert any(c.dropped_because == "over the Inspiration budget" for c in cut.trace.candidates)


async def test_canon_entities_named_in_the_question_bring_their_facts_even_misspelt(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Westhaven")
    ontology = base_ontology()

    async def write(session):  # type: ignore[no-untyped-def]
        writer = await gm_writer(session, campaign, ontology)
        mirelle = await writer.create_entity(
            type="NPC", name="Captain Mirelle Vantross", aliases=["the Harbor Hawk"], authority=Authority.GM
        )
        await writer.add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=mirelle,
            predicate="ship",
            value="the Gray Heron",
            authority=Authority.GM,
        )
        await writer.add_statement(
            kind=StatementKind.ATTRIBUTE,
            subject_id=mirelle,
            predicate="secret",
            value="smuggles relics",
            authority=Authority.GM,
            visibility=Visibility.GM_ONLY,
        )
        await writer.create_entity(
            type="NPC", name="Severin Nightglass", authority=Authority.GM, visibility=Visibility.GM_ONLY
        )

    await db.run(write)
    await service.import_bytes(
        campaign,
        "harbor.md",
        b"# Harbor\n\n## Captain Mirelle Vantross\n\nShe drinks alone at the Drowned Lantern.",
    )
    player = await service.ask(campaign, "what ship does captain Mirele Vantros sail?", viewer=Viewer.PLAYER)
    (fact,) = player.canon_facts
    assert fact.entity_name == "Captain Mirelle Vantross" and not fact.hidden
    assert any("Gray Heron" in f for f in fact.facts) and not any("smuggles" in f for f in fact.facts)
    assert player.results and player.results[0].heading_path[-1] == "Captain Mirelle Vantross"
    assert any(r.kind == "entity" for r in player.results[0].reasons)
    by_alias = await service.ask(campaign, "where does the Harbor Hawk drink?", viewer=Viewer.PLAYER)
    assert [f.entity_name for f in by_alias.canon_facts] == ["Captain Mirelle Vantross"]

    hidden_player = await service.ask(campaign, "who is Severin Nightglass?", viewer=Viewer.PLAYER)
    assert hidden_player.canon_facts == []
    gm = await service.ask(
        campaign, "who is Severin Nightglass? and captain Mirelle Vantross", viewer=Viewer.GM
    )
    names = {f.entity_name: f for f in gm.canon_facts}
    assert names["Severin Nightglass"].hidden
    assert any("smuggles" in f for f in names["Captain Mirelle Vantross"].facts)


async def test_misspelt_words_are_searched_as_the_heading_word_they_are_close_to(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Westhaven")
    await service.import_bytes(campaign, "world.md", ALPHA_WORLD.encode())
    await service.import_bytes(campaign, "beasts.md", b"# Beasts\n\n## Hydra\n\nMany heads regrow when cut.")
    answer = await service.ask(campaign, "what is a Hyra?", viewer=Viewer.PLAYER, config="lexical")
    assert answer.results[0].heading_path[-1] == "Hydra"
    assert any("hydra" in w for w in answer.trace.warnings)
    off = await service.ask(
        campaign, "what is a Hyra?", viewer=Viewer.PLAYER, config=SearchConfig(typo_cutoff=0)
    )
    assert off.results == []


async def test_a_large_campaign_searches_by_its_rarest_words_and_still_finds_the_passage(
    db: Database, tmp_path: Path
) -> None:
    settings = LoreSettings(chunk_min_tokens=20, chunk_max_tokens=50, chunk_overlap_tokens=0)
    service = knowledge_service(db, tmp_path, semantic=False, settings=settings)
    campaign = await new_campaign(db, "Westhaven")
    piers = "".join(
        f"## Pier {n}\n\nThe harbour pier number {n} is kept by a keeper who paints its posts blue and counts "
        "the boats at dusk.\n\n"
        for n in range(600)
    )
    report = await service.import_bytes(campaign, "piers.md", f"# Piers\n\n{piers}".encode())
    assert report.chunk_count == 600  # "harbour" is in more chunks than a large campaign searches by words
    await service.import_bytes(
        campaign,
        "steps.md",
        b"# The Gull Steps\n\nAt the harbour the tide rises over the Gull Steps, where ferrymen wait with lanterns.",
    )
    # Three words no chunk has ("cover", "keep", "lit") must not take the places of the rare ones.
    question = "when does the harbour tide cover the gull steps where the ferrymen keep their lanterns lit?"
    large = SearchConfig(mode="lexical", large_campaign_chunks=100)
    answer = await service.ask(campaign, question, viewer=Viewer.PLAYER, config=large)
    assert answer.results[0].filename == "steps.md"
    assert answer.trace.lexical_query == "tide OR gull OR steps"  # the three rarest, in question order
    (warning,) = [w for w in answer.trace.warnings if w.startswith("large campaign")]
    assert "tide, gull, steps" in warning
    # Below the threshold every word is searched, and the passage is found the same.
    small = await service.ask(campaign, question, viewer=Viewer.PLAYER, config="lexical")
    assert small.results[0].filename == "steps.md"
    assert "harbour" in (small.trace.lexical_query or "") and not any(
        "large" in w for w in small.trace.warnings
    )


def test_presets_are_declared_search_configurations() -> None:
    assert {"default", "lexical", "semantic", "rrf", "context"} <= set(PRESETS)
    assert PRESETS["lexical"].mode == "lexical" and PRESETS["default"].mode == "hybrid"
    assert (
        PRESETS["default"].class_weights[KnowledgeClass.CANON]
        > PRESETS["default"].class_weights[KnowledgeClass.REFERENCE]
        > PRESETS["default"].class_weights[KnowledgeClass.INSPIRATION]
    )
    with pytest.raises(ValueError):
        SearchConfig(lexical_k=0)
    assert EMBEDDER.dimensions == 384
    _ = campaigns
