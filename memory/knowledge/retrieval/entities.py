"""Entity candidates: canon-graph entities named in a question, and their cards as `canon_facts`.

Names and aliases are matched on word windows of the question (exact first, then fuzzy, so typos still match);
only the entities the viewer may see are matched. Chunks whose headings carry a matched entity's name get a bonus
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
from canon.models import Entity, EntityCard, Viewer
from canon.ontology import Ontology, base_ontology
from canon.visibility import Knowing, entities_seen, entity_hidden
from canon.wording import PLAIN, Wording, in_prose
from canon.wording.statements import for_a_card, told_words
from memory import fulltext
from memory.knowledge.answer_models import Relation
from memory.knowledge.models import CanonFact, KnowledgeClass, LoreResult
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.card_sexes import with_sexes
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.happenings import at_place, by_deed, death_events, the_fallen
from memory.knowledge.retrieval.heads import heads_of
from memory.knowledge.retrieval.heirs import heir_holders
from memory.knowledge.retrieval.holders import (
    described,
    mentioned,
    of_type,
    title_holders,
    titled,
)
from memory.knowledge.retrieval.kin import asks_kin, kin_of
from memory.knowledge.retrieval.lives import birth_line, card_life, card_status, died_in, story_date
from memory.knowledge.retrieval.nouns import common_nouns
from memory.knowledge.retrieval.offices import (
    card_offices,
    event_key,
    office_holders,
    tensed,
    today_key,
)
from memory.knowledge.retrieval.places import around
from memory.knowledge.retrieval.rulers import seated
from memory.knowledge.retrieval.shared_names import family_names
from memory.knowledge.retrieval.steps import Step, inner_step, stepped
from memory.knowledge.retrieval.superseded import mark_superseded
from memory.knowledge.retrieval.typed_names import closest, nearest_part
from memory.knowledge.retrieval.years import in_a_year
from memory.leaks import card_secrets

log = logging.getLogger(__name__)

_ARTICLES = frozenset({"the", "a", "an"})
#: The most people of a question whose families are read (each reads a few dozen cards).
_KIN_READ = 4
#: Folded name tables kept (one per lineage, canon state, viewer and hidden entities seen).
_NAMES_CACHE = 64
#: Every name of a lineage's canon, whoever reads, kept per lineage and canon state: the tables above are
#: built from them.
_ROWS_CACHE = 8

#: Folded name -> (name as written, entity id); the folded names, for fuzzy matching; and each run of words of a
#: many-word name with the few entities it names ("ysolde" -> Ysolde Marrow; "tamsin" -> Tamsin Vaske and the
#: Investiture of Tamsin: the question's form chooses among them, `answer_graph`), for names given in part.
Names = tuple[dict[str, tuple[str, int]], list[str], dict[str, tuple[tuple[str, int], ...]]]
#: A run of words shared by more entities than this names none of them (of people, a family name: `shared_names`).
_SHARED_PART = 3
#: A name given in part, or with a typo in a part, scores below a whole name.
_PART_SCORE = 92.0
#: One letter wrong in a six-letter part ("Ysolda") is 83: a part is a capitalised word, so a lower bar holds.
_PART_CUTOFF = 80.0
#: The longest run of a name's words taken for it: longer runs of longer names are rare, and cost the table's build.
_LONGEST_PART = 3


def windows(question: str, longest: int = 6) -> list[str]:
    """Return the word windows of a question (1 to `longest` words) that do not start or end on a stopword."""
    words = [w.strip('.,;:!?"()[]') for w in question.replace("’", "'").split()]
    words = [w[:-2] if w.lower().endswith("'s") else w for w in words if w]
    found: list[str] = []
    for size in range(min(longest, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            window = words[start : start + size]
            if fold(window[0]) in fulltext.STOPWORDS or fold(window[-1]) in fulltext.STOPWORDS:
                continue
            found.append(" ".join(window))
    return list(dict.fromkeys(found))


def card_facts(
    card: EntityCard, limit: int, ontology: Ontology | None = None, words: Wording = PLAIN
) -> list[str]:
    """Return an entity card's state, facts and relations as sentences, with when they hold in the calendar's
    words, without repeats, at most `limit`.

    Of a single-valued attribute stated more than once, only its last value in story order is kept: an answer
    must never read a value the story has since replaced as the current one (nor lose the current one to
    `limit`). The values of an attribute the ontology declares many-valued are all kept.
    """
    last = {view.statement.predicate: view for view in card.facts}
    kept = [
        view
        for view in card.facts
        if last[view.statement.predicate] is view
        or is_many(ontology, card.entity.type, view.statement.predicate)
    ]
    views = ([card.state] if card.state is not None else []) + kept + list(card.relations)
    status = card_status(card, ontology)
    facts = [told_words(view, words, Viewer.PLAYER, status if view is card.state else None) for view in views]
    event = died_in(card)
    if event and facts and card.state is not None:
        facts[0] += f", in {in_prose(words.name(event), 'Event')}"
    if card.state is None and status is not None:  # "status: dead" with no dates: the status is the state
        facts.insert(0, f"{words.name(card.entity.name)} is {words.name(status)}")
    born = birth_line(card, words)
    if born is not None:
        facts.insert(1, born)
    return list(dict.fromkeys(facts))[:limit]


#: The most entities a count names (it says how many there are in all).
_COUNT_NAMED = 12


def _counted(word: str, entities: Sequence[Entity]) -> list[CanonFact]:
    """Return the entities a "How many factions are there?" counts as short cards saying so (no card read)."""
    return [
        CanonFact(
            entity_id=e.id,
            entity_name=e.name,
            entity_type=e.type,
            matched=word,
            match_score=80.0,
            hidden=entity_hidden(e),
            description=None,
            facts=[f"{e.name} is one of {len(entities)} {word}"],
            score=0.8,
        )
        for e in entities[:_COUNT_NAMED]
    ]


def is_many(ontology: Ontology | None, entity_type: str, predicate: str) -> bool:
    """Return whether the ontology declares an attribute of a type many-valued (several values at once)."""
    if ontology is None:
        return False
    spec = ontology.attribute(entity_type, predicate)[1]
    return spec is not None and spec.many


def card_state(card: EntityCard, ontology: Ontology | None = None) -> str | None:
    """Return an entity card's current state tag ("alive", "dead"), or None when it shows none; a living
    person's status that is a state ("missing", "undead") is theirs (`card_status`)."""
    status = card_status(card, ontology)
    if status is not None:
        return status
    value = card.state.statement.value if card.state is not None else None
    return str(value).strip().casefold() if value else None


