"""The rules about order and standing: a cause before its effect, a participant born by an event's date, and
axioms (laws of the world) only on the GM's or a source's word."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from canon.continuity.base import CheckerBase
from canon.continuity.findings import CAUSED, FOUNDED_ON, ConflictKind, make_finding
from canon.continuity.intervals import Moment, before, moment_text, start_of, when_text
from canon.continuity.life_dates import dated_moment
from canon.continuity.lives import Life
from canon.models import Authority, CanonLevel, Entity, Statement

_CAUSAL_VERBS = {CAUSED: "cause", "PRECEDED": "precede"}
_TIMED = ("Event", "Era")
_PARTICIPATION_VERBS = {"PARTICIPATED_IN": "takes part in", "WITNESSED": "witnesses"}
#: Deeds their own tie dates (a founding, on the group's `founded`): none may come before the doer's birth.
_DATED_DEEDS = frozenset({"FOUNDED"})


class CauseRules(CheckerBase):
    """Causes after their effects, participants not yet born, axioms from players (rules 10, 11, 12)."""

    # -- 10. cause before effect -----------------------------------------------------------------------

    def _causes(self, causal: Sequence[Statement]) -> None:
        for relation in causal:
            cause = self.entities.get(relation.subject_id)
            effect = self.entities.get(relation.object_id) if relation.object_id is not None else None
            if cause is None or effect is None or not self._timed(cause) or not self._timed(effect):
                continue
            cause_at, effect_at = start_of(cause.validity), start_of(effect.validity)
            clock = before(effect_at, cause_at)
            if clock is None:
                continue
            verb = _CAUSAL_VERBS.get(relation.predicate, "lead to")
            message = (
                f"“{cause.name}” ({moment_text(cause_at, clock)}) is said to {verb} “{effect.name}” "
                f"({moment_text(effect_at, clock)}), which happened before it."
            )
            sides = (
                self.side(relation),
                self.entity_side(cause.id, f"“{cause.name}” takes place ({when_text(cause.validity)})"),
                self.entity_side(effect.id, f"“{effect.name}” takes place ({when_text(effect.validity)})"),
            )
            self.add(make_finding(ConflictKind.CAUSE_AFTER_EFFECT, message, sides, {cause.id, effect.id}))

    def _timed(self, entity: Entity) -> bool:
        return self.ontology.is_a(entity.type, _TIMED)

    # -- 11. participants born by the event's date -----------------------------------------------------

    def _not_yet_born(self, lives: Mapping[int, Life], acts: Mapping[int, list[Statement]]) -> None:
        for entity_id, life in lives.items():
            birth = life.birth
            if birth is None or entity_id not in acts:
                continue
            born = Moment(birth.validity.world_from_key, None, birth.validity.world_from)
            for act in acts[entity_id]:
                if act.predicate in _DATED_DEEDS:
                    self._deed_before_birth(entity_id, birth, born, act)
                    continue
                verb = _PARTICIPATION_VERBS.get(act.predicate)
                event = self.entities.get(act.object_id) if verb and act.object_id is not None else None
                if event is None:
                    continue
                moment = start_of(event.validity)
                clock = before(moment, born)
                if clock is None:
                    continue
                name = self.name(entity_id)
                message = (
                    f"{name} {verb} “{event.name}” ({moment_text(moment, clock)}) before being born "
                    f"({moment_text(born, clock)})."
                )
                sides = (
                    self.side(birth),
                    self.side(act),
                    self.entity_side(event.id, f"“{event.name}” takes place ({when_text(event.validity)})"),
                )
                self.add(
                    make_finding(ConflictKind.PARTICIPANT_NOT_BORN, message, sides, {entity_id, event.id})
                )

    def _deed_before_birth(self, entity_id: int, birth: Statement, born: Moment, act: Statement) -> None:
        """Report a deed dated by its own tie before its doer was born: a group founded before its founder."""
        moment = start_of(act.validity)
        clock = before(moment, born)
        if clock is None:
            return
        message = (
            f"{self.name(entity_id)} acts before being born ({moment_text(born, clock)}): "
            f"“{self.sentence(act)}” ({moment_text(moment, clock)})."
        )
        ids = {entity_id} | ({act.object_id} if act.object_id is not None else set())
        sides = (self.side(birth), self.side(act))
        self.add(make_finding(ConflictKind.PARTICIPANT_NOT_BORN, message, sides, ids))

    def _held_before_founding(
        self, held: Sequence[Statement], attributes: Mapping[tuple[int, str], list[Statement]]
    ) -> None:
        """Report an event held at a place before the place was founded (its `founded`): as a participant is born
        by the event's day, the place it is held at stands by then."""
        for relation in held:
            place = relation.object_id
            founded = attributes.get((place, FOUNDED_ON)) if place is not None else None
            event = self.entities.get(relation.subject_id)
            if not founded or event is None or place is None:
                continue
            founding = dated_moment(founded[-1])
            day = start_of(relation.validity) if relation.validity.world_from_key is not None else None
            day = day or start_of(event.validity)
            clock = before(day, founding) if founding is not None else None
            if clock is None or founding is None:
                continue
            message = (
                f"“{event.name}” is held at {self.name(place)} ({moment_text(day, clock)}) before "
                f"{self.name(place)} was founded ({moment_text(founding, clock)})."
            )
            sides = (
                self.side(founded[-1]),
                self.side(relation),
                self.entity_side(event.id, f"“{event.name}” takes place ({when_text(event.validity)})"),
            )
            self.add(make_finding(ConflictKind.PARTICIPANT_NOT_BORN, message, sides, {place, event.id}))

    # -- 12. axioms from players -----------------------------------------------------------------------

    def _axioms(self, statements: Sequence[Statement]) -> None:
        player, axiomatic, retconned = Authority.PLAYER, "axiomatic", CanonLevel.RETCONNED
        for entity in self.entities.values():
            if entity.kind == axiomatic and entity.provenance.authority == player:
                if entity.provenance.level == retconned:
                    continue
                message = (
                    f"“{entity.name}” is a law of the world (a {entity.type}), but it comes from play; "
                    "what the world is made of takes the GM's word or an imported source's."
                )
                side = self.entity_side(entity.id, f"{entity.name} ({entity.type}), from play")
                self.add(make_finding(ConflictKind.AXIOM_FROM_PLAYER, message, (side,), {entity.id}))
        entities = self.entities
        for s in statements:
            if s.provenance.authority != player or s.provenance.level == retconned:
                continue
            subject = entities.get(s.subject_id)
            if subject is None or subject.kind != axiomatic:
                continue
            message = (
                f"“{self.sentence(s)}” says what {subject.name} (a {subject.type}, a law of the world) is, "
                "but it comes from play; that takes the GM's word or an imported source's."
            )
            self.add(make_finding(ConflictKind.AXIOM_FROM_PLAYER, message, (self.side(s),), {subject.id}))
