"""Rules that matter, each pinned by a test that fails when the rule is broken in the plausible way.

Continuity: the second parent's birth is checked as well as the first's; a month-precise date covers the whole
month; a GM's explicit replacement of a value that never changes is a correction, not a clash. The gate: a
proposal carrying a real finding needs a rationale even beside a new-attribute note. Names offered for fuzzy
matching and autocomplete are the campaign's and its lineage's only.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update

from canon import campaigns
from canon.continuity import ConflictKind
from canon.errors import InvalidInput
from canon.forks import ForkPoint
from canon.models import Authority
from canon.proposals import UNKNOWN_ATTRIBUTE, EntityContent, EventContent, Ref, StateChangeContent
from canon.storage import Database
from canon.tables import ProposalRow
from tests.helpers.canon_desk import Desk
from tests.helpers.continuity_world import World, only

# -- continuity ------------------------------------------------------------------------------------------


def test_a_child_born_before_the_second_parent_is_found() -> None:
    """The first parent (by relation) is older than the child; the second is younger: that one is reported."""
    w = World()
    aldric, mira, bran = w.entity("Aldric"), w.entity("Mira"), w.entity("Bran")
    w.state(aldric, "alive", wf="3rd_age.year_250")
    mira_born = w.state(mira, "alive", wf="3rd_age.year_300")
    bran_born = w.state(bran, "alive", wf="3rd_age.year_290")
    w.rel(aldric, "PARENT_OF", bran)
    by_mira = w.rel(mira, "PARENT_OF", bran)

    finding = only(w.check(), ConflictKind.BORN_BEFORE_PARENT)

    assert finding.message == "Bran is born (3rd_age.year_290) before their parent Mira (3rd_age.year_300)."
    assert finding.statement_ids == (mira_born.id, bran_born.id, by_mira.id)
    assert finding.entity_ids == (mira, bran)


def test_a_month_precise_birth_is_not_before_a_day_of_that_month() -> None:
    """Born "in month 5" may be any day of month 5: not certainly before a parent born on day 10 of it."""
    w = World()
    aldric, bran = w.entity("Aldric"), w.entity("Bran")
    w.state(aldric, "alive", wf="3rd_age.year_300.month_5.day_10")
    w.state(bran, "alive", wf="3rd_age.year_300.month_5")
    w.rel(aldric, "PARENT_OF", bran)
    assert w.check() == []

    # A month earlier is certainly before.
    w = World()
    aldric, bran = w.entity("Aldric"), w.entity("Bran")
    w.state(aldric, "alive", wf="3rd_age.year_300.month_5.day_10")
    w.state(bran, "alive", wf="3rd_age.year_300.month_4")
    w.rel(aldric, "PARENT_OF", bran)
    assert only(w.check(), ConflictKind.BORN_BEFORE_PARENT).entity_ids == (aldric, bran)


def test_the_gms_correction_of_a_value_that_never_changes_is_no_clash() -> None:
    """Eye colour never changes; the GM's green, marked as replacing blue, corrects it (no finding)."""
    w = World()
    mara = w.entity("Mara")
    blue = w.attr(mara, "eye_colour", "blue", authority=Authority.GM)
    w.attr(mara, "eye_colour", "green", authority=Authority.GM, replaces=blue.id)
    assert w.check() == []

    # Without the mark it is a clash, so the test above is about the mark.
    w = World()
    mara = w.entity("Mara")
    w.attr(mara, "eye_colour", "blue", authority=Authority.GM)
    w.attr(mara, "eye_colour", "green", authority=Authority.GM)
    assert only(w.check(), ConflictKind.SINGLE_VALUED).message.endswith(
        "but Mara's eye colour never changes."
    )


# -- the gate ---------------------------------------------------------------------------------------------


async def test_a_real_finding_beside_a_new_attribute_note_still_needs_a_rationale(db: Database) -> None:
    desk = await Desk.create(db)
    await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    await desk.propose(StateChangeContent(subject=Ref(name="Aldric"), state="dead"), scene=1, gm=True)
    await desk.commit(scene=1)
    *_, event = await desk.propose(
        EventContent(name="The order to march", participants=(Ref(name="Aldric"),)), scene=2
    )
    assert [w.kind for w in event.warnings] == ["dead_acting"]
    # The same proposal also carries a note that a detail is new to the campaign (it comes first).
    note = {"kind": UNKNOWN_ATTRIBUTE, "message": "“haircolor” is a new kind of detail for Aldric."}
    await db.run(
        lambda s: s.execute(
            update(ProposalRow)
            .where(ProposalRow.id == event.id)
            .values(warnings=[note, *(w.stored() for w in event.warnings)])
        )
    )

    with pytest.raises(InvalidInput, match="To accept it anyway, give a rationale"):
        await desk.decide(event.id, accept=True)
    accepted = await desk.decide(event.id, accept=True, rationale="A ghost, as planned")
    assert accepted.override_rationale == "A ghost, as planned"


# -- names for fuzzy matching and autocomplete ---------------------------------------------------------


async def test_names_for_matching_and_autocomplete_are_the_campaigns_and_its_lineages_only(
    db: Database,
) -> None:
    # Another campaign, made first (lower ids), with names like ours.
    other = await Desk.create(db, "Other table")
    for name in ("Aldwin", "Aldora", "Aldmere"):
        await other.add(EntityContent(name=name, entity_type="NPC"))
    desk = await Desk.create(db)
    before_fork = await desk.add(EntityContent(name="Aldric", entity_type="NPC"))
    branch_campaign = await db.run(
        lambda s: campaigns.create_branch(
            s, desk.campaign, "What if", ForkPoint(changeset_id=before_fork.changeset_id), guild_id=10
        )
    )
    branch = Desk(db, branch_campaign)
    await branch.add(EntityContent(name="Aldous", entity_type="NPC"))  # the branch's own
    await desk.add(EntityContent(name="Aldina", entity_type="NPC"))  # the parent's, after the fork

    async with db.session() as session:
        main = await desk.reader(session)
        assert sorted(n for n, _ in await main.names()) == ["Aldina", "Aldric"]
        assert [r.name for r in await main.autocomplete("Ald", limit=2)] == ["Aldric", "Aldina"]
        assert {r.name for r, _ in await main.fuzzy("Aldwyn", limit=3)} <= {"Aldric", "Aldina"}
        fork = await branch.reader(session)
        assert sorted(n for n, _ in await fork.names()) == ["Aldous", "Aldric"]
        assert [r.name for r in await fork.autocomplete("Ald", limit=2)] == ["Aldric", "Aldous"]
