"""A branch's life after play: promotion through the parent's review, channels bound to a branch, deletion and export."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import Services
from bot.archive.campaign_archive import CampaignArchive
from bot.archive.file import read_archive
from bot.services.branches.lineage_rows import lineage_row_sets
from canon.campaigns import CampaignStatus
from canon.errors import Conflict, InvalidInput, NotAllowed, NotFound
from canon.models import EvidenceKind, Viewer
from canon.proposals import (
    EntityContent,
    FactContent,
    ProposalStatus,
    Ref,
)
from tests.helpers.branch_play import (
    GM,
    GUILD,
    add,
    commit,
    counts,
    fact_value,
    hidden_and_disabled,
    play,
    root,
)

# --- promotion ---------------------------------------------------------------------------------------------


async def test_promotion_goes_through_the_parents_review(services: Services) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Smithy")
    own = await add(
        services, branch, FactContent(subject=Ref(name="Aldric"), attribute="trade", value="smith")
    )
    (trade_id,) = own.statement_ids
    await add(services, branch, EntityContent(name="Brann", entity_type="NPC", description="an apprentice"))
    brann = await add(
        services, branch, FactContent(subject=Ref(name="Brann"), attribute="title", value="Smith")
    )
    parent_rows = await counts(services, main.id)

    promotion = await services.branches.promote(branch, trade_id, GM)
    (proposal,) = promotion.proposals
    assert promotion.parent.id == main.id and proposal.campaign_id == main.id
    assert proposal.status == ProposalStatus.PENDING and proposal.origin == "promotion"
    assert proposal.evidence[0].kind == EvidenceKind.BRANCH and f"fact #{trade_id}" in (
        proposal.evidence[0].note or ""
    )
    assert await fact_value(services, main, "Aldric", "occupation") is None
    with pytest.raises(Conflict, match="already waiting"):
        await services.branches.promote(branch, trade_id, GM)
    # Committing without an accept writes nothing: a promotion never passes on the authority policy.
    result = (await services.canon.commit_batch(main, promotion.batch, GM)).result
    assert result.accepted == [] and [p.id for p in result.rejected] == [proposal.id]
    assert await fact_value(services, main, "Aldric", "occupation") is None

    again = await services.branches.promote(branch, trade_id, GM)
    (second,) = again.proposals
    await services.reviews.decide(second.id, accept=True, actor=GM)
    committed = await services.branches.commit_promotion(second.id, GM)
    assert [p.id for p in committed.accepted] == [second.id]
    assert await fact_value(services, main, "Aldric", "occupation") == "smith"
    card = await services.queries.card(main, "Aldric", viewer=Viewer.GM)
    trade = next(v.statement for v in card.facts if v.statement.predicate == "occupation")
    assert any(e.kind == EvidenceKind.BRANCH for e in trade.evidence)
    assert trade.provenance.campaign_id == main.id

    # A fact about an entity the branch created brings the entity along, as its own proposal.
    (brann_fact,) = brann.statement_ids
    new = await services.branches.promote(branch, brann_fact, GM)
    assert [p.content.type for p in new.proposals] == ["entity", "fact"]
    assert new.proposals[0].content.name == "Brann"  # type: ignore[union-attr]
    # An inherited fact is the parent's already.
    inherited = await services.queries.card(branch, "Aldric", viewer=Viewer.GM)
    title = next(v.statement for v in inherited.facts if v.statement.predicate == "title")
    with pytest.raises(Conflict, match="inherited"):
        await services.branches.promote(branch, title.id, GM)
    # Nothing moved into the branch from its parent's review either.
    assert (await counts(services, main.id))["statements"] == parent_rows["statements"] + 1


# --- bindings, abandon, delete -----------------------------------------------------------------------------


async def test_channels_play_in_their_bound_branch_and_an_abandoned_one_stops_answering(
    services: Services,
) -> None:
    main = await root(services)
    branch = await services.branches.fork(main, "Dark Road")
    campaigns = services.campaigns
    assert (await campaigns.for_channel(GUILD, "Shattered Isles", 601, 700)).id == main.id
    await services.branches.bind(GUILD, 700, "category", branch, GM, channels=[601, 602])
    assert (await campaigns.for_channel(GUILD, "x", 601, 700)).id == branch.id  # inherits its category's
    await services.branches.bind(GUILD, 602, "channel", main, GM)
    assert (await campaigns.for_channel(GUILD, "x", 602, 700)).id == main.id  # its own binding wins
    await services.branches.bind(GUILD, 605, "channel", branch, GM)
    thread = await campaigns.for_channel(GUILD, "x", 9001, None, parent_channel_id=605)
    assert thread.id == branch.id  # a thread plays where its channel does
    with pytest.raises(NotAllowed, match="not a campaign of this server"):
        await services.branches.bind(GUILD + 1, 603, "channel", branch, GM)
    # A channel cannot change campaign in the middle of a scene.
    await play(services, main, 603, ["Hello."])
    with pytest.raises(Conflict, match="still open"):
        await services.branches.bind(GUILD, 603, "channel", branch, GM)
    nodes = await services.branches.tree(guild_id=GUILD)
    assert [(n.campaign.name, n.depth) for n in nodes] == [("Shattered Isles", 0), ("Dark Road", 1)]
    assert [b.channel_id for b in nodes[1].bindings] == [700, 605]

    # Abandon: refused with a scene open in the branch, then the branch stops answering everywhere.
    await play(services, branch, 601, ["We walk the dark road."])
    with pytest.raises(Conflict, match="still open"):
        await services.branches.abandon(branch, GM)
    await commit(services, branch, 601)
    fact = await add(
        services, branch, FactContent(subject=Ref(name="Aldric"), attribute="fate", value="lost")
    )
    promotion = await services.branches.promote(branch, fact.statement_ids[0], GM)
    abandoned = await services.branches.abandon(branch, GM)
    assert abandoned.status == CampaignStatus.ABANDONED
    with pytest.raises(NotAllowed, match="abandoned"):
        await campaigns.for_channel(GUILD, "x", 601, 700)
    assert (await campaigns.for_channel(GUILD, "x", 601, 700, allow_abandoned=True)).id == branch.id
    # Its material never reaches another campaign: the pending promotion is rejected, no fork, no promote.
    review = await services.reviews.review(None, campaign_id=main.id, batch=promotion.batch)
    assert [p.status for p in review.proposals] == [ProposalStatus.REJECTED]
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.fork(abandoned, "From the ashes")
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.promote(abandoned, fact.statement_ids[0], GM)
    with pytest.raises(Conflict, match="abandoned"):
        await services.branches.bind(GUILD, 604, "channel", abandoned, GM)


async def test_delete_removes_only_what_the_branch_wrote(services: Services) -> None:
    main = await root(services)
    await play(services, main, 620, ["Aldric waits."])
    await commit(services, main, 620, FactContent(subject=Ref(name="Aldric"), attribute="mood", value="calm"))
    branch = await services.branches.fork(main, "Doomed")
    child = await services.branches.fork(branch, "Doomed again")
    await services.branches.bind(GUILD, 621, "channel", branch, GM)
    await add(services, branch, EntityContent(name="Brann", entity_type="NPC"))
    await play(services, branch, 621, ["Brann shouts."])
    await commit(
        services, branch, 621, FactContent(subject=Ref(name="Aldric"), attribute="mood", value="angry")
    )
    with pytest.raises(InvalidInput, match="not a branch"):
        await services.branches.delete(main)
    with pytest.raises(Conflict, match="branches of its own"):
        await services.branches.delete(branch)
    await services.branches.delete(child)
    parent_rows = await counts(services, main.id)
    report = await services.branches.delete(branch)
    assert (
        report.rows["statements"] >= 1 and report.rows["scenes"] == 1 and report.rows["channel_bindings"] == 1
    )
    assert await counts(services, main.id) == parent_rows
    assert sum((await counts(services, branch.id)).values()) == 0
    with pytest.raises(NotFound):
        await services.campaigns.by_name("Doomed")
    assert await fact_value(services, main, "Aldric", "mood") == "calm"
    assert (await services.campaigns.for_channel(GUILD, "x", 621, None)).id == main.id


# --- export ------------------------------------------------------------------------------------------------


async def test_export_of_a_branch_includes_what_it_inherits(services: Services, tmp_path: Path) -> None:
    main = await root(services)
    await services.knowledge.import_bytes(
        main.id, "world.md", b"# Thornwall\n\nA harbour town of grey stone."
    )
    await play(services, main, 630, ["Aldric rides."])
    await commit(
        services, main, 630, FactContent(subject=Ref(name="Aldric"), attribute="horse", value="Grey")
    )
    branch = await services.branches.fork(main, "Export me")
    await add(services, main, FactContent(subject=Ref(name="Aldric"), attribute="later", value="parent only"))
    await services.knowledge.import_bytes(
        main.id, "later.md", b"# Later\n\nAdded to the parent after the fork."
    )
    await add(services, branch, FactContent(subject=Ref(name="Aldric"), attribute="trade", value="smith"))

    async with services.db.session() as session:
        rows = await lineage_row_sets(session, branch.id)
    assert {r["value"] for r in rows["statements"]} >= {"Knight", "Grey", "smith"}
    assert "parent only" not in {r["value"] for r in rows["statements"]}
    assert [r["filename"] for r in rows["knowledge_sources"]] == ["world.md"]
    assert len(rows["scenes"]) == 1 and rows["turns"]

    archive = CampaignArchive(services.db, services.knowledge, voice=services.voice)
    path = tmp_path / "branch.zip"
    await archive.export_campaign(branch.id, path)
    contents = read_archive(path)
    values = {r["value"] for r in contents.tables["statements"]}
    assert {"Knight", "Grey", "smith"} <= values and "parent only" not in values
    assert [r["filename"] for r in contents.tables["knowledge_sources"]] == ["world.md"]
    restored = await archive.import_campaign(path, name="Restored branch")
    copy = restored.campaign
    assert copy.parent_id is None
    assert await fact_value(services, copy, "Aldric", "horse") == "Grey"
    assert await fact_value(services, copy, "Aldric", "occupation") == "smith"
    assert await fact_value(services, copy, "Aldric", "later") is None


async def test_export_of_a_branch_keeps_its_inherited_sources_as_they_were_at_the_fork(
    services: Services, tmp_path: Path
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    secret, draft = await hidden_and_disabled(services, main, draft="draft.md")
    branch = await services.branches.fork(main, "Kept at the fork")
    # After the fork the parent reveals its secret and enables its draft: not so in the branch.
    await knowledge.set_source(main.id, secret.source.id, hidden=False)
    await knowledge.enable_source(main.id, draft.source.id)
    seen = {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(branch.id)}
    assert seen == {"secret.md": (True, True), "draft.md": (False, False)}

    archive = CampaignArchive(services.db, services.knowledge, voice=services.voice)
    path = tmp_path / "branch.zip"
    await archive.export_campaign(branch.id, path)
    written = {
        r["filename"]: (r["visibility"], r["enabled"]) for r in read_archive(path).tables["knowledge_sources"]
    }
    assert written == {"secret.md": ("hidden", True), "draft.md": ("normal", False)}
    copy = (await archive.import_campaign(path, name="Restored branch")).campaign
    assert {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(copy.id)} == seen
    player = await knowledge.ask(copy.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
    assert all("mayor" not in r.text for r in player.results)
    # The parent's own export has its sources as they are now.
    await archive.export_campaign(main.id, tmp_path / "main.zip")
    own = {
        r["filename"]: (r["visibility"], r["enabled"])
        for r in read_archive(tmp_path / "main.zip").tables["knowledge_sources"]
    }
    assert own == {"secret.md": ("normal", True), "draft.md": ("normal", True)}
