"""Proposal extraction: material (a scene's transcript, an imported document) in, drafts for the canon gate out.

Steps, for each piece of material (a long transcript is cut into pieces of whole turns, overlapping by two):
1. The prompt lists the ontology and the KNOWN ENTITIES the piece names (names, aliases), so the model reuses
   canon's spelling; the piece itself sits inside a data frame.
2. The reply is validated item by item (`prompts.ExtractionReply`); invalid items are dropped with a log line.
3. Each item becomes typed proposal content; items citing no turn of the piece, or failing the content
   models, are dropped with a log line.
4. Items saying what canon already says are dropped (merged into the existing canon); the same item from
   two pieces is merged (evidence widened, highest confidence kept). Duplicates of pending proposals are
   merged by the gate itself when the drafts are submitted.

Nothing here writes: the drafts go through `CanonService.submit`, which resolves names and validates each
one against the ontology in a savepoint (a draft that does not fit is dropped there, never breaking the gate).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.llm.client import LLMClient, LLMOutputInvalid, LLMUnavailable, Usage
from bot.voice.prompts import (
    EntityItem,
    EventItem,
    ExtractedItem,
    FactItem,
    RelationshipItem,
    StateChangeItem,
    extraction_messages,
    extraction_reply_model,
)
from canon.errors import GameError
from canon.gate import Draft
from canon.graph import CanonReader, fold
from canon.models import Authority, Evidence, StatementKind
from canon.ontology import Ontology
from canon.proposals import (
    EntityContent,
    EventContent,
    FactContent,
    ProposalContent,
    Ref,
    RelationshipContent,
    StateChangeContent,
    fingerprint,
)
from memory.scenes import SpeakerKind, Turn
from memory.tokens import count_tokens

log = logging.getLogger(__name__)

PIECE_OVERLAP_TURNS = 2
#: Hears how many pieces of a transcript or a file were read so far, of how many.
PiecesRead = Callable[[int, int], Awaitable[None]]
_WORDS = re.compile(r"[^\W_]+")


class Piece(BaseModel):
    """One piece of material: numbered lines (turns or paragraphs) and how to cite them."""

    model_config = ConfigDict(frozen=True)

    lines: tuple[tuple[int, str], ...]
    heading: str

    @property
    def numbers(self) -> set[int]:
        """Return the line numbers this piece holds."""
        return {number for number, _ in self.lines}

    @property
    def text(self) -> str:
        """Return the piece as the prompt shows it."""
        return "\n".join(f"[{number}] {line}" for number, line in self.lines)


def speaker_label(turn: Turn) -> str:
    """Return how a turn's speaker is shown in a transcript."""
    if turn.speaker == SpeakerKind.NARRATOR:
        return "Narrator"
    if turn.speaker == SpeakerKind.NPC:
        return f"{turn.author_name} (NPC)"
    if turn.speaker == SpeakerKind.GM:
        return f"{turn.author_name} (GM)"
    if turn.speaker == SpeakerKind.ROLL:
        return f"{turn.author_name} (dice roll)"
    return f"{turn.author_name} (player)"


def transcript_lines(turns: Sequence[Turn]) -> list[tuple[int, str]]:
    """Return a scene's standing turns as numbered transcript lines."""
    return [
        (turn.number, f"{speaker_label(turn)}: {' '.join(turn.text.split())}")
        for turn in turns
        if not turn.is_deleted and turn.text.strip()
    ]


def split_pieces(
    lines: Sequence[tuple[int, str]], *, max_tokens: int, heading: str, overlap: int = PIECE_OVERLAP_TURNS
) -> list[Piece]:
    """Cut numbered lines into pieces of at most `max_tokens` (whole lines; consecutive pieces overlap)."""
    pieces: list[Piece] = []
    start = 0
    sizes = [count_tokens(line) + 4 for _, line in lines]
    while start < len(lines):
        end, used = start, 0
        while end < len(lines) and (end == start or used + sizes[end] <= max_tokens):
            used += sizes[end]
            end += 1
        pieces.append(Piece(lines=tuple(lines[start:end]), heading=heading))
        if end >= len(lines):
            break
        start = max(start + 1, end - overlap)
    return pieces


