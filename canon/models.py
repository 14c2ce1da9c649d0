"""The canon graph as the rest of the program sees it: pydantic values, never SQL rows."""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class CanonLevel(enum.StrEnum):
    """The lifecycle of a canon row."""

    PROPOSED = "proposed"
    CANON = "canon"
    RETCONNED = "retconned"


class Authority(enum.StrEnum):
    """Who asserted something: an imported source, the GM, a player's action, or the system (an LLM)."""

    SOURCE = "source"
    GM = "gm"
    PLAYER = "player"
    SYSTEM = "system"


# Which assertion wins when two disagree: a GM's word, then imported sources, then play, then inference.
AUTHORITY_RANK = {Authority.GM: 4, Authority.SOURCE: 3, Authority.PLAYER: 2, Authority.SYSTEM: 1}


class Visibility(enum.StrEnum):
    """Who may see a row: everyone, or only the GM."""

    PUBLIC = "public"
    GM_ONLY = "gm_only"


class SourceVisibility(enum.StrEnum):
    """Who may see a knowledge source's text: everyone in the campaign, or only the GM (narrator-only canon)."""

    NORMAL = "normal"
    HIDDEN = "hidden"


class Viewer(enum.StrEnum):
    """Who is asking: players never see GM-only canon."""

    PLAYER = "player"
    GM = "gm"


class StatementKind(enum.StrEnum):
    """What a statement asserts."""

    ATTRIBUTE = "attribute"
    RELATION = "relation"
    STATE = "state"


class EvidenceKind(enum.StrEnum):
    """What kind of thing supports a canon row."""

    TURNS = "turns"
    CHUNK = "chunk"
    YAML = "yaml"
    COMMAND = "command"
    BRANCH = "branch"


@dataclass(frozen=True, slots=True)
class Validity:
    """When something holds: on the campaign calendar (text as written + sortable key) and the story clock.

    Validity, Provenance, Entity and Statement are slotted dataclasses, not pydantic models: the whole-graph
    continuity check builds millions of them, and they only ever come from our own typed columns.
    """

    world_from: str | None = None
    world_from_key: int | None = None
    world_until: str | None = None
    world_until_key: int | None = None
    story_from: int | None = None
    story_until: int | None = None

    def describe(self) -> str:
        """Return a short human description such as `from 3rd_age.300 (scene 4)`."""
        parts: list[str] = []
        if self.world_from and self.world_until:
            parts.append(f"{self.world_from} – {self.world_until}")
        elif self.world_from:
            parts.append(f"from {self.world_from}")
        elif self.world_until:
            parts.append(f"until {self.world_until}")
        if self.story_from is not None:
            parts.append(f"scene {self.story_from}" + (f"–{self.story_until}" if self.story_until else ""))
        return ", ".join(parts)


ALWAYS = Validity()


class Evidence(BaseModel):
    """One piece of support for a canon row."""

    model_config = ConfigDict(frozen=True)

    kind: EvidenceKind
    scene_id: int | None = None
    turn_from: int | None = None
    turn_to: int | None = None
    source_id: int | None = None
    chunk_id: int | None = None
    file: str | None = None
    line: int | None = None
    proposal_id: int | None = None
    note: str | None = None
    changeset_id: int | None = None

    def describe(self) -> str:
        """Return a short human description of the evidence."""
        if self.kind == EvidenceKind.TURNS:
            turns = (
                f"turn {self.turn_from}"
                if self.turn_from == self.turn_to or self.turn_to is None
                else f"turns {self.turn_from}–{self.turn_to}"
            )
            cited = (
                f"scene #{self.scene_id}, {turns}"
                if self.turn_from is not None
                else f"scene #{self.scene_id}"
            )
            return cited + (f" ({self.note})" if self.note else "")  # a roll that resolved it
        if self.kind == EvidenceKind.YAML:
            return f"{self.file}, line {self.line}"
        if self.kind == EvidenceKind.CHUNK:
            where = f" ({self.note})" if self.note else ""
            return f"source #{self.source_id}, chunk #{self.chunk_id}{where}"
        if self.kind == EvidenceKind.BRANCH:
            return self.note or "a branch"
        return self.note or "a GM command"


