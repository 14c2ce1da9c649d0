"""Branches and sources: a branch keeps its parent's sources as they were at the fork, its own copies, and only more restrictive changes reach it."""

from __future__ import annotations

import pytest

from bot.app import Services
from canon.campaigns import Campaign
from canon.errors import Conflict
from canon.models import Viewer
from tests.helpers.branch_play import GM, hidden_and_disabled, root

# --- sources as they were at the fork -----------------------------------------------------------------------


async def chunk_text(services: Services, campaign: Campaign, filename: str) -> str | None:
    """Return the text of a source the campaign sees, by file name (None when it sees none)."""
    knowledge = services.knowledge
    for source in await knowledge.list_sources(campaign.id):
        if source.filename == filename:
            return " ".join(c.text for c in await knowledge.chunks(campaign.id, source.id))
    return None


async def test_a_branch_keeps_its_parents_sources_as_they_were_at_the_fork(services: Services) -> None:
    main = await root(services)
    knowledge = services.knowledge
    world = await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is silver.")
    await knowledge.import_bytes(main.id, "harbour.md", b"# Harbour\n\nThe harbour chain is black iron.")
    branch = await services.branches.fork(main, "Silver moon")
    deeper = await services.branches.fork(branch, "Deeper moon")
    sibling_source = await knowledge.import_bytes(branch.id, "own.md", b"# Own\n\nThe branch's own notes.")
    before = await knowledge.get_source(branch.id, world.source.id)

    updated = await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is red.")
    assert updated.source.id == world.source.id and updated.source.version == 2  # the parent's row moves on
    assert "red" in (await chunk_text(services, main, "world.md") or "")
    for campaign in (branch, deeper):  # the branch, and through it its own branch, keep version 1
        assert "silver" in (await chunk_text(services, campaign, "world.md") or "")
        [seen] = [s for s in await knowledge.list_sources(campaign.id) if s.filename == "world.md"]
        assert seen.version == 1 and seen.content_hash == world.source.content_hash
    copy = next(s for s in await knowledge.list_sources(branch.id) if s.filename == "world.md")
    detail = await knowledge.get_source(branch.id, copy.id)
    assert [v.version for v in detail.versions] == [v.version for v in before.versions] == [1]
    # The parent re-imports again: the branch has its copy already, nothing more is copied.
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe moon of Vale is gone.")
    assert "silver" in (await chunk_text(services, branch, "world.md") or "")
    assert sum(s.filename == "world.md" for s in await knowledge.list_sources(branch.id)) == 1

    # The branch cannot delete its copy (the parent's newer version would show); it can disable it.
    with pytest.raises(Conflict, match="as it was at the fork"):
        await knowledge.delete_source(branch.id, copy.id)
    await knowledge.disable_source(branch.id, copy.id)
    assert [s.enabled for s in await knowledge.list_sources(deeper.id) if s.filename == "world.md"] == [False]
    await knowledge.enable_source(branch.id, copy.id)

    # A delete in the parent leaves the branches' copies (and the stored file they need).
    harbour = next(s for s in await knowledge.list_sources(main.id) if s.filename == "harbour.md")
    report = await knowledge.delete_source(main.id, harbour.id)
    assert report.chunks_removed >= 1 and not report.file_removed
    assert await chunk_text(services, main, "harbour.md") is None
    assert "black iron" in (await chunk_text(services, branch, "harbour.md") or "")
    kept = next(s for s in await knowledge.list_sources(branch.id) if s.filename == "harbour.md")
    assert knowledge.read_original(kept).startswith(b"# Harbour")
    assert sibling_source.source.id in {s.id for s in await knowledge.list_sources(branch.id)}

    # A rebase brings the parent's sources as they are now (after the branch of the branch is gone).
    await services.branches.delete(deeper)
    plan = await services.branches.plan_rebase(branch)
    assert plan.changesets == 0 and plan.sources == 2 and not plan.up_to_date
    await services.branches.rebase(branch, GM, expect=plan.token)
    assert "gone" in (await chunk_text(services, branch, "world.md") or "")
    assert await chunk_text(services, branch, "harbour.md") is None
    assert sorted(s.filename for s in await knowledge.list_sources(branch.id)) == ["own.md", "world.md"]
    assert (await services.branches.plan_rebase(await services.campaigns.by_name("Silver moon"))).up_to_date
    with pytest.raises(FileNotFoundError):  # nobody needs the deleted harbour's bytes any more
        knowledge.read_original(kept)


