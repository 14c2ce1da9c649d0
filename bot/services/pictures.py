"""Pictures of a campaign's canon: the family tree of a person or lineage, and the timeline (of one era).

The use cases behind `/canon tree`, `/canon timeline` (without a name, or naming an era),
`lorekeeper render tree|timeline` and the wiki's full-size pictures (SVG): read the graph as the viewer may see it (players never see GM-only
entities or facts), then draw it with `canon.render` in a worker thread (Pillow is CPU-bound).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from canon.campaigns import Campaign
from canon.models import NOW, AsOf, Viewer
from canon.render import (
    MAX_TREE_PEOPLE,
    Picture,
    SvgPicture,
    family_tree_of,
    family_tree_svg,
    render_family_tree,
    render_timeline,
    timeline_of,
    timeline_svg,
)
from canon.render.svg import Linker
from canon.storage import Database
from canon.visibility import Knowing


class PictureService:
    """Draw family trees and timelines from a campaign's canon graph."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def family_tree(
        self,
        campaign: Campaign,
        name: str,
        *,
        viewer: Viewer,
        up: int = 3,
        down: int = 3,
        knowing: Knowing | None = None,
    ) -> Picture:
        """Return the family tree of a person (ancestors and descendants) or of a lineage (its members)."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            tree = await family_tree_of(reader, name, up=up, down=down)
        return await asyncio.to_thread(render_family_tree, tree)

    async def timeline(
        self, campaign: Campaign, era: str | None = None, *, viewer: Viewer, knowing: Knowing | None = None
    ) -> Picture:
        """Return the campaign's timeline, or one era's (its sub-eras included)."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            data = await timeline_of(reader, era)
        return await asyncio.to_thread(render_timeline, data)

    @contextlib.asynccontextmanager
    async def _reading(self, session: AsyncSession | None) -> AsyncIterator[AsyncSession]:
        """Yield the session given, or one of its own."""
        if session is not None:
            yield session
            return
        async with self.db.session() as own:
            yield own

    async def full_family_tree(
        self,
        campaign: Campaign,
        entity_id: int,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        generations: int = 6,
        link: Linker | None = None,
        session: AsyncSession | None = None,
    ) -> SvgPicture:
        """Return the full-size family tree (SVG) of a person or lineage, by id, as the viewer may see it (an
        entity the viewer may not see is not found, exactly as an unknown one); read in `session` when given
        (a wiki request's own)."""
        async with self._reading(session) as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            entity = await reader.entity(entity_id)
            tree = await family_tree_of(
                reader, entity, up=generations, down=generations, max_people=MAX_TREE_PEOPLE
            )
        return await asyncio.to_thread(family_tree_svg, tree, link=link)

    async def full_timeline(
        self,
        campaign: Campaign,
        *,
        viewer: Viewer,
        knowing: Knowing | None = None,
        as_of: AsOf = NOW,
        link: Linker | None = None,
        max_events: int = 200,
        session: AsyncSession | None = None,
    ) -> SvgPicture:
        """Return the campaign's full-size timeline (SVG) as the viewer may see it, as of a point; read in
        `session` when given (a wiki request's own)."""
        async with self._reading(session) as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            data = await timeline_of(reader, max_events=max_events, as_of=as_of)
        return await asyncio.to_thread(timeline_svg, data, link=link)

    async def is_era(
        self, campaign: Campaign, name: str, *, viewer: Viewer, knowing: Knowing | None = None
    ) -> bool:
        """Tell whether a name means an era (so `/canon timeline <name>` draws it instead of listing facts)."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            found = await reader.find_exact(name)
        return len(found) == 1 and reader.ontology.is_a(found[0].type, ["Era"])
