"""The life of a recorded conflict: closed with a reason once, dismissed for good, resolved when canon changes."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from canon import campaigns
from canon import conflicts as lifecycle
from canon.checks import RecordedConflict, record_findings, whole_graph_findings
from canon.errors import Conflict, InvalidInput, NotFound
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import Database
from tests.helpers.canon_desk import Desk


async def two_titles(desk: Desk, name: str) -> tuple[int, int]:
    """Give a new NPC two titles at once; return the two facts (their conflict is recorded)."""
    await desk.add(EntityContent(name=name, entity_type="NPC"))
    (first,) = (
        await desk.add(FactContent(subject=Ref(name=name), attribute="title", value="Heir"))
    ).statement_ids
    (second,) = (
        await desk.add(FactContent(subject=Ref(name=name), attribute="title", value="Spare"))
    ).statement_ids
    return first, second


async def recheck(desk: Desk) -> tuple[int, int]:
    """Run the whole-graph check as the service does; return how many findings, and how many were new."""

    async def work(session: AsyncSession) -> tuple[int, int]:
        reader = await desk.reader(session)
        found = await whole_graph_findings(reader)
        prints = [f.fingerprint for f in found]
        await lifecycle.resolve_vanished(session, desk.campaign.id, prints, by="a check")
        await lifecycle.reopen_found(session, desk.campaign.id, prints)
        dismissed = await lifecycle.dismissed_fingerprints(session, desk.campaign.id)
        kept = [f for f in found if f.fingerprint not in dismissed]
        return len(kept), len(await record_findings(session, desk.campaign.id, kept))

    return await desk.db.run(work)


async def close(
    desk: Desk, conflict_id: int, *, dismiss: bool, reason: str, campaign_id: int | None = None
) -> RecordedConflict:
    return await desk.db.run(
        lambda s: lifecycle.close(
            s, campaign_id or desk.campaign.id, conflict_id, dismiss=dismiss, reason=reason, by="Gina"
        ),
        attempts=1,
    )


async def test_a_conflict_closes_once_with_a_reason_and_only_in_its_campaign(db: Database) -> None:
    desk = await Desk.create(db)
    await two_titles(desk, "Mara")
    (conflict,) = await desk.conflicts()
    assert conflict.status == "open" and conflict.kind == "single_valued"
    other = await db.run(lambda s: campaigns.create_campaign(s, "Elsewhere", guild_id=11))

    with pytest.raises(InvalidInput, match="Say why"):
        await close(desk, conflict.id, dismiss=False, reason="   ")
    with pytest.raises(InvalidInput, match="at most 1000 characters"):
        await close(desk, conflict.id, dismiss=True, reason="x" * 1001)
    with pytest.raises(NotFound):
        await close(desk, conflict.id, dismiss=True, reason="not ours", campaign_id=other.id)
    assert (await desk.conflicts())[0].status == "open"

    resolved = await close(desk, conflict.id, dismiss=False, reason="She was heir, then spare")
    assert (resolved.status, resolved.resolution, resolved.closed_by) == ("resolved", "rationale", "Gina")
    assert resolved.rationale == "She was heir, then spare" and resolved.closed_at is not None
    with pytest.raises(Conflict, match="already resolved"):
        await close(desk, conflict.id, dismiss=True, reason="again")


async def test_a_dismissed_conflict_is_never_raised_again_and_a_vanished_one_resolves(db: Database) -> None:
    desk = await Desk.create(db)
    await two_titles(desk, "Mara")
    _, spare = await two_titles(desk, "Brann")
    brann, mara = await desk.conflicts()  # newest first
    await close(desk, mara.id, dismiss=True, reason="Two titles by two courts")

    assert await recheck(desk) == (1, 0)  # Brann's only; Mara's is dismissed, nothing new
    page = await db.run(lambda s: lifecycle.conflict_page(s, desk.campaign.id))
    assert [c.id for c in page.conflicts] == [brann.id] and page.total == 1

    await desk.retcon(spare, rationale="He was never spare")  # not through the service: a check notices
    assert await recheck(desk) == (0, 0)
    closed = await db.run(lambda s: lifecycle.conflict_page(s, desk.campaign.id, show=lifecycle.Show.CLOSED))
    assert {(c.id, c.status, c.resolution) for c in closed.conflicts} == {
        (brann.id, "resolved", "change"),
        (mara.id, "dismissed", None),
    }


async def test_a_conflict_a_change_resolved_reopens_when_a_check_finds_it_again(db: Database) -> None:
    desk = await Desk.create(db)
    await two_titles(desk, "Mara")
    (conflict,) = await desk.conflicts()
    await db.run(lambda s: lifecycle.resolve_vanished(s, desk.campaign.id, [], by="a check"))  # as if changed
    assert (await desk.conflicts())[0].resolution == "change"
    assert await recheck(desk) == (1, 0)  # found again: not new, but open again
    (again,) = await desk.conflicts()
    assert (again.id, again.status, again.resolution, again.closed_at) == (conflict.id, "open", None, None)


async def test_a_retcon_resolves_the_open_conflicts_it_answers(db: Database) -> None:
    desk = await Desk.create(db)
    heir, _ = await two_titles(desk, "Mara")
    await two_titles(desk, "Brann")
    brann, mara = await desk.conflicts()
    closed = await desk.db.run(
        lambda s: lifecycle.resolve_answered(
            s, desk.campaign.id, [heir], resolution=lifecycle.Resolution.RETCON, reason="No heir", by="Gina"
        )
    )
    assert [c.id for c in closed] == [mara.id]
    statuses = {c.id: (c.status, c.resolution) for c in await desk.conflicts()}
    assert statuses == {mara.id: ("resolved", "retcon"), brann.id: ("open", None)}
