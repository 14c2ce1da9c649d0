"""Imported Canon passages that the story has since changed: marked out of date, still shown.

A passage speaks of the entities its headings name ("Greyhaven › North Gate" speaks of the North Gate). When the
canon graph holds a value of such an entity that replaced an older one (the gate's status was "open", play
committed "collapsed"; a state "alive" became "dead"), and the passage still says the older value and not the
newer, the passage is out of date: it keeps its place in the answer, marked with what holds now
(`LoreResult.out_of_date`), and the short answer says so. Only what the asker may see is read: a change the
players may not know of never marks a passage for them (the mark itself would tell).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from canon.errors import GameError
from canon.graph import CanonReader, fold
from canon.models import CanonLevel, StatementKind, StatementView
from canon.wording.relations import attribute_words, is_or_are
from memory.knowledge.models import KnowledgeClass, LoreResult

__all__ = ["Change", "changes_of", "mark_superseded", "stale_note"]

#: Entities read for one answer (the headings of a few passages name few).
MAX_ENTITIES = 8


@dataclass(frozen=True, slots=True)
class Change:
    """A value of an entity that replaced older ones: what holds now, and what held before."""

    entity: str
    kind: StatementKind
    predicate: str
    now: str
    before: frozenset[str]

    def sentence(self) -> str:
        """Return what holds now as a plain sentence's words ("North Gate is collapsed")."""
        if self.kind == StatementKind.STATE:
            return f"{self.entity} is {self.now}"
        words = attribute_words(self.predicate)
        return f"{self.entity}'s {words} {is_or_are(words)} {self.now}"


def changes_of(views: Sequence[StatementView], many: Callable[[str], bool] = lambda _: False) -> list[Change]:
    """Return the changed values among an entity's statements in story order (retconned rows ignored).

    `many(predicate)`: an attribute with several values at once (titles) is never a change of one value.
    """
    groups: dict[tuple[StatementKind, str], list[StatementView]] = {}
    for view in views:
        s = view.statement
        if s.kind == StatementKind.RELATION or s.value is None or s.provenance.level != CanonLevel.CANON:
            continue
        if s.kind == StatementKind.ATTRIBUTE and many(s.predicate):
            continue
        groups.setdefault((s.kind, s.predicate), []).append(view)
    found = []
    for (kind, predicate), group in groups.items():
        now = group[-1].statement.value
        assert now is not None
        before = frozenset(
            v.statement.value for v in group[:-1] if v.statement.value and v.statement.value != now
        )
        if before:
            found.append(Change(group[-1].subject.name, kind, predicate, now, before))
    return found


def _many(reader: CanonReader, entity_type: str, predicate: str) -> bool:
    spec = reader.ontology.attribute(entity_type, predicate)[1] if entity_type else None
    return spec is not None and spec.many


def _says(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", text) is not None


def stale_note(text: str, changes: Sequence[Change]) -> str | None:
    """Return what holds now when a passage says an older value of a change and not the newer one."""
    folded = text.casefold()
    for change in changes:
        if _says(folded, change.now):
            continue
        if any(_says(folded, old) for old in change.before):
            return change.sentence()
    return None


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def sections(result: LoreResult) -> list[tuple[list[str], str]]:
    """Return a passage's sections: the headings each one is under, and its text (a chunk may hold several)."""
    found: list[tuple[list[str], str]] = []
    headings = [result.source_title, *result.heading_path]
    lines: list[str] = []
    for line in result.text.splitlines():
        match = _HEADING.match(line)
        if match is None:
            lines.append(line)
            continue
        if any(x.strip() for x in lines):
            found.append((headings, "\n".join(lines)))
        headings, lines = [result.source_title, *result.heading_path, match.group(1)], []
    if any(x.strip() for x in lines):
        found.append((headings, "\n".join(lines)))
    return found


def _named(headings: Sequence[str], names: dict[str, tuple[str, int]]) -> list[int]:
    """Return the entities headings name (a heading that is a name, or its plural)."""
    found = []
    for heading in headings:
        key = fold(heading)
        for candidate in (key, key[:-1] if key.endswith("s") else key):
            if candidate in names:
                found.append(names[candidate][1])
                break
    return list(dict.fromkeys(found))


async def mark_superseded(
    reader: CanonReader,
    names: dict[str, tuple[str, int]],
    results: Sequence[LoreResult],
    *,
    max_entities: int = MAX_ENTITIES,
) -> list[LoreResult]:
    """Return the results with the Canon passages the story has changed marked out of date (see the module)."""
    canon = [r for r in results if r.knowledge_class == KnowledgeClass.CANON]
    parts = {id(r): [(_named(h, names), text) for h, text in sections(r)] for r in canon}
    wanted = list(dict.fromkeys(e for p in parts.values() for ids, _ in p for e in ids))[:max_entities]
    if not wanted:
        return list(results)
    changes: dict[int, list[Change]] = {}
    for entity_id in wanted:
        try:
            views = await reader.timeline(entity_id)
            kind = next((v.subject.type for v in views if v.subject.id == entity_id), "")
            changes[entity_id] = changes_of(views, partial(_many, reader, kind))
        except GameError:  # an entity gone or hidden meanwhile: nothing to say about it
            changes[entity_id] = []
    marked = []
    for result in results:
        note = None
        for ids, text in parts.get(id(result), []):
            found = [c for e in ids for c in changes.get(e, [])]
            note = stale_note(text, found) if found else None
            if note:
                break
        marked.append(result.model_copy(update={"out_of_date": note}) if note else result)
    return marked
