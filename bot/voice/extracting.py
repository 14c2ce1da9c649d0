"""Extracting proposals: a scene's transcript at /endscene, or an imported document, into drafts for the GM.

The reading itself (pieces, the model's calls, merging candidates) is `bot.voice.extraction.Extractor`; this
module gathers the material, attaches the evidence and submits the drafts through the proposal service.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from bot.llm.client import NOT_CONFIGURED_MESSAGE, LLMUnavailable, require_llm
from bot.voice.common import VoiceDeps
from bot.voice.extraction import (
    Candidate,
    ExtractionReport,
    Extractor,
    Piece,
    PiecesRead,
    describe_spans,
    make_draft,
    merge_candidates,
    names_in,
    order_drafts,
    paragraph_lines,
    split_pieces,
    transcript_lines,
    turn_spans,
    without_canon,
)
from bot.voice.material import scene_heading
from canon.campaigns import Campaign, get_campaign
from canon.date_reading import examples
from canon.errors import GameError, Unavailable
from canon.graph import CanonReader
from canon.models import Authority, Evidence, EvidenceKind, Viewer, Visibility
from canon.proposals import ProposalContent
from canon.visibility import passage_hidden
from canon.wording.counts import counted
from memory.knowledge.models import citation_label
from memory.scenes import Scene, load_scene, scene_turns

log = logging.getLogger(__name__)

#: id -> (name, type, aliases, every spelling) of the entities a text names.
Known = dict[int, tuple[str, str, list[str], list[str]]]


class ExtractionCases:
    """Read a transcript or a document into proposals that wait for the GM's review."""

    def __init__(self, deps: VoiceDeps) -> None:
        self.deps = deps

    async def extract_for_review(self, scene: Scene, *, progress: PiecesRead | None = None) -> None:
        """Extract a scene's proposals as it ends; log a failure, never raise it (the scene ends anyway)."""
        try:
            report = await self.extract_scene(scene, progress=progress)
        except (GameError, LLMUnavailable) as error:
            log.warning("proposal extraction for scene %s failed: %s", scene.id, error)
            return
        except Exception:
            log.exception("proposal extraction for scene %s failed", scene.id)
            return
        if report.failed_pieces:
            log.warning(
                "scene %s: %s of the transcript not read",
                scene.id,
                counted(len(report.failed_pieces), "piece"),
            )
        if report.skipped is None:
            log.info(
                "scene %s: %d items read, %d proposals stored, %d dropped, %d merged in %.1fs",
                scene.id,
                report.items,
                report.stored,
                len(report.dropped),
                len(report.merged),
                report.seconds,
            )

    async def extract_scene(
        self, scene: Scene | int, *, progress: PiecesRead | None = None
    ) -> ExtractionReport:
        """Extract the proposals a scene's transcript establishes and submit them for the GM's review."""
        deps = self.deps
        if deps.llm is None:
            return ExtractionReport(skipped=NOT_CONFIGURED_MESSAGE)
        async with deps.db.session() as session:
            if isinstance(scene, int):
                scene = await load_scene(session, scene)
            campaign = await get_campaign(session, scene.campaign_id)
            turns = await scene_turns(session, scene.id, include_deleted=False)
            player_view = await deps.canon.reader(session, campaign, Viewer.PLAYER)
            lines = transcript_lines(turns)
            known = await _known(player_view, "\n".join(line for _, line in lines))
            dates = examples(await player_view.calendar())
        if not lines:
            return ExtractionReport(skipped="The scene has no turns.")
        heading = scene_heading(scene)
        pieces = split_pieces(lines, max_tokens=deps.settings.extraction_piece_tokens, heading=heading)
        report = ExtractionReport()
        extractor = Extractor(deps.llm, max_tokens=deps.settings.extraction_max_tokens)
        found = await extractor.read(
            pieces,
            ontology=deps.canon.ontology_for(campaign),
            known_for=lambda piece: _known_in(piece, known),
            dates=dates,
            material_kind="transcript",
            campaign_id=campaign.id,
            purpose="extraction",
            report=report,
            progress=progress,
        )
        candidates = await self._without_canon(campaign, merge_candidates(found, report), report)
        drafts = []
        for candidate in candidates:
            # The exact turns cited: [2, 9] is two pieces of evidence, never the range 2-9 between them.
            spans = turn_spans(candidate.lines)
            drafts.append(
                make_draft(
                    candidate,
                    authority=Authority.SYSTEM,
                    evidence=[
                        Evidence(kind=EvidenceKind.TURNS, scene_id=scene.id, turn_from=first, turn_to=last)
                        for first, last in spans
                    ],
                    origin="extraction",
                    confidence=None,
                    rationale=f"Read from {describe_spans(spans)} by the language model.",
                )
            )
        report.drafts = order_drafts(drafts)
        stored = await deps.canon.submit(campaign, report.drafts, scene_id=scene.id, batch=None)
        report.stored = len(stored)
        return report

    async def extract_source(
        self, campaign: Campaign, source_id: int, *, progress: PiecesRead | None = None
    ) -> ExtractionReport:
        """Extract proposals from an imported document into a batch that waits for the GM (authority source)."""
        deps = self.deps
        llm = require_llm(deps.llm)
        if deps.knowledge is None:
            raise Unavailable("Imported knowledge is not available in this installation.")
        detail = await deps.knowledge.get_source(campaign.id, source_id, viewer=Viewer.GM, chunk_limit=0)
        source = detail.source
        chunks = await deps.knowledge.chunks(campaign.id, source_id, viewer=Viewer.GM)
        batch = f"extract:{source_id}:{int(time.time())}"
        report = ExtractionReport(batch=batch)
        pieces: list[tuple[int, Piece]] = []
        secret = {chunk.id for chunk in chunks if passage_hidden(source.hidden, chunk.section_hidden)}
        places = {chunk.id: citation_label(source.title, chunk.heading_path, chunk.place) for chunk in chunks}
        for chunk in chunks:
            lines = paragraph_lines(chunk.text)
            if lines:
                heading = (
                    f"From “{source.title}”"
                    + (f", {chunk.place}" if chunk.place else "")
                    + (f", section {' › '.join(chunk.heading_path)}" if chunk.heading_path else "")
                )
                pieces.append((chunk.id, Piece(lines=tuple(lines), heading=heading)))
        async with deps.db.session() as session:
            reader = await deps.canon.reader(session, campaign, Viewer.PLAYER)
            known = await _known(reader, "\n".join(p.text for _, p in pieces))
            dates = examples(await reader.calendar())
        extractor = Extractor(llm, max_tokens=deps.settings.extraction_max_tokens)
        found = await extractor.read(
            [p for _, p in pieces],
            ontology=deps.canon.ontology_for(campaign),
            known_for=lambda piece: _known_in(piece, known),
            dates=dates,
            material_kind="prose",
            campaign_id=campaign.id,
            purpose="prose_extraction",
            report=report,
            cite_required=False,
            progress=progress,
        )
        candidates = await self._without_canon(campaign, merge_candidates(found, report), report)
        drafts = []
        for candidate in candidates:
            content: ProposalContent = candidate.content
            # What a narrator-only document (or a GM-only section) says is GM-only until the GM says otherwise.
            if source.hidden or any(pieces[index][0] in secret for index in candidate.pieces):
                content = content.model_copy(update={"visibility": Visibility.GM_ONLY})
                candidate.content = content
            evidence = [
                Evidence(
                    kind=EvidenceKind.CHUNK,
                    source_id=source_id,
                    chunk_id=pieces[index][0],
                    note=places.get(pieces[index][0]),
                )
                for index in sorted(candidate.pieces)
            ]
            drafts.append(
                make_draft(
                    candidate,
                    authority=Authority.SOURCE,
                    evidence=evidence,
                    origin="prose_extraction",
                    confidence=0.6,
                    rationale=f"Read from “{source.title}” by the language model.",
                )
            )
        report.drafts = order_drafts(drafts)
        stored = await deps.canon.submit(campaign, report.drafts, scene_id=None, batch=batch)
        report.stored = len(stored)
        return report

    async def _without_canon(
        self, campaign: Campaign, candidates: Sequence[Candidate], report: ExtractionReport
    ) -> list[Candidate]:
        async with self.deps.db.session() as session:
            reader = await self.deps.canon.reader(session, campaign, Viewer.GM)
            return await without_canon(reader, candidates, report)


async def _known(reader: CanonReader, text: str) -> Known:
    """Return the entities `text` names: id -> (name, type, aliases, every spelling)."""
    names = await reader.names()
    ids = names_in(text, names)
    entities = await reader.entities(ids)
    return {e.id: (e.name, e.type, list(e.aliases), [e.name, *e.aliases]) for e in entities.values()}


def _known_in(piece: Piece, known: Known) -> list[tuple[str, str, list[str]]]:
    spellings = [(spelling, entity_id) for entity_id, k in known.items() for spelling in k[3]]
    ids = names_in(piece.text, spellings)
    return sorted(((known[i][0], known[i][1], known[i][2]) for i in ids), key=lambda k: k[0])