def turn_spans(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Return numbers as runs of consecutive ones, first to last: {2, 3, 9} -> [(2, 3), (9, 9)]."""
    spans: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if spans and number == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], number)
        else:
            spans.append((number, number))
    return spans


def describe_spans(spans: Sequence[tuple[int, int]]) -> str:
    """Return spans as words: `turn 2`, `turns 2–3`, `turns 2–3, 9 and 12`."""
    parts = [str(first) if first == last else f"{first}–{last}" for first, last in spans]
    if len(parts) == 1 and spans[0][0] == spans[0][1]:
        return f"turn {parts[0]}"
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"turns {listed}"


def paragraph_lines(text: str) -> list[tuple[int, str]]:
    """Return a passage's paragraphs as numbered lines."""
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return [(n, p) for n, p in enumerate((p for p in paragraphs if p), 1)]


def names_in(text: str, names: Sequence[tuple[str, int]]) -> set[int]:
    """Return the ids of the entities whose name or alias appears in `text` as whole words."""
    folded = f" {' '.join(_WORDS.findall(fold(text)))} "
    found: set[int] = set()
    for name, entity_id in names:
        words = " ".join(_WORDS.findall(fold(name)))
        if len(words) >= 3 and f" {words} " in folded:
            found.add(entity_id)
    return found


async def known_entities(reader: CanonReader, text: str) -> list[tuple[str, str, list[str]]]:
    """Return the canon entities `text` names (as the player view sees them): name, type and aliases."""
    ids = names_in(text, await reader.names())
    entities = await reader.entities(ids)
    return [(e.name, e.type, list(e.aliases)) for e in sorted(entities.values(), key=lambda e: e.name)]


# --- items to drafts ----------------------------------------------------------------------------------------


def _clean(text: str | None) -> str | None:
    value = " ".join((text or "").split())
    return value or None


def item_content(item: ExtractedItem) -> ProposalContent:
    """Return an extracted item as proposal content (raises `ValidationError` when it does not fit)."""
    match item:
        case EntityItem():
            name = fold(item.name)
            aliases = tuple(dict.fromkeys(a.strip() for a in item.aliases if a.strip() and fold(a) != name))
            return EntityContent(
                name=item.name.strip(),
                entity_type=item.entity_type,
                description=_clean(item.description),
                aliases=aliases,
            )
        case FactItem():
            return FactContent(
                subject=Ref(name=item.subject.strip()),
                attribute=item.attribute,
                value=item.value.strip(),
                when=_clean(item.when),
            )
        case RelationshipItem():
            return RelationshipContent(
                subject=Ref(name=item.subject.strip()),
                relation=item.relation,
                object=Ref(name=item.object.strip()),
                since=_clean(item.since),
                until=_clean(item.until),
            )
        case StateChangeItem():
            return StateChangeContent(
                subject=Ref(name=item.subject.strip()),
                state=item.state,
                via=_clean(item.via),
                when=_clean(item.when),
            )
        case EventItem():
            return EventContent(
                name=item.name.strip(),
                when=_clean(item.when),
                location=Ref(name=location) if (location := _clean(item.location)) else None,
                participants=tuple(Ref(name=p.strip()) for p in item.participants if p.strip()),
                description=_clean(item.description),
            )
    raise AssertionError(item)  # pragma: no cover


@dataclass
class Candidate:
    """A draft being assembled from one or more pieces."""

    content: ProposalContent
    lines: set[int]
    confidence: float
    pieces: set[int] = field(default_factory=set)


@dataclass
class ExtractionReport:
    """What an extraction did: pieces read, items found, dropped and merged, drafts made, tokens and time."""

    pieces: int = 0
    items: int = 0
    drafts: list[Draft] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    failed_pieces: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    stored: int = 0
    batch: str | None = None
    skipped: str | None = None


def _content_key(content: ProposalContent) -> str:
    return fingerprint(content)


class Extractor:
    """Reads pieces of material with the LLM and turns the replies into drafts; see the module docstring."""

    def __init__(self, llm: LLMClient, *, max_tokens: int = 2000) -> None:
        self.llm = llm
        self.max_tokens = max_tokens

    async def read(
        self,
        pieces: Sequence[Piece],
        *,
        ontology: Ontology,
        known_for: Callable[[Piece], list[tuple[str, str, list[str]]]],
        dates: Sequence[str],
        material_kind: str,
        campaign_id: int | None,
        purpose: str,
        report: ExtractionReport,
        cite_required: bool = True,
        progress: PiecesRead | None = None,
    ) -> list[tuple[int, Candidate]]:
        """Return (piece index, candidate) for every item that fits, recording what was dropped.

        `dates` show the model how the campaign's calendar writes a date; `progress(read, total)` hears of each
        piece read (a long scene or file takes many model calls).
        """
        model = extraction_reply_model(ontology)
        started = time.perf_counter()
        found: list[tuple[int, Candidate]] = []
        for index, piece in enumerate(pieces):
            if progress is not None and index:
                await progress(index, len(pieces))
            report.pieces += 1
            messages = extraction_messages(
                ontology=ontology,
                material=piece.text,
                material_kind="prose" if material_kind == "prose" else "transcript",
                heading=piece.heading,
                known=known_for(piece),
                dates=dates,
            )
            try:
                reply = await self.llm.complete_structured(
                    messages,
                    model,
                    campaign_id=campaign_id,
                    purpose=purpose,
                    max_tokens=self.max_tokens,
                    temperature=0.0,
                )
            except LLMOutputInvalid as error:
                # One unreadable piece costs that piece, never the rest of the scene.
                log.warning("extraction of piece %d failed: %s", index + 1, error.errors)
                report.failed_pieces.append(f"piece {index + 1}: the model's reply could not be understood")
                continue
            except LLMUnavailable as error:
                # Retries are spent: the pieces read so far still count; the rest wait for another try.
                log.warning("extraction stopped at piece %d of %d: %s", index + 1, len(pieces), error.message)
                report.failed_pieces += [f"piece {n + 1}: {error.message}" for n in range(index, len(pieces))]
                break
            report.usage += reply.usage
            report.dropped += reply.value.dropped
            report.items += len(reply.value.items) + len(reply.value.dropped)
            for item in reply.value.items:
                cited = {n for n in item.turns if n in piece.numbers}
                if cite_required and not cited:
                    reason = f"{item.kind} cites no turn of the material ({item.turns})"
                    log.info("dropped extracted item: %s", reason)
                    report.dropped.append(reason)
                    continue
                try:
                    content = item_content(item)
                except (ValidationError, GameError) as error:
                    log.info("dropped extracted item that does not fit a proposal: %s", error)
                    report.dropped.append(f"{item.kind}: does not fit a proposal")
                    continue
                found.append((index, Candidate(content=content, lines=cited, confidence=item.confidence)))
        report.seconds += time.perf_counter() - started
        if progress is not None and pieces:
            await progress(len(pieces), len(pieces))
        return found


def merge_candidates(found: Sequence[tuple[int, Candidate]], report: ExtractionReport) -> list[Candidate]:
    """Merge the same item found in several pieces: lines united, highest confidence kept."""
    merged: dict[str, Candidate] = {}
    for index, candidate in found:
        key = _content_key(candidate.content)
        if key in merged:
            kept = merged[key]
            kept.lines |= candidate.lines
            kept.confidence = max(kept.confidence, candidate.confidence)
            kept.pieces.add(index)
            report.merged.append(f"{candidate.content.type}: found in several pieces")
        else:
            candidate.pieces.add(index)
            merged[key] = candidate
    return list(merged.values())


async def already_canon(reader: CanonReader, content: ProposalContent) -> str | None:
    """Return why `content` adds nothing to canon (it already says so), or None when it is new."""

    async def entity_id(name: str) -> int | None:
        found = await reader.find_exact(name)
        return found[0].id if len(found) == 1 else None

    match content:
        case EntityContent() | EventContent():
            if await reader.find_exact(content.name):
                return f"“{content.name}” is already in canon"
            return None
        case FactContent():
            subject = await entity_id(content.subject.name)
            if subject is None:
                return None
            attribute = "_".join(content.attribute.strip().lower().split())
            for statement in await reader.statements(
                subject_ids=[subject], predicates=[attribute], with_evidence=False
            ):
                if statement.kind == StatementKind.ATTRIBUTE and fold(statement.value or "") == fold(
                    content.value
                ):
                    return f"{content.subject.name}: {attribute} = {content.value} is already canon"
            return None
        case RelationshipContent():
            subject, obj = await entity_id(content.subject.name), await entity_id(content.object.name)
            if subject is None or obj is None:
                return None
            try:
                relation = reader.ontology.relation_type(content.relation)
            except GameError:
                return None
            symmetric = reader.ontology.relation_types[relation].symmetric
            for statement in await reader.statements(
                subject_ids=[subject, obj], predicates=[relation], with_evidence=False
            ):
                pair = (statement.subject_id, statement.object_id)
                if pair == (subject, obj) or (symmetric and pair == (obj, subject)):
                    return f"{content.subject.name} {relation} {content.object.name} is already canon"
            return None
        case StateChangeContent():
            subject = await entity_id(content.subject.name)
            if subject is None:
                return None
            current = reader.current_state(
                await reader.statements(subject_ids=[subject], predicates=["state"], with_evidence=False)
            )
            if current is not None and fold(current.value or "") == fold(content.state):
                return f"{content.subject.name} is already {content.state}"
            return None
    return None


async def without_canon(
    reader: CanonReader, candidates: Sequence[Candidate], report: ExtractionReport
) -> list[Candidate]:
    """Return the candidates that add to canon; the others are merged into it (logged and reported)."""
    kept = []
    for candidate in candidates:
        try:
            reason = await already_canon(reader, candidate.content)
        except GameError:  # a name canon cannot resolve: the gate decides what to make of it
            reason = None
        if reason is None:
            kept.append(candidate)
        else:
            log.info("extracted item merged into existing canon: %s", reason)
            report.merged.append(reason)
    return kept


def order_drafts(drafts: Sequence[Draft]) -> list[Draft]:
    """Return drafts with new entities first, then events, then the rest (so references find them pending)."""
    rank = {"entity": 0, "event": 1}
    return sorted(drafts, key=lambda d: rank.get(str(d.content.type), 2))


def make_draft(
    candidate: Candidate,
    *,
    authority: Authority,
    evidence: list[Evidence],
    origin: str,
    confidence: float | None,
    rationale: str,
) -> Draft:
    """Return the draft of one candidate."""
    return Draft(
        content=candidate.content,
        authority=authority,
        evidence=evidence,
        confidence=round(candidate.confidence if confidence is None else confidence, 3),
        origin=origin,
        proposer_id=None,
        proposer_name="Lorekeeper",
        rationale=rationale,
    )
