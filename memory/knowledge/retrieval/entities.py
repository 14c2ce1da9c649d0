"""Entity candidates: canon-graph entities named in a question, and their cards as `canon_facts`.

Names and aliases are matched on word windows of the question (exact first, then fuzzy, so typos still match:
`entity_names`); only the entities the viewer may see are matched, and each is read as its card
(`entity_cards`). Chunks whose headings carry a matched entity's name get a bonus
in the fusion (`memory.knowledge.retrieval.candidates`).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign, ChangesetRow
from canon.errors import GameError
from canon.forks import LineageStep
from canon.graph import CanonReader, NameRows, fold, visible_names
from canon.models import EntityCard, Viewer
from canon.ontology import Ontology, base_ontology
from canon.visibility import Knowing, entities_seen, entity_hidden
from canon.wording import PLAIN, Wording
from memory.knowledge.models import CanonFact, KnowledgeClass, LoreResult
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.card_deaths import with_deaths
from memory.knowledge.retrieval.card_sexes import with_sexes
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.entity_cards import card_fact, count_cards, with_kin
from memory.knowledge.retrieval.entity_names import ARTICLES, Names, best_matches, name_parts
from memory.knowledge.retrieval.happenings import at_place, by_deed, death_events, the_fallen, told_at
from memory.knowledge.retrieval.heads import heads_of
from memory.knowledge.retrieval.heirs import heir_holders
from memory.knowledge.retrieval.holders import (
    described,
    mentioned,
    of_type,
    title_holders,
    titled,
)
from memory.knowledge.retrieval.kin import asks_kin
from memory.knowledge.retrieval.lives import story_date
from memory.knowledge.retrieval.nouns import common_nouns
from memory.knowledge.retrieval.offices import office_holders
from memory.knowledge.retrieval.places import around
from memory.knowledge.retrieval.question_reads import Reads
from memory.knowledge.retrieval.rulers import seated
from memory.knowledge.retrieval.shared_names import family_names
from memory.knowledge.retrieval.steps import inner_step, stepped
from memory.knowledge.retrieval.superseded import mark_superseded
from memory.knowledge.retrieval.tenures import tenure_holders
from memory.knowledge.retrieval.years import in_a_year

log = logging.getLogger(__name__)

#: Folded name tables kept (one per lineage, canon state, viewer and hidden entities seen).
_NAMES_CACHE = 64
#: Every name of a lineage's canon, whoever reads, kept per lineage and canon state: the tables above are
#: built from them.
_ROWS_CACHE = 8


@dataclass(frozen=True)
class _NameRows:
    """Every name and alias of a lineage's canon at one state, folded, and its hidden entities' visibility."""

    rows: NameRows
    folded: dict[str, str]
    hidden: dict[int, str]

    @classmethod
    def of(cls, rows: NameRows) -> _NameRows:
        """Return the rows with their names folded and the hidden entities among them."""
        every = [n for n, _, _ in (*rows.names, *rows.born)] + [a for a, _ in (*rows.aliases, *rows.secret)]
        return cls(
            rows,
            {name: fold(name) for name in every},
            {e: visibility for _, e, visibility in rows.names if entity_hidden(visibility)},
        )


class EntityFinder:
    """Finds the canon entities a question names, with their names cached until the lineage's canon changes."""

    def __init__(self, ontology_for: Callable[[Campaign], Ontology] | None = None) -> None:
        self.ontology_for = ontology_for
        self._base_ontology: Ontology | None = None
        self._rows_cache: OrderedDict[tuple[tuple[int, ...], int], _NameRows] = OrderedDict()
        self._names_cache: OrderedDict[
            tuple[tuple[tuple[int, ...], int], str, frozenset[tuple[int, bool]]], Names
        ] = OrderedDict()

    def ontology(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology (the base one extended by its settings, unless one is given)."""
        if self.ontology_for is not None:
            return self.ontology_for(campaign)
        if self._base_ontology is None:
            self._base_ontology = base_ontology()
        extension = campaign.settings.get("ontology")
        return self._base_ontology.extended(extension) if extension else self._base_ontology

    async def names(self, reader: CanonReader, viewer: Viewer, reads: Reads | None = None) -> Names:
        """Return the entity names and aliases the viewer may see, folded, cached until canon changes (its last
        changeset, read once while nothing shown changes: `reads`)."""
        campaigns = [step.campaign_id for step in reader.steps]

        async def last() -> int | None:
            return await reader.session.scalar(
                select(func.max(ChangesetRow.id)).where(ChangesetRow.campaign_id.in_(campaigns))
            )

        stamp = await (reads if reads is not None else Reads()).once(("changeset", tuple(campaigns)), last)
        if stamp is None:  # no canon written in this lineage yet
            return {}, [], {}
        lineage_key = (tuple(campaigns), int(stamp))
        every = self._rows_cache.get(lineage_key)
        if every is None:
            every = self._rows_cache[lineage_key] = _NameRows.of(await reader.name_rows())
            while len(self._rows_cache) > _ROWS_CACHE:
                self._rows_cache.popitem(last=False)
        # Viewers see the same names but for the hidden entities they see (a player's character knows them, by
        # name alone or whole): that, not the whole lens, keys their table, so characters who know no hidden
        # entity share the players' one, and a character's table is built without asking the database again.
        seen = entities_seen(reader.viewer, every.hidden, reader.knowing)
        key = (lineage_key, reader.viewer.value, seen)
        cached = self._names_cache.get(key)
        if cached is not None:
            self._names_cache.move_to_end(key)
            return cached
        folded_names: dict[str, tuple[str, int]] = {}
        for name, entity_id in visible_names(reader, every.rows):
            folded = every.folded[name]
            folded_names.setdefault(folded, (name, entity_id))
            # "the Harbor Hawk" is also named "Harbor Hawk" (question windows never start on a stopword).
            first, _, rest = folded.partition(" ")
            if rest and first in ARTICLES:
                folded_names.setdefault(rest, (name, entity_id))
        value = (folded_names, list(folded_names), name_parts(folded_names))
        self._names_cache[key] = value
        while len(self._names_cache) > _NAMES_CACHE:
            self._names_cache.popitem(last=False)
        return value

    async def find(
        self,
        session: AsyncSession,
        campaign: Campaign,
        steps: Sequence[LineageStep],
        question: str,
        viewer: Viewer,
        config: SearchConfig,
        knowing: Knowing | None = None,
        reads: Reads | None = None,
    ) -> tuple[list[CanonFact], list[EntityMatch]]:
        """Return the cards of canon entities named in the question (exact, then fuzzy on word windows)."""
        if config.max_entities == 0:
            return [], []
        reader = CanonReader(session, steps, self.ontology(campaign), viewer=viewer, knowing=knowing)
        names = await self.names(reader, viewer, reads)
        if not names[0]:
            return [], []
        counted = await of_type(reader, question)
        if counted is not None:
            return count_cards(*counted), []
        # "What happened in year 212 of the Reign of Lamps?": the events of the year, not the era its words name.
        ranked = await in_a_year(reader, question) or best_matches(question, names, config)
        deeds = await by_deed(reader, question, ranked)  # found by the deed asked, if by a name's part too
        ranked = [m for m in ranked if m.entity_id not in {d.entity_id for d in deeds}] + deeds
        ranked += await at_place(reader, question, ranked)
        there = await told_at(reader, question, ranked)  # what the few events at a place asked about were
        ranked += await death_events(reader, question, ranked)  # how they died may be the event's to tell
        ranked += await the_fallen(reader, question, ranked)  # who died there: the cards of all who took part
        ranked += await seated(reader, question, ranked)
        sure = [m for m in ranked if not m.shared]  # a part several names share names no one of them for sure
        held = (
            await title_holders(reader, question, ranked)
            or await titled(reader, question, sure)
            or await mentioned(reader, question, ranked)
            or await common_nouns(reader, question, ranked)  # "the navy": the one entity described so
        )
        ranked = (sure if held and len(sure) < len(ranked) else ranked) + held
        ranked += await family_names(reader, question, names[0], ranked)
        ranked += await heir_holders(reader, question, ranked)
        ranked += await office_holders(reader, question, ranked)  # "who was High Steward before Wynna Brack"
        ranked += await tenure_holders(reader, question, ranked)  # "who led the Wardens before Ilse Brannoc"
        ranked += await heads_of(reader, question, ranked)  # after the holders of a title: each found once
        ranked = ranked or await described(reader, question)
        step = await inner_step(reader, question, ranked)
        ranked = stepped(ranked, step)
        ranked += await around(reader, question, ranked)  # the places in or around a place asked about
        ranked += [m for m in there if m.entity_id not in {r.entity_id for r in ranked}]
        calendar = await reader.calendar() if ranked else None
        words = Wording(calendar=calendar.words()) if calendar is not None else PLAIN
        now = await story_date(session, steps, reader) if ranked else None
        cards: list[tuple[EntityMatch, EntityCard]] = []
        for m in ranked:
            try:
                cards.append((m, await reader.card(m.entity_id, with_evidence=False)))  # /lore: no evidence
            except GameError:  # an entity retconned or hidden meanwhile: no card
                log.debug("no card for entity #%s", m.entity_id)
        sexed = await with_sexes(reader, [card for _, card in cards], words)  # an aunt, not "uncle or aunt"
        sexed = await with_deaths(reader, [card for _, card in cards], sexed)  # a dead mentor's tie is over
        facts = [card_fact(card, m, reader.ontology, config, sexed, now, step) for m, card in cards]
        # A family is read only for a tie of kin asked, or a lineage named ("is Wystan of House Drevanne").
        if asks_kin(question) or any(f.entity_type == "Lineage" for f in facts):
            facts = await with_kin(reader, facts, words)
        found = {f.entity_id for f in facts}
        return facts, [m for m in ranked if m.entity_id in found]

    async def mark_superseded(
        self,
        session: AsyncSession,
        campaign: Campaign,
        steps: Sequence[LineageStep],
        viewer: Viewer,
        results: list[LoreResult],
        max_entities: int = 8,
        *,
        knowing: Knowing | None = None,
    ) -> list[LoreResult]:
        """Return the results with the Canon passages the story has changed marked (`retrieval.superseded`)."""
        if not any(r.knowledge_class == KnowledgeClass.CANON for r in results):
            return results
        reader = CanonReader(session, steps, self.ontology(campaign), viewer=viewer, knowing=knowing)
        names = await self.names(reader, viewer)
        if not names[0]:
            return results
        return await mark_superseded(reader, names[0], results, max_entities=max_entities)
