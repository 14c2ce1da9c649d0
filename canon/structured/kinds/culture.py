"""Culture files: cultures, languages and deities.

Edges: a language LANGUAGE_OF its culture, a homeland HOMELAND_OF it, each speaker SPEAKS a language, and each
worshipper WORSHIPS a deity. A deity's `aliases` are names it is found by (a saint's other names; one may be the
GM's: `{name: ..., gm_only: true}`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, JsonValue

from canon.structured.kinds.base import KindSpec
from canon.structured.kinds.hidden import define_hiding
from canon.structured.schemas import (
    PLACES,
    Entry,
    Id,
    LoreModel,
    Name,
    Ref,
    RelationField,
    TargetType,
    Text,
)

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser

_SPEAKERS: tuple[TargetType, ...] = ("Person", "Culture", "Creature", "Deity", "Faction")
_WORSHIPPERS: tuple[TargetType, ...] = ("Person", "Culture", "Creature", "Faction")


class Culture(Entry):
    """A culture, with its own language and homeland."""

    id: Id
    name: Name
    language: Ref | None = None
    homeland: Ref | None = None
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class Language(Entry):
    """A language and who speaks it."""

    id: Id
    name: Name
    script: Text | None = None
    speakers: list[Ref] = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class Deity(Entry):
    """A deity and who worships it."""

    id: Id
    name: Name
    aliases: list[Text] = Field(default_factory=list)
    domain: list[Text] = Field(default_factory=list)
    alignment: Text | None = None
    symbol: Text | None = None
    worshipped_by: list[Ref] = Field(default_factory=list)
    description: Text | None = None
    gm_notes: Text | None = None
    gm_only: list[Text] = Field(default_factory=list)


class CultureFile(LoreModel):
    """Cultures, languages and deities."""

    cultures: list[Culture] = Field(default_factory=list)
    languages: list[Language] = Field(default_factory=list)
    deities: list[Deity] = Field(default_factory=list)


def normalise(n: Normaliser, document: CultureFile) -> None:
    """Define the cultures, languages and deities."""
    for culture in document.cultures:
        loc = n.v.loc_of(culture)
        attributes: dict[str, JsonValue] = {"description": culture.description}
        define_hiding(n, "Culture", culture, attributes, loc)
    for language in document.languages:
        loc = n.v.loc_of(language)
        attributes = {"script": language.script, "description": language.description}
        define_hiding(n, "Language", language, attributes, loc)
    for deity in document.deities:
        loc = n.v.loc_of(deity)
        attributes = {
            "aliases": list(deity.aliases),
            "domain": list(deity.domain),
            "alignment": deity.alignment,
            "symbol": deity.symbol,
            "description": deity.description,
        }
        define_hiding(n, "Deity", deity, attributes, loc)


KIND = KindSpec(
    name="culture",
    keys=("cultures", "languages", "deities"),
    model=CultureFile,
    entries={Culture: ("Culture", "id"), Language: ("Language", "id"), Deity: ("Deity", "id")},
    normalise=normalise,
    relations=(
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
            target_types=PLACES,
        ),
        RelationField(
            entity_type="Language",
            field="speakers",
            relation="SPEAKS",
            outgoing=False,
            target_types=_SPEAKERS,
        ),
        RelationField(
            entity_type="Deity",
            field="worshipped_by",
            relation="WORSHIPS",
            outgoing=False,
            target_types=_WORSHIPPERS,
        ),
    ),
)
