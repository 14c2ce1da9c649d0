"""Who knows what, as the commands use it: reveals, their undoing, what a character knows, and a player's lens.

`KnowledgeDesk` is the one service `/canon reveal`, `/canon unreveal` and `/canon known` call, and the one every
player path asks for the lens it reads canon through (`lens`: the active character's knowledge, or None for a
member who plays nothing). The rule deciding what the lens lets through is `canon.visibility`'s.

A reveal names one fact (by number) or one entity, and who learns it: characters by name, "the party", or
"those present" (the active characters of the people who spoke in the channel's scene). It is dated from the
in-world date given, else the scene's date; it counts from the scene it was made in. Revealing a fact whose
subject or object is a GM-only entity tells that entity's name, nothing else of it.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, replace

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.canon_queries import CanonQueries, parse_as_of
from bot.services.wording import wording_for
from bot.voice.ports import Hearing
from canon.campaigns import Campaign
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.forms import split_names
from canon.graph import CanonReader
from canon.knowing import shared_knowing
from canon.knowledge import characters as links
from canon.knowledge import learned
from canon.knowledge.characters import LinkStatus
from canon.knowledge.learned import Reveal
from canon.models import Entity, Viewer
from canon.storage import Database
from canon.visibility import Knowing, entity_hidden, source_hidden, view_hidden
from canon.wording import Wording
from canon.wording.statements import statement_sentence
from memory.knowledge.repository import campaign_sources
from memory.scene_service import SceneService
from memory.scenes import Actor, SceneStatus, SpeakerKind, scene_participants

PARTY_WORDS = {"party", "the party", "everyone", "all"}
PRESENT_WORDS = {"present", "those present", "the scene", "this scene"}

#: When a reveal with neither a date nor a scene counts from, in the table's words ("always" read as a glitch).
SINCE_ALWAYS = "from the start of the story"


@dataclass(frozen=True)
class KnownItem:
    """One reveal in words: what is known, by whom, since when."""

    reveal: Reveal
    what: str
    who: str
    since: str

    @property
    def said(self) -> str:
        """Return the reveal as the GM reads and types it back: "Sable knows Vell is the last heir"."""
        return f"{self.who} knows {self.what}"


class KnowledgeDesk:
    """Reveal canon to characters, undo reveals, list what characters know, and give each player their lens."""

    def __init__(
        self, db: Database, access: CanonAccess, queries: CanonQueries, scenes: SceneService
    ) -> None:
        self.db = db
        self.access = access
        self.queries = queries
        self.scenes = scenes

    # -- lenses -------------------------------------------------------------------------------------------

    async def lens(self, campaign: Campaign, member_id: int) -> Knowing | None:
        """Return what a member's active character knows (None when they play none: public canon only)."""
        async with self.db.session() as session:
            return await learned.member_knowing(session, campaign.id, member_id)

    async def lens_of(self, campaign: Campaign, character: str) -> tuple[str, Knowing]:
        """Return a named character's name as canon spells it and what it knows (the GM's "as <character>" view)."""
        async with self.db.session() as session:
            entity = await self._character(session, campaign, character)
            return entity.name, await learned.knowing(session, campaign.id, [entity.id])

    async def hearing(self, campaign: Campaign, channel_id: int, asker: Actor) -> Hearing:
        """Return what every character hearing an NPC's reply in a channel knows (the voice's `Listeners`).

        They are the asker's active character (a player's) and the active characters of the players who spoke
        in the channel's running scene; one of them who plays nothing hears public canon only, so the lens is
        None then, as it is when nobody at all plays.
        """
        scene = None
        with contextlib.suppress(NotFound):
            current = await self.scenes.current_scene(channel_id)
            if current.status != SceneStatus.COMPLETED and current.campaign_id == campaign.id:
                scene = current
        async with self.db.session() as session:
            members = [] if asker.is_gm else [asker.id or 0]
            if scene is not None:
                members += [
                    p.author_id
                    for p in await scene_participants(session, scene.id)
                    if p.speaker == SpeakerKind.PLAYER and p.author_id is not None
                ]
            lenses = [await learned.member_knowing(session, campaign.id, m) for m in dict.fromkeys(members)]
            ids = [c for lens in lenses if lens is not None for c in lens.characters]
            reader = await self.access.reader(session, campaign, Viewer.GM)
            names = await reader.entities(set(ids), include_retconned=True, with_aliases=False)
        return Hearing(
            knowing=shared_knowing(lenses),
            characters=tuple(names[i].name for i in dict.fromkeys(ids) if i in names),
        )

    async def _character(self, session: AsyncSession, campaign: Campaign, name: str) -> Entity:
        reader = await self.access.reader(session, campaign, Viewer.GM)
        entity = await reader.resolve(name)
        rows = await links.links(
            session, campaign.id, entity_id=entity.id, statuses=(LinkStatus.PLAYS, LinkStatus.ENDED)
        )
        if not rows:
            raise NotFound(
                f"Nobody plays {entity.name}: only player characters learn things. "
                "`/character set` gives a character to a player."
            )
        return entity

    # -- reveals ------------------------------------------------------------------------------------------

    async def reveal(
        self,
        campaign: Campaign,
        gm: Actor,
        *,
        to: str,
        reason: str,
        fact: int | None = None,
        entity: str | None = None,
        source: str | None = None,
        from_date: str | None = None,
        channel_id: int | None = None,
    ) -> list[KnownItem]:
        """Reveal one fact or one entity to characters (GM); return the reveals written, in words."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM reveals canon to characters.")
        if sum(x is not None for x in (fact, entity, source)) != 1:
            raise InvalidInput("Reveal one thing: a fact, an entity or a source (by its title), not several.")
        if not reason.strip():
            raise InvalidInput(
                "Say why they learn it (a letter, an overheard talk...): it is kept as evidence."
            )
        eras = await self.queries.era_names(campaign)
        scene = None
        if channel_id is not None:
            try:
                scene = await self.scenes.current_scene(channel_id)
            except NotFound:
                scene = None

        async def work(session: AsyncSession) -> list[int]:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            world = parse_as_of(at_date=from_date, calendar=await reader.calendar()) if from_date else None
            if source is not None:
                kind, target_id, starts = "source", await self._source(session, campaign, source), None
            else:
                kind, target_id, starts = await self._target(reader, fact, entity)
            world_from, world_key = (world.world, world.world_key) if world else (None, None)
            if world_from is None and scene is not None and scene.world_date:
                dated = parse_as_of(at_date=scene.world_date, eras=eras)
                world_from, world_key = dated.world, dated.world_key
            if world_key is not None and starts is not None and world_key < starts[0]:
                raise InvalidInput(
                    f"That holds only from {starts[1]}: nobody can learn it on {world_from}. Give a later date."
                )
            characters = await self._audience(session, campaign, to, scene)
            rows = await learned.add_reveals(
                session,
                campaign.id,
                kind,
                target_id,
                characters,
                world_from=world_from,
                world_from_key=world_key,
                story_from=scene.story_order if scene is not None else None,
                scene_id=scene.id if scene is not None else None,
                reason=reason.strip(),
                revealed_by=gm.name,
            )
            return [r.id for r in rows]

        ids = await self.db.run(work)
        return [i for i in await self.known(campaign, gm, standing=False) if i.reveal.id in ids]

    async def _source(self, session: AsyncSession, campaign: Campaign, title: str) -> int:
        """Return the hidden knowledge source a title names (its passages are what is revealed)."""
        wanted = " ".join(title.casefold().split())
        found = [s for s in await campaign_sources(session, campaign.id) if s.title.casefold() == wanted]
        if not found:
            raise NotFound(f"No source is called “{title.strip()}”; `/lore sources` lists them.")
        if not source_hidden(found[0].hidden) and not found[0].hidden_chunks:
            raise InvalidInput(f"“{found[0].title}” is not hidden: every player may read it already.")
        return found[0].id

    async def _target(
        self, reader: CanonReader, fact: int | None, entity: str | None
    ) -> tuple[str, int, tuple[int, str] | None]:
        """Return what is revealed (kind, id) and from when it holds (its date key and words), if dated."""
        if entity is not None:
            found = await reader.resolve(entity)
            if not entity_hidden(found):
                raise InvalidInput(f"{found.name} is public already: every player sees it.")
            start = found.validity.world_from_key
            return "entity", found.id, (start, found.validity.world_from or "") if start is not None else None
        statements = await reader.statements(statement_ids=[fact or 0], with_evidence=False)
        views = await reader.views(statements)
        if not views:
            raise NotFound(
                "That fact no longer stands in this campaign's canon; pick one from the suggestions, or read "
                "`/canon entity` for what does."
            )
        view = views[0]
        if not view_hidden(view):
            raise InvalidInput("That fact is public already: every player sees it.")
        validity = view.statement.validity
        start = validity.world_from_key
        return (
            "statement",
            view.statement.id,
            (start, validity.world_from or "") if start is not None else None,
        )

    async def _audience(
        self, session: AsyncSession, campaign: Campaign, to: str, scene: object | None
    ) -> list[int | None]:
        """Return who learns it: character ids, or [None] for the party."""
        wanted = " ".join(to.casefold().split())
        if wanted in PARTY_WORDS:
            return [None]
        if wanted in PRESENT_WORDS:
            if scene is None or getattr(scene, "status", None) == SceneStatus.COMPLETED:
                raise InvalidInput("There is no running scene in this channel: name the characters instead.")
            speakers = {p.author_id for p in await scene_participants(session, scene.id)}  # type: ignore[attr-defined]
            active = [
                r.entity_id
                for r in await links.links(session, campaign.id, statuses=(LinkStatus.PLAYS,))
                if r.active and r.member_id in speakers
            ]
            if not active:
                raise InvalidInput(
                    "Nobody who spoke in this scene plays a character yet: name the characters."
                )
            return list(dict.fromkeys(active))
        names = split_names(to)
        if not names:
            raise InvalidInput(
                "Name who learns it: characters separated by commas, “the party” or “those present”."
            )
        return list(dict.fromkeys([(await self._character(session, campaign, n)).id for n in names]))

    async def pick(self, campaign: Campaign, gm: Actor, typed: str) -> int:
        """Return the standing reveal `typed` names (GM): its words as `/canon known` says them ("Sable knows
        Vell is the last heir"), any of them that fit one reveal only, or the handle a suggestion sends back."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM undoes a reveal.")
        handle = re.fullmatch(r"\s*(?:reveal\s*)?#?(\d{1,18})\s*", typed, re.IGNORECASE)
        if handle:
            return int(handle.group(1))
        words = re.findall(r"\w+", typed.casefold())
        if not words:
            raise InvalidInput("Say which reveal to undo by its words, as `/canon known` lists it.")
        standing = await self.known(campaign, gm, standing=True)
        fits = [i for i in standing if all(w in re.findall(r"\w+", i.said.casefold()) for w in words)]
        if len(fits) == 1:
            return fits[0].reveal.id
        if not fits:
            raise NotFound(f"No standing reveal says “{typed.strip()}”: `/canon known` lists them.")
        listed = "; ".join(f"“{i.said}”" for i in fits[:5])
        raise InvalidInput(
            f"“{typed.strip()}” fits {len(fits)} reveals; say which one by more of its words: {listed}."
        )

    async def undo(self, campaign: Campaign, reveal_id: int, gm: Actor, reason: str) -> KnownItem:
        """Undo a reveal (GM): it is kept, marked undone with who and why; the character no longer knows it."""
        if not gm.is_gm:
            raise NotAllowed("Only the GM undoes a reveal.")

        async def work(session: AsyncSession) -> None:
            row = await learned.reveal_row(session, campaign.id, reveal_id)
            if row is None:
                raise NotFound("That reveal is not in this campaign: `/canon known` lists them.")
            if not await learned.undo_reveal(
                session, campaign.id, reveal_id, by=gm.name, reason=reason.strip()
            ):
                raise Conflict(f"That reveal was undone already by {row.undone_by or 'another GM'}.")

        await self.db.run(work)
        (item,) = [i for i in await self.known(campaign, gm, standing=False) if i.reveal.id == reveal_id]
        return item

    # -- what is known ------------------------------------------------------------------------------------

    async def known(
        self, campaign: Campaign, asker: Actor, *, character: str | None = None, standing: bool = True
    ) -> list[KnownItem]:
        """Return reveals in words: the GM's of everyone (or one character); a player's of their active one."""
        async with self.db.session() as session:
            ids: list[int] | None = None
            if not asker.is_gm:
                ids = [await links.active_character_id(session, campaign.id, asker.id or 0)]
            elif character is not None:
                ids = [(await self._character(session, campaign, character)).id]
            found = await learned.reveals(session, campaign.id, character_ids=ids, standing=standing)
            reader = await self.access.reader(session, campaign, Viewer.GM)
            words = await _dated_for(
                self.access, session, campaign, asker, await wording_for(session, reader)
            )
            titles = (
                {s.id: s.title for s in await campaign_sources(session, campaign.id)}
                if any(r.target_kind == "source" for r in found)
                else {}
            )
            return await self._worded(reader, words, found, titles)

    async def _worded(
        self, reader: CanonReader, words: Wording, found: list[Reveal], titles: dict[int, str]
    ) -> list[KnownItem]:
        entity_ids = {r.target_id for r in found if r.target_kind == "entity"} | {
            r.character_id for r in found if r.character_id is not None
        }
        entities = await reader.entities(entity_ids, include_retconned=True, with_aliases=False)
        statements = [r.target_id for r in found if r.target_kind == "statement"]
        views = {
            v.statement.id: v
            for v in await reader.views(
                await reader.statements(statement_ids=statements, include_retconned=True, with_evidence=False)
            )
        }
        items = []
        for r in found:
            if r.target_kind == "statement" and r.target_id in views:
                what = statement_sentence(views[r.target_id], words)
            elif r.target_kind == "entity" and r.target_id in entities:
                what = f"who and what {entities[r.target_id].name} is"
            elif r.target_kind == "source" and r.target_id in titles:
                what = f"what “{titles[r.target_id]}” says"
            else:
                what = "something no longer in canon"
            who = "the party" if r.character_id is None else entities[r.character_id].name
            since = []
            if r.world_from:
                since.append(f"since {words.date(r.world_from)}")
            if r.story_from is not None:
                since.append(f"from scene {r.story_from}")
            items.append(KnownItem(reveal=r, what=what, who=who, since=", ".join(since) or SINCE_ALWAYS))
        return items


async def _dated_for(
    access: CanonAccess, session: AsyncSession, campaign: Campaign, asker: Actor, words: Wording
) -> Wording:
    """Return the GM's words of what was learned with their dates as the asker reads dates: a player's calendar
    writes one in a GM-only era their character does not know as no date (what was learned still reads whole)."""
    if asker.is_gm:
        return words
    lens = await learned.member_knowing(session, campaign.id, asker.id or 0)
    seen = await access.reader(session, campaign, Viewer.PLAYER, lens)
    return replace(words, calendar=(await seen.calendar()).words())
