"""One entity's page: what its card says (state, relations, facts, evidence) in the card's own sentences.

The entity is found by its name in the URL, in the reader's campaign, as the reader sees canon: a hidden entity
is not found for a player, exactly as a name nobody wrote (`NOT_FOUND` answers both). Relations link to the other
entity's page; evidence from a scene links to the scene's transcript at its turns; an imported fact's evidence
names its source (and, for the GM, links to the sources page). Facts are paged in the database
(`canon.graph.fact_pages`): an entity of any number of facts costs one page of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.wording import tied_people, wording_for
from canon.graph import CanonReader
from canon.graph.fact_pages import facts_page
from canon.models import AsOf, CanonLevel, EntityCard, Evidence, EvidenceKind, StatementView
from canon.visibility import entity_hidden, passage_hidden, source_seen, view_hidden, visible_views
from canon.wording import Wording, type_words
from canon.wording.relations import BY_SEX
from canon.wording.statements import (
    for_a_card,
    said_above,
    state_parts,
    status_fact_over_life,
    status_over_life,
)
from memory.knowledge.models import citation_label
from memory.scenes import Scene, scenes_by_id

from ..context import Reading
from ..deps import WikiDeps
from ..html import Page, esc, href, name_path, pager, plural
from ..store import CitedPassage, cited_passages, scene_orders
from .common import LOCK, not_found, page_number, printable, scene_url

FACTS_PER_PAGE = 60
#: Facts a card says above its lists (the world-builder's own words for a date, and a description).
ABOVE = frozenset({"in_fiction_date", "description"})


def entity_url(reading: Reading, name: str, nth: int = 1) -> str:
    """Return the address of an entity's page (`nth`: which of several entities so named, by age)."""
    return reading.url(f"e/{name_path(name)}" + (f"?n={nth}" if nth > 1 else ""))


def _linked(sentence_html: str, view: StatementView, reading: Reading, words: Wording) -> str:
    """Return a statement's sentence with the other entity's name linked to its page (once)."""
    other = view.object
    if other is None:
        return sentence_html
    name = words.name(other.name)
    if name not in sentence_html:
        return sentence_html + " " + href(entity_url(reading, other.name), "→")
    return sentence_html.replace(name, href(entity_url(reading, other.name), other.name), 1)


@dataclass(frozen=True)
class Cited:
    """What a page's evidence links to: scenes' numbers by id, imported passages by chunk and source."""

    orders: dict[int, int] = field(default_factory=dict)
    passages: dict[tuple[str, int], CitedPassage] = field(default_factory=dict)


def cited_scene_ids(evidence: list[Evidence]) -> list[int]:
    """Return the scenes a page's evidence cites (the first 500), in order."""
    return list(dict.fromkeys(e.scene_id for e in evidence if e.scene_id is not None))[:500]


async def cited_of(
    session: AsyncSession,
    evidence: list[Evidence],
    campaign_id: int,
    scenes: Mapping[int, Scene] | None = None,
) -> Cited:
    """Return what a page's evidence cites: the scenes' numbers in the campaign (from `scenes`, the cited
    scenes by id, when read already) and the imported passages."""
    scene_ids = cited_scene_ids(evidence)
    chunks = [e for e in evidence if e.kind == EvidenceKind.CHUNK]
    chunk_ids = list(dict.fromkeys(e.chunk_id for e in chunks if e.chunk_id is not None))
    source_ids = list(dict.fromkeys(e.source_id for e in chunks if e.source_id is not None))
    if scenes is None:
        orders = await scene_orders(session, scene_ids, campaign_id)
    else:  # a scene of another campaign of the lineage has no page in this one
        found = (scenes.get(i) for i in scene_ids)
        orders = {s.id: s.story_order for s in found if s is not None and s.campaign_id == campaign_id}
    return Cited(orders, await cited_passages(session, source_ids, chunk_ids))


def _imported(evidence: Evidence, reading: Reading, cited: Cited) -> str | None:
    """Return an imported fact's source and place, as the reader may read it (None: say it plainly)."""
    passage = None
    if evidence.chunk_id is not None:
        passage = cited.passages.get(("chunk", evidence.chunk_id))
    if passage is None and evidence.source_id is not None:
        passage = cited.passages.get(("source", evidence.source_id))
    if passage is None:
        return None
    hidden = passage_hidden(passage.source_hidden, passage.section_hidden)
    if not source_seen(reading.viewer, hidden, passage.source_id, reading.knowing, reading.as_of.as_of):
        return None
    where = esc(citation_label(passage.title, passage.heading_path, passage.place))
    if reading.gm:
        lock = f" {LOCK}" if hidden else ""
        return (
            "from "
            + href(reading.url("sources") + f"#source-{passage.source_id}", where, raw_label=True)
            + lock
        )
    return f"from {where}"


