"""Two Canon sources that disagree: the same field of the same thing given different values, and who prevails.

A Canon source states facts as fields of its sections' subjects (`memory.knowledge.fields`: `- **Ruler** Queen
Maren` under `## Greyhaven`, a table row, `Population: 9,000`), or in plain sentences about them ("Greyhaven's
ruler is Queen Maren.", `memory.knowledge.prose_claims`). Two Canon sources disagree where they give the same
field of the same subject (its heading, compared folded) different values. Nothing is guessed: a disagreement
stays open until the GM picks the source that prevails for it, or sets the campaign's source order (files,
highest first; a listed source ranks above an unlisted one). The GM's pick for one disagreement comes before the
order. Answers then put the prevailing passage first and say that the other disagrees (`mark_disagreements`).

Pure functions; `memory.knowledge.disagreement_admin` reads the sources and keeps the GM's choices in the
campaign's settings (`SETTINGS_DECISIONS`, `SETTINGS_ORDER`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.knowledge.fields import KIND, Field, fields_of
from memory.knowledge.models import KnowledgeClass, LoreResult
from memory.knowledge.prose_claims import prose_fields

__all__ = [
    "SETTINGS_DECISIONS",
    "SETTINGS_ORDER",
    "Disagreement",
    "Policy",
    "Statement",
    "disagreements_of",
    "mark_disagreements",
    "statements_of",
]

#: Campaign settings keys: {disagreement key: {"prevails": file name, "by": GM name}} and [file names].
SETTINGS_DECISIONS = "source_disagreements"
SETTINGS_ORDER = "source_order"

_SPACES = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACES.sub(" ", text.replace("*", "").replace("_", " ").replace("`", "")).strip(" .;:").casefold()


@dataclass(frozen=True, slots=True)
class Statement:
    """One source's value of a field: where it says it (file and section) and what it says."""

    source_id: int
    title: str
    filename: str
    section: str
    subject: str
    label: str
    value: str
    #: The book's page or chapter ("p. 112"), when it has pages.
    page: str | None = None

    @property
    def place(self) -> str:
        """Return where it is said, in words: "gazetteer.md, Cities › Greyhaven", "rules.pdf, p. 112 (Combat)"."""
        if self.page:
            return f"{self.filename}, {self.page}" + (f" ({self.section})" if self.section else "")
        return f"{self.filename}, {self.section}" if self.section else self.filename


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Canon sources giving one field of one subject different values (one statement per source)."""

    subject: str
    label: str
    sides: tuple[Statement, ...]

    @property
    def key(self) -> str:
        """Return a short stable handle of the disagreement (its subject and field, folded)."""
        raw = f"{_fold(self.subject)}\x00{_fold(self.label)}"
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]

    def sentence(self) -> str:
        """Return the disagreement in words, with both places."""
        said = " but ".join(f"“{s.value}” in {s.place}" for s in self.sides)
        return f"{self.subject}, {self.label}: {said}."


@dataclass(frozen=True, slots=True)
class Policy:
    """The GM's choices: the source that prevails for some disagreements, and the campaign's source order."""

    decisions: Mapping[str, str]
    order: Sequence[str] = ()

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> Policy:
        """Return the policy kept in a campaign's settings."""
        decisions = {
            str(key): str(value.get("prevails"))
            for key, value in (settings.get(SETTINGS_DECISIONS) or {}).items()
            if isinstance(value, Mapping) and value.get("prevails")
        }
        return cls(decisions, tuple(str(f) for f in settings.get(SETTINGS_ORDER) or []))

    def prevailing(self, disagreement: Disagreement) -> Statement | None:
        """Return the side that prevails (the GM's pick, else the higher source in the order), or None: open."""
        chosen = self.decisions.get(disagreement.key)
        for side in disagreement.sides:
            if chosen is not None and side.filename == chosen:
                return side
        rank = {name: index for index, name in enumerate(self.order)}
        ranked = sorted(disagreement.sides, key=lambda s: rank.get(s.filename, len(rank)))
        if ranked[0].filename in rank and rank.get(ranked[1].filename, len(rank)) > rank[ranked[0].filename]:
            return ranked[0]
        return None


