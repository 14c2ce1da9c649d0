"""The game-master's voice, as use cases for the cogs and the command line.

- `extract_scene`: at /endscene, the scene's transcript becomes proposals on the review card (CanonService
  calls it through its `before_review` hook, so every way of ending a scene does it).
- `narrate`: the narrator writes what happens next from an assembled context, checks it for GM-only text,
  posts it through a callback (Discord stays in the cog) and stores it as a narrator turn with its context.
- `npc_talk`: an NPC answers in character from its memories and public canon only.
- `digest_scene`: once a scene is complete, its summary and its NPCs' memories (CanonService's
  `after_complete` hook, in the background; `catch_up` redoes scenes a crash interrupted).
- `extract_source`: imported prose through the same extraction, into a batch waiting for the GM.

No method holds a database transaction while it waits for the LLM or the embedder: reads happen first in a
read session, the model is called, and the results are written in a short `db.run` afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.llm.client import NOT_CONFIGURED_MESSAGE, LLMClient, LLMOutputInvalid, LLMUnavailable, require_llm
from bot.services.proposal_service import ProposalService
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
from bot.voice.material import (
    STAGING_SPEAKERS,
    card_line,
    contradictions,
    extractive_memories,
    first_mention,
    gm_words,
    is_npc_type,
    memory_line,
    public_state_names,
    scene_heading,
    secret_lines,
    turn_line,
)
from bot.voice.prompts import (
    RETRY_AFTER_LEAK,
    NpcMemoriesReply,
    narration_messages,
    npc_memory_messages,
    npc_talk_messages,
    summary_messages,
)
from canon import presence
from canon.campaigns import Campaign, get_campaign
from canon.domain import Authority, EntityCard, Evidence, EvidenceKind, Viewer, Visibility
from canon.errors import Conflict, GameError, InvalidInput, NotAllowed, NotFound, Unavailable
from canon.graph import CanonReader
from canon.proposals import ProposalContent
from canon.storage import Database
from canon.visibility import view_hidden
from config.settings import VoiceSettings
from memory import digests as digest_repo
from memory.context import AssembledContext, ContextItem, ContextSection, SectionKind, assemble
from memory.digests import Moment, SceneDigest, SceneMomentStore, extractive_summary
from memory.framing import passage_line
from memory.leaks import Leak, Secret, find_leaks
from memory.narrations import (
    NarrationRecord,
    NarrationStatus,
    create_narration,
    get_narration,
    update_narration,
)
from memory.npc_memory import DocType, MemoryRecord, NewMemory, NpcMemoryStore, ScopeKind, memories_of
from memory.scene_tables import SceneRow
from memory.scenes import Actor, Scene, SceneService, SceneStatus, SpeakerKind, load_scene, scene_turns
from memory.tokens import truncate_to_tokens
from memory.turn_log import IncomingMessage, TurnLog

log = logging.getLogger(__name__)

#: Posts a narration (its text and record id) and returns the Discord message id.
PostNarration = Callable[[str, int], Awaitable[int]]
#: Posts an NPC's reply (the NPC's name and the text) and returns the Discord message id.
PostAsNpc = Callable[[str, str], Awaitable[int]]

DISCORD_TEXT_LIMIT = 1900
MAX_NPC_MESSAGE = 1500
MAX_DIRECTION = 1000
NPC_SCENE_TURNS = 8
NPC_LINKS_THRESHOLD = 0.72
LORE_RESULTS = 12


@dataclass(frozen=True)
class NarrationOutcome:
    """What a narration request came to: posted, held back (`blocked`), or nothing to say (`empty`)."""

    status: Literal["posted", "blocked", "empty", "skipped"]
    narration_id: int | None = None
    text: str | None = None
    message_id: int | None = None
    leaks: tuple[Leak, ...] = ()


@dataclass(frozen=True)
class NpcReply:
    """An NPC's answer (or `blocked` when every draft quoted GM-only canon)."""

    npc_name: str
    status: Literal["posted", "blocked"]
    text: str | None
    message_id: int | None
    recalled: tuple[MemoryRecord, ...] = ()
    context: AssembledContext | None = None
    prompt: tuple[dict[str, str], ...] = ()


@dataclass
class DigestReport:
    """What finishing a scene wrote: its summary and each NPC's memories."""

    scene_id: int
    summary: str
    summary_method: str
    memories: dict[str, int] = field(default_factory=dict)
    skipped: bool = False


@dataclass
class _Material:
    """The context of one narration or NPC reply, and what the leak check needs.

    `public` is what players may legitimately know (player-visible canon, public sources, the GM's own words
    at the table), never a player's text: a player who types a guess must not unlock the secret it names.
    """

    context: AssembledContext
    secrets: list[Secret]
    public: list[str]


