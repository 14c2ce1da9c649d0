"""The /lore renderers without Discord: Discord's limits on huge inputs, Inspiration never shown as fact, hidden
material dropped for players and marked for the GM, imported text inert."""

from __future__ import annotations

import datetime as dt
from typing import Any

import discord
import pytest

from canon.models import Viewer
from canon.structured import LoreProblem
from canon.structured.ingest import ChangeCounts, FileReport, IngestReport, IngestWarning
from cogs import lore_answer_embeds, lore_embeds
from cogs.lore_views import answer_view
from memory.knowledge.models import (
    Answer,
    Candidate,
    CanonFact,
    ChunkInfo,
    ImportOutcome,
    ImportProgress,
    ImportReport,
    ImportStage,
    KnowledgeClass,
    LoreResult,
    Reason,
    RetrievalRecord,
    RetrievalTrace,
    SourceDetail,
    SourceInfo,
    SourceVersionInfo,
    VectorStatus,
    ViewBuild,
)
from memory.knowledge.retrieval.answer import compose
from memory.knowledge.retrieval.config import always_include_warning

NOW = dt.datetime(2026, 11, 30, 18, 0, tzinfo=dt.UTC)
LONG = "Ω" * 3000 + " [click me](https://evil.example/track.png) @everyone ![img](https://t.example/a.png)"
SECRET = "the abbot is a vampire"


def result(
    index: int,
    *,
    cls: KnowledgeClass = KnowledgeClass.REFERENCE,
    hidden: bool = False,
    text: str = "King Aldric rules from the Gull Throne.",
    title: str = "Westhaven",
) -> LoreResult:
    return LoreResult(
        chunk_id=100 + index,
        source_id=index,
        source_title=title,
        filename=f"file-{index}.md",
        knowledge_class=cls,
        heading_path=[title, f"Section {index}"],
        text=text,
        token_count=40,
        score=1.0 / (index + 1),
        reasons=[
            Reason(kind="lexical", rank=index + 1, score=3.2),
            Reason(kind="semantic", rank=2, score=0.7),
        ],
        hidden=hidden,
    )


def fact(name: str, *, hidden: bool = False, facts: list[str] | None = None) -> CanonFact:
    return CanonFact(
        entity_id=1,
        entity_name=name,
        entity_type="NPC",
        matched=name,
        match_score=100.0,
        hidden=hidden,
        description="a knight",
        facts=facts if facts is not None else [f"{name} title = King"],
    )


def trace(candidates: list[Candidate] | None = None) -> RetrievalTrace:
    return RetrievalTrace(
        preset="default",
        mode="hybrid",
        lexical_query="gull throne",
        lexical_candidates=12,
        semantic_candidates=30,
        semantic_status="indexed",
        entity_matches=["Aldric"],
        allowed_sources=3,
        blocked_sources=2,
        candidates=candidates or [],
        budgets={"canon": 2400, "reference": 2400, "inspiration": 800},
        used_tokens={"reference": 120},
        timings_ms={"lexical": 3.0, "semantic": 9.5},
    )


def answer(results: list[LoreResult], facts: list[CanonFact] | None = None) -> Answer:
    return Answer(
        campaign_id=1,
        question="Who rules the Gull Throne?",
        viewer="gm",
        results=results,
        canon_facts=facts or [],
        trace=trace(),
        retrieval_id=42,
    )


def text_of(embed: discord.Embed) -> str:
    data = embed.to_dict()
    parts = [data.get("title", ""), data.get("description", ""), data.get("footer", {}).get("text", "")]
    parts += [f"{f['name']}\n{f['value']}" for f in data.get("fields", [])]
    return "\n".join(parts)


def assert_fits(embed: discord.Embed) -> None:
    """Fail unless the embed is inside every Discord limit."""
    data: dict[str, Any] = embed.to_dict()
    assert len(embed) <= 6000
    assert len(data.get("title", "")) <= 256
    assert len(data.get("description", "")) <= 4096
    assert len(data.get("fields", [])) <= 25
    for field in data.get("fields", []):
        assert 0 < len(field["name"]) <= 256 and 0 < len(field["value"]) <= 1024
    assert len(data.get("footer", {}).get("text", "")) <= 2048


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
    assert_fits(embed)
    shown = text_of(embed)
    assert "](https://" not in shown and "@everyone" not in shown  # links escaped, no mention
    assert_fits(lore_answer_embeds.passages_embed(answer([]), viewer=Viewer.PLAYER))
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
        assert f"⚠️ {lore_embeds._escape(down)}" in (embed.description or "")
        assert_fits(embed)
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
    assert_fits(embed)
    assert (embed.description or "").count("⚠️") == 3
    assert "\\*\\*bold" in (embed.description or "")


