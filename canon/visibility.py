"""Decide who may see what: the one place for the rule that keeps GM-only canon from players (DESIGN rule 7).

- An entity is hidden when it is GM-only.
- A statement (fact, relation, state) is hidden when it is GM-only, or when either of its ends (its subject,
  its object) is a hidden entity: "Vell is dead" tells of Vell even when the death itself is public.
- A knowledge source is hidden when the campaign sees it hidden (an inherited source hidden at a fork stays
  hidden in the branch); its text and its passages are for the GM alone.
- A GM-only section of a source (marked in its file, or hidden by the GM after import) is hidden exactly as a
  hidden source is: its passages are for the GM alone (and for a player whose character was shown the source),
  while the rest of a public source stays public.
- A proposal is hidden when it is GM-only: a player's too, kept to "Only those present" (by the player when
  proposing, or by the GM on the card), since everyone in the channel reads a public card. Otherwise it is
  hidden when it names a hidden entity or a hidden entity proposal, unless a player made it: what a player
  proposed in the open is shown back to the players as they wrote it, never dropped (a card that drops it would
  tell them something is hidden). A hidden proposal leaves a public card whole (no line, count or number:
  the card numbers what players read first). Its continuity warnings are hidden on their own when any rests
  on hidden canon: the proposal shows, without warnings, and the GM reads them on the private view. A proposal
  kept to those present is read, privately and before the commit, by every player who took part in its scene
  (`proposal_seen`); not by one who did not.
- A continuity conflict (or finding) is hidden when it touches a hidden entity or a hidden statement.
- What the table is told in place of a truth the GM keeps (a person's `public_status` beside a GM-only `status`,
  a `public_cause_of_death` beside the true cause, an event's `public_outcome` beside its true outcome) reads, for
  a player the truth is hidden from, as that truth itself would (`as_told`): "status: missing".
- A date is hidden when it falls in an era hidden from the viewer (a GM-only era their character does not know):
  a player reads it as no date at all, never in that era's words (the story's date, the calendar's today).
- Free text (a fact typed as text, a description, a scene's summary a model wrote) that names such an era reads
  to that viewer with each date in it said as a date nobody knows ("in the 52nd year of the Sunken Reign": "at an
  unknown time"), and without the sentences that name the era otherwise ("The Sunken Reign ended in fire."): a
  text left with nothing is withheld whole. An era's name of one word and its abbreviations are common words
  ("the Dawn", "SR"): they name it only with a year beside them (`era_text_seen`, `canon.era_mentions`).
- A player whose character knows something (`canon.knowing.Knowing`, the viewer's lens: what the character
  learned, and from when) sees it although it is hidden: a known entity whole, as if public; a known
  statement, with its ends' names and nothing else of a hidden end ("Vell's title: heir" tells Vell's name,
  not Vell's other facts); a known source's passages. As of a date or scene before the character learned it,
  it is hidden again. The GM sees everything; a player without a character sees public canon only.

Everything else in the program asks these functions (or `statement_is_public_sql`, their twin for counting
in SQL) instead of comparing visibilities itself: `scripts/check_visibility.py` fails the lint when a module
outside this one compares a visibility column, the stored words (`"gm_only"`, `"hidden"`) or the enums'
members, or rewrites `may_see` by hand. Rows are written with the values `visibility_of` and
`source_visibility_of` give.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from sqlalchemy import ColumnElement, and_, exists, false, or_, select, true
from sqlalchemy.orm import aliased

from canon.era_mentions import EraMentions
from canon.knowing import NOTHING_KNOWN, Knowing, Known
from canon.models import (
    NOW,
    AsOf,
    Authority,
    Entity,
    EntityRef,
    SourceVisibility,
    StatementView,
    Viewer,
    Visibility,
)
from canon.proposals import Proposal, ProposalWarning, references

__all__ = [
    "TOLD_FOR",
    "HiddenCanon",
    "Knowing",
    "as_told",
    "date_hidden",
    "entities_seen",
    "entity_facts_seen",
    "entity_hidden",
    "entity_is_public_sql",
    "entity_named_only",
    "entity_seen",
    "entity_seen_sql",
    "era_text_seen",
    "gm_only",
    "may_see",
    "passage_hidden",
    "passages_seen",
    "proposal_hidden",
    "proposal_seen",
    "sections_seen",
    "seen",
    "shows_lock",
    "source_hidden",
    "source_is_public_sql",
    "source_seen",
    "source_stored_hidden",
    "source_visibility_of",
    "statement_hidden",
    "statement_is_public_sql",
    "statement_own_seen_sql",
    "statement_seen",
    "statement_seen_sql",
    "view_hidden",
    "visibility_of",
    "visible_views",
    "warnings_hidden",
]


class _Flagged(Protocol):
    """Something already judged (a passage, a fact of an answer): its `hidden` came from this module."""

    @property
    def hidden(self) -> bool: ...


_F = TypeVar("_F", bound=_Flagged)


def may_see(viewer: Viewer, hidden: bool) -> bool:
    """Return whether a viewer may see something hidden or not (the GM sees everything)."""
    return viewer == Viewer.GM or not hidden


def shows_lock(viewer: Viewer, hidden: bool) -> bool:
    """Return whether a viewer reads a hidden thing's GM-only mark: the GM alone (a player seeing it through
    their character's lens reads it as plain knowledge)."""
    return hidden and viewer == Viewer.GM


