"""Define the six structured-lore file kinds and the normalised records the loader produces.

The file models mirror what a world-builder writes (see docs/structured-lore.md). Every field's YAML reading
is declared with a `ScalarKind` marker so the loader can apply strict, Norway-proof rules before pydantic
sees a value: text fields keep the scalar's source text (`NO`, `yes`, `012`, `~`, `null` stay as written),
numbers must be real unquoted integers, ids must be slugs. All models forbid unknown fields.

The normalised records (`LoreEntry`, `LoreRelation`, `LifeEvent`, `UnresolvedReference`, `LoreProblem`)
are kind-independent and are what the canon-graph ingestion consumes.
"""

from __future__ import annotations

import enum
import re
from typing import Annotated, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    ValidationInfo,
)

from canon.calendar import DEFAULT_RULES, CalendarRules, WorldDate, is_era_id, parse_date

LoreKind = Literal["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]
LORE_KINDS: tuple[LoreKind, ...] = (
    "timeline",
    "family_tree",
    "gazetteer",
    "bestiary",
    "magic_system",
    "culture",
)
EntityType = Literal[
    "Person",
    "Lineage",
    "Era",
    "Event",
    "Location",
    "Region",
    "Creature",
    "MagicSystem",
    "Spell",
    "Culture",
    "Language",
    "Deity",
]
# Faction cannot be defined in these files but is a legitimate target (participants, practitioners, ...).
TargetType = Literal[
    "Person",
    "Lineage",
    "Era",
    "Event",
    "Location",
    "Region",
    "Creature",
    "MagicSystem",
    "Spell",
    "Culture",
    "Language",
    "Deity",
    "Faction",
]
RelationType = Literal[
    "PARENT_OF",
    "SPOUSE_OF",
    "MEMBER_OF",
    "PART_OF",
    "SUB_ERA_OF",
    "CULTURE_OF",
    "OCCURRED_AT",
    "OCCURRED_DURING",
    "PARTICIPATED_IN",
    "WORSHIPS",
    "SPEAKS",
    "LANGUAGE_OF",
    "PRACTICES",
    "BELONGS_TO",
    "DEFEATED",
    "HOMELAND_OF",
    "INHABITS",
]
Visibility = Literal["public", "gm_only"]
LifeEventKind = Literal["born", "died", "first_appeared", "era_start", "era_end", "occurred"]

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
MAX_ID_LENGTH = 120


class ScalarKind(enum.Enum):
    """Say how the loader reads a YAML scalar for a field (see the loader's docstring for the rules)."""

    TEXT = "text"
    ID = "id"
    REF = "ref"
    ERA_REF = "era_ref"
    DATE = "date"
    INT = "int"
    NUMBER = "number"
    BOOL = "bool"
    CHOICE = "choice"


class FieldProblem(ValueError):
    """Carry a predicate ("must be ...; got ...") the loader completes with the field's name."""


def check_id(value: str) -> str:
    """Accept a lowercase slug id; raise `FieldProblem` otherwise."""
    if len(value) > MAX_ID_LENGTH:
        raise FieldProblem(f"must be an id of at most {MAX_ID_LENGTH} characters; got {len(value)}")
    if ID_PATTERN.fullmatch(value) is None:
        raise FieldProblem(
            'must be an id made of lowercase letters, digits, "_" and "-" that starts with a letter or '
            f'digit, like house_vyr; got "{value}"'
        )
    return value


def check_era_id(value: str) -> str:
    """Accept an era id: a slug with at least one letter (so dates stay unambiguous), not `unknown`."""
    check_id(value)
    if not is_era_id(value):
        raise FieldProblem(
            f'must be an era id with at least one letter (and not "unknown"), like 3rd_age; got "{value}"'
        )
    return value


def check_era_path(value: str) -> str:
    """Accept an era id or a dotted path of era ids from the outermost era (`3rd_age.age_of_iron`)."""
    for segment in value.split("."):
        if not is_era_id(segment):
            raise FieldProblem(
                "must be an era id like 3rd_age, or a path of era ids like 3rd_age.age_of_iron; "
                f'got "{value}"'
            )
    return value


# Parsed dates by (text, rules): a big family tree repeats the same few hundred years thousands of times, and
# WorldDate is frozen, so one instance can serve them all. Only successes are kept; bounded by a reset.
_DATE_CACHE: dict[tuple[str, CalendarRules], WorldDate] = {}
_DATE_CACHE_SIZE = 50_000


def _date_field(value: object, info: ValidationInfo) -> object:
    if not isinstance(value, str):
        return value
    rules = DEFAULT_RULES
    if isinstance(info.context, dict):
        candidate = info.context.get("calendar_rules")
        if isinstance(candidate, CalendarRules):
            rules = candidate
    key = (value, rules)
    found = _DATE_CACHE.get(key)
    if found is None:
        found = parse_date(value, rules)
        if len(_DATE_CACHE) >= _DATE_CACHE_SIZE:
            _DATE_CACHE.clear()
        _DATE_CACHE[key] = found
    return found


Text = Annotated[str, ScalarKind.TEXT]
Name = Annotated[str, ScalarKind.TEXT, StringConstraints(min_length=1)]
Id = Annotated[str, ScalarKind.ID, AfterValidator(check_id)]
EraId = Annotated[str, ScalarKind.ID, AfterValidator(check_era_id)]
Ref = Annotated[str, ScalarKind.REF, AfterValidator(check_id)]
EraRef = Annotated[str, ScalarKind.REF, AfterValidator(check_era_id)]
EraPath = Annotated[str, ScalarKind.ERA_REF, AfterValidator(check_era_path)]
Date = Annotated[WorldDate, ScalarKind.DATE, BeforeValidator(_date_field)]
Year = Annotated[int, ScalarKind.INT]
Month = Annotated[int, ScalarKind.INT, Field(ge=1)]
Day = Annotated[int, ScalarKind.INT, Field(ge=1)]
Level = Annotated[int, ScalarKind.INT, Field(ge=0)]
Number = Annotated[int | float, ScalarKind.NUMBER]
VisibilityField = Annotated[Visibility, ScalarKind.CHOICE]


class LoreModel(BaseModel):
    """Base of every lore file model: frozen, strict, unknown fields forbidden."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # Alternative YAML spellings of a field (the seed writes events with slug/label or id/name).
    yaml_aliases: ClassVar[dict[str, str]] = {}


class Entry(LoreModel):
    """Base of every lore entry: hidden entries say `visibility: gm_only` (default: the enclosing block's)."""

    visibility: VisibilityField | None = None


# --- timeline ---------------------------------------------------------------------------------------------


class Event(Entry):
    """A named event; its date is its era (or the enclosing era) plus optional year, month and day."""

    yaml_aliases: ClassVar[dict[str, str]] = {"slug": "id", "label": "name"}

    id: Id
    name: Name
    in_fiction_date: Text | None = None
    era: EraPath | None = None
    year: Year | None = None
    month: Month | None = None
    day: Day | None = None
    location: Ref | None = None
    participants: list[Ref] = []
    description: Text | None = None
    significance: Text | None = None


class Era(Entry):
    """An era with absolute start and end years (both inclusive; no end means ongoing) and its events."""

    era: EraId
    name: Name | None = None
    parent_era: EraRef | None = None
    start: Year | None = None
    end: Year | None = None
    description: Text | None = None
    events: list[Event] = []


class TimelineFile(LoreModel):
    """A timeline: one or more eras; events nested in an era or listed at the top with their own era."""

    eras: list[Era] = []
    events: list[Event] = []


# --- family tree ------------------------------------------------------------------------------------------


class Person(Entry):
    """A member of a family tree."""

    id: Id
    name: Name
    born: Date | None = None
    died: Date | None = None
    parents: list[Ref] = []
    spouse_of: list[Ref] = []
    culture: Ref | None = None
    titles: list[Text] = []
    description: Text | None = None


class FamilyTreeFile(LoreModel):
    """A lineage (the file's top-level fields) and its members."""

    lineage: Id
    name: Name | None = None
    founding_ancestor: Ref | None = None
    description: Text | None = None
    visibility: VisibilityField | None = None
    members: list[Person] = []


# --- gazetteer --------------------------------------------------------------------------------------------


class Coordinates(LoreModel):
    """A position on the campaign map."""

    x: Number
    y: Number


class Location(Entry):
    """A place: a city, fortress, pass, ..."""

    id: Id
    name: Name
    type: Text | None = None
    part_of: Ref | None = None
    culture_of: Ref | None = None
    coordinates: Coordinates | None = None
    description: Text | None = None
    events_held: list[Ref] = []


class Region(Entry):
    """A region containing locations and other regions."""

    id: Id
    name: Name
    parent_region: Ref | None = None
    contains: list[Ref] = []
    description: Text | None = None


class GazetteerFile(LoreModel):
    """Locations and regions."""

    locations: list[Location] = []
    regions: list[Region] = []


# --- bestiary ---------------------------------------------------------------------------------------------


class Creature(Entry):
    """A creature: a species or a named individual."""

    id: Id
    name: Name
    species: Text | None = None
    alignment: Text | None = None
    habitat: Ref | None = None
    first_appeared: Date | None = None
    description: Text | None = None
    defeated_by: list[Ref] = []


class BestiaryFile(LoreModel):
    """Creatures."""

    creatures: list[Creature] = []


# --- magic system -----------------------------------------------------------------------------------------


class MagicSystem(Entry):
    """A system of magic; `source` is free text (a law of nature, a deity's name, ...)."""

    id: Id
    name: Name
    source: Text | None = None
    practitioners: list[Ref] = []
    description: Text | None = None


class Spell(Entry):
    """A spell, belonging to a magic system."""

    id: Id
    name: Name
    system: Ref | None = None
    level: Level | None = None
    school: Text | None = None
    practitioners: list[Ref] = []
    description: Text | None = None


class MagicSystemFile(LoreModel):
    """Magic systems and spells."""

    systems: list[MagicSystem] = []
    spells: list[Spell] = []


# --- culture ----------------------------------------------------------------------------------------------


class Culture(Entry):
    """A culture, with its own language and homeland."""

    id: Id
    name: Name
    language: Ref | None = None
    homeland: Ref | None = None
    description: Text | None = None


class Language(Entry):
    """A language and who speaks it."""

    id: Id
    name: Name
    script: Text | None = None
    speakers: list[Ref] = []
    description: Text | None = None


class Deity(Entry):
    """A deity and who worships it."""

    id: Id
    name: Name
    domain: list[Text] = []
    alignment: Text | None = None
    symbol: Text | None = None
    worshipped_by: list[Ref] = []
    description: Text | None = None


class CultureFile(LoreModel):
    """Cultures, languages and deities."""

    cultures: list[Culture] = []
    languages: list[Language] = []
    deities: list[Deity] = []


LoreDocument = TimelineFile | FamilyTreeFile | GazetteerFile | BestiaryFile | MagicSystemFile | CultureFile

FILE_MODELS: dict[LoreKind, type[LoreModel]] = {
    "timeline": TimelineFile,
    "family_tree": FamilyTreeFile,
    "gazetteer": GazetteerFile,
    "bestiary": BestiaryFile,
    "magic_system": MagicSystemFile,
    "culture": CultureFile,
}

# Top-level keys that identify a kind when the file has no `kind:`.
KIND_KEYS: dict[LoreKind, tuple[str, ...]] = {
    "timeline": ("era", "eras", "events", "parent_era", "start", "end"),
    "family_tree": ("members", "founding_ancestor", "lineage"),
    "gazetteer": ("locations", "regions"),
    "bestiary": ("creatures",),
    "magic_system": ("systems", "spells"),
    "culture": ("cultures", "languages", "deities"),
}


# --- relations written by reference fields ---------------------------------------------------------------


class RelationField(BaseModel):
    """How one reference field becomes edges: `outgoing` means entry -[relation]-> target, else the reverse."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_type: EntityType
    field: str
    relation: RelationType
    outgoing: bool
    target_types: tuple[TargetType, ...]


_PLACES: tuple[TargetType, ...] = ("Location", "Region")

# Endpoint types follow config/ontology.yaml (a test keeps them in step).
RELATION_FIELDS: dict[tuple[EntityType, str], RelationField] = {
    (spec.entity_type, spec.field): spec
    for spec in (
        RelationField(
            entity_type="Era", field="parent_era", relation="SUB_ERA_OF", outgoing=True, target_types=("Era",)
        ),
        RelationField(
            entity_type="Event", field="era", relation="OCCURRED_DURING", outgoing=True, target_types=("Era",)
        ),
        RelationField(
            entity_type="Event", field="location", relation="OCCURRED_AT", outgoing=True, target_types=_PLACES
        ),
        RelationField(
            entity_type="Event",
            field="participants",
            relation="PARTICIPATED_IN",
            outgoing=False,
            target_types=("Person", "Creature", "Deity", "Faction"),
        ),
        RelationField(
            entity_type="Person",
            field="parents",
            relation="PARENT_OF",
            outgoing=False,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="spouse_of",
            relation="SPOUSE_OF",
            outgoing=True,
            target_types=("Person",),
        ),
        RelationField(
            entity_type="Person",
            field="culture",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=("Culture",),
        ),
        RelationField(
            entity_type="Person",
            field="members",
            relation="MEMBER_OF",
            outgoing=True,
            target_types=("Lineage",),
        ),
        RelationField(
            entity_type="Location", field="part_of", relation="PART_OF", outgoing=True, target_types=_PLACES
        ),
        RelationField(
            entity_type="Location",
            field="culture_of",
            relation="CULTURE_OF",
            outgoing=False,
            target_types=("Culture",),
        ),
        RelationField(
            entity_type="Location",
            field="events_held",
            relation="OCCURRED_AT",
            outgoing=False,
            target_types=("Event",),
        ),
        RelationField(
            entity_type="Region",
            field="parent_region",
            relation="PART_OF",
            outgoing=True,
            target_types=("Region",),
        ),
        RelationField(
            entity_type="Region", field="contains", relation="PART_OF", outgoing=False, target_types=_PLACES
        ),
        RelationField(
            entity_type="Creature", field="habitat", relation="INHABITS", outgoing=True, target_types=_PLACES
        ),
        RelationField(
            entity_type="Creature",
            field="defeated_by",
            relation="DEFEATED",
            outgoing=False,
            target_types=("Person", "Creature", "Deity", "Faction"),
        ),
        RelationField(
            entity_type="MagicSystem",
            field="practitioners",
            relation="PRACTICES",
            outgoing=False,
            target_types=("Person", "Culture", "Creature", "Deity", "Faction"),
        ),
        RelationField(
            entity_type="Spell",
            field="system",
            relation="BELONGS_TO",
            outgoing=True,
            target_types=("MagicSystem",),
        ),
        RelationField(
            entity_type="Spell",
            field="practitioners",
            relation="PRACTICES",
            outgoing=False,
            target_types=("Person", "Culture", "Creature", "Deity", "Faction"),
        ),
        RelationField(
            entity_type="Culture",
            field="language",
            relation="LANGUAGE_OF",
            outgoing=False,
            target_types=("Language",),
        ),
        RelationField(
            entity_type="Culture",
            field="homeland",
            relation="HOMELAND_OF",
            outgoing=False,
            target_types=_PLACES,
        ),
        RelationField(
            entity_type="Language",
            field="speakers",
            relation="SPEAKS",
            outgoing=False,
            target_types=("Person", "Culture", "Creature", "Deity", "Faction"),
        ),
        RelationField(
            entity_type="Deity",
            field="worshipped_by",
            relation="WORSHIPS",
            outgoing=False,
            target_types=("Person", "Culture", "Creature", "Faction"),
        ),
    )
}
# Reference fields that are checked (and may be unresolved) but write no edge of their own.
REFERENCE_ONLY_FIELDS: dict[tuple[EntityType, str], tuple[TargetType, ...]] = {
    ("Lineage", "founding_ancestor"): ("Person",),
}


# --- normalised output ------------------------------------------------------------------------------------


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LoreProblem(_Record):
    """One problem in a lore file, at a 1-based line and column, with a message for a world-builder."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}: line {self.line}, column {self.column}: {self.message}"


class LoreEntry(_Record):
    """One entity defined by a lore file, whatever its kind.

    `attributes` holds every non-reference field the world-builder gave (dates as canonical date text,
    coordinates as {"x": .., "y": ..}); reference fields become `LoreRelation`s instead.
    """

    id: str
    entity_type: EntityType
    name: str
    attributes: dict[str, JsonValue]
    visibility: Visibility
    file: str
    line: int
    column: int


class LoreRelation(_Record):
    """One typed edge `source_id -[type]-> target_id`, at the line and column of the YAML reference."""

    type: RelationType
    source_id: str
    target_id: str
    field: str
    visibility: Visibility
    valid_from: WorldDate | None = None
    valid_until: WorldDate | None = None
    file: str
    line: int
    column: int


class LifeEvent(_Record):
    """A dated moment of an entity: birth, death, first appearance, era start/end, an event's occurrence."""

    entity_id: str
    event: LifeEventKind
    date: WorldDate
    file: str
    line: int
    column: int


class UnresolvedReference(_Record):
    """A reference to an id the file does not define; the caller resolves it against existing canon."""

    file: str
    line: int
    column: int
    source_id: str
    field: str
    target_id: str
    expected_types: tuple[TargetType, ...]

    def __str__(self) -> str:
        kinds = " or ".join(self.expected_types) if self.expected_types else "entity"
        article = "an" if kinds[:1] in "AEIOUe" else "a"
        return (
            f'{self.file}: line {self.line}, column {self.column}: "{self.field}" of "{self.source_id}" '
            f'refers to "{self.target_id}", which this file does not define (expected {article} {kinds})'
        )


class LoadResult(_Record):
    """The outcome of loading one lore file: a validated document and its records, or every problem.

    When `problems` is non-empty, `document`, `entries`, `relations` and `life_events` are empty;
    `unresolved` is still filled when the file got far enough to tell.
    """

    file: str
    kind: LoreKind | None
    document: LoreDocument | None
    entries: tuple[LoreEntry, ...] = ()
    relations: tuple[LoreRelation, ...] = ()
    life_events: tuple[LifeEvent, ...] = ()
    unresolved: tuple[UnresolvedReference, ...] = ()
    problems: tuple[LoreProblem, ...] = ()

    @property
    def ok(self) -> bool:
        """Tell whether the file loaded without problems."""
        return not self.problems