class Side(BaseModel):
    """One fact a finding rests on: a statement or an entity, in words, with its evidence."""

    model_config = ConfigDict(frozen=True)

    statement_id: int | None = None
    entity_id: int | None = None
    sentence: str
    evidence: tuple[Evidence, ...] = ()

    @model_validator(mode="after")
    def _one_target(self) -> Side:
        if (self.statement_id is None) == (self.entity_id is None):
            raise ValueError("a side is about exactly one statement or one entity")
        return self


@dataclass(frozen=True, slots=True)
class Provenance:
    """Who admitted a row, when, under which decision, and whether it still stands."""

    campaign_id: int
    changeset_id: int
    recorded_at: dt.datetime
    authority: Authority
    confidence: float
    level: CanonLevel = CanonLevel.CANON
    retconned_at: dt.datetime | None = None
    replaced_by: int | None = None


@dataclass(frozen=True, slots=True)
class Entity:
    """A typed thing of the world."""

    id: int
    type: str
    name: str
    provenance: Provenance
    key: str | None = None
    kind: str = "concrete"
    visibility: Visibility = Visibility.PUBLIC
    description: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    validity: Validity = field(default_factory=lambda: ALWAYS)


@dataclass(frozen=True, slots=True)
class Statement:
    """One canon assertion: `subject predicate object-or-value`, valid over an interval."""

    id: int
    kind: StatementKind
    subject_id: int
    predicate: str
    provenance: Provenance
    object_id: int | None = None
    value: str | None = None
    via: str | None = None
    visibility: Visibility = Visibility.PUBLIC
    validity: Validity = field(default_factory=lambda: ALWAYS)
    replaces_id: int | None = None
    evidence: tuple[Evidence, ...] = ()


class EntityRef(BaseModel):
    """An entity named in a listing: enough to print and link it."""

    model_config = ConfigDict(frozen=True)

    id: int
    name: str
    type: str
    visibility: Visibility = Visibility.PUBLIC


class StatementView(BaseModel):
    """A statement with its subject and object named, ready to show."""

    model_config = ConfigDict(frozen=True)

    statement: Statement
    subject: EntityRef
    object: EntityRef | None = None

    def sentence(self) -> str:
        """Return the statement as a plain sentence."""
        s = self.statement
        if s.kind == StatementKind.RELATION and self.object is not None:
            return f"{self.subject.name} {s.predicate.replace('_', ' ').lower()} {self.object.name}"
        if s.kind == StatementKind.STATE:
            return f"{self.subject.name} is {s.value}"
        return f"{self.subject.name}: {s.predicate} = {s.value}"


class EntityCard(BaseModel):
    """Everything a card about one entity shows, as of some point."""

    model_config = ConfigDict(frozen=True)

    entity: Entity
    state: StatementView | None
    relations: tuple[StatementView, ...]
    facts: tuple[StatementView, ...]
    evidence: tuple[Evidence, ...]
    hidden_count: int = 0
    #: Every state of the entity the viewer sees, in story order (a life's birth when it is dead now).
    states: tuple[StatementView, ...] = ()
    # Facts of a single-valued attribute that a later value, dated in the world, changed: id -> that date.
    changed_at: dict[int, str] = {}


class AsOf(BaseModel):
    """A point to look at the canon from: an in-world date, a scene, and/or what we believed at a real time."""

    model_config = ConfigDict(frozen=True)

    world: str | None = None
    world_key: int | None = None
    scene: int | None = None
    believed_at: dt.datetime | None = None

    @property
    def is_now(self) -> bool:
        """Return whether this is the present, everything included."""
        return self.world_key is None and self.scene is None and self.believed_at is None

    def describe(self) -> str:
        """Return a short human description."""
        parts = []
        if self.world:
            parts.append(f"at {self.world}")
        if self.scene is not None:
            parts.append(f"after scene {self.scene}")
        if self.believed_at is not None:
            parts.append(f"as believed on {self.believed_at:%Y-%m-%d %H:%M} UTC")
        return ", ".join(parts) or "now"


NOW = AsOf()