def seen(viewer: Viewer, items: Iterable[_F]) -> list[_F]:
    """Return the items a viewer may see, of some whose `hidden` flag this module already decided."""
    return [item for item in items if may_see(viewer, item.hidden)]


def visibility_of(hidden: bool) -> Visibility:
    """Return the visibility a row of canon is written with: GM-only when it is for the GM alone."""
    return Visibility.GM_ONLY if hidden else Visibility.PUBLIC


def gm_only(visibility: Visibility | str) -> bool:
    """Return whether a row's own visibility keeps it from players (its ends aside: see `statement_hidden`)."""
    return visibility == Visibility.GM_ONLY


def entity_hidden(entity: Entity | EntityRef | Visibility | str) -> bool:
    """Return whether an entity (or an entity's visibility) is hidden from players."""
    return gm_only(entity if isinstance(entity, str) else entity.visibility)


def statement_hidden(
    visibility: Visibility | str,
    subject: Visibility | str,
    object_: Visibility | str | None = None,
) -> bool:
    """Return whether a statement is hidden: it is GM-only, or its subject or object is."""
    return gm_only(visibility) or gm_only(subject) or (object_ is not None and gm_only(object_))


def view_hidden(view: StatementView) -> bool:
    """Return whether a named statement is hidden from players (see `statement_hidden`)."""
    return statement_hidden(
        view.statement.visibility,
        view.subject.visibility,
        view.object.visibility if view.object is not None else None,
    )


def visible_views(
    views: Iterable[StatementView], viewer: Viewer, knowing: Knowing | None = None, as_of: AsOf = NOW
) -> list[StatementView]:
    """Return the statements a viewer may see (through a character's lens, if given)."""
    return [
        v
        for v in views
        if statement_seen(
            viewer,
            v.statement.id,
            v.statement.visibility,
            [(e.id, e.visibility) for e in (v.subject, v.object) if e is not None],
            knowing,
            as_of,
        )
    ]


#: A fact that says what the table is told in place of a truth the GM keeps: `status_public` (a file's
#: `public_status`) stands for `status`. Its name sorts just after the truth's, so a player's card lists it where
#: a file saying only the public status would.
TOLD_FOR: Mapping[str, str] = {
    "status_public": "status",
    "cause_of_death_public": "cause_of_death",  # a file's `public_cause_of_death`
    "outcome_public": "outcome",  # an event's `public_outcome`
}


