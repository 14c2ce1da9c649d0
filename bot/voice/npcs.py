"""NPCs: talking in character from what they could know, their memories, and who is in a scene.

An NPC answers from public canon, its own memories and the scene it is in, never from GM-only canon. What it
says is heard by the asker and by those present in the channel's scene, so it may say what all their
characters know and nothing more: a reply that tells hidden canon one of them does not know (the guard is fed
exactly those facts) is asked for once more and held back if it does again. The GM may let an NPC tell one
hidden fact (`tell`): it is in the NPC's material, the guard lets it through, and once the reply tells it the
characters present learn it, recorded as a reveal with the scene as its evidence.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from bot.llm.client import LLMUnavailable
from bot.voice.common import VoiceDeps, clip_for_discord, resolve_npc, strip_reply
from bot.voice.npc_material import NpcMaterial, npc_material
from bot.voice.ports import Hearing
from bot.voice.prompts import RETRY_AFTER_LEAK, npc_talk_messages
from canon import presence
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound, Unavailable
from canon.knowing import Learned, with_learned
from canon.models import StatementView, Viewer
from canon.visibility import Knowing, view_hidden
from memory import digests as digest_repo
from memory.context import AssembledContext
from memory.digests import Moment
from memory.leaks import Leak, card_secrets, find_leaks
from memory.npc_memory import MemoryRecord
from memory.scenes import Actor, Scene, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage

log = logging.getLogger(__name__)

# What the operator reads (the settings to set); the table reads `no_voice`'s sentence.
NO_MODEL_LOG = (
    "/npc talk to %s: no language model is configured, so NPCs cannot answer; set LOREKEEPER_LLM__BASE_URL "
    "and LOREKEEPER_LLM__MODEL (README, Configuration) and restart the bot"
)
NO_ANSWER = (
    "{npc} could not answer: the language model did not respond. Try again in a minute; if it keeps "
    "happening, tell whoever runs the bot."
)


def no_voice(npc: str, *, gm: bool) -> str:
    """Return what happens instead when no language model is connected, in a sentence for the GM or a player."""
    said = "NPCs have no voice of their own yet: no language model is connected to this bot."
    if gm:
        return (
            f"{said} Speak for {npc} yourself in the scene: NPCs still remember the scenes they are in. "
            "Whoever runs the bot can connect a language model to let NPCs answer here."
        )
    return f"{said} Your GM can answer for {npc} in the scene."


#: Posts an NPC's reply (the NPC's name and the text) and returns the Discord message id.
PostAsNpc = Callable[[str, str], Awaitable[int]]

MAX_NPC_MESSAGE = 1500


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
    #: The reveals written because the reply told what the GM let the NPC tell (`KnownItem`s, in words).
    revealed: tuple[Any, ...] = ()


_I = re.compile(r"\b(?:I|[Mm]e|[Mm]yself)\b")
_MY = re.compile(r"\b(?:[Mm]y|[Mm]ine)\b")


def as_said_by(npc: str, text: str) -> str:
    """Return an NPC's reply with its first person named, as the secret guard reads it: "I am a spy", from
    the Duke, tells what "The Duke is a spy" tells."""
    return _MY.sub(f"{npc}'s", _I.sub(npc, text))


def checked_message(message: str) -> str:
    """Return what is said to an NPC, stripped, or raise `InvalidInput` when it is empty or too long."""
    message = message.strip()
    if not message:
        raise InvalidInput("Say something to the NPC.")
    if len(message) > MAX_NPC_MESSAGE:
        raise InvalidInput(f"That is {len(message)} characters; say it in at most {MAX_NPC_MESSAGE}.")
    return message


class NpcCases:
    """An NPC's speech, memories and presence in scenes."""

    def __init__(self, deps: VoiceDeps) -> None:
        self.deps = deps

    async def check_present(
        self, campaign: Campaign, npc: tuple[int, str], actor: Actor, allow: str | None
    ) -> None:
        """Refuse an NPC out of the story's present (as the asker sees its state), unless a GM allows it."""
        if allow is not None:
            if not actor.is_gm:
                raise NotAllowed("Only the GM can let a character speak out of the story's present.")
            if allow not in presence.ALLOWANCES:
                raise InvalidInput(f"“{allow}” is not a way to allow it: {' or '.join(presence.ALLOWANCES)}.")
            return
        async with self.deps.db.session() as session:
            # The state the asker may see: a secret death is never told by a refusal.
            viewer = Viewer.GM if actor.is_gm else Viewer.PLAYER
            reader = await self.deps.canon.reader(session, campaign, viewer)
            card = await reader.card(npc[0])
        shown = (
            card.state if card.state is not None and (actor.is_gm or not view_hidden(card.state)) else None
        )
        state = shown.statement.value if shown is not None else None
        if state is not None and presence.out_of_story(reader.ontology, state):
            tag = reader.ontology.states.tags.get(state)
            raise Conflict(presence.refusal(npc[1], state, tag.description if tag else ""))

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
        tell: int | None = None,
    ) -> NpcReply:
        """Let an NPC answer in character from what it could know: its memories and what all who hear know.

        An NPC out of the story's present (dead, destroyed, missing: `check_present`) is refused, unless a GM
        `allow`s it (a flashback, a ghost). A GM may let it `tell` one hidden fact (by number) to those present.
        """
        message = checked_message(message)
        if tell is not None and not actor.is_gm:
            raise NotAllowed("Only the GM lets an NPC tell a secret.")
        # Players reach only NPCs they know of; what an NPC says is public, so a hidden one cannot speak.
        npc_id, npc, _ = await resolve_npc(self.deps, campaign, npc_name, viewer=Viewer.PLAYER)
        await self.check_present(campaign, (npc_id, npc), actor, allow)
        scene: Scene | None = None
        with contextlib.suppress(NotFound):
            current = await self.deps.scenes.current_scene(channel_id)
            if current.status == SceneStatus.ACTIVE and current.campaign_id == campaign.id:
                scene = current
        hearing = await self._hearing(campaign, channel_id, actor)
        told = await self._told(campaign, tell, scene, hearing) if tell is not None else None
        lens = hearing.knowing
        if told is not None:
            ends = tuple(e.id for e in (told.subject, told.object) if e is not None)
            lens = with_learned(lens, Learned("statement", told.statement.id, ends=ends))
        llm = self.deps.llm
        if llm is None:
            log.warning(NO_MODEL_LOG, npc)
            raise LLMUnavailable(no_voice(npc, gm=actor.is_gm))
        material, recalled = await self.npc_material(
            campaign, npc_id, npc, message, scene, knowing=lens, told=told
        )
        try:
            text, leaks, messages = await self._draft(llm, campaign, npc, actor, message, material)
        except LLMUnavailable as error:  # the endpoint's own words name settings: the log's, not the table's
            log.warning("%s could not answer: %s", npc, error.message)
            raise LLMUnavailable(NO_ANSWER.format(npc=npc), status_code=error.status_code) from error
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
        revealed: list[Any] = []
        if told is not None and scene is not None:
            revealed = await self._reveal_if_told(campaign, actor, npc, text, told, scene, material, hearing)
        return NpcReply(
            npc_name=npc,
            status="posted",
            text=text,
            message_id=message_id,
            recalled=tuple(r.memory for r in recalled),
            context=material.context,
            prompt=prompt,
            revealed=tuple(revealed),
        )

    async def _draft(
        self, llm: Any, campaign: Campaign, npc: str, actor: Actor, message: str, material: NpcMaterial
    ) -> tuple[str, list[Leak], list[Any]]:
        """Ask the model for the reply, once more if it told a secret; return it, its leaks and the prompt."""
        context = material.context.render()
        text = ""
        leaks: list[Leak] = []
        messages: list[Any] = []
        for attempt in range(2):
            retry_note = None
            if attempt:
                retry_note = RETRY_AFTER_LEAK.replace("narration", "reply").replace(
                    " from the Hidden canon section", ""
                )
            messages = npc_talk_messages(
                npc=npc, speaker=actor.name, context=context, message=message, retry_note=retry_note
            )
            completion = await llm.complete(
                messages,
                campaign_id=campaign.id,
                purpose="npc_talk",
                max_tokens=self.deps.settings.npc_reply_max_tokens,
            )
            text = clip_for_discord(strip_reply(completion.text))
            spoken = as_said_by(npc, text)
            leaks = find_leaks(spoken, material.secrets, material.public) if text else []
            if not leaks:
                break
            log.warning(
                "%s's reply quoted GM-only canon (%s)%s",
                npc,
                leaks[0].label,
                "; asking again" if attempt == 0 else "",
            )
        return text, leaks, messages

    async def _reveal_if_told(
        self,
        campaign: Campaign,
        gm: Actor,
        npc: str,
        text: str,
        told: StatementView,
        scene: Scene,
        material: NpcMaterial,
        hearing: Hearing,
    ) -> list[Any]:
        """Record the reveal of what the GM let the NPC tell, to those present, once its reply told it."""
        secrets = [s for card in material.told_cards for s in card_secrets(card, hearing.knowing)]
        if self.deps.listeners is None or not find_leaks(
            as_said_by(npc, text), secrets, material.public_before
        ):
            return []
        return await self.deps.listeners.reveal(
            campaign,
            gm,
            to="those present",
            reason=f"{npc} told them in scene {scene.story_order}",
            fact=told.statement.id,
            channel_id=scene.channel_id,
        )

    async def _hearing(self, campaign: Campaign, channel_id: int, actor: Actor) -> Hearing:
        """Return what all who hear a reply in the channel know (public canon alone when nobody says)."""
        if self.deps.listeners is None:
            return Hearing(knowing=None)
        return await self.deps.listeners.hearing(campaign, channel_id, actor)

    async def _told(
        self, campaign: Campaign, fact: int, scene: Scene | None, hearing: Hearing
    ) -> StatementView:
        """Return the hidden fact the GM lets an NPC tell, refusing one that cannot be told here."""
        if scene is None:
            raise InvalidInput(
                "An NPC tells a secret in a running scene, where those present learn it: `/scene start` first."
            )
        if self.deps.listeners is None or not hearing.characters:
            raise InvalidInput(
                "Nobody who spoke in this scene plays a character, so nobody would learn it. "
                "Tell it once a player has spoken here."
            )
        async with self.deps.db.session() as session:
            reader = await self.deps.canon.reader(session, campaign, Viewer.GM)
            views = await reader.views(await reader.statements(statement_ids=[fact], with_evidence=False))
        if not views:
            raise NotFound(
                "That fact no longer stands in this campaign's canon; pick one from the suggestions, or read "
                "`/canon entity` for what does."
            )
        if not view_hidden(views[0]):
            raise InvalidInput("That fact is public already: the NPC may say it without leave.")
        return views[0]

    async def _log_npc_exchange(
        self, scene: Scene, actor: Actor, message: str, npc_id: int, npc: str, reply: str, message_id: int
    ) -> None:
        now = dt.datetime.now(dt.UTC)
        await self.deps.turns.append(
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
        await self.deps.turns.append(
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
        await self.deps.db.run(lambda s: digest_repo.add_cast(s, scene.id, npc_id, actor.name))

    async def npc_material(
        self,
        campaign: Campaign,
        npc_id: int,
        npc: str,
        message: str,
        scene: Scene | None,
        *,
        knowing: Knowing | None = None,
        told: StatementView | None = None,
    ) -> tuple[NpcMaterial, list[Any]]:
        """Assemble what an NPC knows for a reply (`bot.voice.npc_material.npc_material`)."""
        return await npc_material(
            self.deps, campaign, npc_id, npc, message, scene, knowing=knowing, told=told
        )

    async def npc_memories(self, campaign: Campaign, npc_name: str) -> tuple[str, list[MemoryRecord]]:
        """Return an NPC's name and standing memories (GM)."""
        npc_id, npc, _ = await resolve_npc(self.deps, campaign, npc_name, viewer=Viewer.GM)
        return npc, await self.deps.memories.memories(campaign.id, npc_id)

    async def npc_forget(
        self, campaign: Campaign, npc_name: str, actor: Actor, memory_id: int | None = None
    ) -> tuple[str, int]:
        """Forget one memory of an NPC, or all of them (GM); return the NPC's name and how many went."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can make an NPC forget.")
        npc_id, npc, _ = await resolve_npc(self.deps, campaign, npc_name, viewer=Viewer.GM)
        return npc, len(await self.deps.memories.forget(campaign.id, npc_id, memory_id))

    async def cast(
        self, campaign: Campaign, channel_id: int, npc_name: str, actor: Actor, *, remove: bool = False
    ) -> tuple[str, bool]:
        """Declare an NPC present in (or absent from) the channel's scene, so it remembers it (GM)."""
        if not actor.is_gm:
            raise NotAllowed("Only the GM can say who is in a scene.")
        scene = await self.deps.scenes.current_scene(channel_id)
        if scene.status == SceneStatus.COMPLETED:
            raise Conflict("This scene is already committed.")
        npc_id, npc, _ = await resolve_npc(self.deps, campaign, npc_name, viewer=Viewer.GM)
        if remove:
            changed = await self.deps.db.run(lambda s: digest_repo.remove_cast(s, scene.id, npc_id))
        else:
            changed = await self.deps.db.run(lambda s: digest_repo.add_cast(s, scene.id, npc_id, actor.name))
        return npc, changed

    async def similar_scenes(self, campaign: Campaign, text: str, *, limit: int = 3) -> list[Moment]:
        """Return the committed scenes most like `text`, by their summaries."""
        if not text.strip():
            raise InvalidInput("Describe the moment to look for.")
        if not self.deps.moments.semantic:
            raise Unavailable("Finding similar moments needs semantic search, which is switched off here.")
        return await self.deps.moments.similar(campaign.id, text, limit=limit)
