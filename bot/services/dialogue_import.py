"""Dialogue ingestion: a dialogue file (YAML, a Markdown script or a scene transcript export) becomes a scene.

The lines become the turns of a new scene of the campaign, in order: a line spoken by an NPC of canon (by
name or alias) is an NPC's turn, `GM` and `Narrator` are the GM's and the narrator's, anyone else a player's.
The scene is dated and placed: its location is the file's, and a narrator's turn opens it with the in-fiction
date and place (and marks each line where they change). Then the scene ends as `/endscene` ends one: its
transcript is read into proposals (with an LLM) that wait on the GM's review card; once it is committed (at
once when nothing waits) it is complete, and the NPCs who spoke remember it (the voice's digest).

The imported scene has a channel of its own that is no Discord channel (a negative id): nobody posts in it.
Lines are data, never instructions: they are stored exactly as written.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from bot.services.canon_access import CanonAccess
from bot.services.canon_service import CanonService
from bot.services.review import Review
from bot.voice.material import is_npc_type
from canon.campaigns import Campaign
from canon.models import Viewer
from canon.wording.dates import CalendarWords
from memory.dialogue import DialogueLine, DialogueScript, parse_dialogue
from memory.scene_service import SceneService
from memory.scenes import Actor, SceneReport, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog

_KINDS = {"gm": SpeakerKind.GM, "narrator": SpeakerKind.NARRATOR, "npc": SpeakerKind.NPC}


@dataclass(frozen=True)
class DialogueOutcome:
    """What importing a dialogue did: its scene (ended), how many lines, who spoke as NPCs, the review."""

    report: SceneReport
    lines: int
    npcs: tuple[str, ...]
    review: Review


class DialogueImportService:
    """Import dialogue files into scenes (see the module docstring)."""

    def __init__(
        self, scenes: SceneService, turns: TurnLog, canon: CanonService, access: CanonAccess
    ) -> None:
        self.scenes = scenes
        self.turns = turns
        self.canon = canon
        self.access = access

    async def import_dialogue(
        self, campaign: Campaign, filename: str, data: bytes, actor: Actor
    ) -> DialogueOutcome:
        """Read a dialogue file into a new scene, end it (proposals on a review card), and return the outcome."""
        script = await asyncio.to_thread(parse_dialogue, filename, data)
        kinds, words = await self._speakers(campaign, {line.speaker for line in script.lines})
        channel_id = -(secrets.randbits(52) + 1)
        title = script.title + (f" ({words.date(script.date)})" if script.date else "")
        scene = await self.scenes.start_scene(
            campaign_id=campaign.id,
            guild_id=campaign.guild_id,
            channel_id=channel_id,
            title=title,
            location=script.location,
            actor=actor,
        )
        messages = list(_messages(script, kinds, channel_id, words))
        stored = await asyncio.gather(*(self.turns.append(m) for m in messages))
        if any(turn is None for turn in stored):  # pragma: no cover - only during a database outage
            raise RuntimeError(f"scene {scene.id}: some lines were not stored")
        report, review = await self.canon.end_scene(channel_id)
        npcs = tuple(
            sorted({line.speaker for line in script.lines if kinds[line.speaker][0] == SpeakerKind.NPC})
        )
        return DialogueOutcome(report, len(script.lines), npcs, review)

    async def _speakers(
        self, campaign: Campaign, names: set[str]
    ) -> tuple[dict[str, tuple[SpeakerKind, str]], CalendarWords]:
        """Return each speaker's kind and the name the turn carries (an NPC's name as canon spells it), and
        the calendar's words for the dates (an era by the name canon gives it)."""
        found: dict[str, tuple[SpeakerKind, str]] = {}
        async with self.canon.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            words = (await reader.calendar()).words()
            for name in sorted(names):
                if name.casefold() in ("gm", "narrator"):
                    found[name] = (_KINDS[name.casefold()], name)
                    continue
                exact = [e for e in await reader.find_exact(name) if is_npc_type(reader.ontology, e.type)]
                found[name] = (
                    (SpeakerKind.NPC, exact[0].name) if len(exact) == 1 else (SpeakerKind.PLAYER, name)
                )
        return found, words


def _messages(
    script: DialogueScript,
    kinds: dict[str, tuple[SpeakerKind, str]],
    channel_id: int,
    words: CalendarWords,
) -> Sequence[IncomingMessage]:
    start = dt.datetime.now(dt.UTC)
    out: list[IncomingMessage] = []

    def add(speaker: SpeakerKind, name: str, text: str) -> None:
        when = start + dt.timedelta(microseconds=len(out))
        out.append(
            IncomingMessage(
                message_id=None,
                channel_id=channel_id,
                author_id=None,
                author_name=name,
                speaker=speaker,
                text=text,
                created_at=when,
            )
        )

    opening = [
        f"In-fiction date: {words.date(script.date)}." if script.date else "",
        f"Place: {script.location}." if script.location else "",
    ]
    if any(opening):
        add(SpeakerKind.NARRATOR, "Narrator", " ".join(p for p in opening if p))
    for line in script.lines:
        if line.date or line.location:
            add(SpeakerKind.NARRATOR, "Narrator", _stage(line, words))
        kind, name = kinds[line.speaker]
        if line.kind in _KINDS:
            kind = _KINDS[line.kind]
        add(kind, name, line.text)
    return out


def _stage(line: DialogueLine, words: CalendarWords) -> str:
    parts = [f"at {line.location}" if line.location else "", words.date(line.date) if line.date else ""]
    return "— " + ", ".join(p for p in parts if p) + " —"
