"""Proposals: candidate canon changes, their typed content, and what they become once accepted.

A proposal names entities as people type them. Before it is stored, every name is resolved against the
campaign's canon (names, aliases, keys, then fuzzy); a name that matches nothing becomes its own entity
proposal, which the first one then points at. The same content proposed twice in a scene is merged.
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from canon.calendar import DateError, parse_date
from canon.errors import InvalidInput
from canon.models import Authority, Evidence, Side, Visibility
from canon.validation_words import problem_words


class ProposalType(enum.StrEnum):
    """What a proposal would add to canon."""

    FACT = "fact"
    ENTITY = "entity"
    RELATIONSHIP = "relationship"
    STATE_CHANGE = "state_change"
    EVENT = "event"


class ProposalStatus(enum.StrEnum):
    """Where a proposal stands; committed ones are in the graph."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    COMMITTED = "committed"


class Ref(BaseModel):
    """A reference to an entity: the name as typed, resolved to an entity or to an entity proposal."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1, max_length=200)
    entity_id: int | None = None
    proposal_id: int | None = None

    @property
    def resolved(self) -> bool:
        """Return whether the reference points at something."""
        return self.entity_id is not None or self.proposal_id is not None


# The canon facts (statement ids) a proposal says it builds on: once written, it depends on them, so a retcon
# of one lists it for review.
Citations = Annotated[tuple[Annotated[int, Field(ge=1)], ...], Field(max_length=20)]


class EntityContent(BaseModel):
    """A new entity."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[ProposalType.ENTITY] = ProposalType.ENTITY
    name: str = Field(min_length=1, max_length=200)
    entity_type: str
    description: str | None = Field(default=None, max_length=2000)
    aliases: tuple[str, ...] = ()
    visibility: Visibility = Visibility.PUBLIC


class FactContent(BaseModel):
    """An attribute of an entity: `subject.attribute = value`, optionally from an in-world date."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[ProposalType.FACT] = ProposalType.FACT
    subject: Ref
    attribute: str = Field(min_length=1, max_length=60)
    value: str = Field(min_length=1, max_length=1000)
    when: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    relies_on: Citations = ()


class RelationshipContent(BaseModel):
    """A relation between two entities, optionally over an in-world interval."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[ProposalType.RELATIONSHIP] = ProposalType.RELATIONSHIP
    subject: Ref
    relation: str
    object: Ref
    since: str | None = None
    until: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    relies_on: Citations = ()


class StateChangeContent(BaseModel):
    """An entity entering a state (`dead`, `wounded`, ...), optionally through an event kind (`resurrection`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[ProposalType.STATE_CHANGE] = ProposalType.STATE_CHANGE
    subject: Ref
    state: str
    via: str | None = None
    when: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    relies_on: Citations = ()


class EventContent(BaseModel):
    """Something that happened: a name, a date, a place, an era, who took part."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[ProposalType.EVENT] = ProposalType.EVENT
    name: str = Field(min_length=1, max_length=200)
    when: str | None = None
    location: Ref | None = None
    era: Ref | None = None
    participants: tuple[Ref, ...] = ()
    description: str | None = Field(default=None, max_length=2000)
    visibility: Visibility = Visibility.PUBLIC
    relies_on: Citations = ()


ProposalContent = Annotated[
    EntityContent | FactContent | RelationshipContent | StateChangeContent | EventContent,
    Field(discriminator="type"),
]
CONTENT_ADAPTER: TypeAdapter[ProposalContent] = TypeAdapter(ProposalContent)


#: The kind of a proposal's warning that is no continuity finding: its attribute is new to the campaign.
UNKNOWN_ATTRIBUTE = "unknown_attribute"


