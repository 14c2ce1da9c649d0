"""The rule about attributes: one value at a time for a single-valued attribute, and no value above its authority.

An attribute is read under the name the ontology declares for its subject's type (`titles` is `title`). Of a
declared single-valued attribute, a value without any date holds always: another value dated only by a scene
(play that gave no in-world date) holds at the same time, so the two conflict; a value with an in-world date
is a change from then on. An attribute that may not change (`changes: false`) conflicts with any other value,
whenever. A multi-valued attribute (a god's domains) never conflicts. An attribute the ontology does not
declare keeps the general reading: values conflict when they certainly hold at once.

Two values from different authorities are `CONTRADICTS_HIGHER_AUTHORITY` (the higher prevails); two of the
same authority on a declared attribute are `SINGLE_VALUED`.
"""

from __future__ import annotations

from collections.abc import Mapping

from canon.continuity.base import CheckerBase
from canon.continuity.findings import ConflictKind, make_finding
from canon.continuity.intervals import has_story, has_world, overlapping_pairs, when_text
from canon.continuity.life_dates import life_state
from canon.models import AUTHORITY_RANK, Authority, Statement
from canon.ontology import AttributeSpec
from canon.wording.relations import attribute_words, is_or_are

_AUTHORITY_WORDS = {
    Authority.GM: "the GM",
    Authority.SOURCE: "an imported source",
    Authority.PLAYER: "play",
    Authority.SYSTEM: "an inference",
}


class AttributeRules(CheckerBase):
    """Attributes with one value at a time, and against a higher authority (rule 7)."""

    def _attributes(self, groups: Mapping[tuple[int, str], list[Statement]]) -> None:
        for (subject, predicate), group in self._declared_groups(groups).items():
            if len(group) < 2 or life_state(predicate) is not None:
                continue  # a birth or death date is a life event: `LifeDateRules` reads it
            values = {_normal(s.value) for s in group}
            if len(values) < 2:
                continue
            entity = self.entities.get(subject)
            spec = self.ontology.attribute(entity.type, predicate)[1] if entity is not None else None
            if spec is None:
                pairs = overlapping_pairs(group, (), _different_values)
            elif spec.many:
                continue
            else:
                pairs = _single_valued_pairs(group, spec)
            for a, b in pairs:
                self._report(subject, predicate, spec, a, b)

    def _declared_groups(
        self, groups: Mapping[tuple[int, str], list[Statement]]
    ) -> Mapping[tuple[int, str], list[Statement]]:
        """Return the groups under their declared names: `titles` and `title` of one entity are one group."""
        # Declared names by (type, name as stored): a few of them serve every group of an import.
        declared: dict[tuple[str, str], str] = {}
        entities, attribute = self.entities, self.ontology.attribute

        def name_of(subject: int, predicate: str) -> str:
            entity = entities.get(subject)
            if entity is None:
                return predicate
            found = declared.get((entity.type, predicate))
            if found is None:
                found = declared[(entity.type, predicate)] = attribute(entity.type, predicate)[0]
            return found

        if all(name_of(subject, predicate) == predicate for subject, predicate in groups):
            return groups
        merged: dict[tuple[int, str], list[Statement]] = {}
        for (subject, predicate), group in groups.items():
            merged.setdefault((subject, name_of(subject, predicate)), []).extend(group)
        return merged

    def _report(
        self, subject: int, predicate: str, spec: AttributeSpec | None, a: Statement, b: Statement
    ) -> None:
        rank_a, rank_b = _rank(a), _rank(b)
        high, low = (a, b) if rank_a >= rank_b else (b, a)
        name = self.name(subject)
        words = attribute_words(predicate)
        verb = is_or_are(words)
        if rank_a != rank_b:
            kind = ConflictKind.CONTRADICTS_HIGHER_AUTHORITY
            message = (
                f"{name}'s {words} {verb} “{low.value}” according to {_who(low)} ({when_text(low.validity)}), "
                f"contradicting “{high.value}” from {_who(high)} ({when_text(high.validity)}); "
                f"“{high.value}” prevails."
            )
            prevailing: int | None = high.id
        elif spec is None:
            kind = ConflictKind.CONTRADICTS_HIGHER_AUTHORITY
            message = (
                f"{name}'s {words} {verb} both “{a.value}” ({_who(a)}, {when_text(a.validity)}) and "
                f"“{b.value}” ({_who(b)}, {when_text(b.validity)}) at overlapping times, and neither "
                "outranks the other."
            )
            prevailing = None
        else:
            kind = ConflictKind.SINGLE_VALUED
            rule = (
                f"{name}'s {words} never changes" if not spec.changes else f"{name} has one {words} at a time"
            )
            message = (
                f"{name} has two values of {words}: “{a.value}” ({_who(a)}, {when_text(a.validity)}) and "
                f"“{b.value}” ({_who(b)}, {when_text(b.validity)}), but {rule}."
            )
            prevailing = None
        self.add(
            make_finding(
                kind, message, (self.side(high), self.side(low)), {subject}, prevailing_id=prevailing
            )
        )


def _single_valued_pairs(group: list[Statement], spec: AttributeSpec) -> list[tuple[Statement, Statement]]:
    """Return the pairs of a single-valued attribute's values that conflict (lower id first)."""
    if not spec.changes:
        ordered = sorted(group, key=lambda s: s.id)
        return [
            (a, b)
            for index, a in enumerate(ordered)
            for b in ordered[index + 1 :]
            if _different_values(a, b) and a.replaces_id != b.id and b.replaces_id != a.id
        ]
    pairs = overlapping_pairs(group, (), _different_values)
    undated = [s for s in group if not has_world(s.validity) and not has_story(s.validity)]
    if not undated:
        return pairs
    seen = {(a.id, b.id) for a, b in pairs}
    for always in undated:
        for other in group:
            if other is always or has_world(other.validity) or not has_story(other.validity):
                continue  # an in-world date makes a change; two undated values are already paired
            first, second = (always, other) if always.id < other.id else (other, always)
            if (first.id, second.id) in seen or not _different_values(first, second):
                continue
            if first.replaces_id == second.id or second.replaces_id == first.id:
                continue
            seen.add((first.id, second.id))
            pairs.append((first, second))
    return pairs


def _normal(value: str | None) -> str:
    return " ".join((value or "").casefold().split())


def _different_values(a: Statement, b: Statement) -> bool:
    return _normal(a.value) != _normal(b.value)


def _rank(s: Statement) -> tuple[int, float]:
    return AUTHORITY_RANK[Authority(s.provenance.authority)], s.provenance.confidence


def _who(s: Statement) -> str:
    words = _AUTHORITY_WORDS[Authority(s.provenance.authority)]
    return words if s.provenance.confidence >= 1 else f"{words}, confidence {s.provenance.confidence:g}"
