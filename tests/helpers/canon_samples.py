"""Canon to render in the renderers' tests: a scene under review, proposals, statements, an entity card."""

from __future__ import annotations

import datetime as dt

from bot.services.review import Review
from canon.models import (
    Authority,
    CanonLevel,
    Entity,
    EntityCard,
    EntityRef,
    Evidence,
    EvidenceKind,
    Provenance,
    Statement,
    StatementKind,
    StatementView,
    Validity,
    Visibility,
)
from canon.proposals import FactContent, Proposal, ProposalStatus, ProposalWarning, Ref
from memory.scenes import Scene, SceneStatus

NOW = dt.datetime(2026, 11, 30, 18, 0, tzinfo=dt.UTC)
LONG = "Ω" * 900 + " [click me](https://evil.example) @everyone"


def scene(status: SceneStatus = SceneStatus.REVIEW) -> Scene:
    return Scene(
        id=7,
        campaign_id=1,
        guild_id=111,
        channel_id=222,
        title="The march " + "x" * 300,
        location=None,
        status=status,
        story_order=3,
        started_by_id=1,
        started_by_name="Gina",
        started_at=NOW,
        ended_at=NOW,
        narrator_mode=False,
        summary=None,
    )


def warning(text: str) -> ProposalWarning:
    return ProposalWarning(kind="dead_acting", message=text, entity_ids=(1,), statement_ids=(2,))


def proposal(
    pid: int,
    *,
    status: ProposalStatus = ProposalStatus.PENDING,
    warnings: int = 0,
    value: str = "Captain of the Guard",
    visibility: Visibility = Visibility.PUBLIC,
) -> Proposal:
    return Proposal(
        id=pid,
        campaign_id=1,
        scene_id=7,
        batch=None,
        content=FactContent(
            subject=Ref(name="Mara", entity_id=3), attribute="title", value=value, visibility=visibility
        ),
        evidence=tuple(
            Evidence(kind=EvidenceKind.TURNS, scene_id=7, turn_from=n, turn_to=n + 2) for n in range(1, 6)
        ),
        authority=Authority.PLAYER,
        confidence=1.0,
        origin="command",
        status=status,
        rationale="Not yet " + "n" * 400 if status == ProposalStatus.REJECTED else None,
        warnings=tuple(warning(f"Aldric acts after dying, #{i} " + "w" * 300) for i in range(warnings)),
        proposer_id=2,
        proposer_name="Pat " + "p" * 90,
        created_at=NOW,
        decided_by_name=None if status == ProposalStatus.PENDING else "Gina",
        decided_at=None,
        override_rationale=None,
        committed_changeset_id=None,
    )


def big_review(count: int = 500, *, status: SceneStatus = SceneStatus.REVIEW) -> Review:
    statuses = list(ProposalStatus)
    proposals = [
        proposal(i, status=statuses[i % 3], warnings=i % 5, value=LONG if i % 2 else "short")
        for i in range(1, count + 1)
    ]
    return Review(
        scene=scene(status),
        batch=None,
        proposals=proposals,
        turn_messages={n: 10**18 + n for n in range(1, 20)},
        secret=frozenset(range(1, count + 1, 7)),
    )


def ref(eid: int, name: str, visibility: Visibility = Visibility.PUBLIC) -> EntityRef:
    return EntityRef(id=eid, name=name, type="NPC", visibility=visibility)


def provenance(level: CanonLevel = CanonLevel.CANON, replaced_by: int | None = None) -> Provenance:
    return Provenance(
        campaign_id=1,
        changeset_id=1,
        recorded_at=NOW,
        authority=Authority.GM,
        confidence=1.0,
        level=level,
        replaced_by=replaced_by,
    )


def statement(
    sid: int,
    kind: StatementKind,
    predicate: str,
    *,
    value: str | None = None,
    obj: EntityRef | None = None,
    visibility: Visibility = Visibility.PUBLIC,
    level: CanonLevel = CanonLevel.CANON,
    replaced_by: int | None = None,
) -> StatementView:
    return StatementView(
        statement=Statement(
            id=sid,
            kind=kind,
            subject_id=1,
            predicate=predicate,
            object_id=obj.id if obj else None,
            value=value,
            visibility=visibility,
            validity=Validity(story_from=2),
            provenance=provenance(level, replaced_by),
            evidence=(Evidence(kind=EvidenceKind.TURNS, scene_id=4, turn_from=2, turn_to=3),),
        ),
        subject=ref(1, "Mara"),
        object=obj,
    )


def mara_card(entity_visibility: Visibility = Visibility.PUBLIC) -> EntityCard:
    return EntityCard(
        entity=Entity(
            id=1,
            type="NPC",
            name="Mara",
            visibility=entity_visibility,
            aliases=("The Captain",),
            provenance=provenance(),
        ),
        state=statement(10, StatementKind.STATE, "state", value="alive"),
        relations=(
            statement(11, StatementKind.RELATION, "ALLY_OF", obj=ref(2, "Brann")),
            statement(
                12, StatementKind.RELATION, "SERVES", obj=ref(3, "The Hidden King", Visibility.GM_ONLY)
            ),
        ),
        facts=(
            statement(13, StatementKind.ATTRIBUTE, "title", value="Captain"),
            statement(14, StatementKind.ATTRIBUTE, "secret", value="a spy", visibility=Visibility.GM_ONLY),
        ),
        evidence=(Evidence(kind=EvidenceKind.COMMAND, note="/canon add by Gina"),),
    )
