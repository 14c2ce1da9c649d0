"""What-if branches end to end: fork, bind a category, play and commit a scene in the branch, then `/canon asof`
and `/lore ask` in both channels, abandon (the branch's channel stops answering) and delete with confirmation;
then the rebase preview and its button (a stale click too), promotion through the parent's card, unbinding,
and a player refused on the GM's buttons.

The real discord.py client against the emulator, a real database, real Chroma and the real embedding model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.offline.emulator import Channel, DiscordEmulator
from bot.offline.emulator.messages import custom_ids
from canon.models import Viewer
from config.settings import Settings
from tests.conftest import DatabaseTarget
from tests.e2e.conftest import World, running, tavern


def everything(message: dict[str, Any] | None) -> str:
    """Return all the text of a message: content, embeds' titles, descriptions, fields and footers."""
    if message is None:
        return ""
    parts = [message.get("content") or ""]
    for embed in message.get("embeds", []):
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields", [])]
        parts.append((embed.get("footer") or {}).get("text", ""))
    return "\n".join(parts).replace("\\", "")


@pytest.fixture
async def branched(db_target: DatabaseTarget, settings: Settings) -> AsyncIterator[tuple[World, Channel]]:
    """The usual world plus a "What-if" category with a channel in it, made before the bot starts."""
    async with DiscordEmulator() as emu:
        world = tavern(emu, settings, db_target)
        category = emu.add_category(world.guild, "What-if")
        elsewhere = emu.add_text_channel(world.guild, "dark-road", category=category)
        async with running(world):
            yield world, elsewhere


async def test_a_branch_plays_in_its_own_channel_and_never_leaks_into_the_main_one(
    branched: tuple[World, Channel],
) -> None:
    world, dark = branched
    emu, main, gm, pat = world.emu, world.channel, world.gm, world.pat
    services = world.bot.services

    added = await emu.invoke(main, gm, "canon add entity", name="Aldric", type="NPC", description="a knight")
    assert added.ephemeral, added.content
    await emu.invoke(
        main, gm, "canon add fact", subject="Aldric", attribute="title", value="Knight of the Vale"
    )
    root = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    await services.knowledge.import_bytes(
        root.id, "world.md", b"# Thornwall\n\nThornwall is a harbour town of grey stone and gulls."
    )
    await emu.invoke(main, gm, "scene start", title="The oath")
    await emu.send_message(main, pat, "Aldric kneels and swears the oath.")
    await emu.invoke(main, gm, "endscene")

    # Fork: players may not; the GM may, and nothing is copied.
    refused = await emu.invoke(main, pat, "campaign fork", name="Dark Road")
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    forked = await emu.invoke(main, gm, "campaign fork", name="Dark Road")
    assert "New branch: Dark Road" in everything(forked.message) and "after scene 1" in everything(
        forked.message
    )
    # The parent moves on after the fork: a later source and a later fact.
    await services.knowledge.import_bytes(
        root.id, "later.md", b"# Sapphires\n\nThe lighthouse keeper hoards sapphires from the wrecks."
    )
    await emu.invoke(main, gm, "canon add fact", subject="Aldric", attribute="horse", value="Grey")

    # Bind the category: its channel now plays in the branch.
    bound = await emu.invoke(dark, gm, "campaign use", branch="Dark Road", scope="category")
    assert "now plays in **Dark Road**" in (bound.content or "")
    info = await emu.invoke(dark, pat, "campaign info")
    assert "Branch: Dark Road" in everything(info.message)

    # A scene in the branch: its story goes on after the fork's scene; its canon stays in the branch.
    started = await emu.invoke(dark, gm, "scene start", title="The dark road")
    assert "Scene 2: The dark road" in everything(started.message)
    await emu.send_message(dark, pat, "Aldric turns his back on the Vale and rides into exile.")
    await emu.invoke(dark, gm, "propose fact", subject="Aldric", attribute="fate", value="exiled")
    await emu.invoke(dark, gm, "endscene")
    cards = [
        m
        for m in emu.channel_messages(dark)
        if any(i.startswith("lk:review:") for i in custom_ids(m.get("components", [])))
    ]
    (card,) = cards
    commit_id = next(i for i in custom_ids(card["components"]) if i.endswith(":commit"))
    committed = await emu.click(card, commit_id, gm)
    assert "1 written to canon" in everything(committed.message)

    # /canon asof in both channels.
    in_branch = everything((await emu.invoke(dark, pat, "canon asof", name="Aldric")).message)
    assert "exiled" in in_branch and "Knight of the Vale" in in_branch and "Grey" not in in_branch
    in_main = everything((await emu.invoke(main, pat, "canon asof", name="Aldric")).message)
    assert "exiled" not in in_main and "Knight of the Vale" in in_main and "Grey" in in_main
    before = everything((await emu.invoke(dark, pat, "canon asof", name="Aldric", scene=1)).message)
    assert "Knight of the Vale" in before and "exiled" not in before

    # /lore ask in both channels: the branch sees the parent's sources up to the fork, and its own canon.
    lore_branch = await answer_and_sources(emu, dark, pat, "Thornwall harbour sapphires Aldric")
    assert (
        "grey stone" in lore_branch
        and "sapphires from the wrecks" not in lore_branch
        and "exiled" in lore_branch
    )
    lore_main = await answer_and_sources(emu, main, pat, "Thornwall harbour sapphires Aldric")
    assert "sapphires from the wrecks" in lore_main and "exiled" not in lore_main

    # The tree, from anywhere.
    tree = everything((await emu.invoke(main, pat, "campaign list")).message)
    assert "Dark Road" in tree and "forked from The Tavern" in tree

    # Abandon: the branch's channel stops answering, the main one goes on.
    abandoned = await emu.invoke(dark, gm, "campaign abandon")
    assert "is abandoned" in (abandoned.content or "")
    stopped = await emu.invoke(dark, gm, "scene start", title="Too late")
    assert stopped.ephemeral and "abandoned" in (stopped.content or "")
    asked = await emu.invoke(dark, pat, "lore ask", question="Thornwall")
    assert asked.ephemeral and "abandoned" in (asked.content or "")

    # Delete, with confirmation: the branch's channel falls back to the server's campaign.
    warning = await emu.invoke(main, gm, "campaign delete", branch="Dark Road")
    assert warning.ephemeral and "cannot be undone" in (warning.content or "")
    (button,) = [i for i in custom_ids(warning.components) if i.startswith("lk:branchdel:")]
    deleted = await emu.click(warning.message, button, gm)
    assert "Deleted the branch “Dark Road”" in (deleted.content or "")
    back = everything((await emu.invoke(dark, pat, "canon asof", name="Aldric")).message)
    assert "Grey" in back and "exiled" not in back


