"""The campaign's directory: the people, places, factions, items and events canon knows, paged and searched.

A player's directory holds only what players may see: an entity hidden from them is not listed, counted or
paged (the reader leaves it out before anything is counted). The GM's directory holds everything, GM-only
entries marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.canon_access import CanonAccess
from canon.campaigns import Campaign
from canon.models import Viewer
from canon.storage import Database
from canon.visibility import Knowing, entity_hidden

PAGE_SIZE = 15
MAX_FILTER = 40


@dataclass(frozen=True)
class DirectoryEntry:
    """One listed entity: its id (for the controls), name, type, and whether it is GM-only."""

    id: int
    name: str
    type: str
    hidden: bool


@dataclass(frozen=True)
class DirectoryPage:
    """One page of the directory, with what it was asked for and how many pages there are."""

    entries: tuple[DirectoryEntry, ...]
    page: int
    pages: int
    total: int
    kind: str | None
    text: str | None


class Directory:
    """Pages of the entities a viewer may see, optionally of one type (its subtypes included) and name filter."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def page(
        self,
        campaign: Campaign,
        viewer: Viewer,
        *,
        kind: str | None,
        text: str | None,
        page: int = 0,
        knowing: Knowing | None = None,
    ) -> DirectoryPage:
        """Return a page of the directory (pages past the end show the last one)."""
        wanted, needle, listed = await self._listed(campaign, viewer, kind, text, knowing)
        pages = max(1, -(-len(listed) // PAGE_SIZE))
        page = min(max(0, page), pages - 1)
        shown = tuple(listed[page * PAGE_SIZE : (page + 1) * PAGE_SIZE])
        return DirectoryPage(shown, page, pages, len(listed), wanted, needle)

    async def listing(self, campaign: Campaign, viewer: Viewer, *, kind: str | None) -> list[DirectoryEntry]:
        """Return every entity the viewer may see (of one type and its subtypes, when given), by name: what
        `lorekeeper canon list` prints so a GM can check an import by its names."""
        return (await self._listed(campaign, viewer, kind, None, None))[2]

    async def _listed(
        self,
        campaign: Campaign,
        viewer: Viewer,
        kind: str | None,
        text: str | None,
        knowing: Knowing | None,
    ) -> tuple[str | None, str | None, list[DirectoryEntry]]:
        """Return the type asked (its canonical spelling), the name filter, and the entities listed by name."""
        ontology = self.access.ontology_for(campaign)
        wanted = ontology.entity_type(kind.strip()) if kind and kind.strip() else None
        needle = " ".join((text or "").split()).casefold()[:MAX_FILTER] or None
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            entities = await reader.all_entities()
        listed = [
            DirectoryEntry(e.id, e.name, e.type, entity_hidden(e))
            for e in entities.values()
            if (wanted is None or ontology.is_a(e.type, [wanted]))
            and (needle is None or needle in e.name.casefold())
        ]
        listed.sort(key=lambda e: (e.name.casefold(), e.id))
        return wanted, needle, listed