def as_told(views: list[StatementView], viewer: Viewer) -> list[StatementView]:
    """Return the statements a viewer sees with what the table is told read as the truth it covers, for a player
    the truth is hidden from: `public_status: missing` beside a GM-only `status: imprisoned` reads exactly as
    `status: missing`, so the card, `/lore` and the timeline say what a file saying only that would. The GM, and
    a player whose character learned the truth, read both: the truth, and what players are told."""
    if viewer == Viewer.GM:
        return views
    seen = {(v.statement.subject_id, v.statement.predicate) for v in views}
    told: list[StatementView] = []
    for view in views:
        truth = TOLD_FOR.get(view.statement.predicate)
        if truth is not None and (view.statement.subject_id, truth) not in seen:
            view = view.model_copy(update={"statement": replace(view.statement, predicate=truth)})
        told.append(view)
    return told


def date_hidden(era: str | None, hidden_eras: Collection[str]) -> bool:
    """Return whether a date (by its era's key) is hidden from a viewer: it falls in one of `hidden_eras`, the keys
    of the eras the viewer may not see (none for the GM). Such a date reads to them as no date at all."""
    return era is not None and era in hidden_eras


def era_text_seen(text: str, hidden: EraMentions | None) -> str:
    """Return free text as a viewer may read it, given the mentions of the eras `hidden` from them (None: none):
    its dates in one said as a date nobody knows, the sentences naming one otherwise left out ("" when nothing
    is left). The GM, and a campaign without a hidden era, read it as written."""
    if hidden is None or not text:
        return text
    told = hidden.dates.sub(hidden.date_words, text)
    if hidden.named is not None and hidden.named.search(told):
        told = _SENTENCE.sub(lambda s: "" if hidden.named and hidden.named.search(s[0]) else s[0], told)
        told = re.sub(r"[ \t]+(?=\n|$)", "", told)
    return told.strip()


#: A sentence of a line, with the spaces after it: what is left out of a text when it names a hidden era.
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)[ \t]*")


def source_hidden(hidden: bool) -> bool:
    """Return whether a knowledge source is hidden from players, given its flag as the campaign sees it."""
    return bool(hidden)


def passage_hidden(source_hidden: bool, section_hidden: bool) -> bool:
    """Return whether a passage is hidden from players: its source is, or it lies in a GM-only section."""
    return bool(source_hidden or section_hidden)


def sections_seen(viewer: Viewer, source_id: int, knowing: Knowing | None = None) -> bool:
    """Return whether a viewer reads a source's GM-only sections: exactly as if the source itself were hidden."""
    return source_seen(viewer, True, source_id, knowing, NOW)


def source_stored_hidden(visibility: SourceVisibility | str | None) -> bool:
    """Return whether a source's stored visibility (its row's column, an archive's field) hides it."""
    return visibility == SourceVisibility.HIDDEN


def source_visibility_of(hidden: bool) -> SourceVisibility:
    """Return the visibility a knowledge source is stored with, given whether it is for the GM alone."""
    return SourceVisibility.HIDDEN if hidden else SourceVisibility.NORMAL


class HiddenCanon:
    """The GM-only entities and statements among some a check or a proposal touches (their ids)."""

    def __init__(self, entities: Collection[int] = (), statements: Collection[int] = ()) -> None:
        self.entities = frozenset(entities)
        self.statements = frozenset(statements)

    @classmethod
    def of(cls, entities: Mapping[int, Any], statements: Iterable[Any]) -> HiddenCanon:
        """Return the hidden ones among entities (id -> entity) and statements (with their ends' ids)."""
        hidden_entities = {i for i, e in entities.items() if entity_hidden(e)}
        hidden_statements = {
            s.id
            for s in statements
            if gm_only(s.visibility)
            or s.subject_id in hidden_entities
            or (s.object_id is not None and s.object_id in hidden_entities)
        }
        return cls(hidden_entities, hidden_statements)

    def touches(self, entity_ids: Iterable[int] = (), statement_ids: Iterable[int] = ()) -> bool:
        """Return whether a conflict, finding or warning naming these rows rests on hidden canon."""
        return bool(self.entities.intersection(entity_ids) or self.statements.intersection(statement_ids))


