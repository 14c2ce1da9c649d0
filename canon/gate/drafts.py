"""Drafting a proposal: its content normalised through the ontology, its names resolved, its types and citations
checked, before it is stored (`canon.gate.canonization.CanonizationGate.propose`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from canon.calendar import DateError, WorldDate, check_era, parse_date
from canon.campaign_calendar import CampaignCalendar
from canon.continuity.life_dates import life_state
from canon.date_reading import example, typed_date
from canon.errors import AskedAttribute, Conflict, InvalidInput, NotFound
from canon.graph import CanonReader, naming
from canon.models import Authority, CanonLevel, Evidence, StatementKind
from canon.ontology import EntityKind, Ontology, ValueType, attribute_key
from canon.proposals import (
    UNKNOWN_ATTRIBUTE,
    EntityContent,
    EventContent,
    FactContent,
    ProposalContent,
    ProposalWarning,
    Ref,
    RelationshipContent,
    StateChangeContent,
    citations,
    with_refs,
)
from canon.proposals import check_date as stored_date
from canon.wording import PLAIN
from canon.wording.statements import statement_sentence


@dataclass
class Draft:
    """What someone proposes, before names are resolved."""

    content: ProposalContent
    authority: Authority
    evidence: list[Evidence] = field(default_factory=list)
    confidence: float = 1.0
    origin: str = "command"
    proposer_id: int | None = None
    proposer_name: str | None = None
    rationale: str | None = None


def default_entity_type(role: str, ontology: Ontology, content: ProposalContent) -> str:
    """Return the type to give a new entity created from an unknown name, from the role it plays."""
    if isinstance(content, RelationshipContent):
        rel = ontology.relation_types[ontology.relation_type(content.relation)]
        allowed = rel.from_types if role == "subject" else rel.to_types
        return allowed[0]
    if role == "location":
        return "Location"
    if role == "era":
        return "Era"
    if isinstance(content, StateChangeContent):
        applies = ontology.states.tags[ontology.state_tag(content.state)].applies_to
        return applies[0]
    return "Person" if role in {"participant", "subject"} else "Concept"


def normalise(
    ontology: Ontology,
    content: ProposalContent,
    calendar: CampaignCalendar | None = None,
    anchor: WorldDate | None = None,
) -> ProposalContent:
    """Return content with ontology names canonical and dates read on the campaign's `calendar` (relative ones
    from `anchor`, the scene's date) into their stored form, or raise `InvalidInput`."""
    o = ontology

    def check_date(text: str | None, what: str) -> str | None:
        if calendar is None:
            return stored_date(text, what)
        return typed_date(text, calendar, anchor=anchor, what=what)

    match content:
        case EntityContent():
            return content.model_copy(update={"entity_type": o.entity_type(content.entity_type)})
        case FactContent() if (life := life_state(content.attribute)) is not None:
            # "born 320" is the entity's birth, "died 352" its death: a life event, not a second fact beside it.
            when = check_date(content.value, attribute_key(content.attribute).replace("_", " "))
            return StateChangeContent(
                subject=content.subject,
                state=life,
                when=when,
                visibility=content.visibility,
                relies_on=content.relies_on,
            )
        case FactContent():
            attribute = attribute_key(content.attribute)
            if not attribute:
                raise InvalidInput("An attribute needs a name, like title or eye colour.")
            return content.model_copy(
                update={"attribute": attribute, "when": check_date(content.when, "when")}
            )
        case RelationshipContent():
            return content.model_copy(
                update={
                    "relation": o.relation_type(content.relation),
                    "since": check_date(content.since, "since"),
                    "until": check_date(content.until, "until"),
                }
            )
        case StateChangeContent():
            via = content.via.strip().lower() if content.via else None
            if via is not None and via not in o.states.via:
                raise InvalidInput(
                    f"“{content.via}” is not a kind of event that changes states. "
                    f"Allowed: {', '.join(sorted(o.states.via))}."
                )
            return content.model_copy(
                update={
                    "state": o.state_tag(content.state),
                    "via": via,
                    "when": check_date(content.when, "when"),
                }
            )
        case EventContent():
            return content.model_copy(update={"when": check_date(content.when, "when")})
    raise AssertionError(content)  # pragma: no cover


def noted(note: ProposalWarning, authority: Authority) -> bool:
    """Return whether a proposal's card keeps its note of a new kind of detail: the GM's own word confirms a
    new one, unless it is close to declared ones (then the card asks which was meant, the GM's too)."""
    return authority != Authority.GM or bool(note.suggestions)