def clip_for_discord(text: str, limit: int = DISCORD_TEXT_LIMIT) -> str:
    """Return text cut at a paragraph or sentence end to fit one Discord message."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for marker in ("\n\n", ". ", "! ", "? ", "\n"):
        at = cut.rfind(marker)
        if at > limit // 2:
            return cut[: at + 1].rstrip()
    return cut.rstrip() + "…"


def _strip_reply(text: str) -> str:
    """Return a model's reply without wrapping quotes or a leading speaker label."""
    text = text.strip()
    text = re.sub(r"^(narrator|narration)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    return text


class VoiceService:
    """Narration, extraction, NPC memory and speech; see the module docstring."""

    def __init__(
        self,
        *,
        db: Any,
        settings: VoiceSettings,
        canon: ProposalService,
        scenes: SceneService,
        turns: TurnLog,
        llm: LLMClient | None,
        memories: NpcMemoryStore,
        moments: SceneMomentStore,
        retriever: Any = None,
        knowledge: Any = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.canon = canon
        self.scenes = scenes
        self.turns = turns
        self.llm = llm
        self.memories = memories
        self.moments = moments
        #: `memory.knowledge.retrieval.Retriever` (or anything with its `search`), when imported knowledge is wired.
        self.retriever = retriever
        #: `memory.knowledge.KnowledgeService`, for `extract_source`.
        self.knowledge = knowledge
        self._narrator_channels: set[int] | None = None
        self._narrator_lock = asyncio.Lock()
        self._channel_locks: dict[int, asyncio.Lock] = {}
        self._digest_lock = asyncio.Lock()
        self._background: set[asyncio.Task[Any]] = set()

    # -- plumbing -------------------------------------------------------------------------------------

    async def _campaign(self, campaign_id: int) -> Campaign:
        async with self.db.session() as session:
            return await get_campaign(session, campaign_id)

    def run_in_background(self, coro: Awaitable[Any], name: str) -> None:
        """Run work after the caller returns (kept until done; `drain` waits for it)."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain(self) -> None:
        """Wait for the background work started so far (scene digests); for shutdown and tests."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    async def close(self) -> None:
        """Let running background work finish."""
        await self.drain()

    async def _npc(self, campaign: Campaign, name: str, *, viewer: Viewer) -> tuple[int, str, list[str]]:
        """Resolve an NPC by name for a viewer: its id, name and aliases; refuse what is not an NPC."""
        async with self.db.session() as session:
            reader = await self.canon.reader(session, campaign, viewer)
            entity = await reader.resolve(name)
            if not is_npc_type(reader.ontology, entity.type):
                raise InvalidInput(
                    f"{entity.name} is a {entity.type}, not a character who can talk or remember."
                )
            return entity.id, entity.name, list(entity.aliases)

    # -- extraction -----------------------------------------------------------------------------------

    async def before_review(self, scene: Scene, *, progress: PiecesRead | None = None) -> None:
        """CanonService hook at /endscene: drop the narrator, extract proposals; never fail the scene's end."""
        self.forget_narrator_channel(scene.channel_id)
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
                "scene %s: %d piece(s) of the transcript were not read", scene.id, len(report.failed_pieces)
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
        if self.llm is None:
            return ExtractionReport(skipped=NOT_CONFIGURED_MESSAGE)
        async with self.db.session() as session:
            if isinstance(scene, int):
                scene = await load_scene(session, scene)
            campaign = await get_campaign(session, scene.campaign_id)
            turns = await scene_turns(session, scene.id, include_deleted=False)
            player_view = await self.canon.reader(session, campaign, Viewer.PLAYER)
            lines = transcript_lines(turns)
            known = await self._known(player_view, "\n".join(line for _, line in lines))
        if not lines:
            return ExtractionReport(skipped="The scene has no turns.")
        heading = scene_heading(scene)
        pieces = split_pieces(lines, max_tokens=self.settings.extraction_piece_tokens, heading=heading)
        report = ExtractionReport()
        extractor = Extractor(self.llm, max_tokens=self.settings.extraction_max_tokens)
        found = await extractor.read(
            pieces,
            ontology=self.canon.ontology_for(campaign),
            known_for=lambda piece: self._known_in(piece, known),
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
        stored = await self.canon.submit(campaign, report.drafts, scene_id=scene.id, batch=None)
        report.stored = len(stored)
        return report

    async def _known(
        self, reader: CanonReader, text: str
    ) -> dict[int, tuple[str, str, list[str], list[str]]]:
        """Return the entities `text` names: id -> (name, type, aliases, every spelling)."""
        names = await reader.names()
        ids = names_in(text, names)
        entities = await reader.entities(ids)
        return {e.id: (e.name, e.type, list(e.aliases), [e.name, *e.aliases]) for e in entities.values()}

    @staticmethod
    def _known_in(
        piece: Piece, known: dict[int, tuple[str, str, list[str], list[str]]]
    ) -> list[tuple[str, str, list[str]]]:
        spellings = [(spelling, entity_id) for entity_id, k in known.items() for spelling in k[3]]
        ids = names_in(piece.text, spellings)
        return sorted(((known[i][0], known[i][1], known[i][2]) for i in ids), key=lambda k: k[0])

    async def _without_canon(
        self, campaign: Campaign, candidates: Sequence[Candidate], report: ExtractionReport
    ) -> list[Candidate]:
        async with self.db.session() as session:
            reader = await self.canon.reader(session, campaign, Viewer.GM)
            return await without_canon(reader, candidates, report)

    async def extract_source(
        self, campaign: Campaign, source_id: int, *, progress: PiecesRead | None = None
    ) -> ExtractionReport:
        """Extract proposals from an imported document into a batch that waits for the GM (authority source)."""
        llm = require_llm(self.llm)
        if self.knowledge is None:
            raise Unavailable("Imported knowledge is not available in this installation.")
        detail = await self.knowledge.get_source(campaign.id, source_id, viewer=Viewer.GM, chunk_limit=0)
        source = detail.source
        chunks = await self.knowledge.chunks(campaign.id, source_id, viewer=Viewer.GM)
        batch = f"extract:{source_id}:{int(time.time())}"
        report = ExtractionReport(batch=batch)
        pieces: list[tuple[int, Piece]] = []
        for chunk in chunks:
            lines = paragraph_lines(chunk.text)
            if lines:
                heading = f"From “{source.title}”" + (
                    f", section {' › '.join(chunk.heading_path)}" if chunk.heading_path else ""
                )
                pieces.append((chunk.id, Piece(lines=tuple(lines), heading=heading)))
        async with self.db.session() as session:
            reader = await self.canon.reader(session, campaign, Viewer.PLAYER)
            known = await self._known(reader, "\n".join(p.text for _, p in pieces))
        extractor = Extractor(llm, max_tokens=self.settings.extraction_max_tokens)
        found = await extractor.read(
            [p for _, p in pieces],
            ontology=self.canon.ontology_for(campaign),
            known_for=lambda piece: self._known_in(piece, known),
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
            if source.hidden:  # what a narrator-only document says is GM-only until the GM says otherwise
                content = content.model_copy(update={"visibility": Visibility.GM_ONLY})
                candidate.content = content
            evidence = [
                Evidence(kind=EvidenceKind.CHUNK, source_id=source_id, chunk_id=pieces[index][0])
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
        stored = await self.canon.submit(campaign, report.drafts, scene_id=None, batch=batch)
        report.stored = len(stored)
        return report

    # -- narrator mode --------------------------------------------------------------------------------

    async def narrator_channels(self) -> set[int]:
        """Return the channels whose running scene has narrator mode on (loaded once, then kept current)."""
        if self._narrator_channels is None:
            # One load, however many messages arrive at once: this runs on every message of every server.
            async with self._narrator_lock:
                if self._narrator_channels is None:
                    async with self.db.session() as session:
                        query = select(SceneRow.channel_id).where(
                            SceneRow.status == SceneStatus.ACTIVE, SceneRow.narrator_mode.is_(True)
                        )
                        self._narrator_channels = set((await session.execute(query)).scalars())
        return self._narrator_channels

    def forget_narrator_channel(self, channel_id: int) -> None:
        """Stop narrating in a channel (its scene ended)."""
        if self._narrator_channels is not None:
            self._narrator_channels.discard(channel_id)

    async def set_narrator(self, channel_id: int, on: bool, actor: Actor) -> Scene:
        """Turn the narrator of the channel's running scene on or off (GM)."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can turn the narrator on or off.")
        if on:
            require_llm(self.llm)
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; the narrator is off until the next one.")

        async def work(session: AsyncSession) -> None:
            await session.execute(update(SceneRow).where(SceneRow.id == scene.id).values(narrator_mode=on))

        await self.db.run(work)
        channels = await self.narrator_channels()
        if on:
            channels.add(channel_id)
        else:
            channels.discard(channel_id)
        return scene.model_copy(update={"narrator_mode": on})

    # -- narration ------------------------------------------------------------------------------------

    async def narrate(
        self,
        channel_id: int,
        actor: Actor,
        *,
        post: PostNarration,
        trigger: Literal["command", "auto"] = "command",
        direction: str | None = None,
    ) -> NarrationOutcome:
        """Write, check, post and store what happens next in the channel's scene."""
        llm = require_llm(self.llm)
        if direction is not None and direction.strip():
            if not actor.is_gm:
                raise NotAllowed("Only the GM can give the narrator a direction.")
            if len(direction) > MAX_DIRECTION:
                raise InvalidInput(f"A direction is at most {MAX_DIRECTION} characters.")
        scene = await self.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            if trigger == "auto":
                self.forget_narrator_channel(channel_id)
                return NarrationOutcome(status="skipped")
            raise Conflict("This scene has ended; the narrator has nothing more to say in it.")
        if trigger == "auto" and not scene.narrator_mode:
            self.forget_narrator_channel(channel_id)
            return NarrationOutcome(status="skipped")
        if trigger == "command" and not actor.is_gm and not scene.narrator_mode:
            raise NotAllowed("The narrator is off in this scene; only the GM can call it now.")
        lock = self._channel_locks.setdefault(channel_id, asyncio.Lock())
        async with lock:
            return await self._narrate_locked(
                llm, scene, actor, post=post, trigger=trigger, direction=direction
            )

    async def _narrate_locked(
        self,
        llm: LLMClient,
        scene: Scene,
        actor: Actor,
        *,
        post: PostNarration,
        trigger: str,
        direction: str | None,
    ) -> NarrationOutcome:
        campaign = await self._campaign(scene.campaign_id)
        material = await self.narration_material(campaign, scene)
        heading = scene_heading(scene)
        hidden = material.context.section(SectionKind.SECRETS)
        has_secrets = hidden is not None and bool(hidden.items)
        messages = narration_messages(
            scene_heading=heading,
            context=material.context.render(),
            direction=direction,
            has_secrets=has_secrets,
        )
        completion = await llm.complete(
            messages,
            campaign_id=campaign.id,
            purpose="narration",
            max_tokens=self.settings.narration_max_tokens,
        )
        prompt_tokens, completion_tokens, model = (
            completion.usage.prompt_tokens,
            completion.usage.completion_tokens,
            completion.model,
        )
        text = clip_for_discord(_strip_reply(completion.text))
        leaks = find_leaks(text, material.secrets, material.public) if text else []
        if leaks:
            log.warning(
                "narration for scene %s quoted GM-only canon (%s); asking again", scene.id, leaks[0].label
            )
            messages = narration_messages(
                scene_heading=heading,
                context=material.context.render(),
                direction=direction,
                has_secrets=has_secrets,
                retry_note=RETRY_AFTER_LEAK,
            )
            completion = await llm.complete(
                messages,
                campaign_id=campaign.id,
                purpose="narration",
                max_tokens=self.settings.narration_max_tokens,
            )
            prompt_tokens += completion.usage.prompt_tokens
            completion_tokens += completion.usage.completion_tokens
            text = clip_for_discord(_strip_reply(completion.text))
            leaks = find_leaks(text, material.secrets, material.public) if text else []
        status = NarrationStatus.BLOCKED if leaks else NarrationStatus.DRAFTED
        if not text:
            status = NarrationStatus.FAILED
        record = await self.db.run(
            lambda session: create_narration(
                session,
                campaign_id=campaign.id,
                scene_id=scene.id,
                channel_id=scene.channel_id,
                trigger=trigger,
                requested_by_id=actor.id,
                requested_by_name=actor.name,
                status=status,
                context=material.context.model_dump(mode="json"),
                prompt=[m.model_dump(mode="json") for m in messages],
                output=text or None,
                blocked_reason=(
                    "; ".join(f"{leak.label}: “{leak.phrase}”" for leak in leaks) if leaks else None
                ),
                model=model,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
            )
        )
        if leaks:
            log.warning("narration #%s held back: it quoted GM-only canon twice", record.id)
            return NarrationOutcome(status="blocked", narration_id=record.id, leaks=tuple(leaks))
        if not text:
            return NarrationOutcome(status="empty", narration_id=record.id)
        try:
            message_id = await post(text, record.id)
        except BaseException:
            await self.db.run(lambda s: update_narration(s, record.id, status=NarrationStatus.FAILED))
            raise
        logged = await self.turns.append(
            IncomingMessage(
                message_id=message_id,
                channel_id=scene.channel_id,
                author_id=None,
                author_name="Narrator",
                speaker=SpeakerKind.NARRATOR,
                text=text,
                created_at=dt.datetime.now(dt.UTC),
            )
        )
        await self.db.run(
            lambda s: update_narration(
                s,
                record.id,
                status=NarrationStatus.POSTED,
                message_id=message_id,
                turn_number=logged.number if logged is not None else None,
            )
        )
        return NarrationOutcome(status="posted", narration_id=record.id, text=text, message_id=message_id)

    async def narration(self, campaign: Campaign, narration_id: int) -> NarrationRecord:
        """Return a narration of the campaign with its exact context (for the GM's Context button)."""
        async with self.db.session() as session:
            record = await get_narration(session, narration_id)
        if record.campaign_id != campaign.id:
            raise NotFound(f"There is no narration #{narration_id}.")
        return record

    async def narration_material(self, campaign: Campaign, scene: Scene) -> _Material:
        """Assemble the narrator's context for a scene: state, turns, lore, memories, hidden canon."""
        budget = self.settings.context_tokens
        async with self.db.session() as session:
            turns = [t for t in await scene_turns(session, scene.id, include_deleted=False) if t.text.strip()]
            recent = turns[-self.settings.recent_turns :]
            cast = await digest_repo.cast_of(session, scene.id)
            gm_reader = await self.canon.reader(session, campaign, Viewer.GM)
            player_reader = await self.canon.reader(session, campaign, Viewer.PLAYER)
            text = "\n".join([scene.title, scene.location or "", *(t.text for t in recent)])
            present = names_in(text, await gm_reader.names()) | set(cast)
            gm_cards, player_cards = await self._cards(gm_reader, player_reader, present)
        rules: list[ContextItem] = []
        state: list[ContextItem] = []
        secrets: list[tuple[str, str]] = []
        for entity_id, gm_card in sorted(gm_cards.items()):
            player_card = player_cards.get(entity_id)
            if player_card is not None:
                item = ContextItem.of(card_line(player_card), ref=f"entity:{entity_id}")
                axiomatic = player_card.entity.kind == "axiomatic"
                (rules if axiomatic else state).append(item)
            for line in secret_lines(gm_card):
                secrets.append((f"hidden canon about {gm_card.entity.name}", line))
        turn_items = [ContextItem.of(turn_line(t), ref=f"turn:{t.number}") for t in recent]
        query = " ".join(t.text for t in recent[-3:]) or scene.title
        lore = await self._lore(campaign.id, query, viewer=Viewer.GM)
        canon_items: list[ContextItem] = []
        reference: list[ContextItem] = []
        inspiration: list[ContextItem] = []
        for result in lore:
            line = passage_line(result)
            item = ContextItem.of(line, ref=f"chunk:{result.chunk_id}")
            if result.hidden:
                secrets.append((f"narrator-only source “{result.source_title}”", result.text))
            elif result.always_include:
                rules.append(item)
            elif result.knowledge_class.value == "canon":
                canon_items.append(item)
            elif result.knowledge_class.value == "reference":
                reference.append(item)
            else:
                inspiration.append(item)
        memory_items: list[ContextItem] = []
        states = public_state_names(player_cards.values())
        ontology = self.canon.ontology_for(campaign)
        for entity_id, gm_card in sorted(gm_cards.items()):
            if not is_npc_type(ontology, gm_card.entity.type):
                continue
            recalled = await self.memories.recall(campaign.id, entity_id, query, limit=2)
            for r in recalled:
                line = memory_line(r.memory, contradictions(r.memory, states, ontology))
                memory_items.append(ContextItem.of(line, ref=f"memory:{r.memory.id}"))
        secret_items = [ContextItem.of(text, ref=label) for label, text in secrets]
        sections = [
            ContextSection(
                kind=SectionKind.RULES,
                title="Hard canon rules (always true)",
                items=tuple(rules),
                reserve=budget // 4,
            ),
            ContextSection(
                kind=SectionKind.SECRETS,
                title="Hidden canon (GM only: let it steer events; never reveal, quote or hint at it)",
                items=tuple(secret_items),
            ),
            ContextSection(
                kind=SectionKind.STATE,
                title="Who and what is here, as canon has them now",
                items=tuple(state),
                reserve=budget * 3 // 10,
            ),
            ContextSection(
                kind=SectionKind.TURNS,
                title="The scene so far (most recent last)",
                items=tuple(turn_items),
                reserve=budget // 5,
                keep_newest=True,
            ),
            ContextSection(kind=SectionKind.CANON, title="Canon passages (facts)", items=tuple(canon_items)),
            ContextSection(
                kind=SectionKind.MEMORIES,
                title="What the NPCs here remember (their beliefs, not canon)",
                items=tuple(memory_items),
            ),
            ContextSection(
                kind=SectionKind.REFERENCE, title="Reference passages (background)", items=tuple(reference)
            ),
            ContextSection(
                kind=SectionKind.INSPIRATION,
                title="Inspiration passages (ideas, not facts)",
                items=tuple(inspiration),
            ),
        ]
        public = gm_words(turns) + [i.text for i in (*rules, *state, *canon_items, *reference, *inspiration)]
        return _Material(
            context=assemble(sections, budget),
            secrets=[Secret(text=text, label=label) for label, text in secrets],
            public=public,
        )

    async def _cards(
        self, gm_reader: CanonReader, player_reader: CanonReader, ids: set[int]
    ) -> tuple[dict[int, EntityCard], dict[int, EntityCard]]:
        gm_cards: dict[int, EntityCard] = {}
        player_cards: dict[int, EntityCard] = {}
        for entity_id in sorted(ids):
            with contextlib.suppress(NotFound):
                gm_cards[entity_id] = await gm_reader.card(entity_id)
            with contextlib.suppress(NotFound):
                player_cards[entity_id] = await player_reader.card(entity_id)
        return gm_cards, player_cards

    async def _lore(self, campaign_id: int, query: str, *, viewer: Viewer) -> list[Any]:
        if self.retriever is None or not query.strip():
            return []
        try:
            from memory.knowledge.retrieval import preset

            answer = await self.retriever.search(
                campaign_id, query[:1000], viewer=viewer, limit=LORE_RESULTS, config=preset("context")
            )
        except Exception:  # lore is an aid: narration goes on without it
            log.warning("lore retrieval for the narrator failed", exc_info=True)
            return []
        return list(answer.results)

    # -- NPCs -----------------------------------------------------------------------------------------

    async def npc_talk(
        self,
        campaign: Campaign,
        channel_id: int,
        npc_name: str,
        message: str,
        actor: Actor,
        *,
        post: PostAsNpc,
        allow: str | None = None,
    ) -> NpcReply:
        """Let an NPC answer from its memories and public canon (one out of the story's present: `check_present`)."""
        message = checked_message(message)
        # Players reach only NPCs they know of; what an NPC says is public, so a hidden one cannot speak.
        npc_id, npc, _ = await self._npc(campaign, npc_name, viewer=Viewer.PLAYER)
        await check_present(self.db, self.canon, campaign, (npc_id, npc), actor, allow)
        llm = require_llm(self.llm)
        scene: Scene | None = None
        with contextlib.suppress(NotFound):
            current = await self.scenes.current_scene(channel_id)
            if current.status == SceneStatus.ACTIVE and current.campaign_id == campaign.id:
                scene = current
        material, recalled = await self.npc_material(campaign, npc_id, npc, message, scene)
        messages = npc_talk_messages(
            npc=npc, speaker=actor.name, context=material.context.render(), message=message
        )
        text = ""
        leaks: list[Leak] = []
        for attempt in range(2):
            completion = await llm.complete(
                messages,
                campaign_id=campaign.id,
                purpose="npc_talk",
                max_tokens=self.settings.npc_reply_max_tokens,
            )
            text = clip_for_discord(_strip_reply(completion.text))
            leaks = find_leaks(text, material.secrets, material.public) if text else []
            if not leaks:
                break
            log.warning(
                "%s's reply quoted GM-only canon (%s)%s",
                npc,
                leaks[0].label,
                "; asking again" if attempt == 0 else "",
            )
            messages = npc_talk_messages(
                npc=npc,
                speaker=actor.name,
                context=material.context.render(),
                message=message,
                retry_note=RETRY_AFTER_LEAK.replace("narration", "reply").replace(
                    " from the Hidden canon section", ""
                ),
            )
        prompt = tuple(m.model_dump(mode="json") for m in messages)
        if leaks or not text:
            return NpcReply(
                npc_name=npc,
                status="blocked",
                text=None,
                message_id=None,
                context=material.context,
                prompt=prompt,
            )
        message_id = await post(npc, text)
        if scene is not None:
            await self._log_npc_exchange(scene, actor, message, npc_id, npc, text, message_id)
        return NpcReply(
            npc_name=npc,
            status="posted",
            text=text,
            message_id=message_id,
            recalled=tuple(r.memory for r in recalled),
            context=material.context,
            prompt=prompt,
        )

    async def _log_npc_exchange(
        self, scene: Scene, actor: Actor, message: str, npc_id: int, npc: str, reply: str, message_id: int
    ) -> None:
        now = dt.datetime.now(dt.UTC)
        await self.turns.append(
            IncomingMessage(
                message_id=None,
                channel_id=scene.channel_id,
                author_id=actor.id,
                author_name=actor.name,
                speaker=SpeakerKind.GM if actor.is_gm else SpeakerKind.PLAYER,
                text=f"(to {npc}) {message}",
                created_at=now,
            )
        )
        await self.turns.append(
            IncomingMessage(
                message_id=message_id,
                channel_id=scene.channel_id,
                author_id=None,
                author_name=npc,
                speaker=SpeakerKind.NPC,
                text=reply,
                created_at=now,
            )
        )
        # Talking in a scene means being in it: the NPC will remember the scene.
        await self.db.run(lambda s: digest_repo.add_cast(s, scene.id, npc_id, actor.name))

    async def npc_material(
        self, campaign: Campaign, npc_id: int, npc: str, message: str, scene: Scene | None
    ) -> tuple[_Material, list[Any]]:
        """Assemble what an NPC knows for a reply: public canon, its own memories, the scene it is in."""
        budget = self.settings.context_tokens
        async with self.db.session() as session:
            gm_reader = await self.canon.reader(session, campaign, Viewer.GM)
            player_reader = await self.canon.reader(session, campaign, Viewer.PLAYER)
            turns = (
                [t for t in await scene_turns(session, scene.id, include_deleted=False) if t.text.strip()]
                if scene is not None
                else []
            )
            recent = turns[-NPC_SCENE_TURNS:]
            named = names_in(message + "\n" + "\n".join(t.text for t in recent), await player_reader.names())
            ids = {npc_id} | set(sorted(named)[:6])
            gm_cards, player_cards = await self._cards(gm_reader, player_reader, ids)
        recalled = await self.memories.recall(campaign.id, npc_id, message, limit=self.settings.npc_recall)
        links = await self.memories.relationships(campaign.id, [r.memory.id for r in recalled])
        ontology = self.canon.ontology_for(campaign)
        states = public_state_names(player_cards.values())
        state_items = [
            ContextItem.of(card_line(card), ref=f"entity:{entity_id}")
            for entity_id, card in sorted(player_cards.items(), key=lambda kv: kv[0] != npc_id)
        ]
        memory_items = [
            ContextItem.of(
                memory_line(r.memory, contradictions(r.memory, states, ontology)), ref=f"memory:{r.memory.id}"
            )
            for r in recalled
        ]
        recalled_ids = {r.memory.id for r in recalled}
        memory_items += [
            ContextItem.of(memory_line(link), ref=f"memory:{link.id}")
            for link in links
            if link.id not in recalled_ids and link.npc_id == npc_id
        ]
        lore = await self._lore(campaign.id, f"{npc} {message}", viewer=Viewer.PLAYER)
        canon_items = [
            ContextItem.of(passage_line(r), ref=f"chunk:{r.chunk_id}")
            for r in lore
            if not r.hidden and r.knowledge_class.value == "canon"
        ]
        reference = [
            ContextItem.of(passage_line(r), ref=f"chunk:{r.chunk_id}")
            for r in lore
            if not r.hidden and r.knowledge_class.value == "reference"
        ]
        sections = [
            ContextSection(
                kind=SectionKind.STATE,
                title="Canon (true, public; it overrides memories) about you and whoever is mentioned",
                items=tuple(state_items),
                reserve=budget * 3 // 10,
            ),
            ContextSection(
                kind=SectionKind.TURNS,
                title="What was just said where you are",
                items=tuple(ContextItem.of(turn_line(t), ref=f"turn:{t.number}") for t in recent),
                keep_newest=True,
            ),
            ContextSection(kind=SectionKind.CANON, title="Public lore (facts)", items=tuple(canon_items)),
            ContextSection(
                kind=SectionKind.MEMORIES,
                title="Your own memories (beliefs; canon wins where they disagree)",
                items=tuple(memory_items),
                reserve=budget // 5,
            ),
            ContextSection(kind=SectionKind.REFERENCE, title="Public background", items=tuple(reference)),
        ]
        secrets: list[Secret] = []
        for card in gm_cards.values():
            for line in secret_lines(card):
                secrets.append(Secret(text=line, label=f"hidden canon about {card.entity.name}"))
        public = gm_words(turns) + [i.text for i in (*state_items, *canon_items, *reference)]
        return _Material(context=assemble(sections, budget), secrets=secrets, public=public), recalled

    async def npc_memories(self, campaign: Campaign, npc_name: str) -> tuple[str, list[MemoryRecord]]:
        """Return an NPC's name and standing memories (GM)."""
        npc_id, npc, _ = await self._npc(campaign, npc_name, viewer=Viewer.GM)
        return npc, await self.memories.memories(campaign.id, npc_id)

    async def npc_forget(
        self, campaign: Campaign, npc_name: str, actor: Actor, memory_id: int | None = None
    ) -> tuple[str, int]:
        """Forget one memory of an NPC, or all of them (GM); return the NPC's name and how many went."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can make an NPC forget.")
        npc_id, npc, _ = await self._npc(campaign, npc_name, viewer=Viewer.GM)
        return npc, len(await self.memories.forget(campaign.id, npc_id, memory_id))

    async def cast(
        self, campaign: Campaign, channel_id: int, npc_name: str, actor: Actor, *, remove: bool = False
    ) -> tuple[str, bool]:
        """Declare an NPC present in (or absent from) the channel's scene, so it remembers it (GM)."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can say who is in a scene.")
        scene = await self.scenes.current_scene(channel_id)
        if scene.status == SceneStatus.COMPLETED:
            raise Conflict("This scene is already committed.")
        npc_id, npc, _ = await self._npc(campaign, npc_name, viewer=Viewer.GM)
        if remove:
            changed = await self.db.run(lambda s: digest_repo.remove_cast(s, scene.id, npc_id))
        else:
            changed = await self.db.run(lambda s: digest_repo.add_cast(s, scene.id, npc_id, actor.name))
        return npc, changed

    async def similar_scenes(self, campaign: Campaign, text: str, *, limit: int = 3) -> list[Moment]:
        """Return the committed scenes most like `text`, by their summaries."""
        if not text.strip():
            raise InvalidInput("Describe the moment to look for.")
        if not self.moments.semantic:
            raise Unavailable("Finding similar moments needs semantic search, which is switched off here.")
        return await self.moments.similar(campaign.id, text, limit=limit)

    # -- after a scene is complete --------------------------------------------------------------------

    async def after_complete(self, scene_id: int) -> None:
        """CanonService hook once a scene is complete: digest it in the background."""
        self.run_in_background(self._digest_logged(scene_id), name=f"lorekeeper-digest-{scene_id}")

    async def _digest_logged(self, scene_id: int) -> None:
        try:
            await self.digest_scene(scene_id)
        except Exception:
            log.exception(
                "could not write the summary and NPC memories of scene %s (it is redone at start)", scene_id
            )

    async def catch_up(self) -> int:
        """Digest completed scenes that have none (committed while the bot was going down); return how many."""
        async with self.db.session() as session:
            pending = await digest_repo.undigested_scenes(session)
        for scene_id in pending:
            await self._digest_logged(scene_id)
        return len(pending)

    async def digest_scene(self, scene_id: int) -> DigestReport:
        """Write a completed scene's summary and each present NPC's memories of it (once)."""
        async with self._digest_lock:
            return await self._digest(scene_id)

    async def _digest(self, scene_id: int) -> DigestReport:
        async with self.db.session() as session:
            existing = await digest_repo.digest_of(session, scene_id)
            scene = await load_scene(session, scene_id)
            if existing is not None:
                return DigestReport(scene_id, existing.summary, existing.summary_method, skipped=True)
            if scene.status != SceneStatus.COMPLETED:
                raise Conflict("Only a completed scene gets its summary and memories.")
            campaign = await get_campaign(session, scene.campaign_id)
            turns = await scene_turns(session, scene.id, include_deleted=False)
            cast = await digest_repo.cast_of(session, scene.id)
            reader = await self.canon.reader(session, campaign, Viewer.GM)
            # Present: the cast, the NPCs who spoke, and whoever the GM or the narrator named. A player naming
            # someone ("I wonder where Aldric is") is talk about them, not a sign that they are there.
            staged = "\n".join(t.text for t in turns if t.speaker in STAGING_SPEAKERS)
            present_ids = names_in(staged, await reader.names()) | set(cast)
            npc_speakers = {t.author_name for t in turns if t.speaker == SpeakerKind.NPC}
            for name in npc_speakers:
                with contextlib.suppress(GameError):
                    present_ids.add((await reader.resolve(name)).id)
            entities = await reader.entities(present_ids)
            already = {m.npc_id for m in await _scene_memories(session, campaign.id, scene.id)}
        ontology = self.canon.ontology_for(campaign)
        npcs = [e for e in entities.values() if is_npc_type(ontology, e.type)]
        summary, method = await self._summary(campaign, scene, turns)
        report = DigestReport(scene_id=scene.id, summary=summary, summary_method=method)
        for npc in sorted(npcs, key=lambda e: e.id):
            if npc.id in already:
                continue
            names = [npc.name, *npc.aliases]
            # Present from the first turn naming it (a player's too: "I ask the Innkeeper" was said to her).
            since = first_mention(turns, names, speaker_name=npc.name)
            if since is None:
                since = turns[0].number if turns else None
            if since is None:
                continue
            written = await self._npc_memories(campaign, scene, turns, npc.id, npc.name, names, since)
            report.memories[npc.name] = written
        digest = SceneDigest(
            scene_id=scene.id,
            campaign_id=campaign.id,
            summary=summary,
            summary_method=method,
            npc_ids=tuple(sorted(n.id for n in npcs)),
            memories_written=sum(report.memories.values()),
        )
        await self.moments.save(digest, story_order=scene.story_order)
        return report

    async def _summary(self, campaign: Campaign, scene: Scene, turns: Sequence[Any]) -> tuple[str, str]:
        if self.llm is not None and turns:
            transcript = "\n".join(f"[{n}] {line}" for n, line in transcript_lines(turns))
            transcript = truncate_to_tokens(transcript, self.settings.extraction_piece_tokens * 2)
            try:
                completion = await self.llm.complete(
                    summary_messages(heading=scene_heading(scene), transcript=transcript),
                    campaign_id=campaign.id,
                    purpose="scene_summary",
                    max_tokens=300,
                    temperature=0.2,
                )
                text = " ".join(completion.text.split())
                if text:
                    return text[:2000], "llm"
            except LLMUnavailable as error:
                log.warning("the scene summary falls back to an extractive one: %s", error)
        return extractive_summary(scene.title, scene.location, turns), "extractive"

    async def _npc_memories(
        self,
        campaign: Campaign,
        scene: Scene,
        turns: Sequence[Any],
        npc_id: int,
        npc: str,
        names: Sequence[str],
        since: int,
    ) -> int:
        witnessed = [t for t in turns if t.number >= since]
        new: list[NewMemory] = []
        links: list[tuple[str, str, str, str, float]] = []
        if self.llm is not None:
            try:
                new, links = await self._llm_memories(campaign, scene, witnessed, npc_id, npc)
            except (LLMUnavailable, LLMOutputInvalid) as error:
                log.warning(
                    "%s's memories of scene %s fall back to extractive ones: %s", npc, scene.id, error
                )
        if not new:
            new = extractive_memories(
                npc_id=npc_id, npc_name=npc, names=names, scene=scene, turns=turns, since=since
            )
            links = []
        stored = await self.memories.add(campaign.id, new)
        relationships = self._link_memories(npc_id, npc, scene, stored, links)
        relationships += await self._echoes(
            campaign.id, npc_id, npc, stored, exclude={r.memory_ids for r in relationships}
        )
        if relationships:
            stored += await self.memories.add(campaign.id, relationships)
        return len(stored)

    async def _llm_memories(
        self, campaign: Campaign, scene: Scene, witnessed: Sequence[Any], npc_id: int, npc: str
    ) -> tuple[list[NewMemory], list[tuple[str, str, str, str, float]]]:
        assert self.llm is not None
        older = await self.memories.memories(campaign.id, npc_id, doc_type=DocType.MEMORY)
        older = sorted(older, key=lambda m: (-m.importance, -m.id))[:8]
        lines = transcript_lines(witnessed)
        transcript = truncate_to_tokens(
            "\n".join(f"[{n}] {line}" for n, line in lines), self.settings.extraction_piece_tokens
        )
        heading = scene_heading(scene)
        reply = await self.llm.complete_structured(
            npc_memory_messages(
                npc=npc, heading=heading, transcript=transcript, older=[(m.id, m.content) for m in older]
            ),
            NpcMemoriesReply,
            campaign_id=campaign.id,
            purpose="npc_memory",
            max_tokens=self.settings.extraction_max_tokens,
            temperature=0.3,
        )
        numbers = {n for n, _ in lines}
        new: list[NewMemory] = []
        for written in reply.value.memories:
            cited = sorted(n for n in written.turns if n in numbers)
            new.append(
                NewMemory(
                    npc_id=npc_id,
                    npc_name=npc,
                    scope_kind=ScopeKind.SCENE,
                    scene_id=scene.id,
                    content=" ".join(written.text.split())[:1000],
                    importance=written.importance,
                    turn_from=cited[0] if cited else None,
                    turn_to=cited[-1] if cited else None,
                    method="llm",
                )
            )
        older_ids = {m.id for m in older}
        links = []
        for link in reply.value.links:
            ends = (link.source.strip().lower(), link.target.strip().lower())
            valid = all(
                (e.startswith("new:") and e[4:].isdigit() and 1 <= int(e[4:]) <= len(new))
                or (e.startswith("old:") and e[4:].isdigit() and int(e[4:]) in older_ids)
                for e in ends
            )
            if valid and ends[0] != ends[1]:
                links.append((ends[0], ends[1], link.relationship_type, link.observation, link.strength))
            else:
                log.info("dropped a memory link naming unknown memories: %s -> %s", link.source, link.target)
        return new, links

    @staticmethod
    def _link_memories(
        npc_id: int,
        npc: str,
        scene: Scene,
        stored: Sequence[MemoryRecord],
        links: Sequence[tuple[str, str, str, str, float]],
    ) -> list[NewMemory]:
        def memory_id(end: str) -> int:
            kind, number = end.split(":", 1)
            return stored[int(number) - 1].id if kind == "new" else int(number)

        relationships = []
        for source, target, kind, observation, strength in links:
            first, second = memory_id(source), memory_id(target)
            relationships.append(
                NewMemory(
                    npc_id=npc_id,
                    npc_name=npc,
                    doc_type=DocType.RELATIONSHIP,
                    scope_kind=ScopeKind.NPC,
                    scene_id=scene.id,
                    content=" ".join(observation.split())[:500],
                    importance=strength,
                    relationship_type="_".join(kind.lower().split())[:40],
                    memory_ids=(first, second),
                    strength=strength,
                    method="llm",
                )
            )
        return relationships

    async def _echoes(
        self,
        campaign_id: int,
        npc_id: int,
        npc: str,
        stored: Sequence[MemoryRecord],
        *,
        exclude: set[tuple[int, ...]],
    ) -> list[NewMemory]:
        """Link each new memory to the NPC's older memory most like it (a relationship memory of its own)."""
        if not self.memories.semantic:
            return []
        new_ids = {m.id for m in stored}
        echoes: list[NewMemory] = []
        for memory in stored:
            found = await self.memories.recall(
                campaign_id, npc_id, memory.content, limit=3, doc_types=(DocType.MEMORY,), record_access=False
            )
            older = [r for r in found if r.memory.id not in new_ids and r.similarity >= NPC_LINKS_THRESHOLD]
            if not older:
                continue
            best = older[0]
            pair = (best.memory.id, memory.id)
            if pair in exclude or pair[::-1] in exclude:
                continue
            echoes.append(
                NewMemory(
                    npc_id=npc_id,
                    npc_name=npc,
                    doc_type=DocType.RELATIONSHIP,
                    scope_kind=ScopeKind.NPC,
                    scene_id=memory.scene_id,
                    content=f"This brought back an older memory: {best.memory.content[:200]}",
                    importance=round(min(1.0, (memory.importance + best.memory.importance) / 2), 2),
                    relationship_type="echoes",
                    memory_ids=pair,
                    strength=round(best.similarity, 3),
                    method="similarity",
                )
            )
        return echoes

    async def rebuild_indexes(self, campaign_id: int) -> tuple[int, int]:
        """Rebuild a campaign's NPC memory and moments collections from SQL; return (memories, summaries)."""
        return await self.memories.rebuild(campaign_id), await self.moments.rebuild(campaign_id)


async def _scene_memories(session: AsyncSession, campaign_id: int, scene_id: int) -> list[MemoryRecord]:
    return await memories_of(session, campaign_id, scene_id=scene_id, include_forgotten=True)


async def check_present(
    db: Database,
    canon: ProposalService,
    campaign: Campaign,
    npc: tuple[int, str],
    actor: Actor,
    allow: str | None,
) -> None:
    """Refuse an NPC out of the story's present (as the asker sees its state), unless a GM allows it."""
    if allow is not None:
        if not actor.is_gm:
            raise NotAllowed("Only the GM can let a character speak out of the story's present.")
        if allow not in presence.ALLOWANCES:
            raise InvalidInput(f"“{allow}” is not a way to allow it: {' or '.join(presence.ALLOWANCES)}.")
        return
    async with db.session() as session:
        # The state the asker may see: a secret death is never told by a refusal.
        reader = await canon.reader(session, campaign, Viewer.GM if actor.is_gm else Viewer.PLAYER)
        card = await reader.card(npc[0])
    shown = card.state if card.state is not None and (actor.is_gm or not view_hidden(card.state)) else None
    state = shown.statement.value if shown is not None else None
    if state is not None and presence.out_of_story(reader.ontology, state):
        tag = reader.ontology.states.tags.get(state)
        raise Conflict(presence.refusal(npc[1], state, tag.description if tag else ""))


def checked_message(message: str) -> str:
    """Return what is said to an NPC, stripped, or raise `InvalidInput` when it is empty or too long."""
    message = message.strip()
    if not message:
        raise InvalidInput("Say something to the NPC.")
    if len(message) > MAX_NPC_MESSAGE:
        raise InvalidInput(f"That is {len(message)} characters; say it in at most {MAX_NPC_MESSAGE}.")
    return message
