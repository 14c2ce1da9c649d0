"""Error replies stay private, even after a public "thinking…": the real discord.py client against the emulator.

On Discord the first followup after a "thinking" deferral fills the loading message and keeps the deferral's
flags, whatever its own say (the emulator does the same). A refusal or an error id sent then would be shown
to the whole channel, so the error path takes a public "thinking…" back before it answers, ephemerally; a
message the command already posted, or a clicked card, is left as it was.
"""

from __future__ import annotations

from typing import Any

from canon.errors import NotFound
from tests.e2e.conftest import World
from tests.emulator.interactions import InteractionResult
from tests.emulator.models import custom_ids

ERROR_ID_TEXT = "give the bot's host this id"


def public_text(world: World) -> str:
    """Return everything the bot ever posted in the scene channel for all to see, deleted messages included."""
    return "\n".join(str(m) for m in world.emu.channel_messages(world.channel, include_deleted=True))


def assert_answered_privately(world: World, reply: InteractionResult, wanted: str) -> None:
    """The user got `wanted` ephemerally, as a new message; the public "thinking…" was taken back unfilled."""
    assert reply.deferred and reply.ephemeral and wanted in (reply.content or "")
    original = reply.original_message
    assert original is not None and original["deleted"] and not original["flags"] & 64
    assert not original["content"] and not original["embeds"]  # deleted while it still said "thinking…"
    (followup,) = reply.followups
    assert followup["id"] != original["id"]
    assert wanted not in public_text(world)
    assert not any(m["id"] == original["id"] for m in world.emu.channel_messages(world.channel))


def take_error_id(world: World, reply: InteractionResult) -> None:
    """Check the unexpected error's id was logged, then forget the ERROR record (it was provoked)."""
    error_id = (reply.content or "").split("`")[1]
    assert any(error_id in m for m in world.emu.errors.messages())
    assert "fire" not in (reply.content or "") and error_id not in public_text(world)
    world.emu.errors.clear()


async def broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the database caught fire")


def broken_now(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the renderer caught fire")


# -- /endscene ------------------------------------------------------------------------------------------


async def test_an_unexpected_error_in_endscene_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The fire")
    monkeypatch.setattr(world.bot.services.canon, "end_scene", broken)
    reply = await emu.invoke(chan, world.gm, "endscene")
    assert_answered_privately(world, reply, ERROR_ID_TEXT)
    take_error_id(world, reply)
    (public,) = emu.channel_messages(chan)  # only the scene's start announcement
    assert public["embeds"][0]["title"] == "Scene 1: The fire"


async def test_a_refusal_after_endscenes_thinking_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The vanishing")

    async def gone(channel_id: int) -> Any:
        raise NotFound("There is no scene running in this channel.")

    monkeypatch.setattr(world.bot.services.canon, "end_scene", gone)
    reply = await emu.invoke(chan, world.gm, "endscene")
    assert_answered_privately(world, reply, "no scene running")


async def test_an_error_after_endscenes_report_leaves_the_report_public(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    monkeypatch.setattr(world.bot.services.canon, "record_card", broken)  # after the card is posted
    reply = await emu.invoke(chan, world.gm, "endscene")  # returns once the error handler has answered
    (report, card, error) = reply.followups
    original = reply.original_message
    # The report filled the "thinking…" in public and stays; the card is public; the error is not.
    assert original is not None and not original["deleted"] and report["id"] == original["id"]
    assert report["embeds"][0]["title"].startswith("Scene ended") and not report["flags"] & 64
    assert any(i.startswith("lk:review:") for i in custom_ids(card["components"]))
    assert error["flags"] & 64 and ERROR_ID_TEXT in (error["content"] or "")
    shown = [m["id"] for m in emu.channel_messages(chan)]
    assert report["id"] in shown and card["id"] in shown and error["id"] not in shown
    error_id = (error["content"] or "").split("`")[1]
    assert any(error_id in m for m in emu.errors.messages()) and error_id not in public_text(world)
    emu.errors.clear()


# -- /lore ask public:true ------------------------------------------------------------------------------


async def test_an_unexpected_error_in_a_public_lore_answer_is_told_privately(
    world: World, monkeypatch
) -> None:
    monkeypatch.setattr(world.bot.services.knowledge, "ask", broken)
    reply = await world.emu.invoke(
        world.channel, world.pat, "lore ask", question="Who rules Westhaven?", public=True
    )
    assert_answered_privately(world, reply, ERROR_ID_TEXT)
    take_error_id(world, reply)
    assert world.emu.channel_messages(world.channel) == []


async def test_a_blank_public_lore_question_is_refused_privately(world: World) -> None:
    """The service refuses a blank question (InvalidInput) after the public "thinking…" went out."""
    reply = await world.emu.invoke(world.channel, world.pat, "lore ask", question="   ", public=True)
    assert_answered_privately(world, reply, "Ask a question, for example `/lore ask")
    assert world.emu.channel_messages(world.channel) == []


async def test_a_private_lore_answer_that_fails_fills_its_own_private_thinking(
    world: World, monkeypatch
) -> None:
    """An ephemeral "thinking…" is not withdrawn: the error fills it, still only for the asker."""
    monkeypatch.setattr(world.bot.services.knowledge, "ask", broken)
    reply = await world.emu.invoke(world.channel, world.pat, "lore ask", question="Who rules Westhaven?")
    assert reply.deferred and reply.ephemeral and ERROR_ID_TEXT in (reply.content or "")
    original = reply.original_message
    assert original is not None and not original["deleted"] and original["flags"] & 64
    assert [m["id"] for m in reply.followups] == [original["id"]]
    take_error_id(world, reply)
    assert world.emu.channel_messages(world.channel, include_deleted=True) == []


# -- /canon review, and a button after its deferral ---------------------------------------------------


async def test_an_error_before_the_public_review_card_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    await emu.invoke(chan, world.gm, "endscene")
    before = emu.channel_messages(chan, include_deleted=True)
    monkeypatch.setattr("cogs.canon_views.card_content", broken_now)
    reply = await emu.invoke(chan, world.gm, "canon review")
    assert_answered_privately(world, reply, ERROR_ID_TEXT)
    take_error_id(world, reply)
    assert emu.channel_messages(chan) == [m for m in before if not m["deleted"]]


async def test_a_failed_commit_click_leaves_the_card_and_answers_privately(world: World, monkeypatch) -> None:
    """A button's deferral (type 6) has no "thinking…": the clicked card is never the thing withdrawn."""
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    ended = await emu.invoke(chan, world.gm, "endscene")
    (card,) = [
        m for m in ended.followups if any(i.startswith("lk:review:") for i in custom_ids(m["components"]))
    ]
    monkeypatch.setattr(world.bot.services.canon, "commit_scene", broken)
    (commit,) = [i for i in custom_ids(card["components"]) if i.endswith(":commit")]
    reply = await emu.click(card, commit, world.gm)
    assert reply.ephemeral and ERROR_ID_TEXT in (reply.content or "")
    assert emu.stored(card).view() == card  # neither deleted nor edited
    take_error_id(world, reply)