def _evidence(evidence: Evidence, reading: Reading, words: Wording, cited: Cited) -> str:
    if evidence.kind == EvidenceKind.CHUNK:
        imported = _imported(evidence, reading, cited)
        if imported is not None:
            return imported
    text = words.evidence(evidence, reading.viewer)  # user text in it escaped by `words`
    if evidence.kind == EvidenceKind.TURNS and evidence.scene_id in cited.orders:
        url = scene_url(reading, cited.orders[evidence.scene_id], evidence.turn_from)
        return href(url, text, raw_label=True)
    return text


def statement_html(
    view: StatementView,
    reading: Reading,
    words: Wording,
    cited: Cited,
    *,
    evidence: bool = True,
    status: str | None = None,
    status_fact: StatementView | None = None,
) -> str:
    """Return one statement as the cards say it, in HTML: lock (GM), sentence, when, evidence (`status`: a
    card's state said as a living person's status, `status_over_life`, from `status_fact`: as hidden as it)."""
    sentence, when = state_parts(view, words, status)
    hidden = view_hidden(view) or (status_fact is not None and view_hidden(status_fact))
    line = (f"{LOCK} " if reading.gm and hidden else "") + _linked(sentence, view, reading, words)
    if when:
        line += f" ({esc(when)})"
    if view.statement.provenance.level == CanonLevel.RETCONNED:
        line = f"<s>{line}</s> retconned"
    if evidence and view.statement.evidence:
        said = "; ".join(_evidence(e, reading, words, cited) for e in view.statement.evidence[:3])
        line += f' <span class="evidence">— {said}</span>'
    return line


def _when(card: EntityCard, facts: Sequence[StatementView], words: Wording) -> str | None:
    written = next((v.statement.value for v in facts if v.statement.predicate == "in_fiction_date"), None)
    written = written or card.entity.attributes.get("in_fiction_date")
    if isinstance(written, str) and written.strip():
        return written
    date = card.entity.attributes.get("date")
    return words.date(date) if isinstance(date, str) and date else None