def settle_attribute(
    ontology: Ontology,
    content: FactContent,
    type_name: str,
    calendar: CampaignCalendar | None = None,
    *,
    ask: bool = False,
) -> tuple[FactContent, ProposalWarning | None]:
    """Return a fact under its declared attribute name with its value checked, and a warning when the subject's
    type does not declare the attribute (naming the close ones); raise `InvalidInput` for a value of the
    wrong type (a population that is not a number, a birth date that is not a date), and with `ask` (the GM
    writing canon directly) `AskedAttribute` for a name close to declared ones: the GM says which, never picked."""
    name, spec = ontology.attribute(type_name, content.attribute)
    words = name.replace("_", " ")
    if spec is None:
        close = ontology.close_attributes(type_name, content.attribute)
        nearest = [n.replace("_", " ") for n in close]
        if ask and nearest:
            raise AskedAttribute(content.attribute, content.subject.name, tuple(nearest))
        hint = f" Did you mean {' or '.join(nearest)}?" if nearest else ""
        message = (
            f"“{words}” is a new kind of detail for {content.subject.name}: nothing in this campaign uses it "
            f"yet.{hint} Accepting the proposal adds it."
        )
        subject = content.subject.entity_id
        note = ProposalWarning(
            kind=UNKNOWN_ATTRIBUTE,
            message=message,
            entity_ids=(subject,) if subject is not None else (),
            fingerprint=hashlib.sha256(f"{UNKNOWN_ATTRIBUTE}|{type_name}|{name}".encode()).hexdigest(),
            note=True,
            suggestions=tuple(close),
        )
        return content.model_copy(update={"attribute": name}), note
    value = content.value.strip()
    if spec.value == ValueType.NUMBER:
        try:
            float(value.replace(",", "").replace("_", ""))
        except ValueError:
            raise InvalidInput(
                f"A {type_name}'s {words} is a number, like 500; “{content.value}” is not one."
            ) from None
    elif spec.value == ValueType.DATE:
        if calendar is None:
            value = stored_date(value, words) or value
        else:
            value = typed_date(value, calendar, what=words) or value
    return content.model_copy(update={"attribute": name, "value": value}), None


def axiom_note(ontology: Ontology, content: EntityContent, authority: Authority) -> ProposalWarning | None:
    """Return a warning for a law of the world (an axiomatic entity) proposed by a player, else None."""
    spec = ontology.entity_types.get(content.entity_type)
    if authority != Authority.PLAYER or spec is None or spec.kind != EntityKind.AXIOMATIC:
        return None
    return ProposalWarning(
        kind="axiom_from_player",
        message=(
            f"“{content.name}” would be a law of the world (a {content.entity_type}), which takes the GM's word "
            "or an imported source's, not play's."
        ),
        fingerprint=hashlib.sha256(f"axiom_from_player|{content.name}".encode()).hexdigest(),
        note=True,
    )


async def resolve(
    ontology: Ontology, reader: CanonReader, content: ProposalContent, pending: dict[str, int]
) -> tuple[ProposalContent, list[tuple[str, Ref, str]]]:
    """Resolve every entity reference; return the content and the names that need an entity proposal.

    `pending` maps folded names to entity proposals already waiting in the same scene or batch.
    """
    missing: list[tuple[str, Ref, str]] = []

    async def settle(role: str, ref: Ref) -> Ref:
        if ref.entity_id is not None or ref.proposal_id is not None:
            return ref
        key = " ".join(ref.name.casefold().split())
        if key in pending and not await reader.find_exact(ref.name):
            return ref.model_copy(update={"proposal_id": pending[key]})
        entity, found = await naming.settle(reader, ref.name)
        if entity is not None:
            return ref.model_copy(update={"entity_id": entity.id, "name": entity.name})
        if len(found) > 1:
            raise await naming.ambiguity(reader, ref.name, found)
        fuzzy = await reader.fuzzy(ref.name, limit=1, whole=True)
        if fuzzy and fuzzy[0][1] >= 90:
            return ref.model_copy(update={"entity_id": fuzzy[0][0].id, "name": fuzzy[0][0].name})
        missing.append((role, ref, default_entity_type(role, ontology, content)))
        return ref

    match content:
        case FactContent() | StateChangeContent():
            content = content.model_copy(update={"subject": await settle("subject", content.subject)})
        case RelationshipContent():
            content = content.model_copy(
                update={
                    "subject": await settle("subject", content.subject),
                    "object": await settle("object", content.object),
                }
            )
        case EventContent():
            content = content.model_copy(
                update={
                    "participants": tuple([await settle("participant", p) for p in content.participants]),
                    "location": await settle("location", content.location) if content.location else None,
                    "era": await settle("era", content.era) if content.era else None,
                }
            )
    return content, missing


