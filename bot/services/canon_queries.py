"""Questions to canon: cards, timelines, neighbourhoods, names for autocomplete, continuity checks, conflicts.

Each reads as a viewer (`canon.visibility` decides what a player may see) in one session; `check` also records
what it found. Sizes here are the product's; fitting them to Discord is the cogs' work.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.wording import sexed_people, tensed_at, tied_people, wording_for
from canon import conflicts as lifecycle
from canon.calendar import DateError, check_era, parse_date, real_time_problem
from canon.campaign_calendar import CampaignCalendar
from canon.campaigns import Campaign
from canon.checks import RecordedConflict, record_findings, recorded_conflicts, whole_graph_findings
from canon.continuity import Finding, world_key
from canon.date_reading import read_date
from canon.errors import GameError, InvalidInput
from canon.models import NOW, AsOf, EntityCard, EntityRef, Evidence, StatementView, Viewer
from canon.ontology import attribute_key
from canon.storage import Database
from canon.visibility import Knowing
from canon.wording import Wording
from canon.wording.dates import CalendarWords
from canon.wording.statements import timeline_births

#: A player's lens on canon: what their character knows (None: public canon only, or the GM).
Lens = Knowing | None

#: How many suggestions an autocomplete asks for at most.
SUGGESTIONS = 25


def parse_as_of(
    *,
    at_date: str | None = None,
    at_scene: int | None = None,
    believed_at: str | None = None,
    eras: Mapping[str, str] | None = None,
    calendar: CampaignCalendar | None = None,
) -> AsOf:
    """Return an as-of point from command arguments, or raise `InvalidInput` showing the expected forms (a
    date is read on the campaign's `calendar` as the table types it, when given; else its era must be one of
    the campaign's `eras`, names by key)."""
    world = world_k = None
    if at_date and calendar is not None:
        reading = read_date(at_date, calendar)
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        world, world_k = str(reading.date), world_key(reading.date)
    elif at_date:
        try:
            shown = CalendarWords(eras=eras or {}).example()  # a date in the campaign's own words
            date = check_era(parse_date(at_date.strip()), at_date.strip(), eras or {}, shown)
        except DateError as error:
            raise InvalidInput(error.describe("The date") + ".") from None
        world, world_k = str(date), world_key(date)
    believed = None
    if believed_at:
        try:
            believed = dt.datetime.fromisoformat(believed_at.strip())
        except ValueError:
            raise InvalidInput(
                f"“{believed_at}” is not a real date and time; use ISO form like 2026-11-30T18:00Z."
            ) from None
        believed = believed if believed.tzinfo else believed.replace(tzinfo=dt.UTC)
        if (problem := real_time_problem(believed)) is not None:
            raise InvalidInput(f"“{believed_at.strip()}” cannot be used: {problem}.")
        believed = believed.astimezone(dt.UTC)
    if at_scene is not None and at_scene < 0:
        raise InvalidInput("A scene number is 0 or more (0 means before the first scene).")
    return AsOf(world=world, world_key=world_k, scene=at_scene, believed_at=believed)


class CanonQueries:
    """Read canon for the cogs, the command line and the jobs: as a viewer, as of a point."""

    def __init__(self, db: Database, *, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def card(self, campaign: Campaign, name: str, *, viewer: Viewer, as_of: AsOf = NOW) -> EntityCard:
        """Return an entity's card as of a point, for a viewer."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return await reader.card(entity, as_of)

    async def worded_card(
        self, campaign: Campaign, name: str, *, viewer: Viewer, as_of: AsOf = NOW, knowing: Lens = None
    ) -> tuple[EntityCard, Wording]:
        """Return an entity's card as of a point, for a viewer, with the words to show it in."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            entity = await reader.resolve(name, as_of)
            card = await reader.card(entity, as_of)
            cited = [e for v in (card.state, *card.relations, *card.facts) if v for e in v.statement.evidence]
            people = sexed_people(card.relations)
            mortals = tied_people(card.relations)
            words = await wording_for(
                session, reader, [*cited, *card.evidence], people=people, mortals=mortals, as_of=as_of
            )
            return card, await tensed_at(session, reader, words, as_of)

    async def timeline(
        self, campaign: Campaign, name: str, *, viewer: Viewer
    ) -> tuple[str, list[StatementView]]:
        """Return an entity's name and its timeline."""
        name, views, _ = await self.worded_timeline(campaign, name, viewer=viewer)
        return name, views

    async def worded_timeline(
        self, campaign: Campaign, name: str, *, viewer: Viewer, knowing: Lens = None
    ) -> tuple[str, list[StatementView], Wording]:
        """Return an entity's name, its timeline and the words to show it in."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            entity = await reader.resolve(name)
            views = await reader.timeline(entity.id)
            evidence = [e for v in views for e in v.statement.evidence]
            words = await wording_for(
                session, reader, evidence, people=sexed_people(views), mortals=tied_people(views)
            )
            words = dataclasses.replace(
                words, births=timeline_births(views)
            )  # never "alive" beside a death it tells
            return entity.name, views, await tensed_at(session, reader, words, NOW)

    async def neighbours(
        self, campaign: Campaign, name: str, *, viewer: Viewer, hops: int = 1, as_of: AsOf = NOW
    ) -> tuple[EntityRef, list[tuple[int, StatementView]]]:
        """Return an entity and the relations within `hops` steps of it, each with its step."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            entity = await reader.resolve(name, as_of)
            return reader.ref(entity), await reader.neighbourhood(entity.id, hops, as_of)

    async def era_names(self, campaign: Campaign, viewer: Viewer = Viewer.GM) -> dict[str, str]:
        """Return the names of the eras the campaign's calendar defines (that the viewer may see), by key."""
        async with self.db.session() as session:
            return await (await self.access.reader(session, campaign, viewer)).era_names()

    async def place_named(self, campaign: Campaign, name: str | None) -> int | None:
        """Return the place a scene's location names: the one Location of canon so named, else None."""
        if not name or not name.strip():
            return None
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            found = [e for e in await reader.find_exact(name) if reader.ontology.is_a(e.type, ["Location"])]
        return found[0].id if len(found) == 1 else None

    async def words(
        self,
        campaign: Campaign,
        *,
        viewer: Viewer,
        evidence: Iterable[Evidence] = (),
        facts: Iterable[int] = (),
    ) -> Wording:
        """Return the campaign's words for a viewer: its calendar's names, for dates, the scenes `evidence`
        cites (their names, places and dates, who spoke) and what the `facts` a proposal cites say."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            return await wording_for(session, reader, evidence, facts=facts)

    async def entity_type_named(self, campaign: Campaign, name: str, *, viewer: Viewer) -> str | None:
        """Return the type of the entity `name` names as the viewer sees canon, or None when there is none."""
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            with contextlib.suppress(GameError):
                return (await reader.resolve(name.strip())).type if name.strip() else None
        return None

    async def autocomplete(
        self,
        campaign: Campaign,
        prefix: str,
        *,
        viewer: Viewer,
        speaking: bool = False,
        playable: bool = False,
        places: bool = False,
        knowing: Lens = None,
    ) -> list[EntityRef]:
        """Return the entities whose names (or words of them) start with `prefix` that the viewer may see, for an
        autocomplete box (`speaking`: only beings that can speak; `playable`: only characters a player may
        play; `places`: only locations), at most `SUGGESTIONS`."""
        narrowed = speaking or playable or places
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer, knowing)
            refs = await reader.autocomplete(prefix, limit=8 * SUGGESTIONS if narrowed else SUGGESTIONS)
        ontology = reader.ontology
        return [
            r
            for r in refs
            if (not speaking or ontology.can_speak(r.type))
            and (not playable or ontology.can_play(r.type))
            and (not places or ontology.is_a(r.type, ("Location",)))
        ][:SUGGESTIONS]

    async def attribute_names(
        self, campaign: Campaign, prefix: str, *, viewer: Viewer, subject: str | None = None
    ) -> list[str]:
        """Return attribute names starting with `prefix` (for autocomplete): those the ontology declares for the
        subject's type (every type's without a subject known), then those the campaign's canon uses."""
        ontology = self.access.ontology_for(campaign)
        async with self.db.session() as session:
            reader = await self.access.reader(session, campaign, viewer)
            used = await reader.attribute_names(prefix)
            type_name = None
            if subject and subject.strip():
                with contextlib.suppress(GameError):
                    type_name = (await reader.resolve(subject.strip())).type
        start = attribute_key(prefix)
        declared = [a for a in ontology.declared_attributes(type_name) if a.startswith(start)]
        return list(dict.fromkeys([*declared, *used]))[:SUGGESTIONS]

    async def check(self, campaign: Campaign) -> tuple[list[Finding], list[Finding]]:
        """Run every continuity rule over the whole graph; return all findings and the ones never seen before."""

        async def work(session: AsyncSession) -> tuple[list[Finding], list[Finding]]:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            found = await whole_graph_findings(reader)
            prints = [f.fingerprint for f in found]
            await lifecycle.resolve_vanished(session, campaign.id, prints, by="a check")
            await lifecycle.reopen_found(session, campaign.id, prints)
            dismissed = await lifecycle.dismissed_fingerprints(session, campaign.id)
            findings = [f for f in found if f.fingerprint not in dismissed]
            return findings, await record_findings(session, campaign.id, findings)

        return await self.db.run(work)

    async def conflicts(self, campaign: Campaign) -> list[RecordedConflict]:
        """Return the conflicts recorded for the campaign, newest first."""
        async with self.db.session() as session:
            return await recorded_conflicts(session, campaign.id)

    async def conflict_page(
        self, campaign: Campaign, *, show: lifecycle.Show = lifecycle.Show.OPEN, page: int = 0
    ) -> lifecycle.ConflictPage:
        """Return a page of the campaign's conflicts (open ones by default), newest first."""
        async with self.db.session() as session:
            found = await lifecycle.conflict_page(session, campaign.id, show=show, page=page)
            cited = [e for c in found.conflicts for side in c.details.sides for e in side.evidence]
            words = await wording_for(session, await self.access.reader(session, campaign, Viewer.GM), cited)
        return dataclasses.replace(found, words=words)
