"""The entity an entry of a structured lore file will be, as ingest stage 2 plans it (`canon.structured.plan`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from canon.models import Validity
from canon.structured.records import LoreEntry


@dataclass(slots=True)
class Planned:
    """The entity an entry will be: kept, adopted, created or replacing an old one."""

    entry: LoreEntry
    file: str
    fp: str
    validity: Validity
    action: Literal["keep", "adopt", "create", "replace"]
    old_id: int | None = None
    entity_id: int | None = None
    type: str = ""
    name: str = ""  # the entity's name: the entry's, its whitespace collapsed
    folded: str = ""
