"""Define the vocabulary of structured lore: entity, relation and target types, and how a field is read.

Every field's YAML reading is declared with a `ScalarKind` marker so the loader can apply strict,
Norway-proof rules before a value is checked: text fields keep the scalar's source text (`NO`, `yes`, `012`,
`~`, `null` stay as written), numbers must be real unquoted integers, ids must be slugs. The file models of each
kind (`canon.structured.kinds`) are built from the field types here, on `LoreModel` and `Entry`, which forbid
unknown fields. `RelationField` says how a reference field becomes edges.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from typing import Annotated, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
)

from canon.calendar import (
    DEFAULT_RULES,
    YEAR_RANGE,
    CalendarRules,
    DateError,
    WorldDate,
    is_era_id,
    parse_date,
    year_problem,
)
from canon.campaign_calendar import CampaignCalendar, era_key_for
from canon.date_reading import read_date
from canon.wording.relations import FEMALE, MALE, sex_of

EntityType = Literal[
    "Person",
    "NPC",
    "PC",
    "Faction",
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
    "Item",
]
# The types an entry's reference may name (an NPC or a PC is a Person wherever a Person is expected).
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
    "REPUTED_PARENT_OF",
    "ADOPTIVE_PARENT_OF",
    "FOSTER_PARENT_OF",
    "STEP_PARENT_OF",
    "GODPARENT_OF",
    "PARENT_IN_LAW_OF",
    "SIBLING_IN_LAW_OF",
    "KILLED",
    "BORN_IN",
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
    "WON",
    "HELD_AT",
    "DIED_AT",
    "DIED_IN",
    "HOMELAND_OF",
    "INHABITS",
    "LEADS",
    "LIVES_IN",
    "SEAT_OF",
    "ALLY_OF",
    "ENEMY_OF",
    "MENTOR_OF",
    "RIVAL_OF",
    "FRIEND_OF",
    "SIBLING_OF",
    "COUSIN_OF",
    "AUNT_OR_UNCLE_OF",
    "GRANDPARENT_OF",
    "MADE",
    "FOUNDED",
    "POSSESSES",
    "LOCATED_IN",
]
# Relations that hold both ways: one edge per pair, however many entries state it, and from either side.
SYMMETRIC: frozenset[str] = frozenset(
    {
        *("SPOUSE_OF", "ALLY_OF", "ENEMY_OF", "RIVAL_OF", "FRIEND_OF", "SIBLING_OF", "COUSIN_OF"),
        "SIBLING_IN_LAW_OF",
    }
)
# Entity types that are another type wherever a reference expects it (`config/ontology.yaml`'s parents).
PARENT_TYPES: dict[str, str] = {"NPC": "Person", "PC": "Person"}
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
        like = id_from_name(value)
        raise FieldProblem(
            'must be an id made of lowercase letters, digits, "_" and "-" that starts with a letter or '
            f'digit{f", like {like}" if like else ""}; got "{value}" (or leave the id out: the name gives one)'
        )
    return value


def id_from_name(name: str) -> str:
    """Return the id a name gives an entry that has none, and a reference written as a name: "Ser Aldric" is
    `ser_aldric` (accents dropped; "" when the name has no letter or digit to make one of)."""
    ascii_text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.casefold()).strip("_")[:MAX_ID_LENGTH]


def check_ref(value: str) -> str:
    """Accept a reference as an id (`ser_aldric`) or as the name it stands for ("Ser Aldric")."""
    if ID_PATTERN.fullmatch(value) is None and (made := id_from_name(value)):
        return made
    if ID_PATTERN.fullmatch(value) is None:
        raise FieldProblem(f'must name an entry, like "Ser Aldric" or its id ser_aldric; got "{value}"')
    return check_id(value)


#: The words a `sex:` field takes, as players write them (what `canon.wording.relations.sex_of` reads).
_SEX_ORDER = ("male", "female", "man", "woman", "m", "f", "he", "she", "he/him", "she/her")
SEX_WORDS = ", ".join(
    [*(w for w in _SEX_ORDER if w in MALE | FEMALE), *sorted((MALE | FEMALE) - set(_SEX_ORDER))]
)


def check_sex(value: str) -> str:
    """Accept a person's sex as players write it ("female", "Woman", "she/her") and return it as "male" or
    "female"; raise `FieldProblem` naming the words accepted otherwise."""
    said = sex_of(value)
    if said is None:
        raise FieldProblem(f'must be one of {SEX_WORDS} (in any case); got "{value}"')
    return said


def check_era_ref(value: str, info: ValidationInfo) -> str:
    """Accept an era reference as an era id or as the era's name ("The Third Age" is `third_age`, or the key
    the campaign calendar gives the era of that name)."""
    if ID_PATTERN.fullmatch(value) is None and id_from_name(value):
        return check_era_id(era_key_for(value, context_calendar(info)))
    return check_era_id(check_ref(value))


def context_calendar(info: ValidationInfo) -> CampaignCalendar | None:
    """Return the campaign calendar an import reads against, if it has one."""
    calendar = info.context.get("calendar") if isinstance(info.context, dict) else None
    return calendar if isinstance(calendar, CampaignCalendar) else None


def check_era_id(value: str) -> str:
    """Accept an era id: a slug with at least one letter (so dates stay unambiguous), not `unknown`."""
    check_id(value)
    if not is_era_id(value):
        raise FieldProblem(
            f'must be an era id with at least one letter (and not "unknown"); got "{value}" (or leave it out: '
            "the era's name gives one)"
        )
    return value


def check_era_path(value: str, info: ValidationInfo) -> str:
    """Accept an era id or a dotted path of era ids from the outermost era (`3rd_age.age_of_iron`), or an
    era's name ("Third Age")."""
    if "." not in value and not is_era_id(value) and is_era_id(id_from_name(value)):
        return era_key_for(value, context_calendar(info))
    for segment in value.split("."):
        if not is_era_id(segment):
            raise FieldProblem(
                "must name an era (its name or id), or give the path of era ids from the outermost, joined by "
                f'dots; got "{value}"'
            )
    return value