def warnings_hidden(warnings: Iterable[ProposalWarning], hidden: HiddenCanon) -> bool:
    """Return whether any of a proposal's continuity warnings rests on hidden canon."""
    return any(hidden.touches(w.entity_ids, w.statement_ids) for w in warnings)


def proposal_hidden(proposal: Proposal, hidden: HiddenCanon, hidden_proposals: Collection[int] = ()) -> bool:
    """Return whether players may not read a proposal (see the module docstring); its warnings aside."""
    if proposal.content.visibility == Visibility.GM_ONLY:
        return True
    if proposal.authority == Authority.PLAYER:
        return False
    refs = [r for _, r in references(proposal.content)]
    return any(r.entity_id is not None and r.entity_id in hidden.entities for r in refs) or any(
        r.proposal_id is not None and r.proposal_id in hidden_proposals for r in refs
    )


def proposal_seen(viewer: Viewer, hidden: bool, *, kept_to_present: bool, took_part: bool) -> bool:
    """Return whether a viewer reads a proposal of a scene before its commit: the GM always; a player when it is
    not hidden (`proposal_hidden`), or when it is kept to those present and they took part in its scene (by the
    scene's own record of who spoke): what their characters will know once it is committed."""
    return may_see(viewer, hidden) or (kept_to_present and took_part)


def entity_is_public_sql(entity: Any) -> ColumnElement[bool]:
    """Return the SQL condition of `entity_hidden`'s contrary, for a table of entities (counting)."""
    return entity.visibility == Visibility.PUBLIC  # type: ignore[no-any-return]


def source_is_public_sql(source: Any) -> ColumnElement[bool]:
    """Return the SQL condition of a source players may read something of, for a table of sources (counting):
    not hidden (`source_stored_hidden`), and not made of GM-only sections alone."""
    return and_(source.visibility != SourceVisibility.HIDDEN, source.hidden_chunks < source.chunk_count)


def statement_is_public_sql(statement: Any, entity_table: Any) -> ColumnElement[bool]:
    """Return the SQL condition of `statement_hidden`'s contrary, for a table of statements (counting).

    `entity_table` is the entities' table; a statement whose subject or object is a GM-only entity is hidden.
    """
    ends = aliased(entity_table)
    hidden_end = exists(
        select(ends.id).where(
            or_(ends.id == statement.subject_id, ends.id == statement.object_id),
            ends.visibility == Visibility.GM_ONLY,
        )
    )
    return and_(statement.visibility == Visibility.PUBLIC, ~hidden_end)


def _known(knowing: Knowing | None, as_of: AsOf) -> Known:
    return NOTHING_KNOWN if knowing is None else knowing.at(as_of)


def entity_seen(
    viewer: Viewer, visibility: Visibility | str, entity_id: int, knowing: Knowing | None, as_of: AsOf
) -> bool:
    """Return whether a viewer sees an entity: the GM always; a player when it is public or their character
    knows it, whole or by name (`entity_named_only` says which)."""
    if may_see(viewer, gm_only(visibility)):
        return True
    known = _known(knowing, as_of)
    return entity_id in known.entities or entity_id in known.named


def entities_seen(
    viewer: Viewer, entities: Mapping[int, Visibility | str], knowing: Knowing | None, as_of: AsOf = NOW
) -> frozenset[tuple[int, bool]]:
    """Return which of some entities (id -> visibility) a viewer sees, each with whether by its name alone:
    `entity_seen` and `entity_named_only` for many at once, in set lookups (a names table is keyed by it)."""
    if viewer == Viewer.GM:
        return frozenset((e, False) for e in entities)
    known = _known(knowing, as_of)
    return frozenset(
        (e, gm_only(v) and e not in known.entities)
        for e, v in entities.items()
        if not gm_only(v) or e in known.entities or e in known.named
    )


def entity_named_only(
    viewer: Viewer, visibility: Visibility | str, entity_id: int, knowing: Knowing | None, as_of: AsOf
) -> bool:
    """Return whether a viewer sees only an entity's name: hidden, and known only as an end of a known fact."""
    if may_see(viewer, gm_only(visibility)):
        return False
    return entity_id not in _known(knowing, as_of).entities