def is_terminal(ontology: Ontology, state: str | None) -> bool:
    """Return whether the ontology calls a state terminal (dead, destroyed): nothing living is in it."""
    tag = ontology.states.tags.get(state) if state else None
    return tag is not None and tag.terminal


def card_relations(card: EntityCard, words: Wording = PLAIN) -> list[Relation]:
    """Return an entity card's relations as parts, for answers from the graph (a date hidden from the `words`'
    reader, in a GM-only era, as one nobody knows: no age or order is counted from it)."""
    return [
        Relation(
            subject=view.subject.name,
            predicate=view.statement.predicate,
            object=view.object.name,
            since=words.seen(view.statement.validity.world_from),
            object_type=view.object.type,
        )
        for view in card.relations
        if view.object is not None
    ]


def singulars(key: str) -> list[str]:
    """Return what a folded plural may be the plural of ("aboleths" -> "aboleth", "harpies" -> "harpy")."""
    found = []
    if key.endswith("ies") and len(key) > 4:
        found.append(key[:-3] + "y")
    if key.endswith("es") and len(key) > 4:
        found.append(key[:-2])
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        found.append(key[:-1])
    return found


def _match(window: str, key: str, names: Names, config: SearchConfig) -> tuple[list[str], float] | None:
    """Return the folded names a window names and how well: whole, plural, in part, or with a typo (a part
    several entities' names share names each of them)."""
    folded_names, choices, parts = names
    if key in folded_names:
        return [key], 100.0
    for singular in singulars(key):
        if singular in folded_names:
            return [singular], 99.0
    # A run of whole words of one name ("mirela" for Mirela Harrow), in any case, as names are typed
    # everywhere (`canon.graph.naming`).
    for candidate in (key, *singulars(key)):
        if candidate in parts and (candidate == key or len(parts[candidate]) == 1):
            # A part several names share, typed as a plural ("the Marrows"), names the house, not one of them.
            return [fold(name) for name, _ in parts[candidate]], _PART_SCORE
    if len(key) >= 4:
        slip = closest(key, choices, folded_names, config.fuzzy_cutoff)  # a slip; two equally near name none
        if slip is not None:
            return slip if slip[0] else None
    # A misspelt part counts only capitalised ("Ysolda"): a lower-case word near a name is mostly just a word.
    if " " in key or not window[:1].isupper() or len(key) < 5:
        return None
    words = [p for p in parts if " " not in p and len(parts[p]) == 1]  # a shared part is typed as it is
    found = nearest_part(key, words, parts, _PART_CUTOFF)  # two parts of two names equally near: neither
    if found is not None:
        return [fold(name) for name, _ in parts[found[0]]], _PART_SCORE * found[1] / 100
    return None


