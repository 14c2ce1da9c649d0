"""The /lore inspector, source and import renderers without Discord: Discord's limits on huge inputs, hidden
material dropped for players and marked for the GM, imported text inert (the answers: test_lore_answer_embeds)."""

from __future__ import annotations

from typing import Any

from canon.models import Viewer
from canon.structured import LoreProblem
from canon.structured.ingest import ChangeCounts, FileReport, IngestReport, IngestWarning
from cogs import lore_embeds, lore_import_embeds
from memory.knowledge.models import Candidate, CanonFact, KnowledgeClass, LoreResult, RetrievalRecord
from memory.knowledge.retrieval.config import always_include_warning
from memory.knowledge.source_models import (
    ChunkInfo,
    ImportOutcome,
    ImportProgress,
    ImportReport,
    ImportStage,
    SourceDetail,
    SourceInfo,
    SourceVersionInfo,
    VectorStatus,
    ViewBuild,
)
from tests.helpers.discord_limits import assert_within_discord_limits
from tests.helpers.lore_samples import LONG, NOW, SECRET, fact, result, text_of, trace


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
    assert_within_discord_limits(lore_embeds.why_embed(huge, viewer=Viewer.GM))


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
    assert_within_discord_limits(first)
    line = lore_embeds.source_line(source(9, hidden=True, enabled=False))
    for part in (
        "(source 9)",
        "Reference",
        "**disabled**",
        "🔒 hidden",
        "version 1",
        "3 passages",
        "2026-11-30",
        "used in 7 answers",
    ):
        assert part in line
    assert "chunk" not in line and "×" not in line, line
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
    assert_within_discord_limits(lore_embeds.sources_embed([rules, codex], warning=warning * 40))


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
    assert_within_discord_limits(embed)
    assert "Versions (60)" in text_of(embed) and "a" * 64 in text_of(embed)
    shown = text_of(
        lore_embeds.source_embed(SourceDetail(source=source(3), versions=versions[:1], chunks=chunks[:1]))
    )
    assert "found by meaning and by words" in shown and "version 1 · " in shown and "4 passages" in shown
    assert "Passages (3, " in shown and "in 7 answers" in shown
    assert "chunk" not in shown.casefold() and "vector" not in shown.casefold(), shown


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
    done = text_of(lore_import_embeds.import_embed(import_report()))
    assert "Imported: world.md" in done and "12 passages" in done and "crown" in done
    assert "chunk" not in done  # the passages are counted once, in the table's word
    one = text_of(lore_import_embeds.import_embed(import_report(chunk_count=1)))
    assert "(Reference, 1 passage)" in one and "chunk" not in one, one
    assert (
        done.splitlines()[1].startswith("Imported ")
        and "Imported **Source 4** (Reference, 12 passages). Players can now ask" in done
    )
    hidden = text_of(lore_import_embeds.import_embed(import_report(source=source(4, hidden=True))))
    assert "only the GM reads it" in hidden and "Players can now ask" not in hidden
    failed = lore_import_embeds.import_embed(
        import_report(vector_status=VectorStatus.FAILED, vector_error=LONG, warnings=[LONG] * 30)
    )
    assert_within_discord_limits(failed)
    duplicate = lore_import_embeds.import_embed(
        import_report(outcome=ImportOutcome.DUPLICATE, duplicate_of=2)
    )
    assert "(source 2)" in (duplicate.description or "")
    assert "found by meaning and by words" in done and "vector" not in done
    stale = text_of(lore_import_embeds.import_embed(import_report(vector_status=VectorStatus.PENDING)))
    assert "found by words only (its search by meaning is not built yet)" in stale
    for stage in ImportStage:
        said = lore_import_embeds.progress_text(ImportProgress(filename="w.md", stage=stage, done=1, total=2))
        assert "chunk" not in said and "embedding" not in said, said
    embedding = ImportProgress(filename="world.md", stage=ImportStage.EMBEDDING, done=64, total=128)
    assert "64/128" in lore_import_embeds.progress_text(
        embedding
    ) and "█" * 10 + "░" * 10 in lore_import_embeds.progress_text(embedding)
    assert len(lore_import_embeds.progress_text(embedding.model_copy(update={"filename": "f" * 3000}))) < 2000


def test_a_broken_yaml_file_lists_its_error_lines_within_limits() -> None:
    problems = tuple(
        LoreProblem(
            file="family.yaml", line=line, column=3, message="duplicate id “theron_ashveil” " + "x" * 50
        )
        for line in range(1, 400)
    )
    report = IngestReport(campaign_id=1, status="failed", errors=problems, error="Nothing was written.")
    embed = lore_import_embeds.structured_embed(report, "family.yaml")
    assert_within_discord_limits(embed)
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
    embed = lore_import_embeds.structured_embed(good, "bestiary.yaml")
    assert_within_discord_limits(embed)
    assert "Imported 2 creatures from bestiary.yaml" in text_of(embed)
    (warned,) = [f["value"] for f in embed.to_dict()["fields"] if f["name"] == "Warnings (40)"]
    assert warned.startswith("⚠️ Name clash: ΩΩΩ") and warned.endswith(" more")  # the rest counted, not cut


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
