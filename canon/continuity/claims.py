"""The rules about what canon claims: relying on retconned canon, events inside their eras, and attributes
against a higher authority."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from canon.continuity.base import CheckerBase
from canon.continuity.findings import ConflictKind, format_key, key_hi, make_finding
from canon.continuity.intervals import overlapping_pairs, when_text
from canon.domain import AUTHORITY_RANK, Authority, Statement

_AUTHORITY_WORDS = {
    Authority.GM: "the GM",
    Authority.SOURCE: "an imported source",
    Authority.PLAYER: "play",
    Authority.SYSTEM: "an inference",
}


class ClaimRules(CheckerBase):
    """Relying on retconned canon, events outside their era, attributes against authority (rules 8, 6, 7)."""

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
                what = f"“{self.sentence(old)}”"
                other = self.side(old)
                entity_ids = {s.subject_id, old.subject_id}
            else:
                what = f"“{self.name(target)}”"
                other = self.entity_side(target, f"{self.name(target)} (retconned)")
                entity_ids = {s.subject_id, target}
            self.add(
                make_finding(
                    ConflictKind.RELIES_ON_RETCONNED,
                    f"“{self.sentence(s)}” relies on {what}, which was retconned.",
                    (self.side(s), other),
                    entity_ids,
                )
            )

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

    # -- 7. attributes against higher authority --------------------------------------------------------

    def _attributes(self, groups: Mapping[tuple[int, str], list[Statement]]) -> None:
        for (subject, predicate), group in groups.items():
            if len(group) < 2:
                continue
            values = {s.value for s in group}
            if len(values) < 2 or len({_normal(v) for v in values}) < 2:
                continue
            for a, b in overlapping_pairs(group, (), _different_values):
                rank_a, rank_b = _rank(a), _rank(b)
                high, low = (a, b) if rank_a >= rank_b else (b, a)
                name = self.name(subject)
                if rank_a == rank_b:
                    message = (
                        f"{name}'s {predicate} is both “{a.value}” ({_who(a)}, {when_text(a.validity)}) and "
                        f"“{b.value}” ({_who(b)}, {when_text(b.validity)}) at overlapping times, and neither "
                        "outranks the other."
                    )
                    prevailing = None
                else:
                    message = (
                        f"{name}'s {predicate} is “{low.value}” according to {_who(low)} ({when_text(low.validity)}), "
                        f"contradicting “{high.value}” from {_who(high)} ({when_text(high.validity)}); "
                        f"“{high.value}” prevails."
                    )
                    prevailing = high.id
                self.add(
                    make_finding(
                        ConflictKind.CONTRADICTS_HIGHER_AUTHORITY,
                        message,
                        (self.side(high), self.side(low)),
                        {subject},
                        prevailing_id=prevailing,
                    )
                )


def _normal(value: str | None) -> str:
    return " ".join((value or "").casefold().split())


def _different_values(a: Statement, b: Statement) -> bool:
    return _normal(a.value) != _normal(b.value)


def _rank(s: Statement) -> tuple[int, float]:
    return AUTHORITY_RANK[Authority(s.provenance.authority)], s.provenance.confidence


def _who(s: Statement) -> str:
    words = _AUTHORITY_WORDS[Authority(s.provenance.authority)]
    return words if s.provenance.confidence >= 1 else f"{words}, confidence {s.provenance.confidence:g}"