def best_matches(question: str, names: Names, config: SearchConfig) -> list[EntityMatch]:
    """Return the entities the question names, best first, at most `max_entities`."""
    folded_names = names[0]
    best: dict[int, EntityMatch] = {}
    covered: list[str] = []
    for window in windows(question):
        key = fold(window)
        if any(key in longer for longer in covered):
            continue  # "Red Dragon" inside an already matched "Adult Red Dragon"
        match = _match(window, key, names, config)
        if match is None or not any(m in folded_names for m in match[0]):
            continue
        covered.append(key)
        score = match[1] + len(key) / 100  # longer matches first among equals
        owners = list({folded_names[f][1]: f for f in reversed(match[0]) if f in folded_names}.values())[::-1]
        first = _begun(key, owners) if len(owners) > 1 and match[1] <= _PART_SCORE else None
        for folded in owners:
            name, entity_id = folded_names[folded]
            shared = len(owners) > 1 and first is None
            # A part several names share is the one name it begins ("Tamsin" of Tamsin Vaske, beside the
            # Investiture of Tamsin) before the others; shared by names it begins none of, it names each alike.
            mine = score + (_BEGUN if folded == first else 0.0)
            if entity_id not in best or best[entity_id].score < mine:
                best[entity_id] = EntityMatch(
                    entity_id=entity_id, matched=name, window=window, score=mine, shared=shared
                )
    return sorted(best.values(), key=lambda m: -m.score)[: config.max_entities]


#: How much more the one name a shared part begins scores than the others it is part of.
_BEGUN = 0.5


def _begun(part: str, owners: Sequence[str]) -> str | None:
    """Return the one folded name among several that a part begins (an article aside; a possessive is no
    beginning: "corsairs" begins "The Corsairs Guild", not "The Corsairs' Rest"), or None."""
    begun = []
    for folded in owners:
        words = folded.split()
        words = words[1:] if len(words) > 1 and words[0] in _ARTICLES else words
        if " ".join(words[: len(part.split())]) == part:
            begun.append(folded)
    return begun[0] if len(begun) == 1 else None


def _unpossessed(word: str) -> str:
    """Return a folded word without its possessive ending ("lamplighters" of "lamplighters'", "vell" of "vell's")."""
    if word.endswith("'s") and len(word) > 3:
        return word[:-2]
    return word[:-1] if word.endswith("'") and len(word) > 2 else word


def name_parts(folded_names: dict[str, tuple[str, int]]) -> dict[str, tuple[tuple[str, int], ...]]:
    """Return each run of whole words of a many-word name, shorter than the name, with the few entities whose
    names hold it ("mirela", "harrow" when one Harrow is known; "tamsin" of Tamsin Vaske and the Investiture of
    Tamsin; "orrow" of Maelis Orrow and House Orrow: `best_matches` tells them apart); runs starting or ending
    on a stopword, and one-word runs of fewer than three letters, are left out, and so is a run that is another
    entity's whole name, and a run more than a few names share. A possessive word is also a part without its
    ending ("lamplighters" of "The Lamplighters' Guild")."""
    owners: dict[str, dict[int, tuple[str, int]]] = {}
    skipped = fulltext.STOPWORDS | _ARTICLES
    for folded, (name, entity_id) in folded_names.items():
        words = folded.split()
        for size in range(1, min(len(words), _LONGEST_PART + 1)):
            for start in range(len(words) - size + 1):
                run = words[start : start + size]
                if run[0] in skipped or run[-1] in skipped or (size == 1 and len(run[0]) < 3):
                    continue
                part = " ".join(run)
                owners.setdefault(part, {}).setdefault(entity_id, (name, entity_id))
                bare = " ".join(
                    _unpossessed(w) for w in run
                )  # "the lamplighters" of "The Lamplighters' Guild"
                if bare != part:
                    owners.setdefault(bare, {}).setdefault(entity_id, (name, entity_id))
    return {
        w: tuple(ids.values())
        for w, ids in owners.items()
        if w not in folded_names and len(ids) <= _SHARED_PART
    }