def record(results: list[LoreResult], candidates: list[Candidate], facts: list[CanonFact]) -> RetrievalRecord:
    return RetrievalRecord(
        id=42,
        campaign_id=1,
        viewer="gm",
        asker_id=5,
        question="Q" * 400,
        preset="default",
        results=results,
        canon_facts=facts,
        trace=trace(candidates),
        created_at=NOW,
    )


def candidate(index: int, *, hidden: bool = False, heading: str = "Somewhere") -> Candidate:
    return Candidate(
        chunk_id=500 + index,
        source_id=index,
        heading=heading,
        fused=0.5,
        final=0.4,
        reasons=[],
        chosen=False,
        dropped_because="over the reference budget",
        hidden=hidden,
    )


def test_the_inspector_shows_scores_and_reasons_and_hides_what_a_player_may_not_know() -> None:
    given = record(
        [result(1), result(2, hidden=True, text=SECRET)],
        [candidate(1), candidate(2, hidden=True, heading="Crypt secrets")],
        [fact("Orsolya", hidden=True)],
    )
    gm = text_of(lore_embeds.why_embed(given, viewer=Viewer.GM))
    assert "score **0.500**" in gm and "lexical #2 = 3.2" in gm and "semantic #2 = 0.7" in gm
    assert SECRET in gm and "Crypt secrets" in gm and "filtered out before ranking: 2" in gm
    player = text_of(lore_embeds.why_embed(given, viewer=Viewer.PLAYER))
    assert SECRET not in player and "Crypt secrets" not in player and "Orsolya" not in player
    assert "filtered out" not in player  # the count of blocked sources would betray hidden ones
    huge = record(
        [result(i, text=LONG, title="T" * 400) for i in range(25)],
        [candidate(i, heading=LONG) for i in range(200)],
        [fact("N" * 300) for _ in range(10)],
    )
    assert_fits(lore_embeds.why_embed(huge, viewer=Viewer.GM))


def source(index: int, **changes: Any) -> SourceInfo:
    values: dict[str, Any] = {
        "id": index,
        "campaign_id": 1,
        "title": f"Source {index}",
        "filename": f"source-{index}.md",
        "knowledge_class": KnowledgeClass.REFERENCE,
        "enabled": True,
        "hidden": False,
        "tags": ["setting"],
        "always_include": False,
        "content_hash": "a" * 64,
        "file_hash": "b" * 64,
        "size_bytes": 1234,
        "mime_type": "text/markdown",
        "parser_version": "utf8-nfc-1",
        "chunking_version": "md-1",
        "version": 1,
        "chunk_count": 3,
        "token_count": 900,
        "vector_status": VectorStatus.INDEXED,
        "vector_error": None,
        "imported_at": NOW,
        "updated_at": NOW,
        "times_used": 7,
        "last_used_at": NOW,
        "notes": None,
    }
    values.update(changes)
    return SourceInfo(**values)


def test_the_source_inspector_lists_every_column_and_pages_within_limits() -> None:
    sources = [source(i, title="S" * 200, hidden=i % 2 == 0, enabled=i % 3 != 0) for i in range(1, 101)]
    first = lore_embeds.sources_embed(sources, 1)
    assert_fits(first)
    line = lore_embeds.source_line(source(9, hidden=True, enabled=False))
    for part in (
        "(source 9)",
        "Reference",
        "**disabled**",
        "🔒 hidden",
        "3 chunks",
        "2026-11-30",
        "7×",
    ):
        assert part in line
    assert "Page 7/7" in (lore_embeds.sources_embed(sources, 99).footer.text or "")
    assert "No sources yet" in (lore_embeds.sources_embed([]).description or "")


