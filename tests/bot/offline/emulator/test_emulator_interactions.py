"""The emulator's slash commands and components: typed options, permissions, autocomplete, attachments, webhooks, errors, rate limits, buttons and modals."""

from __future__ import annotations

import pytest

from bot.offline.emulator import (
    BotErrorCapture,
    CommandNotAvailable,
)
from tests.helpers.emulator_bot import DemoBot, World


async def test_typed_options_and_resolved_objects(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(
        world.chan,
        world.gm,
        "inspect",
        who=world.pat,
        count=2,
        loud=True,
        where=world.chan,
        role=world.gm_role,
    )
    assert r.content == "Pat|3|True|scene-1|GM|1.0"
    with pytest.raises(CommandNotAvailable, match="takes an integer"):
        await world.emu.invoke(
            world.chan,
            world.gm,
            "inspect",
            who=world.pat,
            count="2",
            loud=True,
            where=world.chan,
            role=world.gm_role,
        )
    with pytest.raises(CommandNotAvailable, match="required option"):
        await world.emu.invoke(world.chan, world.gm, "inspect", who=world.pat)
    with pytest.raises(CommandNotAvailable, match="was not synced"):
        await world.emu.invoke(world.chan, world.gm, "nope")
    with pytest.raises(CommandNotAvailable, match="no subcommand"):
        await world.emu.invoke(world.chan, world.gm, "scene stop")


async def test_default_member_permissions_are_enforced(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.gm, "gm")
    assert r.content == "gm ok True"
    with pytest.raises(CommandNotAvailable, match="default_member_permissions"):
        await world.emu.invoke(world.chan, world.pat, "gm")
    r = await world.emu.invoke(world.chan, world.guild.owner, "gm")
    assert r.content == "gm ok True"


async def test_autocomplete_returns_the_choices(world: World, bot: DemoBot) -> None:
    choices = await world.emu.autocomplete(
        world.chan, world.pat, "propose fact", focused="subject", value="Ald"
    )
    assert choices == [{"name": "Aldric", "value": "Aldric"}, {"name": "Alda", "value": "Alda"}]
    choices = await world.emu.autocomplete(
        world.chan, world.pat, "propose fact", focused="subject", value="b", text="!"
    )
    assert choices == [{"name": "Borin!", "value": "Borin"}]
    with pytest.raises(CommandNotAvailable, match="autocomplete"):
        await world.emu.autocomplete(world.chan, world.pat, "propose fact", focused="text", value="x")


async def test_attachment_option_is_readable(world: World, bot: DemoBot) -> None:
    att = world.emu.make_attachment("lore.md", b"# Thornwall\nA town.\n")
    r = await world.emu.invoke(world.chan, world.gm, "lore import", file=att)
    assert r.content == "lore.md: 20 bytes, starts '# Thornwall'"
    assert r.files == {"lore.md.receipt": b"# THORNWALL\nA TOWN.\n"}
    (attachment,) = r.message["attachments"]  # type: ignore[index]
    assert attachment["filename"] == "lore.md.receipt" and attachment["size"] == 20


async def test_webhook_post_is_recorded_with_its_username(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.gm, "narrate", text="The door creaks.")
    assert r.content == "narrated" and r.ephemeral
    (posted,) = world.emu.channel_messages(world.chan)
    assert posted["content"] == "The door creaks."
    assert posted["author"]["username"] == "Narrator"
    assert posted["files"] == {"map.txt": b"map"}
    assert posted["webhook_id"] == posted["author"]["id"]
    assert int(posted["webhook_id"]) in world.emu.webhooks


async def test_errors_in_commands_are_captured(
    world: World, bot: DemoBot, bot_errors: BotErrorCapture
) -> None:
    with pytest.raises(AssertionError, match=r"(?s)/boom: the interaction was never answered.*kaboom"):
        await world.emu.invoke(world.chan, world.pat, "boom")
    assert any("Ignoring exception in command 'boom'" in m for m in bot_errors.messages())
    assert any(r.exc_info and isinstance(r.exc_info[1].__cause__, RuntimeError) for r in bot_errors.records)
    bot_errors.clear()


async def test_rate_limit_is_retried_without_a_duplicate(world: World, bot: DemoBot) -> None:
    world.emu.fail_next("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.01)
    r = await world.emu.invoke(world.chan, world.gm, "announce", text="Hear ye")
    assert r.content == "sent"
    attempts = world.emu.requests_to("POST", r"^/channels/\d+/messages$")
    assert [a.status for a in attempts] == [429, 200]
    (posted,) = world.emu.channel_messages(world.chan)
    assert posted["content"] == "Hear ye"
    assert posted["allowed_mentions"] == {"parse": []}


# ---------------------------------------------------------------------- components


async def test_click_a_dynamic_button_survives_a_restart(world: World) -> None:
    emu = world.emu
    first = DemoBot()
    await emu.start_bot(first)
    r = await emu.invoke(world.chan, world.gm, "vote")
    message = r.message
    assert message is not None
    buttons = [c["custom_id"] for c in message["components"][0]["components"]]
    assert buttons == ["demo:vote:yes", "demo:vote:no", "demo:tally", "demo:close"]
    click = await emu.click(message, "demo:vote:yes", world.pat)
    assert click.content == "Pat voted yes" and click.ephemeral
    assert first.votes == [(world.pat.id, "yes")]
    await emu.stop_bot(first)

    second = DemoBot()
    await emu.start_bot(second)
    click = await emu.click(message, "demo:vote:no", world.gm)
    assert click.content == "Gina voted no"
    assert second.votes == [(world.gm.id, "no")]
    assert first.votes == [(world.pat.id, "yes")]
    with pytest.raises(AssertionError, match="no component"):
        await emu.click(message, "demo:vote:maybe", world.gm)

    tally = await emu.click(message, "demo:tally", world.pat)  # type 6, then PATCH @original
    assert tally.response_type == 6 and tally.deferred
    assert tally.content == "Vote! (1 so far)"
    assert tally.message is not None and tally.message["id"] == message["id"]
    closed = await emu.click(message, "demo:close", world.gm)  # type 7
    assert closed.response_type == 7
    assert closed.content == "Vote closed" and closed.components == []
    (posted,) = emu.channel_messages(world.chan)
    assert posted["content"] == "Vote closed" and posted["components"] == []
    with pytest.raises(AssertionError, match="no component"):
        await emu.click(message, "demo:vote:yes", world.pat)  # the buttons are gone now
    await emu.stop_bot(second)


async def test_modal_is_recorded_and_can_be_submitted(world: World, bot: DemoBot) -> None:
    r = await world.emu.invoke(world.chan, world.pat, "feedback")
    assert r.response_type == 9 and r.modal is not None
    assert r.modal["title"] == "Feedback"
    done = await world.emu.submit_modal(r, world.pat, {"fb:text": "great inn", "fb:mood": ["happy"]})
    assert done.content == "thanks: great inn (happy)"
    with pytest.raises(AssertionError, match="left empty"):
        await world.emu.submit_modal(r, world.pat, {"fb:mood": ["sad"]})