@dataclass(frozen=True)
class _NameRows:
    """Every name and alias of a lineage's canon at one state, folded, and its hidden entities' visibility."""

    rows: NameRows
    folded: dict[str, str]
    hidden: dict[int, str]

    @classmethod
    def of(cls, rows: NameRows) -> _NameRows:
        """Return the rows with their names folded and the hidden entities among them."""
        every = [n for n, _, _ in rows.names] + [a for a, _ in (*rows.aliases, *rows.secret)]
        return cls(
            rows,
            {name: fold(name) for name in every},
            {e: visibility for _, e, visibility in rows.names if entity_hidden(visibility)},
        )


async def _with_kin(reader: CanonReader, facts: list[CanonFact], words: Wording) -> list[CanonFact]:
    """Return the cards with the families of the first few people among them (`retrieval.kin`)."""
    # Those the question names itself first, then those a step found ("is Pell Oswin's son": Oswin's family).
    ordered = sorted(facts, key=lambda f: f.step_span is not None)
    people = [f.entity_id for f in ordered if reader.ontology.is_a(f.entity_type, ("Person", "Deity"))]
    return [
        f.model_copy(update={"kin": await kin_of(reader, f.entity_id, words)})
        if f.entity_id in people[:_KIN_READ]
        else f
        for f in facts
    ]


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

    async def names(self, reader: CanonReader, viewer: Viewer) -> Names:
        """Return the entity names and aliases the viewer may see, folded, cached until canon changes."""
        campaigns = [step.campaign_id for step in reader.steps]
        stamp = await reader.session.scalar(
            select(func.max(ChangesetRow.id)).where(ChangesetRow.campaign_id.in_(campaigns))
        )
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
            if rest and first in _ARTICLES:
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
    ) -> tuple[list[CanonFact], list[EntityMatch]]:
        """Return the cards of canon entities named in the question (exact, then fuzzy on word windows)."""
        if config.max_entities == 0:
            return [], []
        reader = CanonReader(session, steps, self.ontology(campaign), viewer=viewer, knowing=knowing)
        names = await self.names(reader, viewer)
        if not names[0]:
            return [], []
        counted = await of_type(reader, question)
        if counted is not None:
            return _counted(*counted), []
        # "What happened in year 212 of the Reign of Lamps?": the events of the year, not the era its words name.
        ranked = await in_a_year(reader, question) or best_matches(question, names, config)
        deeds = await by_deed(reader, question, ranked)  # found by the deed asked, if by a name's part too
        ranked = [m for m in ranked if m.entity_id not in {d.entity_id for d in deeds}] + deeds
        ranked += await at_place(reader, question, ranked)
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
        ranked += await heads_of(reader, question, ranked)  # after the holders of a title: each found once
        ranked = ranked or await described(reader, question)
        step = await inner_step(reader, question, ranked)
        ranked = stepped(ranked, step)
        ranked += await around(reader, question, ranked)  # the places in or around a place asked about
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
        facts = [_card_fact(card, m, reader.ontology, config, sexed, now, step) for m, card in cards]
        # A family is read only for a tie of kin asked, or a lineage named ("is Wystan of House Drevanne").
        if asks_kin(question) or any(f.entity_type == "Lineage" for f in facts):
            facts = await _with_kin(reader, facts, words)
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


def _card_fact(
    card: EntityCard,
    m: EntityMatch,
    ontology: Ontology,
    config: SearchConfig,
    words: Wording,
    now: str | None,
    step: Step | None,
) -> CanonFact:
    """Return an entity's card as the answers read it, found by `m`: its lines, ties, life and offices over time as
    the asker may see them (`now`: the story's date)."""
    entity = card.entity
    offices = card_offices(card, words, today_key(now))
    state = card_state(card, ontology)
    lived = for_a_card(words, card.state)  # a dead man "lived in" his town, as his card says
    return CanonFact(
        entity_id=entity.id,
        entity_name=entity.name,
        entity_type=entity.type,
        matched=m.window,
        match_score=round(min(m.score, 100.0), 1),
        hidden=entity_hidden(entity),
        description=entity.description,
        facts=tensed(card_facts(card, config.max_facts_per_entity, ontology, lived), entity.name, offices),
        score=round(min(m.score, 100.0) / 100, 4),
        relations=card_relations(card, words),
        state=state,
        state_terminal=is_terminal(ontology, state),
        life=card_life(card, words, now),
        offices=offices,
        when_key=event_key(card, words),
        secrets=tuple(card_secrets(card)),
        step=step.said if step is not None and entity.id in step.found else None,
        step_span=step.span if step is not None and entity.id in step.found else None,
        shared=m.shared,
    )