async def check_eras(reader: CanonReader, content: ProposalContent) -> None:
    """Raise `InvalidInput` when a date of the proposal names an era the campaign's calendar does not define."""
    fields = (
        {"when": content.when} if isinstance(content, FactContent | StateChangeContent | EventContent) else {}
    )
    if isinstance(content, RelationshipContent):
        fields = {"since": content.since, "until": content.until}
    dated = {name: text for name, text in fields.items() if text}
    if not dated:
        return
    calendar = await reader.calendar()
    eras, shown = calendar.era_names(), example(calendar)  # the example in the campaign's own words
    for text in dated.values():
        try:
            check_era(parse_date(text), text, eras, shown)
        except DateError as error:
            raise InvalidInput(error.describe("the date") + ".") from None


async def check_types(ontology: Ontology, reader: CanonReader, content: ProposalContent) -> None:
    """Raise `InvalidInput` when resolved entities do not fit a relation's or state's rules, or a date's era
    is not one of the campaign's."""
    await check_eras(reader, content)
    if isinstance(content, RelationshipContent) and content.subject.entity_id and content.object.entity_id:
        ents = await reader.entities([content.subject.entity_id, content.object.entity_id])
        subject, obj = ents.get(content.subject.entity_id), ents.get(content.object.entity_id)
        if subject and obj:
            ontology.check_endpoints(content.relation, subject.type, obj.type)
    if isinstance(content, StateChangeContent) and content.subject.entity_id:
        ent = (await reader.entities([content.subject.entity_id])).get(content.subject.entity_id)
        if ent:
            ontology.check_state_applies(content.state, ent.type)


async def check_citations(reader: CanonReader, content: ProposalContent) -> None:
    """Raise `NotFound` for a cited fact the proposer cannot see, `Conflict` for a retconned one."""
    cited = citations(content)
    if not cited:
        return
    views = {
        v.statement.id: v
        for v in await reader.views(
            await reader.statements(statement_ids=cited, include_retconned=True, with_evidence=False)
        )
    }
    found = {i: v.statement for i, v in views.items()}
    for statement_id in cited:
        statement = found.get(statement_id)
        if statement is None:
            raise NotFound(
                "One of the facts it relies on is not in this campaign's canon; pick them from the suggestions."
            )
        if statement.provenance.level == CanonLevel.RETCONNED:  # said by its words, and what replaced it
            current = statement.provenance.replaced_by
            now = await reader.views(await reader.statements(statement_ids=[current])) if current else []
            # A replacement the proposer may not read goes unsaid (it is not "nothing").
            named = f" What replaced it: “{statement_sentence(now[0], PLAIN)}”." if now else ""
            if current is None:
                named = " Nothing replaced it."
            raise Conflict(
                f"“{statement_sentence(views[statement_id], PLAIN)}” was retconned, so nothing can rely on it."
                f"{named}"
            )


def point_at(content: ProposalContent, ref: Ref, proposal_id: int) -> ProposalContent:
    """Return content with one reference (this very object) pointed at an entity proposal."""

    def swap(candidate: Ref | None) -> Ref | None:
        if candidate is not None and candidate is ref:
            return candidate.model_copy(update={"proposal_id": proposal_id})
        return candidate

    return with_refs(content, swap)


def freeze(item: dict[str, Any]) -> dict[str, Any]:
    """Return an evidence item without its empty fields (two that differ only there are one)."""
    return {k: v for k, v in item.items() if v is not None}


async def check_life_told_again(
    reader: CanonReader, content: ProposalContent, calendar: CampaignCalendar
) -> None:
    """Raise `Conflict` when a birth or death canon already dates the same way is proposed again: it is a
    confirmation of canon, not a second fact (a different date is written and flagged as a conflict)."""
    if not isinstance(content, StateChangeContent) or content.via or not content.when:
        return
    if content.state not in {"alive", "dead"} or content.subject.entity_id is None:
        return
    for s in await reader.statements(subject_ids=[content.subject.entity_id], with_evidence=False):
        if (
            s.kind == StatementKind.STATE
            and s.value == content.state
            and s.validity.world_from == content.when
        ):
            event = "was born" if content.state == "alive" else "died"
            when = calendar.say(parse_date(content.when))
            raise Conflict(
                f"Canon already says {content.subject.name} {event} in {when}; nothing new to add."
            )