def _list(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


async def entity_page(
    deps: WikiDeps, reading: Reading, segment: str, nth: str | None, page: str | None
) -> Page:
    """Return an entity's page, or the page of a name that is not found."""
    name = segment.replace("_", " ").strip()
    which = page_number(nth)
    if not name or len(name) > 300 or printable(segment) != segment:
        return not_found(reading)
    session = reading.session
    reader = await deps.access.reader(session, reading.campaign, reading.viewer, reading.knowing)
    found = await reader.find_exact(name)
    if not found and "_" in segment:  # a name with underscores of its own
        found = await reader.find_exact(segment)
    if len(found) < which:
        return not_found(reading)
    as_of = reading.as_of.as_of
    card = await reader.card(found[which - 1], as_of, attributes=ABOVE, with_evidence=False)
    card, facts = await _evidenced(
        reader, card, await _facts(reader, card, reading, page_number(page)), as_of
    )
    listed = [*card.facts, *facts.shown]
    cited = [e for v in (card.state, *card.relations, *listed) if v for e in v.statement.evidence]
    parents = [v.subject.id for v in card.relations if v.statement.predicate in BY_SEX]
    scenes = await scenes_by_id(session, cited_scene_ids([*cited, *card.evidence]))
    words = await wording_for(
        session,
        reader,
        [*cited, *card.evidence],
        people=parents,
        mortals=tied_people(card.relations),
        cited_scenes=scenes,
        as_of=as_of,
    )
    sources = await cited_of(session, [*cited, *card.evidence], reading.campaign.id, scenes)
    kin = reader.ontology.is_a(card.entity.type, ["Person", "Lineage", "Creature", "Deity"])
    words = dataclasses.replace(words, escape=esc, links=False)
    body = _body(card, facts, reading, words, sources)
    if kin:  # the picture at full size (`bot.wiki.pictures`)
        tree = reading.url(f"tree/{name_path(card.entity.name)}")
        body.insert(1, f'<p class="pictures">{href(tree, "Family tree")}</p>')
    return Page(200, reading.page(_title(card, reading), body))


def _title(card: EntityCard, reading: Reading) -> str:
    lock = f" {LOCK}" if reading.gm and entity_hidden(card.entity) else ""
    return f"{card.entity.name}{lock}"


@dataclass(frozen=True)
class FactsPage:
    """The page of an entity's facts shown (read in the database), which page it is, and how many pages."""

    shown: list[StatementView]
    page: int
    pages: int


async def _facts(reader: CanonReader, card: EntityCard, reading: Reading, page: int) -> FactsPage:
    """Return the asked page of an entity's listed facts (past the end: the last page)."""
    as_of = reading.as_of.as_of
    offset = (page - 1) * FACTS_PER_PAGE
    shown, total = await facts_page(
        reader, card.entity, as_of, leave_out=ABOVE, offset=offset, limit=FACTS_PER_PAGE, with_evidence=False
    )
    pages = max(1, -(-total // FACTS_PER_PAGE))
    if page > pages:
        page = pages
        offset = (page - 1) * FACTS_PER_PAGE
        shown, total = await facts_page(
            reader,
            card.entity,
            as_of,
            leave_out=ABOVE,
            offset=offset,
            limit=FACTS_PER_PAGE,
            with_evidence=False,
        )
    return FactsPage(shown, page, pages)


async def _evidenced(
    reader: CanonReader, card: EntityCard, facts: FactsPage, as_of: AsOf
) -> tuple[EntityCard, FactsPage]:
    """Return the card and the page of facts with their evidence, and the entity's own, read at once."""
    views = [v for v in (card.state, *card.relations, *card.facts, *facts.shown) if v is not None]
    ids = list(dict.fromkeys(v.statement.id for v in views))
    found = await reader.evidence_of({"statement": ids, "entity": [card.entity.id]}, as_of)

    def given(view: StatementView) -> StatementView:
        evidence = tuple(found.get(("statement", view.statement.id), ()))
        return view.model_copy(update={"statement": dataclasses.replace(view.statement, evidence=evidence)})

    card = card.model_copy(
        update={
            "state": given(card.state) if card.state is not None else None,
            "relations": tuple(map(given, card.relations)),
            "facts": tuple(map(given, card.facts)),
            "evidence": tuple(found.get(("entity", card.entity.id), ())),
        }
    )
    return card, dataclasses.replace(facts, shown=[given(v) for v in facts.shown])


def _body(card: EntityCard, listed: FactsPage, reading: Reading, words: Wording, cited: Cited) -> list[str]:
    entity = card.entity
    viewer, knowing = reading.viewer, reading.knowing
    facts = visible_views(card.facts, viewer, knowing, reading.as_of.as_of)  # those said above the lists
    body = [f'<p class="muted">{esc(type_words(entity.type))}</p>']
    description = entity.description or next(
        (v.statement.value for v in facts if v.statement.predicate == "description"), None
    )
    if description:
        body.append(f"<p>{esc(description)}</p>")
    if (when := _when(card, facts, words)) is not None:
        body.append(f"<p>When: {esc(when)}</p>")
    if entity.aliases:
        body.append(f"<p>Also known as: {esc(', '.join(entity.aliases))}</p>")
    if entity.provenance.level == CanonLevel.RETCONNED:
        body.append("<p>This was retconned: it is no longer canon.</p>")
    state = (
        card.state
        if card.state is not None and visible_views([card.state], viewer, knowing, reading.as_of.as_of)
        else None
    )
    if state is not None:
        status, fact = status_over_life(state, facts), status_fact_over_life(state, facts)
        line = statement_html(state, reading, words, cited, status=status, status_fact=fact)
        body += ["<h2>State</h2>", f"<p>{line}</p>"]
    words = for_a_card(words, state)  # a dead man "lived in" his town
    relations = visible_views(card.relations, viewer, knowing, reading.as_of.as_of)
    if relations:
        lines = [statement_html(v, reading, words, cited, evidence=False) for v in relations[:200]]
        more = len(relations) - 200
        body += ["<h2>Relations</h2>", _list(lines)]
        if more > 0:
            body.append(f'<p class="muted">… and {plural(more, "more relation")}.</p>')
    shown = [  # its names once: "Also known as" above
        v
        for v in visible_views(listed.shown, viewer, knowing, reading.as_of.as_of)
        if not said_above(v, entity.aliases)
    ]
    if shown:
        body += ["<h2>Facts</h2>", _list([statement_html(v, reading, words, cited) for v in shown])]
        body.append(pager(entity_url(reading, entity.name), listed.page, listed.pages))
    if card.evidence:
        body += [
            "<h2>Evidence</h2>",
            _list([_evidence(e, reading, words, cited) for e in card.evidence[:20]]),
        ]
    return body