async def play_and_commit(world: World, channel: Channel, title: str, **fact: str) -> None:
    """Play a scene in a channel with one proposed fact, end it and commit it from its review card."""
    emu, gm = world.emu, world.gm
    await emu.invoke(channel, gm, "scene start", title=title)
    await emu.send_message(channel, world.pat, f"We play “{title}”.")
    await emu.invoke(channel, gm, "propose fact", **fact)
    await emu.invoke(channel, gm, "endscene")
    (card,) = [
        m
        for m in emu.channel_messages(channel)
        if any(i.startswith("lk:review:") for i in custom_ids(m.get("components", [])))
        and "1 written to canon" not in everything(m)
    ]
    commit_id = next(i for i in custom_ids(card["components"]) if i.endswith(":commit"))
    committed = await emu.click(card, commit_id, gm)
    assert "1 written to canon" in everything(committed.message), everything(card)


async def test_rebase_promote_unbind_and_the_gm_only_buttons_from_discord(
    branched: tuple[World, Channel], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    world, side_channel = branched
    emu, main, gm, pat = world.emu, world.channel, world.gm, world.pat
    services = world.bot.services
    await emu.invoke(main, gm, "canon add entity", name="Aldric", type="NPC", description="a knight")
    await emu.invoke(main, gm, "scene start", title="The oath")
    await emu.send_message(main, pat, "Aldric swears the oath.")
    await emu.invoke(main, gm, "endscene")
    await emu.invoke(main, gm, "campaign fork", name="Side")
    await emu.invoke(side_channel, gm, "campaign use", branch="Side")

    # Both play on from scene 1: the branch its scene 2, then the parent its own scene 2.
    await play_and_commit(world, side_channel, "Exile", subject="Aldric", attribute="fate", value="exiled")
    await play_and_commit(world, main, "The horse", subject="Aldric", attribute="horse", value="Grey")
    side = await services.campaigns.by_name("Side")

    # The preview shows what comes in and that the branch's scene 2 will follow the parent's, as scene 3.
    preview = await emu.invoke(side_channel, gm, "campaign rebase")
    shown = everything(preview.message)
    assert preview.ephemeral and "Rebase Side on The Tavern?" in shown, shown
    assert "1 scene and" in shown and "Scene 2 of Side will come after the parent's, as scene 3" in shown
    (button,) = [i for i in custom_ids(preview.components) if i.startswith("lk:rebase:")]
    # A player's click is refused, ephemerally, and changes nothing.
    refused = await emu.click(preview.message, button, pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    # The parent moves on after the preview: the old button changes nothing either.
    await emu.invoke(main, gm, "canon add fact", subject="Aldric", attribute="shield", value="Oak")
    stale = await emu.click(preview.message, button, gm)
    assert stale.ephemeral and "changed since" in (stale.content or "")
    unchanged = await services.campaigns.by_name("Side")
    assert unchanged.fork_changeset_id == side.fork_changeset_id and unchanged.fork_scene_order == 1
    again = await emu.invoke(side_channel, gm, "campaign rebase")
    (fresh,) = [i for i in custom_ids(again.components) if i.startswith("lk:rebase:")]
    assert fresh != button
    done = await emu.click(again.message, fresh, gm)
    assert "Rebased Side" in everything(
        done.message
    ) and "now come after the parent's, as scene 3" in everything(done.message)
    assert (await services.campaigns.by_name("Side")).fork_scene_order == 2
    # One story: the parent's scene 2, then the branch's own (now scene 3).
    at_two = everything((await emu.invoke(side_channel, pat, "canon asof", name="Aldric", scene=2)).message)
    assert "Grey" in at_two and "exiled" not in at_two
    at_three = everything((await emu.invoke(side_channel, pat, "canon asof", name="Aldric", scene=3)).message)
    assert "Grey" in at_three and "exiled" in at_three and "Oak" in at_three

    # Promote the branch's fact: the parent's card decides; nothing moves before the GM's accept and commit.
    card = await services.queries.card(side, "Aldric", viewer=Viewer.GM)
    (fate,) = [v.statement.id for v in card.facts if v.statement.predicate == "fate"]
    promoted = await emu.invoke(side_channel, gm, "campaign promote", fact=fate)
    assert promoted.ephemeral and "exiled" in everything(promoted.message)
    ids = custom_ids(promoted.components)
    (accept,) = [i for i in ids if i.startswith("lk:proposal:") and i.endswith(":accept")]
    (commit,) = [i for i in ids if i.startswith("lk:batch:") and ":commit:" in i]
    root = await services.campaigns.for_guild(world.guild.id, world.guild.name)
    assert commit.startswith(f"lk:batch:{root.id}:commit:promote:{side.id}:{fate}:")
    assert "exiled" not in everything((await emu.invoke(main, pat, "canon asof", name="Aldric")).message)
    await emu.click(promoted.message, accept, gm)
    committed = await emu.click(promoted.message, commit, gm)
    assert "1 written to canon" in everything(committed.message)
    assert "exiled" in everything((await emu.invoke(main, pat, "canon asof", name="Aldric")).message)

    # A command in the branch's channel logs under the branch, not the server's campaign.
    from bot.ops.logs import ContextFilter

    caplog.handler.addFilter(ContextFilter())

    async def broken(campaign: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(services.branches, "info", broken)
    caplog.clear()
    failed = await emu.invoke(side_channel, pat, "campaign info")
    assert "give the bot's host this id" in (failed.content or "")
    (error,) = [r for r in caplog.records if r.getMessage().startswith("unexpected error")]
    assert f"campaign={side.id}" in error.context  # type: ignore[attr-defined]
    emu.errors.clear()
    monkeypatch.undo()

    # Unbind: the channel plays in the server's campaign again.
    unbound = await emu.invoke(side_channel, gm, "campaign unbind")
    assert unbound.ephemeral and "Unbound. This channel now plays in **The Tavern**" in (
        unbound.content or ""
    )
    assert "Campaign: The Tavern" in everything(
        (await emu.invoke(side_channel, pat, "campaign info")).message
    )

    # A player's click on the delete confirmation is refused and deletes nothing.
    warning = await emu.invoke(main, gm, "campaign delete", branch="Side")
    (delete,) = [i for i in custom_ids(warning.components) if i.startswith("lk:branchdel:")]
    refused = await emu.click(warning.message, delete, pat)
    assert refused.ephemeral and "Only the GM" in (refused.content or "")
    assert (await services.campaigns.by_name("Side")).id == side.id
    deleted = await emu.click(warning.message, delete, gm)
    assert "Deleted the branch “Side”" in (deleted.content or "")


async def answer_and_sources(emu: Any, channel: Any, user: Any, question: str) -> str:
    """Ask /lore as ``user`` and return the answer with the passages behind its Sources button."""
    asked = await emu.invoke(channel, user, "lore ask", question=question)
    (sources,) = [i for i in custom_ids(asked.message["components"]) if i.startswith("lk:lore:src:")]
    opened = await emu.click(asked.message, sources, user)
    return everything(asked.message) + "\n" + everything(opened.message)
