"""The narrator: narrator mode per channel, and writing, checking, posting and storing what happens next.

A narration is written from the context `bot.voice.narration_context` assembles, checked for GM-only text
(asked once more if it leaks, held back if it leaks again), posted through a callback (Discord stays in the
cog) and stored as a narrator turn with its exact context.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.llm.client import ChatMessage, LLMClient, require_llm
from bot.voice.common import Material, VoiceDeps, clip_for_discord, strip_reply
from bot.voice.material import scene_heading
from bot.voice.narration_context import narration_material
from bot.voice.prompts import RETRY_AFTER_LEAK, narration_messages
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from memory.context import SectionKind
from memory.leaks import Leak, find_leaks
from memory.narrations import (
    NarrationRecord,
    NarrationStatus,
    PromptMessage,
    create_narration,
    get_narration,
    update_narration,
)
from memory.scene_tables import SceneRow
from memory.scenes import Actor, Scene, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage

log = logging.getLogger(__name__)

#: Posts a narration (its text and record id) and returns the Discord message id.
PostNarration = Callable[[str, int], Awaitable[int]]

MAX_DIRECTION = 1000


@dataclass(frozen=True)
class NarrationOutcome:
    """What a narration request came to: posted, held back (`blocked`), or nothing to say (`empty`)."""

    status: Literal["posted", "blocked", "empty", "skipped"]
    narration_id: int | None = None
    text: str | None = None
    message_id: int | None = None
    leaks: tuple[Leak, ...] = ()


@dataclass
class _Written:
    """A narration as the model wrote it (after one retry at most), before it is stored."""

    text: str
    leaks: list[Leak]
    messages: list[ChatMessage]
    prompt_tokens: int
    completion_tokens: int
    model: str | None


class Narrator:
    """Narrator mode and narrations; one narration at a time per channel."""

    def __init__(self, deps: VoiceDeps) -> None:
        self.deps = deps
        self._channels: set[int] | None = None
        self._channels_lock = asyncio.Lock()
        self._channel_locks: dict[int, asyncio.Lock] = {}

    # -- narrator mode --------------------------------------------------------------------------------

    async def narrator_channels(self) -> set[int]:
        """Return the channels whose running scene has narrator mode on (loaded once, then kept current)."""
        if self._channels is None:
            # One load, however many messages arrive at once: this runs on every message of every server.
            async with self._channels_lock:
                if self._channels is None:
                    async with self.deps.db.session() as session:
                        query = select(SceneRow.channel_id).where(
                            SceneRow.status == SceneStatus.ACTIVE, SceneRow.narrator_mode.is_(True)
                        )
                        self._channels = set((await session.execute(query)).scalars())
        return self._channels

    def forget_narrator_channel(self, channel_id: int) -> None:
        """Stop narrating in a channel (its scene ended)."""
        if self._channels is not None:
            self._channels.discard(channel_id)

    async def set_narrator(self, channel_id: int, on: bool, actor: Actor) -> Scene:
        """Turn the narrator of the channel's running scene on or off (GM)."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can turn the narrator on or off.")
        if on:
            require_llm(self.deps.llm)
        scene = await self.deps.scenes.current_scene(channel_id)
        if scene.status != SceneStatus.ACTIVE:
            raise Conflict("This scene has ended; the narrator is off until the next one.")

        async def work(session: AsyncSession) -> None:
            await session.execute(update(SceneRow).where(SceneRow.id == scene.id).values(narrator_mode=on))

        await self.deps.db.run(work)
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
        llm = require_llm(self.deps.llm)
        if direction is not None and direction.strip():
            if not actor.is_gm:
                raise NotAllowed("Only the GM can give the narrator a direction.")
            if len(direction) > MAX_DIRECTION:
                raise InvalidInput(f"A direction is at most {MAX_DIRECTION} characters.")
        scene = await self.deps.scenes.current_scene(channel_id)
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
        campaign = await self.deps.campaign(scene.campaign_id)
        material = await narration_material(self.deps, campaign, scene)
        written = await self._write(llm, campaign, scene, material, direction)
        record = await self._store(campaign, scene, actor, trigger, material, written)
        if written.leaks:
            log.warning("narration #%s held back: it quoted GM-only canon twice", record.id)
            return NarrationOutcome(status="blocked", narration_id=record.id, leaks=tuple(written.leaks))
        if not written.text:
            return NarrationOutcome(status="empty", narration_id=record.id)
        return await self._post(scene, record, written.text, post)

    async def _write(
        self, llm: LLMClient, campaign: Campaign, scene: Scene, material: Material, direction: str | None
    ) -> _Written:
        """Ask the model for the narration; ask once more if it quotes GM-only canon."""
        heading = scene_heading(scene)
        hidden = material.context.section(SectionKind.SECRETS)
        has_secrets = hidden is not None and bool(hidden.items)
        written = _Written(text="", leaks=[], messages=[], prompt_tokens=0, completion_tokens=0, model=None)
        for retry_note in (None, RETRY_AFTER_LEAK):
            written.messages = narration_messages(
                scene_heading=heading,
                context=material.context.render(),
                direction=direction,
                has_secrets=has_secrets,
                retry_note=retry_note,
            )
            completion = await llm.complete(
                written.messages,
                campaign_id=campaign.id,
                purpose="narration",
                max_tokens=self.deps.settings.narration_max_tokens,
            )
            if written.model is None:
                written.model = completion.model
            written.prompt_tokens += completion.usage.prompt_tokens
            written.completion_tokens += completion.usage.completion_tokens
            written.text = clip_for_discord(strip_reply(completion.text))
            written.leaks = (
                find_leaks(written.text, material.secrets, material.public) if written.text else []
            )
            if not written.leaks:
                break
            if retry_note is None:
                log.warning(
                    "narration for scene %s quoted GM-only canon (%s); asking again",
                    scene.id,
                    written.leaks[0].label,
                )
        return written

    async def _store(
        self,
        campaign: Campaign,
        scene: Scene,
        actor: Actor,
        trigger: str,
        material: Material,
        written: _Written,
    ) -> NarrationRecord:
        status = NarrationStatus.BLOCKED if written.leaks else NarrationStatus.DRAFTED
        if not written.text:
            status = NarrationStatus.FAILED
        blocked_reason = "; ".join(f"{leak.label}: “{leak.phrase}”" for leak in written.leaks)
        record: NarrationRecord = await self.deps.db.run(
            lambda session: create_narration(
                session,
                campaign_id=campaign.id,
                scene_id=scene.id,
                channel_id=scene.channel_id,
                trigger=trigger,
                requested_by_id=actor.id,
                requested_by_name=actor.name,
                status=status,
                context=material.context,
                prompt=[PromptMessage(role=m.role, content=m.content) for m in written.messages],
                output=written.text or None,
                blocked_reason=blocked_reason or None,
                model=written.model,
                prompt_tokens=written.prompt_tokens,
                completion_tokens=written.completion_tokens,
            )
        )
        return record

    async def _post(
        self, scene: Scene, record: NarrationRecord, text: str, post: PostNarration
    ) -> NarrationOutcome:
        db = self.deps.db
        try:
            message_id = await post(text, record.id)
        except BaseException:
            await db.run(lambda s: update_narration(s, record.id, status=NarrationStatus.FAILED))
            raise
        logged = await self.deps.turns.append(
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
        await db.run(
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
        async with self.deps.db.session() as session:
            record = await get_narration(session, narration_id)
        if record.campaign_id != campaign.id:
            raise NotFound(f"There is no narration #{narration_id}.")
        return record
