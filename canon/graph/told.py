"""Free text as a reader's viewer may read it: without the eras hidden from them (`canon.visibility.era_text_seen`).

A description, a fact typed as text or an event's `in_fiction_date` a GM wrote may name a GM-only era ("born in
the 52nd year of the Sunken Reign"). A player's reader (`canon.graph.reads.LineageReader`) returns such text with
the era's dates said as no date and its other mentions left out, so every card, `/lore` answer, wiki page and
timeline reads it so; a text with nothing left is withheld (a fact left out, a description or attribute dropped).
A stored date (`sunken_reign.52`) is left to the writer of dates, which says it as no date already.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from canon.calendar import DateError, parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.era_mentions import EraMentions, era_mentions
from canon.models import Entity, Statement, Viewer
from canon.visibility import era_text_seen


class _Reader(Protocol):
    """What of a reader the hidden eras are read from: its viewer and its calendar as they read it."""

    @property
    def viewer(self) -> Viewer: ...

    async def calendar(self) -> CampaignCalendar: ...


class HiddenEraText:
    """The eras hidden from one reader's viewer, as free text names them: read once, on first use."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self._read = False
        self._mentions: EraMentions | None = None

    async def mentions(self) -> EraMentions | None:
        """Return the mentions of the eras hidden from the viewer (None for the GM, or when none is)."""
        if self.reader.viewer == Viewer.GM:
            return None
        if not self._read:
            self._read = True  # the calendar is read through statements too: none is left out meanwhile
            calendar = await self.reader.calendar()
            names = calendar.hidden_names
            self._mentions = era_mentions(names, [m.name for m in calendar.months]) if names else None
        return self._mentions

    async def statements(self, found: list[Statement]) -> list[Statement]:
        """Return statements with their values as the viewer reads them; one left with nothing is withheld."""
        hidden = await self.mentions()
        if hidden is None:
            return found
        told = [(s, text_told(s.value, hidden)) for s in found]
        return [s if said == s.value else replace(s, value=said) for s, said in told if said or not s.value]

    async def entities(self, found: dict[int, Entity]) -> dict[int, Entity]:
        """Return entities with their descriptions and text attributes as the viewer reads them."""
        hidden = await self.mentions()
        if hidden is None:
            return found
        return {i: entity_told(e, hidden) for i, e in found.items()}


def text_told(text: str | None, hidden: EraMentions) -> str | None:
    """Return a stored text as the viewer reads it without the eras `hidden` from them; a stored date as it is."""
    if not text:
        return text
    try:
        parse_date(text.strip())
    except DateError:
        return era_text_seen(text, hidden)
    return text  # a stored date: its writer says it as no date (`CalendarWords.hidden`)


def entity_told(entity: Entity, hidden: EraMentions) -> Entity:
    """Return an entity with its description and text attributes read without the eras hidden from the viewer."""
    description = text_told(entity.description, hidden) or None
    told = {k: text_told(v, hidden) if isinstance(v, str) else v for k, v in entity.attributes.items()}
    attributes: dict[str, Any] = {k: v for k, v in told.items() if v != "" or entity.attributes[k] == ""}
    if description == entity.description and attributes == entity.attributes:
        return entity
    return replace(entity, description=description, attributes=attributes)