def test_always_included_canon_past_half_the_budget_is_flagged_in_the_inspector() -> None:
    rules = source(1, title="House rules", knowledge_class=KnowledgeClass.CANON, always_include=True)
    assert always_include_warning([rules]) is None  # 900 of 2,400 tokens
    codex = source(2, title="Codex", knowledge_class=KnowledgeClass.CANON, always_include=True)
    off = source(3, title="Off", knowledge_class=KnowledgeClass.CANON, always_include=True, enabled=False)
    warning = always_include_warning([rules, codex, off])
    assert warning is not None and "(House rules, Codex) takes 1,800 tokens, 75%" in warning
    shown = lore_embeds.sources_embed([rules, codex, off], warning=warning).description or ""
    assert shown.startswith("⚠️ Always-included Canon (House rules, Codex)")
    assert_fits(lore_embeds.sources_embed([rules, codex], warning=warning * 40))


def test_the_inspector_shows_the_search_index_being_built_and_nothing_once_it_is_done() -> None:
    building = ViewBuild(campaign_id=1, state="building", done=1_200, total=1_751)
    shown = lore_embeds.sources_embed([source(1)], building=building).description or ""
    assert shown.startswith(
        "⏳ Search index: adding the passages' names, 1,200 of 1,751 done (68%). Lookups work meanwhile."
    )
    done = ViewBuild(campaign_id=1, state="done", done=1_751, total=1_751)
    for state in (done, None):
        assert "Search index" not in (
            lore_embeds.sources_embed([source(1)], building=state).description or ""
        )


def test_one_source_with_many_versions_and_chunks_fits() -> None:
    info = source(3, notes=LONG, vector_error=LONG, tags=["t" * 40] * 20, title="T" * 300)
    versions = [
        SourceVersionInfo(
            version=v,
            title="x",
            filename="x.md",
            content_hash="c" * 64,
            file_hash="d" * 64,
            size_bytes=10,
            parser_version="p",
            chunking_version="c",
            chunk_count=4,
            imported_at=NOW,
            replaced_at=NOW if v < 60 else None,
        )
        for v in range(1, 61)
    ]
    chunks = [
        ChunkInfo(
            id=i,
            index=i,
            heading_path=["H" * 100] * 3,
            text=LONG,
            display_text=None,
            token_count=300,
            content_hash="e" * 64,
        )
        for i in range(50)
    ]
    embed = lore_embeds.source_embed(SourceDetail(source=info, versions=versions, chunks=chunks))
    assert_fits(embed)
    assert "Versions (60)" in text_of(embed) and "a" * 64 in text_of(embed)


def import_report(**changes: Any) -> ImportReport:
    values: dict[str, Any] = {
        "filename": "world.md",
        "outcome": ImportOutcome.CREATED,
        "source": source(4, tags=["crown"]),
        "chunk_count": 12,
        "token_count": 4000,
        "vector_status": VectorStatus.INDEXED,
    }
    values.update(changes)
    return ImportReport(**values)


def test_import_answers_and_progress() -> None:
    done = text_of(lore_embeds.import_embed(import_report()))
    assert "Imported: world.md" in done and "12 passages" in done and "crown" in done
    assert "chunk" not in done  # the passages are counted once, in the table's word
    one = text_of(lore_embeds.import_embed(import_report(chunk_count=1)))
    assert "(Reference, 1 passage)" in one and "chunk" not in one, one
    assert (
        done.splitlines()[1].startswith("Imported ")
        and "Imported **Source 4** (Reference, 12 passages). Players can now ask" in done
    )
    hidden = text_of(lore_embeds.import_embed(import_report(source=source(4, hidden=True))))
    assert "only the GM reads it" in hidden and "Players can now ask" not in hidden
    failed = lore_embeds.import_embed(
        import_report(vector_status=VectorStatus.FAILED, vector_error=LONG, warnings=[LONG] * 30)
    )
    assert_fits(failed)
    duplicate = lore_embeds.import_embed(import_report(outcome=ImportOutcome.DUPLICATE, duplicate_of=2))
    assert "(source 2)" in (duplicate.description or "")
    embedding = ImportProgress(filename="world.md", stage=ImportStage.EMBEDDING, done=64, total=128)
    assert "64/128" in lore_embeds.progress_text(
        embedding
    ) and "█" * 10 + "░" * 10 in lore_embeds.progress_text(embedding)
    assert len(lore_embeds.progress_text(embedding.model_copy(update={"filename": "f" * 3000}))) < 2000


