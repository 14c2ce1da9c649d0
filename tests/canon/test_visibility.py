"""The one rule of who may see what (`canon.visibility`), each clause broken on purpose by one of these tests."""

from __future__ import annotations

import dataclasses
import datetime as dt

from canon.knowing import Learned
from canon.models import (
    NOW,
    AsOf,
    Authority,
    Entity,
    EntityRef,
    Provenance,
    SourceVisibility,
    Statement,
    StatementKind,
    StatementView,
    Viewer,
    Visibility,
)
from canon.proposals import ProposalWarning
from canon.visibility import (
    HiddenCanon,
    Knowing,
    as_told,
    entities_seen,
    entity_named_only,
    entity_seen,
    may_see,
    seen,
    source_stored_hidden,
    source_visibility_of,
    statement_hidden,
    visibility_of,
    warnings_hidden,
)

PROVENANCE = Provenance(
    campaign_id=1,
    changeset_id=1,
    recorded_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    authority=Authority.GM,
    confidence=1.0,
)
PUBLIC, HIDDEN = Visibility.PUBLIC, Visibility.GM_ONLY


def entity(entity_id: int, visibility: Visibility = PUBLIC) -> Entity:
    return Entity(
        id=entity_id, type="NPC", name=f"E{entity_id}", provenance=PROVENANCE, visibility=visibility
    )


def relation(statement_id: int, subject: int, obj: int, visibility: Visibility = PUBLIC) -> Statement:
    return Statement(
        id=statement_id,
        kind=StatementKind.RELATION,
        subject_id=subject,
        predicate="MEMBER_OF",
        object_id=obj,
        provenance=PROVENANCE,
        visibility=visibility,
    )


def test_a_membership_in_a_secret_faction_is_hidden_by_its_object_alone() -> None:
    """Brann (public) is a member of the Red Hand (GM-only); the membership's own flag is public."""
    brann, hand = entity(1), entity(2, HIDDEN)
    membership = relation(10, brann.id, hand.id)
    hidden = HiddenCanon.of({1: brann, 2: hand}, [membership])
    assert hidden.statements == {10}
    # A warning naming only the statement (not the faction) still rests on hidden canon.
    assert warnings_hidden([ProposalWarning(kind="dead_acting", message="…", statement_ids=(10,))], hidden)
    assert not warnings_hidden(
        [ProposalWarning(kind="dead_acting", message="…", statement_ids=(11,), entity_ids=(1,))], hidden
    )
    assert statement_hidden(PUBLIC, PUBLIC, HIDDEN) and not statement_hidden(PUBLIC, PUBLIC, PUBLIC)


def test_what_a_viewer_may_see_and_how_rows_are_written() -> None:
    @dataclasses.dataclass
    class Passage:
        hidden: bool

    passages = [Passage(False), Passage(True)]
    assert seen(Viewer.PLAYER, passages) == [passages[0]] and seen(Viewer.GM, passages) == passages
    assert may_see(Viewer.GM, True) and not may_see(Viewer.PLAYER, True) and may_see(Viewer.PLAYER, False)
    assert visibility_of(True) == HIDDEN and visibility_of(False) == PUBLIC
    assert source_visibility_of(True) == SourceVisibility.HIDDEN
    assert (
        source_stored_hidden("hidden")
        and not source_stored_hidden("normal")
        and not source_stored_hidden(None)
    )


def test_which_entities_a_lens_sees_at_once_agrees_with_the_rule_for_each() -> None:
    """`entities_seen` (a names table's key) says, for many entities at once, what `entity_seen` and
    `entity_named_only` say for each: the GM sees all whole, a player the public ones whole and the hidden ones
    their character learned, whole or by name alone, from when they learned them."""
    entities = {1: PUBLIC, 2: HIDDEN, 3: HIDDEN, 4: HIDDEN, 5: PUBLIC}
    lens = Knowing(
        characters=(9,),
        learned=(
            Learned("entity", 2),
            Learned("statement", 40, ends=(1, 3)),
            Learned("statement", 41, world_from_key=3000000, ends=(4,)),
        ),
    )
    before = AsOf(world="200", world_key=2000000)
    for viewer, knowing, as_of in (
        (Viewer.GM, None, NOW),
        (Viewer.PLAYER, None, NOW),
        (Viewer.PLAYER, lens, NOW),
        (Viewer.PLAYER, lens, before),
    ):
        expected = {
            (e, entity_named_only(viewer, v, e, knowing, as_of))
            for e, v in entities.items()
            if entity_seen(viewer, v, e, knowing, as_of)
        }
        assert entities_seen(viewer, entities, knowing, as_of) == expected
    assert entities_seen(Viewer.PLAYER, entities, lens) == {
        (1, False),
        (2, False),
        (3, True),
        (4, True),
        (5, False),
    }
    assert entities_seen(Viewer.PLAYER, entities, lens, before) == {
        (1, False),
        (2, False),
        (3, True),
        (5, False),
    }


def test_what_players_are_told_reads_as_the_truth_to_one_who_cannot_see_it() -> None:
    """Hesper's true status (GM-only) is imprisoned; players are told she is missing."""

    def fact(statement_id: int, predicate: str, value: str, visibility: Visibility = PUBLIC) -> StatementView:
        said = Statement(
            id=statement_id,
            kind=StatementKind.ATTRIBUTE,
            subject_id=1,
            predicate=predicate,
            value=value,
            provenance=PROVENANCE,
            visibility=visibility,
        )
        return StatementView(statement=said, subject=EntityRef(id=1, type="NPC", name="Hesper Vane"))

    truth, told, sex = (
        fact(1, "status", "imprisoned", HIDDEN),
        fact(2, "status_public", "missing"),
        fact(3, "sex", "f"),
    )
    player = as_told([told, sex], Viewer.PLAYER)  # the truth is not among what a player's reader sees
    assert [(v.statement.predicate, v.statement.value) for v in player] == [
        ("status", "missing"),
        ("sex", "f"),
    ]
    # The GM, and a player whose character learned the truth, read both as written.
    for viewer in (Viewer.GM, Viewer.PLAYER):
        both = as_told([truth, told, sex], viewer)
        assert [v.statement.predicate for v in both] == ["status", "status_public", "sex"]