def check_year(value: int) -> int:
    """Accept a year the calendar can place (`canon.calendar.YEAR_RANGE`); a date's year is `parse_date`'s."""
    if year_problem(value) is not None:
        raise FieldProblem(f"is {value:,}, outside the calendar, which runs over {YEAR_RANGE}")
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
        try:
            found = parse_date(value, rules)
        except DateError:
            calendar = info.context.get("calendar") if isinstance(info.context, dict) else None
            if not isinstance(calendar, CampaignCalendar):
                raise
            found = _date_in_words(value, calendar)
            if found.month is not None:
                _check_month(found, calendar)
            return found
        if len(_DATE_CACHE) >= _DATE_CACHE_SIZE:
            _DATE_CACHE.clear()
        _DATE_CACHE[key] = found
    calendar = context_calendar(info)
    if calendar is not None and found.month is not None:
        _check_month(found, calendar)
    return found


def _check_month(date: WorldDate, calendar: CampaignCalendar) -> None:
    """Refuse a month or a day the campaign's calendar lacks: its months, each of its own length."""
    month, day = date.month or 0, date.day
    days = calendar.days_in(month)
    if not days:
        raise FieldProblem(
            f"names month {month}, but a year of this campaign has {calendar.month_count} months"
        )
    if day is not None and day > days:
        raise FieldProblem(f"names day {day} of {calendar.month_name(month)}, which has {days} days")


def _date_in_words(value: str, calendar: CampaignCalendar) -> WorldDate:
    """Read a date written in the campaign calendar's words (`canon.date_reading`, the one reader of dates)."""
    reading = read_date(value, calendar)
    if reading.date is None:
        raise FieldProblem(
            f"is “{value}”, which is no date of this campaign's calendar: {reading.sentence()}"
        )
    return reading.date


Text = Annotated[str, ScalarKind.TEXT]