async def test_a_branch_that_re_imports_its_copy_keeps_its_own_version_through_a_rebase(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe sea of Vale is green.")
    early = await services.branches.fork(main, "Early sea")
    await knowledge.import_bytes(main.id, "world.md", b"# World\n\nThe sea of Vale is grey.")
    late = await services.branches.fork(main, "Late sea")  # forked after the change: no copy, the new text
    assert "grey" in (await chunk_text(services, late, "world.md") or "")
    assert "green" in (await chunk_text(services, early, "world.md") or "")
    # The early branch writes its own version over its copy: that one is the branch's, a rebase keeps it.
    await knowledge.import_bytes(early.id, "world.md", b"# World\n\nThe sea of Vale is purple.")
    plan = await services.branches.plan_rebase(early)
    assert plan.sources == 0
    await knowledge.import_bytes(main.id, "extra.md", b"# Extra\n\nA later source.")
    await services.branches.rebase(early, GM)
    assert "purple" in (await chunk_text(services, early, "world.md") or "")


async def test_only_a_more_restrictive_change_of_an_inherited_source_reaches_a_branch(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    secret, off = await hidden_and_disabled(services, main, draft="off.md")
    open_ = await knowledge.import_bytes(main.id, "open.md", b"# Open\n\nThe market opens at dawn.")
    branch = await services.branches.fork(main, "Kept secrets")
    deeper = await services.branches.fork(branch, "Kept deeper")

    async def flags(campaign: Campaign) -> dict[str, tuple[bool, bool]]:
        return {s.filename: (s.hidden, s.enabled) for s in await knowledge.list_sources(campaign.id)}

    # The parent reveals its secret and enables its draft: the branches keep them as they were.
    await knowledge.set_source(main.id, secret.source.id, hidden=False)
    await knowledge.enable_source(main.id, off.source.id)
    # It hides and disables the open one: more restrictive, so that reaches them.
    await knowledge.set_source(main.id, open_.source.id, hidden=True)
    await knowledge.disable_source(main.id, open_.source.id)
    assert await flags(main) == {
        "secret.md": (False, True),
        "off.md": (False, True),
        "open.md": (True, False),
    }
    for campaign in (branch, deeper):
        assert await flags(campaign) == {
            "secret.md": (True, True),
            "off.md": (False, False),
            "open.md": (True, False),
        }
        player = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
        assert secret.source.id not in {r.source_id for r in player.results}
    # A re-import of the revealed secret: the branch's copy is as the branch saw it, hidden (and so for its
    # own branch, which reads that copy).
    await knowledge.import_bytes(main.id, "secret.md", b"# Pact\n\nThe mayor serves the cult of the deep.")
    for campaign in (branch, deeper):
        assert (await flags(campaign))["secret.md"] == (True, True)
        player = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.PLAYER, limit=5)
        assert all("mayor" not in r.text for r in player.results)
        gm = await knowledge.ask(campaign.id, "mayor serves the cult", viewer=Viewer.GM, limit=5)
        assert any("mayor serves the cult." in r.text for r in gm.results)  # the version of the fork
    # A rebase takes the parent's sources as they are now.
    await services.branches.delete(deeper)
    await services.branches.rebase(branch, GM)
    assert await flags(branch) == await flags(main)


async def test_a_branch_of_a_branch_keeps_a_source_hidden_at_its_own_fork_through_its_parents_copy(
    services: Services,
) -> None:
    main = await root(services)
    knowledge = services.knowledge
    notes = await knowledge.import_bytes(main.id, "notes.md", b"# Notes\n\nThe bridge is rigged to fall.")
    middle = await services.branches.fork(main, "Middle")  # the notes are visible here
    await knowledge.set_source(main.id, notes.source.id, hidden=True)
    inner = await services.branches.fork(middle, "Inner")  # hidden when this one forked

    async def hidden(campaign: Campaign) -> bool:
        return next(s.hidden for s in await knowledge.list_sources(campaign.id) if s.filename == "notes.md")

    await knowledge.set_source(main.id, notes.source.id, hidden=False)
    assert not await hidden(middle) and await hidden(inner)
    # The re-import gives the middle branch a visible copy; the inner one reads it, and keeps it hidden.
    await knowledge.import_bytes(main.id, "notes.md", b"# Notes\n\nThe bridge is safe.")
    assert not await hidden(middle) and await hidden(inner)
    player = await knowledge.ask(inner.id, "bridge rigged to fall", viewer=Viewer.PLAYER, limit=5)
    assert all("rigged" not in r.text for r in player.results)
    player = await knowledge.ask(middle.id, "bridge rigged to fall", viewer=Viewer.PLAYER, limit=5)
    assert any("rigged" in r.text for r in player.results)