def statements_of(results: Iterable[LoreResult]) -> list[Statement]:
    """Return the fields Canon passages state (kind lines aside), and the claims their sentences make about
    their own subjects (`memory.knowledge.prose_claims`), each with its source and section."""
    found = []
    for result in results:
        if result.knowledge_class != KnowledgeClass.CANON or result.source_id is None:
            continue
        section = " › ".join(result.heading_path)
        for field in [*fields_of(result), *prose_fields(result.heading_path, result.text)]:
            if field.label == KIND or not _fold(field.value):
                continue
            found.append(_statement(result, section, field))
    return found


def _statement(result: LoreResult, section: str, field: Field) -> Statement:
    return Statement(
        source_id=result.source_id or 0,
        title=result.source_title,
        filename=result.filename,
        section=section,
        subject=field.subject,
        label=field.label,
        value=field.value,
        page=result.place,
    )


def disagreements_of(statements: Iterable[Statement]) -> list[Disagreement]:
    """Return where sources give one field of one subject different values (each source's first value)."""
    groups: dict[tuple[str, str], dict[int, Statement]] = {}
    for statement in statements:
        per_source = groups.setdefault((_fold(statement.subject), _fold(statement.label)), {})
        per_source.setdefault(statement.source_id, statement)
    found = []
    for per_source in groups.values():
        sides = tuple(per_source.values())
        if len(sides) >= 2 and len({_fold(s.value) for s in sides}) >= 2:
            found.append(Disagreement(sides[0].subject, sides[0].label, sides))
    return found


def mark_disagreements(results: Sequence[LoreResult], policy: Policy) -> list[LoreResult]:
    """Return an answer's passages with Canon disagreements among them said, the prevailing passage first.

    A passage that another prevails over gets `disagrees` ("greyhaven.md (Greyhaven) prevails: …") and moves
    after it; the prevailing one says the other disagrees; with no choice made, both say the GM has not chosen.
    """
    found = disagreements_of(statements_of(results))
    if not found:
        return list(results)
    notes: dict[int, str] = {}
    overruled: set[int] = set()
    after: dict[int, int] = {}  # a passage's source id -> the source id it must follow
    for disagreement in found:
        winner = policy.prevailing(disagreement)
        for side in disagreement.sides:
            others = [o for o in disagreement.sides if o.source_id != side.source_id]
            if winner is None:
                said = "; ".join(f"{o.title} says “{o.value}”" for o in others)
                note = f"Canon sources disagree on {disagreement.subject}'s {disagreement.label} ({said}): the GM has not chosen which prevails."
            elif side.source_id == winner.source_id:
                said = "; ".join(f"{o.title} says “{o.value}”" for o in others)
                note = f"{said}, which disagrees; the GM holds that {winner.title} prevails."
            else:
                note = f"{winner.title} prevails here: {disagreement.subject}'s {disagreement.label} is “{winner.value}”."
                after[side.source_id] = winner.source_id
                overruled.add(side.source_id)
            notes.setdefault(side.source_id, note)
    marked = [
        r.model_copy(update={"disagrees": notes[r.source_id], "overruled": r.source_id in overruled})
        if r.source_id in notes
        else r
        for r in results
    ]
    return _prevailing_first(marked, after)


def _prevailing_first(results: list[LoreResult], after: Mapping[int, int]) -> list[LoreResult]:
    """Return passages with each overruled one moved just after the first passage of the source prevailing."""
    ordered = [r for r in results if r.source_id not in after]
    for result in results:
        if result.source_id is None or result.source_id not in after:
            continue
        winner = after[result.source_id]
        position = next((i for i, r in enumerate(ordered) if r.source_id == winner), len(ordered) - 1)
        ordered.insert(position + 1, result)
    return ordered