def test_a_broken_yaml_file_lists_its_error_lines_within_limits() -> None:
    problems = tuple(
        LoreProblem(
            file="family.yaml", line=line, column=3, message="duplicate id “theron_ashveil” " + "x" * 50
        )
        for line in range(1, 400)
    )
    report = IngestReport(campaign_id=1, status="failed", errors=problems, error="Nothing was written.")
    embed = lore_embeds.structured_embed(report, "family.yaml")
    assert_fits(embed)
    assert "family.yaml: line 1, column 3: duplicate id" in text_of(embed)
    good = IngestReport(
        campaign_id=1,
        status="ingested",
        changeset_id=9,
        files=(
            FileReport(file="bestiary.yaml", kind="bestiary", status="created", content_hash="f", entries=2),
        ),
        counts={"Creature": 2},
        entities=ChangeCounts(created=2),
        warnings=tuple(IngestWarning(kind="name_clash", message=LONG) for _ in range(40)),
    )
    embed = lore_embeds.structured_embed(good, "bestiary.yaml")
    assert_fits(embed)
    assert "Imported 2 creatures from bestiary.yaml" in text_of(embed)
    (warned,) = [f["value"] for f in embed.to_dict()["fields"] if f["name"] == "Warnings (40)"]
    assert warned.startswith("⚠️ Name clash: ΩΩΩ") and warned.endswith(" more")  # the rest counted, not cut


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
        assert_fits(embed)
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


def test_a_snippet_reads_as_one_line_with_its_headings_and_without_the_ones_already_shown() -> None:
    text = "# Westhaven\n\n## The Crown\n\nKing Aldric *rules*.\n\n## The Abbey\n\nMonks <script>x</script>."
    shown = lore_embeds.snippet(text, skip=["Westhaven", "The Crown"])
    assert shown == "King Aldric rules. The Abbey — Monks <script>x</script>."
    assert lore_embeds.snippet(text).startswith("Westhaven — The Crown — King")
    # Markdown is read as words: no escaped marks, a bold line is a heading set apart from its text.
    cliff = "- **The Cliff**\nVale Manor stands on the *chalk* cliff.\n- `salt` lanterns\n1. first"
    assert (
        lore_embeds.snippet(cliff) == "The Cliff — Vale Manor stands on the chalk cliff. salt lanterns first"
    )


def test_a_batch_card_pages_and_rebuilds_its_buttons_from_their_custom_ids() -> None:
    from bot.services.review import Review
    from canon.proposals import ProposalStatus
    from cogs.canon_views import BatchButton, card_content
    from tests.helpers.canon_samples import proposal

    batch = "extract:123456:1764500000"
    proposals = [
        proposal(i, status=ProposalStatus.PENDING if i % 2 else ProposalStatus.ACCEPTED).model_copy(
            update={"scene_id": None, "batch": batch, "campaign_id": 99}
        )
        for i in range(1, 21)
    ]
    review = Review(scene=None, batch=batch, proposals=proposals, turn_messages={})
    content = card_content(review, 1, reveal=True)
    assert content["embed"].title == "Canon review — what was read from an imported document"  # no batch key
    ids = [item.custom_id for item in content["view"].children]  # type: ignore[attr-defined]
    assert f"lk:batch:99:page:0:prev:{batch}" in ids and f"lk:batch:99:commit:{batch}" in ids
    assert all(len(i) <= 100 for i in ids)
    for custom_id in ids:
        if custom_id.startswith("lk:batch:"):
            match = BatchButton.__discord_ui_compiled_template__.fullmatch(custom_id)
            assert match is not None and match["batch"] == batch and int(match["campaign"]) == 99
    done = [p.model_copy(update={"status": ProposalStatus.COMMITTED}) for p in proposals]
    closed = card_content(Review(scene=None, batch=batch, proposals=done, turn_messages={}), 0, reveal=False)
    assert "Canon committed" in (closed["embed"].title or "")
    assert all(item.item.disabled for item in closed["view"].children)  # type: ignore[attr-defined]


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