class ProposalWarning(BaseModel):
    """A proposal's warning, stored as JSON with it and read back typed: a continuity finding (its kind, its
    sentence, the facts on each side, the entities and statements it rests on), or a note that is no conflict
    (`note`: a new kind of attribute, a law of the world proposed in play)."""

    model_config = ConfigDict(frozen=True)

    kind: str
    message: str
    sides: tuple[Side, ...] = ()
    entity_ids: tuple[int, ...] = ()
    statement_ids: tuple[int, ...] = ()
    prevailing_id: int | None = None
    fingerprint: str = ""
    note: bool = False
    #: Of a new kind of detail: the declared attributes its name is close to, asked about (never picked).
    suggestions: tuple[str, ...] = ()

    @property
    def new_attribute(self) -> bool:
        """Whether it only says that its attribute is new to the campaign (accepting confirms it)."""
        return self.kind == UNKNOWN_ATTRIBUTE

    def stored(self) -> dict[str, Any]:
        """Return the warning as the proposal's row keeps it (JSON)."""
        return self.model_dump(mode="json")


_WARNINGS = TypeAdapter(tuple[ProposalWarning, ...])


def warnings_of(stored: Iterable[Any] | None) -> tuple[ProposalWarning, ...]:
    """Return warnings as stored (a row's JSON, a finding, a warning) read back typed."""
    return _WARNINGS.validate_python(
        [
            w.model_dump(mode="json")
            if isinstance(w, BaseModel) and not isinstance(w, ProposalWarning)
            else w
            for w in stored or ()
        ]
    )


def needs_rationale(warnings: Iterable[ProposalWarning]) -> bool:
    """Return whether accepting a proposal with these warnings needs the GM's rationale: a continuity finding
    does; a note that its attribute is new to the campaign does not (accepting it is the confirmation)."""
    return any(not w.new_attribute for w in warnings)


class Proposal(BaseModel):
    """A stored proposal with its review state."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: int
    scene_id: int | None
    batch: str | None
    content: ProposalContent
    evidence: tuple[Evidence, ...]
    authority: Authority
    confidence: float
    origin: str
    status: ProposalStatus
    rationale: str | None
    warnings: tuple[ProposalWarning, ...]
    proposer_id: int | None
    proposer_name: str | None
    created_at: dt.datetime
    decided_by_name: str | None
    decided_at: dt.datetime | None
    override_rationale: str | None
    committed_changeset_id: int | None
    #: Whether the GM chose to show a rejection's rationale to players (private by default).
    rationale_public: bool = False

    @property
    def needs_rationale(self) -> bool:
        """Whether accepting this proposal needs the GM's rationale (see `needs_rationale`)."""
        return needs_rationale(self.warnings)

    @property
    def type(self) -> ProposalType:
        """Return the proposal's type."""
        return ProposalType(self.content.type)


def parse_content(data: dict[str, Any]) -> ProposalContent:
    """Validate stored or typed proposal content, raising `InvalidInput` with the first problem."""
    try:
        return CONTENT_ADAPTER.validate_python(data)
    except ValidationError as error:
        raise InvalidInput(f"In the proposal, {problem_words(error, tagged=True)}.") from None


def check_date(text: str | None, what: str) -> str | None:
    """Return a date in canonical form, or raise `InvalidInput` showing the expected forms."""
    if text is None or not text.strip():
        return None
    try:
        return str(parse_date(text.strip()))
    except DateError as error:
        raise InvalidInput(error.describe(f"“{what}”") + ".") from None


