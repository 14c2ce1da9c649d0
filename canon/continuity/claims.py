"""The rules about what canon claims: relying on retconned canon, and events inside their eras."""

from __future__ import annotations

from collections.abc import Sequence

from canon.continuity.base import CheckerBase
from canon.continuity.findings import ConflictKind, format_key, key_hi, make_finding
from canon.continuity.intervals import when_text
from canon.models import Statement, StatementKind


class ClaimRules(CheckerBase):
    """Relying on retconned canon, and events outside their era (rules 8, 6)."""

    # -- 8. relies on retconned ------------------------------------------------------------------------

    def _relies_on_retconned(self, statements: list[Statement]) -> None:
        if not self.retconned_statements and not self.retconned_entities:
            return
        for s in statements:
            targets = [
                (kind, target)
                for kind, target in self.snapshot.dependencies[s.id]
                if (kind == "statement" and target in self.retconned_statements)
                or (kind == "entity" and target in self.retconned_entities)
            ]
            self._report_retconned(s, targets)

    def _report_retconned(self, s: Statement, targets: Sequence[tuple[str, int]]) -> None:
        for kind, target in dict.fromkeys(targets):
            if kind == "statement":
                old = self.retconned_statements[target]
                message = self._depends_words(s, old)
                other = self.side(old)
                entity_ids = {s.subject_id, old.subject_id}
            else:  # a participation is part of its event, the only entity a statement is written to depend on
                message = (
                    f"“{self.sentence(s)}” is part of the event “{self.name(target)}”, which was retconned."
                )
                other = self.entity_side(target, f"{self.name(target)} (retconned)")
                entity_ids = {s.subject_id, target}
            self.add(
                make_finding(ConflictKind.RELIES_ON_RETCONNED, message, (self.side(s), other), entity_ids)
            )

    def _depends_words(self, s: Statement, old: Statement) -> str:
        """Say why a statement depends on a retconned one, as it came to depend on it: a state follows the one
        before it in its subject's story, a participant takes part in the state they were in; only what cites
        it (as its proposal or the GM said) "relies on" it."""
        said, was = f"“{self.sentence(s)}”", f"“{self.sentence(old)}”"
        if old.kind == StatementKind.STATE and old.subject_id == s.subject_id:
            if s.kind == StatementKind.STATE:
                return f"{said} follows {was} in {self.name(s.subject_id)}'s story, and {was} was retconned."
            if s.kind == StatementKind.RELATION and s.predicate == "PARTICIPATED_IN":
                return f"{said} happens while {was} held, and {was} was retconned."
        return f"{said} relies on {was}, which was retconned."  # as its proposal (or the GM) said

    def _touches_retconned_entity(self, s: Statement) -> None:
        for target in dict.fromkeys((s.subject_id, s.object_id)):
            if target is None or target not in self.retconned_entities:
                continue
            self.add(
                make_finding(
                    ConflictKind.RELIES_ON_RETCONNED,
                    f"“{self.sentence(s)}” still stands, but “{self.name(target)}” was retconned.",
                    (self.side(s), self.entity_side(target, f"{self.name(target)} (retconned)")),
                    {i for i in (s.subject_id, s.object_id) if i is not None},
                )
            )

    # -- 6. events outside their era -------------------------------------------------------------------

    def _era_bounds(self, era_id: int) -> tuple[tuple[int, str] | None, tuple[int, str] | None]:
        start: tuple[int, str] | None = None
        end: tuple[int, str] | None = None
        seen: set[int] = set()
        current: int | None = era_id
        while current is not None and current not in seen and (start is None or end is None):
            seen.add(current)
            era = self.entities.get(current)
            if era is not None:
                v = era.validity
                if start is None and v.world_from_key is not None:
                    start = (v.world_from_key, v.world_from or format_key(v.world_from_key))
                if end is None and v.world_until_key is not None:
                    end = (v.world_until_key, v.world_until or format_key(v.world_until_key))
            parents = self.sub_era.get(current)
            current = parents[0] if parents else None
        return start, end

    def _eras(self, occurred: list[Statement]) -> None:
        for relation in occurred:
            event = self.entities.get(relation.subject_id)
            if event is None or relation.object_id is None:
                continue
            key = event.validity.world_from_key
            if key is None:
                continue
            start, end = self._era_bounds(relation.object_id)
            if start is not None and key_hi(key) < start[0]:
                where = "before it begins"
            elif end is not None and key > key_hi(end[0]):
                where = "after it ends"
            else:
                continue
            era_id = relation.object_id
            if start and end:
                bounds = f"{start[1]} – {end[1]}"
            elif start:
                bounds = f"from {start[1]}"
            else:
                bounds = f"until {end[1] if end else '?'}"
            date = event.validity.world_from or format_key(key)
            message = (
                f"“{event.name}” ({date}) is said to occur during {self.name(era_id)} ({bounds}), "
                f"but that date falls {where}."
            )
            sides = (
                self.side(relation),
                self.entity_side(event.id, f"“{event.name}” takes place ({when_text(event.validity)})"),
                self.entity_side(era_id, f"{self.name(era_id)} spans {bounds}"),
            )
            self.add(make_finding(ConflictKind.EVENT_OUTSIDE_ERA, message, sides, {event.id, era_id}))