class OneOrMore:
    """Mark a list field that takes one value as well as several: `worships: The Tide Mother` is read as
    `worships: [The Tide Mother]`."""


#: Names as written, one or several (`worships: The Tide Mother`, `worships: [The Tide Mother, Saint Orla]`).
Names = Annotated[list[Text], OneOrMore()]
Name = Annotated[str, ScalarKind.TEXT, StringConstraints(min_length=1)]
Id = Annotated[str, ScalarKind.ID, AfterValidator(check_id)]
EraId = Annotated[str, ScalarKind.ID, AfterValidator(check_era_id)]
Ref = Annotated[str, ScalarKind.REF, AfterValidator(check_ref)]
EraRef = Annotated[str, ScalarKind.REF, AfterValidator(check_era_ref)]
EraPath = Annotated[str, ScalarKind.ERA_REF, AfterValidator(check_era_path)]
Sex = Annotated[str, ScalarKind.TEXT, AfterValidator(check_sex)]
Date = Annotated[WorldDate, ScalarKind.DATE, BeforeValidator(_date_field)]
Year = Annotated[int, ScalarKind.INT, AfterValidator(check_year)]
Month = Annotated[int, ScalarKind.INT, Field(ge=1)]
Day = Annotated[int, ScalarKind.INT, Field(ge=1)]
Level = Annotated[int, ScalarKind.INT, Field(ge=0)]
Number = Annotated[int | float, ScalarKind.NUMBER]
VisibilityField = Annotated[Visibility, ScalarKind.CHOICE]
Role = Annotated[Literal["npc", "pc"], ScalarKind.CHOICE]
Status = Annotated[
    Literal["alive", "wounded", "missing", "imprisoned", "cursed", "undead", "dead"], ScalarKind.CHOICE
]


def fits(entity_type: str, expected: tuple[str, ...]) -> bool:
    """Tell whether an entry of `entity_type` may be named where `expected` types are (subtypes count)."""
    return entity_type in expected or PARENT_TYPES.get(entity_type) in expected


class LoreModel(BaseModel):
    """Base of every lore file model: frozen, strict, unknown fields forbidden."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # Alternative YAML spellings of a field (the seed writes events with slug/label or id/name).
    yaml_aliases: ClassVar[dict[str, str]] = {}


class Entry(LoreModel):
    """Base of every lore entry: hidden entries say `visibility: gm_only` (default: the enclosing block's)."""

    visibility: VisibilityField | None = None


class RelationField(BaseModel):
    """How one reference field becomes edges: `outgoing` means entry -[relation]-> target, else the reverse."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_type: EntityType
    field: str
    relation: RelationType
    outgoing: bool
    target_types: tuple[TargetType, ...]


#: Other spellings of a person's birth fields: `born_as` and `maiden_name` are `birth_name`, `origin` is
#: `birthplace`.
BIRTH_SPELLINGS: dict[str, str] = {
    "born_as": "birth_name",
    "maiden_name": "birth_name",
    "origin": "birthplace",
}

# Target types several reference fields share.
ERAS: tuple[TargetType, ...] = ("Era",)
PLACES: tuple[TargetType, ...] = ("Location", "Region")
AGENTS: tuple[TargetType, ...] = ("Person", "Creature", "Deity", "Faction")
#: Who may act where a faction may: a noble house written as its family tree (a Lineage) too.
HOUSES_TOO: tuple[TargetType, ...] = (*AGENTS, "Lineage")
#: What a person serves or belongs to: a faction, or a house written as its family tree.
SERVED: tuple[TargetType, ...] = ("Faction", "Lineage")
PRACTITIONERS: tuple[TargetType, ...] = ("Person", "Culture", "Creature", "Deity", "Faction")


def house_hint(first: str, second: str) -> str:
    """Return what to write when a faction and a family tree take one id (a noble house written twice), else ""."""
    if {first, second} != {"Faction", "Lineage"}:
        return ""
    return (
        "; a house that is both a family and a faction is written once, as its family tree, with the faction's "
        "leader, seat, allies, rivals and goals beside its members"
    )