def fingerprint(content: ProposalContent) -> str:
    """Return a stable hash of what a proposal says (names folded), used to merge duplicates."""

    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: norm(v) for k, v in sorted(value.items()) if k not in {"entity_id", "proposal_id"}}
        if isinstance(value, list | tuple):
            return [norm(v) for v in value]
        if isinstance(value, str):
            return " ".join(value.casefold().split())
        return value

    data = json.dumps(norm(content.model_dump(mode="json")), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


def dated_by_scene(content: ProposalContent, world_date: str | None) -> ProposalContent:
    """Return content dated by its scene's in-world date, unless it says a date of its own (or has none)."""
    if world_date is None:
        return content
    match content:
        case FactContent() | StateChangeContent() | EventContent() if content.when is None:
            return content.model_copy(update={"when": world_date})
        case RelationshipContent() if content.since is None:
            return content.model_copy(update={"since": world_date})
    return content


def citations(content: ProposalContent) -> tuple[int, ...]:
    """Return the ids of the canon facts a proposal says it relies on."""
    return () if isinstance(content, EntityContent) else content.relies_on


#: What the GM may correct in a proposal before deciding it (its entity references stay as resolved), and
#: which of those may be left empty.
EDITABLE: dict[ProposalType, tuple[str, ...]] = {
    ProposalType.FACT: ("attribute", "value", "when"),
    ProposalType.RELATIONSHIP: ("relation", "since", "until"),
    ProposalType.STATE_CHANGE: ("state", "when"),
    ProposalType.EVENT: ("name", "when"),
    ProposalType.ENTITY: ("name", "description"),
}
OPTIONAL = frozenset({"when", "since", "until", "description"})


def revised(content: ProposalContent, changes: dict[str, str | None]) -> ProposalContent:
    """Return content with the GM's corrections, or raise `InvalidInput` saying what is wrong.

    Only the fields of `EDITABLE` change; an optional one left empty is cleared, a required one is refused.
    """
    kind = ProposalType(content.type)
    allowed = EDITABLE[kind]
    data = content.model_dump(mode="json")
    for name, typed in changes.items():
        if name not in allowed:
            raise InvalidInput(
                f"The {name} of this proposal cannot be edited; you can edit {', '.join(allowed)}."
            )
        text = (typed or "").strip()
        if not text and name not in OPTIONAL:
            raise InvalidInput(f"The {name} cannot be empty; nothing was changed.")
        data[name] = text or None
    return parse_content(data)


def references(content: ProposalContent) -> list[tuple[str, Ref]]:
    """Return every entity reference of a proposal with the role it plays."""
    match content:
        case FactContent() | StateChangeContent():
            return [("subject", content.subject)]
        case RelationshipContent():
            return [("subject", content.subject), ("object", content.object)]
        case EventContent():
            refs = [("participant", p) for p in content.participants]
            if content.location is not None:
                refs.append(("location", content.location))
            if content.era is not None:
                refs.append(("era", content.era))
            return refs
    return []


def renamed(typed: ProposalContent, stored: ProposalContent) -> list[tuple[str, str]]:
    """Return the names a proposal's author typed that resolved to an entity of another name, with that name:
    ("Mirela", "Mirela Harrow"), for the reply to say which entity each short name was taken to mean."""
    pairs = zip(references(typed), references(stored), strict=False)
    said: dict[tuple[str, str], tuple[str, str]] = {}
    for (_, t), (_, s) in pairs:
        folded = " ".join(t.name.casefold().split())
        if s.entity_id is not None and folded != " ".join(s.name.casefold().split()):
            said.setdefault((folded, s.name), (t.name.strip(), s.name))  # "Mirela" and "mirela": said once
    return list(said.values())


def repointed(content: ProposalContent, proposal_id: int, entity_id: int, name: str) -> ProposalContent:
    """Return content with every reference to an entity proposal pointed at an entity of canon instead."""

    def swap(ref: Ref | None) -> Ref | None:
        if ref is not None and ref.proposal_id == proposal_id:
            return Ref(name=name, entity_id=entity_id)
        return ref

    return with_refs(content, swap)


def with_refs(content: ProposalContent, swap: Callable[[Ref | None], Ref | None]) -> ProposalContent:
    """Return content with each of its references (subject, object, participants, place, era) passed through
    `swap`."""
    match content:
        case FactContent() | StateChangeContent():
            return content.model_copy(update={"subject": swap(content.subject)})
        case RelationshipContent():
            return content.model_copy(
                update={"subject": swap(content.subject), "object": swap(content.object)}
            )
        case EventContent():
            return content.model_copy(
                update={
                    "participants": tuple(swap(p) or p for p in content.participants),
                    "location": swap(content.location),
                    "era": swap(content.era),
                }
            )
    return content
