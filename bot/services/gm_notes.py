"""The GM's notes as the commands use them: names of entities resolved against canon, the scene of a channel.

`GmNoteDesk` is the one service `/note` and the entity card call; the notes themselves are
`memory.notes.GmNoteService`'s. Every method is for a GM: the cogs check who calls (a player's `/note` is
refused before it gets here), and a card shows notes only in its GM view.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.canon_access import CanonAccess
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.forms import split_names
from canon.models import Viewer
from memory.notes import GmNote, GmNotePage, GmNoteService
from memory.scene_service import SceneService
from memory.scenes import Actor, SceneStatus

#: The most entities one note may be about.
MAX_LINKS = 10


@dataclass(frozen=True)
class NoteShown:
    """Notes with the names of what they are about: entities by id, scenes by id (title and number)."""

    page: GmNotePage
    entities: dict[int, str]
    scenes: dict[int, str]


class GmNoteDesk:
    """Add, find and close the GM's notes of a campaign; give an entity card its notes."""

    def __init__(self, notes: GmNoteService, access: CanonAccess, scenes: SceneService) -> None:
        self.notes = notes
        self.access = access
        self.scenes = scenes

    async def add(
        self,
        campaign: Campaign,
        text: str,
        actor: Actor,
        *,
        tags: str | None = None,
        about: str | None = None,
        channel_id: int | None = None,
    ) -> NoteShown:
        """Keep a note about the entities named in `about` (comma-separated) and the channel's scene (the one
        running or under review, else its latest ended one)."""
        names = split_names(about)
        if len(names) > MAX_LINKS:
            raise InvalidInput(
                f"A note may be about at most {MAX_LINKS} entities; this one names {len(names)}."
            )
        entity_ids = [await self._entity_id(campaign, name) for name in names]
        scene_id = (await self.scenes.latest_scene(channel_id)).id if channel_id is not None else None
        note = await self.notes.add(
            campaign.id,
            text,
            author_id=actor.id,
            author_name=actor.name,
            tags=tags,
            entity_ids=entity_ids,
            scene_id=scene_id,
        )
        return await self._shown(campaign, GmNotePage(notes=(note,), total=1, page=1, pages=1))

    async def search(
        self,
        campaign: Campaign,
        *,
        words: str | None = None,
        tag: str | None = None,
        about: str | None = None,
        include_done: bool = False,
        page: int = 1,
    ) -> NoteShown:
        """Return a page of the notes matching every criterion given."""
        entity_id = await self._entity_id(campaign, about) if about else None
        found = await self.notes.search(
            campaign.id, words=words, tag=tag, entity_id=entity_id, include_done=include_done, page=page
        )
        return await self._shown(campaign, found)

    async def mark_done(self, campaign: Campaign, note_id: int, *, done: bool = True) -> NoteShown:
        """Mark a note done (or open it again)."""
        note = await self.notes.mark_done(campaign.id, note_id, done=done)
        return await self._shown(campaign, GmNotePage(notes=(note,), total=1, page=1, pages=1))

    async def about(self, campaign: Campaign, entity_id: int) -> list[GmNote]:
        """Return the open notes about an entity, for its card's GM view."""
        return await self.notes.about(campaign.id, entity_id)

    async def _entity_id(self, campaign: Campaign, name: str) -> int:
        async with self.notes.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            return (await reader.resolve(name)).id

    async def _shown(self, campaign: Campaign, page: GmNotePage) -> NoteShown:
        ids = {e for note in page.notes for e in note.entity_ids}
        scene_ids = {note.scene_id for note in page.notes if note.scene_id is not None}
        entities: dict[int, str] = {}
        if ids:
            async with self.notes.db.session() as session:
                reader = await self.access.reader(session, campaign, Viewer.GM)
                found = await reader.entities(ids, include_retconned=True)
                entities = {i: e.name for i, e in found.items()}
        scenes: dict[int, str] = {}
        for scene_id in scene_ids:
            scene = (await self.scenes.report(scene_id)).scene
            ended = " (ended)" if scene.status == SceneStatus.COMPLETED else ""
            scenes[scene_id] = f"scene {scene.story_order}, “{scene.title}”{ended}"
        return NoteShown(page, entities, scenes)
