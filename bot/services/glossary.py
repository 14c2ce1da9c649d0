"""The campaign's glossary as a use case: the table's own words for `/lore`, listed, added and removed (GM).

A campaign's terms are kept in its settings (`memory.knowledge.glossary.GLOSSARY_SETTINGS`), so they go with an
exported campaign and a branch starts with its parent's; the shipped glossary lies under them, and a campaign's
term of the same spelling outranks the shipped one (a term meaning itself switches the shipped one off: what
removing a shipped term does). `/lore` reads every question through both
(`memory.knowledge.ask.Answerer`), a shipped term never where the campaign's calendar names something by it ("LR"
of the Lantern Reckoning): the list leaves such a term out, as the asker's calendar has it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from canon import campaigns
from canon.campaigns import Campaign
from canon.date_words import calendar_words
from canon.errors import NotFound
from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.glossary import GLOSSARY_SETTINGS, SHIPPED, checked_entry, clean_term, merged

__all__ = ["GlossaryDesk", "GlossaryEntry", "GlossaryRemoval"]


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """One term and what it means; `own` when the campaign set it (not shipped with the project)."""

    term: str
    meaning: str
    own: bool
    #: The meaning shipped with the project for the same term, which the campaign's own outranks.
    shipped: str | None = None

    @property
    def read_as_written(self) -> bool:
        """Return whether the campaign reads the term as written (its shipped meaning switched off)."""
        return self.own and self.meaning == self.term


@dataclass(frozen=True, slots=True)
class GlossaryRemoval:
    """What removing a term did: the campaign's meaning taken away, or a shipped meaning switched off."""

    term: str
    #: The campaign's meaning taken away (None: the campaign had none; the shipped meaning is switched off).
    removed: str | None
    #: The term's shipped meaning: read again, unless `removed` is None (then switched off).
    shipped: str | None


class GlossaryDesk:
    """List, add and remove a campaign's glossary terms."""

    def __init__(self, db: Database, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def entries(self, campaign: Campaign, viewer: Viewer = Viewer.PLAYER) -> list[GlossaryEntry]:
        """Return the campaign's terms (alphabetical), then the shipped ones a question is read through: those
        the campaign does not override and its calendar (as the viewer may see it) does not name."""
        async with self.db.session() as session:
            own = await _terms(session, campaign.id)
            calendar = await (await self.access.reader(session, campaign, viewer)).calendar()
        read = merged(own, calendar_words(calendar))
        found = [GlossaryEntry(t, m, True, SHIPPED.get(t)) for t, m in sorted(own.items())]
        return found + [
            GlossaryEntry(t, m, False) for t, m in sorted(SHIPPED.items()) if t not in own and t in read
        ]

    async def add(self, campaign: Campaign, term: str, meaning: str) -> GlossaryEntry:
        """Add a term (or give one a new meaning); return it as stored."""

        async def work(session: AsyncSession) -> GlossaryEntry:
            terms = await _terms(session, campaign.id)
            key, said = checked_entry(term, meaning, terms)
            await campaigns.update_campaign_settings(
                session, campaign.id, {GLOSSARY_SETTINGS: {**terms, key: said}}
            )
            return GlossaryEntry(key, said, True, SHIPPED.get(key))

        return await self.db.run(work)

    async def remove(self, campaign: Campaign, term: str) -> GlossaryRemoval:
        """Remove one of the campaign's terms (a shipped meaning of the same term is read again), or switch a
        shipped term off for the campaign (it is read as written); return what was done."""
        key = clean_term(term)

        async def work(session: AsyncSession) -> GlossaryRemoval:
            terms = await _terms(session, campaign.id)
            if key in terms:
                meaning = terms.pop(key)
                removal = GlossaryRemoval(key, meaning, SHIPPED.get(key))
            elif key in SHIPPED:
                checked_entry(key, key, terms)  # raises when the campaign's glossary is full
                terms[key] = key
                removal = GlossaryRemoval(key, None, SHIPPED[key])
            else:
                raise NotFound(
                    f"“{term.strip()[:60]}” is neither in this campaign's glossary nor shipped with Lorekeeper: "
                    "the glossary's list shows every term."
                )
            await campaigns.update_campaign_settings(session, campaign.id, {GLOSSARY_SETTINGS: terms})
            return removal

        return await self.db.run(work)


async def _terms(session: AsyncSession, campaign_id: int) -> dict[str, str]:
    campaign = await campaigns.get_campaign(session, campaign_id)
    stored = (campaign.settings or {}).get(GLOSSARY_SETTINGS) or {}
    return {str(k): str(v) for k, v in stored.items()} if isinstance(stored, dict) else {}
