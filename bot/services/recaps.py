"""Recaps: each completed scene's recap, written once into the campaign journal, and "previously on…".

A recap is posted where players read it, so it is made only of what they may read: the language model's summary
of the scene's transcript when one is configured (the transcript is the table's own chat), the facts the scene
committed that are not GM-only, who was there, and the turns those facts cite. Without a language model the
recap is extractive: the same, without the summary.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.services.recap_canon import as_canon_holds
from bot.services.review import ReviewService
from canon import campaigns
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotFound, Unavailable
from canon.models import EvidenceKind
from canon.proposals import ProposalStatus
from canon.storage import Database
from canon.visibility import gm_only
from canon.wording import describe
from memory import journal
from memory.journal import CitedTurn, Recap
from memory.scenes import Actor, SceneStatus, SpeakerKind, Turn, load_scene, scene_turns

if TYPE_CHECKING:  # the voice is passed in (it uses these services: no import cycle)
    from bot.services.beliefs import BeliefDesk
    from bot.services.characters import CharacterDesk
    from bot.services.knowledge import KnowledgeDesk, KnownItem
    from bot.voice.service import VoiceService

log = logging.getLogger(__name__)

MAX_SCENES = 10
_CITED_TURNS = 5
_CITED_TEXT = 300


class RecapService:
    """Write a completed scene's recap into the campaign journal, and read the last ones back."""

    def __init__(
        self,
        db: Database,
        reviews: ReviewService,
        voice: VoiceService | None = None,
        *,
        characters: CharacterDesk | None = None,
        knowledge: KnowledgeDesk | None = None,
        beliefs: BeliefDesk | None = None,
    ) -> None:
        self.db = db
        self.reviews = reviews
        #: What each character learned: a player's own recap ("what you learned") reads it.
        self.knowledge = knowledge
        #: What each character was told that canon does not hold: a player's own recap shows it, marked.
        self.beliefs = beliefs
        #: Whose character each player plays: "Who was there" names characters, with their players.
        self.characters = characters
        self.voice = voice

    async def recap_scene(self, scene_id: int) -> Recap:
        """Return a completed scene's recap, writing it into the journal the first time it is asked for, read
        as canon holds it now (a fact a checkpoint committed may be retconned before the scene ends)."""
        recap = await self._written(scene_id)
        async with self.db.session() as session:
            campaign = await campaigns.get_campaign(session, recap.campaign_id)
            (now,) = await as_canon_holds(session, self.reviews.access, campaign, [recap])
        return now

    async def _written(self, scene_id: int) -> Recap:
        """Return a completed scene's recap as the journal keeps it, writing it there the first time."""
        async with self.db.session() as session:
            kept = await journal.recap_of(session, scene_id)
            if kept is not None:
                return kept
            scene = await load_scene(session, scene_id)
            if scene.status != SceneStatus.COMPLETED:
                raise Conflict("A scene gets its recap once it is committed.")
            turns = await scene_turns(session, scene_id, include_deleted=False)
        summary, method = await self._summary(scene_id)
        review = await self.reviews.review(scene_id, whole_scene=True)  # with what its checkpoints committed
        # A player's proposal stays on the card as they wrote it (`review.secret` never holds it), but once
        # the GM made it GM-only ("Only those present", Edit) the canon it wrote is not the table's to read.
        committed = [
            p
            for p in review.proposals
            if p.status == ProposalStatus.COMMITTED
            and p.id not in review.secret
            and not gm_only(p.content.visibility)
        ]
        cited_numbers = sorted(
            {
                n
                for p in committed
                for e in p.evidence
                if e.kind == EvidenceKind.TURNS and e.scene_id == scene_id and e.turn_from is not None
                for n in range(e.turn_from, (e.turn_to or e.turn_from) + 1)
            }
        )
        by_number = {t.number: t for t in turns}
        cited = [
            CitedTurn(number=n, author=by_number[n].author_name, text=_cut(by_number[n].text))
            for n in cited_numbers[:_CITED_TURNS]
            if n in by_number and by_number[n].text.strip()
        ]
        present = await self._present(scene.campaign_id, turns)
        recap = Recap(
            scene_id=scene.id,
            campaign_id=scene.campaign_id,
            story_order=scene.story_order,
            title=scene.title,
            summary=summary,
            method=method,
            facts=tuple(describe(p.content, review.words) for p in committed),
            present=tuple(present),
            cited=tuple(cited),
        )
        return await self.db.run(lambda session: journal.save_recap(session, recap))

    async def _present(self, campaign_id: int, turns: Sequence[Turn]) -> list[str]:
        """Return who was there, in the order they first spoke: a player as the character they play, with
        their own name after it ("Brann (Pat)"); the GM and the NPCs by their names; no narrator, no dice."""
        spoke = {t.author_id: t.author_name for t in turns if t.speaker == SpeakerKind.PLAYER and t.author_id}
        played: dict[int, str] = {}
        if self.characters is not None and spoke:
            async with self.db.session() as session:
                campaign = await campaigns.get_campaign(session, campaign_id)
            for member_id in spoke:
                link = await self.characters.active(campaign, member_id)
                if link is not None:
                    played[member_id] = f"{link.character} ({link.member_name or spoke[member_id]})"
        names = [
            played.get(t.author_id or 0, t.author_name)
            for t in turns
            if t.speaker not in {SpeakerKind.NARRATOR, SpeakerKind.ROLL}
        ]
        return list(dict.fromkeys(names))

    async def _summary(self, scene_id: int) -> tuple[str | None, str]:
        """Return the language model's summary of the scene (None without one) and how the recap was made."""
        if self.voice is None or self.voice.llm is None:
            return None, "extractive"
        try:
            digest = await self.voice.digest_scene(scene_id)
        except Exception:  # the recap stands without its summary
            log.warning("the recap of scene %s goes without a summary", scene_id, exc_info=True)
            return None, "extractive"
        if digest.summary_method != "llm":
            return None, "extractive"
        return digest.summary, "llm"

    async def latest(self, campaign: Campaign, count: int) -> list[Recap]:
        """Return the campaign's last `count` recaps (1 to `MAX_SCENES`), oldest first, each with the facts a
        retcon has since taken out of canon marked (`Recap.retconned`)."""
        if not 1 <= count <= MAX_SCENES:
            raise InvalidInput(f"A recap covers 1 to {MAX_SCENES} scenes; “{count}” is not that.")
        async with self.db.session() as session:
            recaps = await journal.latest_recaps(session, campaign.id, count)
            return await as_canon_holds(session, self.reviews.access, campaign, recaps)

    async def mine(self, campaign: Campaign, asker: Actor, count: int) -> PersonalRecap:
        """Return a player's own recap of the last `count` scenes: the public recaps and, for each, what their
        active character came to know in it beyond public canon (reveals made in that scene, standing now) and
        what it came to believe there (marked as beliefs).

        `NotFound` for someone who plays no character (the public recap is everyone's).
        """
        if self.characters is None or self.knowledge is None:
            raise Unavailable("Personal recaps are not available here.")
        recaps = await self.latest(campaign, count)
        active = await self.characters.active(campaign, asker.id or 0) if not asker.is_gm else None
        if active is None:
            raise NotFound(
                "You play no character, so there is nothing of your own to recap: `/recap` without "
                "`mine` shows the public one, and `/character claim` asks the GM for a character."
            )
        scenes = {r.scene_id for r in recaps}
        items = [i for i in await self.knowledge.known(campaign, asker) if i.reveal.scene_id in scenes]
        learned = {r.scene_id: [i for i in items if i.reveal.scene_id == r.scene_id] for r in recaps}
        heard: dict[int, list[str]] = {}
        if self.beliefs is not None:
            for shown in await self.beliefs.shown(campaign, asker):
                if shown.belief.scene_id in scenes and shown.belief.scene_id is not None:
                    heard.setdefault(shown.belief.scene_id, []).append(shown.sentence)
        return PersonalRecap(character=active.character, recaps=recaps, learned=learned, heard=heard)


@dataclass(frozen=True)
class PersonalRecap:
    """A player's own recap: the public recaps, and what their character learned in each of those scenes."""

    character: str
    recaps: list[Recap]
    learned: dict[int, list[KnownItem]]
    #: The beliefs (rumours, lies) the character picked up in each scene, as its player reads them.
    heard: dict[int, list[str]] = field(default_factory=dict)


def _cut(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= _CITED_TEXT else words[: _CITED_TEXT - 1].rstrip() + "…"