def entity_seen_sql(
    entity: Any, viewer: Viewer, knowing: Knowing | None, as_of: AsOf = NOW
) -> ColumnElement[bool]:
    """Return the SQL condition of `entity_seen` for a table of entities (paging in the database): everything
    for the GM; for a player, public entities and those their character knows at `as_of`, whole or by name."""
    if viewer == Viewer.GM:
        return true()
    known = _known(knowing, as_of)
    ids = sorted(known.entities | known.named)
    public = entity_is_public_sql(entity)
    return or_(public, entity.id.in_(ids)) if ids else public


def statement_own_seen_sql(
    statement: Any, viewer: Viewer, knowing: Knowing | None, as_of: AsOf = NOW
) -> ColumnElement[bool]:
    """Return the SQL condition of `statement_seen` judged on a statement alone (no ends given: its ends are
    judged where they are read), for a table of statements: everything for the GM; for a player, public
    statements and those their character knows at `as_of`."""
    if viewer == Viewer.GM:
        return true()
    ids = sorted(_known(knowing, as_of).statements)
    public = statement.visibility == Visibility.PUBLIC
    return or_(public, statement.id.in_(ids)) if ids else public


def statement_seen_sql(
    statement: Any,
    viewer: Viewer,
    ends: Iterable[tuple[int, Visibility | str]],
    knowing: Knowing | None,
    as_of: AsOf = NOW,
) -> ColumnElement[bool]:
    """Return the SQL condition of `statement_seen` for a table of statements that all share these ends (an
    entity's facts: its subject), to page them in the database."""
    if viewer == Viewer.GM:
        return true()
    known = _known(knowing, as_of)
    ids = sorted(known.statements)
    ends_seen = all(not gm_only(v) or e in known.entities for e, v in ends)
    own = statement.visibility == Visibility.PUBLIC if ends_seen else false()
    return or_(own, statement.id.in_(ids)) if ids else own


def statement_seen(
    viewer: Viewer,
    statement_id: int,
    visibility: Visibility | str,
    ends: Iterable[tuple[int, Visibility | str]],
    knowing: Knowing | None,
    as_of: AsOf,
) -> bool:
    """Return whether a viewer sees a statement, given its ends (id, visibility): the GM always; a player when
    their character knows the statement itself, or when it and each end are public or known whole."""
    if viewer == Viewer.GM:
        return True
    known = _known(knowing, as_of)
    if statement_id in known.statements:
        return True
    if gm_only(visibility):
        return False
    return all(not gm_only(v) or e in known.entities for e, v in ends)


class _Passage(Protocol):
    @property
    def hidden(self) -> bool: ...
    @property
    def source_id(self) -> int | None: ...


class _EntityFacts(Protocol):
    @property
    def hidden(self) -> bool: ...
    @property
    def entity_id(self) -> int: ...


_P = TypeVar("_P", bound=_Passage)
_E = TypeVar("_E", bound=_EntityFacts)


def passages_seen(viewer: Viewer, passages: Iterable[_P], knowing: Knowing | None = None) -> list[_P]:
    """Return the passages a viewer may read: of public sources, or of hidden ones the character was shown."""
    return [p for p in passages if source_seen(viewer, p.hidden, p.source_id, knowing, NOW)]


def entity_facts_seen(viewer: Viewer, facts: Iterable[_E], knowing: Knowing | None = None) -> list[_E]:
    """Return the entities' facts (of an answer) a viewer may read: public entities', or known hidden ones'."""
    return [f for f in facts if entity_seen(viewer, visibility_of(f.hidden), f.entity_id, knowing, NOW)]


def source_seen(
    viewer: Viewer, hidden: bool, source_id: int | None, knowing: Knowing | None, as_of: AsOf
) -> bool:
    """Return whether a viewer sees a knowledge source's passages: public ones, or hidden ones a character knows."""
    if may_see(viewer, source_hidden(hidden)):
        return True
    return source_id is not None and source_id in _known(knowing, as_of).sources
