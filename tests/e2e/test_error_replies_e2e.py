"""Error replies stay private, even after a public "thinking…": the real discord.py client against the emulator.

Discord documents the first answer after a "thinking" deferral as an edit of that message (a followup sent
instead fills it too, keeping the deferral's flags: deprecated, and the emulator fails a test relying on it).
So a private "thinking…" is edited into the error; a public one is filled with a neutral mark, the error goes
in a private followup (a new message, documented), and the public message is deleted. A message the command
already posted in the channel, or a clicked card, is left as it was.
"""

from __future__ import annotations

from typing import Any

from bot.client.replies import WITHDRAWN
from bot.offline.emulator.interactions import InteractionResult
from bot.offline.emulator.messages import custom_ids
from canon.errors import NotFound
from tests.e2e.conftest import World, scene_report, sql_run_below

pytestmark = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)

ERROR_ID_TEXT = "give the bot's host this id"


def public_text(world: World) -> str:
    """Return everything the bot ever posted in the scene channel for all to see, deleted messages included."""
    return "\n".join(str(m) for m in world.emu.channel_messages(world.channel, include_deleted=True))


def assert_answered_privately(world: World, reply: InteractionResult, wanted: str) -> str:
    """The user got `wanted` in a private followup; the public "thinking…" never carried it and is gone.

    Returns the private text.
    """
    original = reply.original_message
    assert reply.deferred and original is not None and not original["flags"] & 64
    assert original["deleted"] and original["content"] == WITHDRAWN and not original["embeds"]
    (followup,) = reply.followups
    assert followup["id"] != original["id"] and followup["flags"] & 64 and wanted in followup["content"]
    assert wanted not in public_text(world)
    assert not any(m["id"] == original["id"] for m in world.emu.channel_messages(world.channel))
    return str(followup["content"])


def take_error_id(world: World, text: str | None) -> None:
    """Check the unexpected error's id was logged, then forget the ERROR record (it was provoked)."""
    error_id = (text or "").split("`")[1]
    assert any(error_id in m for m in world.emu.errors.messages())
    assert "fire" not in (text or "") and error_id not in public_text(world)
    world.emu.errors.clear()


async def broken(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the database caught fire")


def broken_now(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the renderer caught fire")


# -- /endscene: a private "thinking…", the progress in a channel message --------------------------------


async def test_an_unexpected_error_in_endscene_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The fire")
    monkeypatch.setattr(world.bot.services.canon, "end_scene", broken)
    reply = await emu.invoke(chan, world.gm, "endscene")
    assert reply.ephemeral and "Ending “The fire”" in (reply.content or "")
    (error,) = reply.followups
    assert error["flags"] & 64 and ERROR_ID_TEXT in error["content"]
    take_error_id(world, error["content"])
    (public,) = emu.channel_messages(chan)  # only the scene's start announcement: the progress is taken back
    assert public["embeds"][0]["title"] == "Scene 1: The fire"


async def test_a_refusal_after_endscenes_thinking_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The vanishing")

    async def gone(channel_id: int, **kwargs: Any) -> Any:
        raise NotFound("There is no scene running in this channel.")

    monkeypatch.setattr(world.bot.services.canon, "end_scene", gone)
    reply = await emu.invoke(chan, world.gm, "endscene")
    (refusal,) = reply.followups
    assert refusal["flags"] & 64 and "no scene running" in refusal["content"]
    assert "no scene running" not in public_text(world)
    assert len(emu.channel_messages(chan)) == 1


async def test_an_error_after_endscenes_report_leaves_the_report_public(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    monkeypatch.setattr(world.bot.services.reviews, "record_card", broken)  # after the card is posted
    reply = await emu.invoke(chan, world.gm, "endscene")  # returns once the error handler has answered
    (error,) = reply.followups
    # The report and the card are public and stay; the error is private.
    report = scene_report(emu, chan)
    (card,) = [
        m
        for m in emu.channel_messages(chan)
        if any(i.startswith("lk:review:") for i in custom_ids(m["components"]))
    ]
    assert not report["flags"] & 64 and not card["flags"] & 64
    assert error["flags"] & 64 and ERROR_ID_TEXT in (error["content"] or "")
    assert error["id"] not in [m["id"] for m in emu.channel_messages(chan)]
    take_error_id(world, error["content"])


# -- /lore ask public:true: a public "thinking…" ---------------------------------------------------------


async def test_an_unexpected_error_in_a_public_lore_answer_is_told_privately(
    world: World, monkeypatch
) -> None:
    monkeypatch.setattr(world.bot.services.knowledge.answers, "ask", broken)
    reply = await world.emu.invoke(
        world.channel, world.pat, "lore ask", question="Who rules Westhaven?", public=True
    )
    take_error_id(world, assert_answered_privately(world, reply, ERROR_ID_TEXT))
    assert world.emu.channel_messages(world.channel) == []


async def test_a_blank_public_lore_question_is_refused_privately(world: World) -> None:
    """The service refuses a blank question (InvalidInput) after the public "thinking…" went out."""
    reply = await world.emu.invoke(world.channel, world.pat, "lore ask", question="   ", public=True)
    assert_answered_privately(world, reply, "Ask a question, for example `/lore ask")
    assert world.emu.channel_messages(world.channel) == []


async def test_a_private_lore_answer_that_fails_fills_its_own_private_thinking(
    world: World, monkeypatch
) -> None:
    """An ephemeral "thinking…" is edited into the error: no followup, nothing public."""
    monkeypatch.setattr(world.bot.services.knowledge.answers, "ask", broken)
    reply = await world.emu.invoke(world.channel, world.pat, "lore ask", question="Who rules Westhaven?")
    assert reply.deferred and reply.ephemeral and ERROR_ID_TEXT in (reply.content or "")
    original = reply.original_message
    assert original is not None and not original["deleted"] and original["flags"] & 64
    assert reply.followups == []
    take_error_id(world, reply.content)
    assert world.emu.channel_messages(world.channel, include_deleted=True) == []


# -- /canon review, and a button after its deferral ---------------------------------------------------


async def test_an_error_before_the_public_review_card_is_told_privately(world: World, monkeypatch) -> None:
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    await emu.invoke(chan, world.gm, "endscene")
    before = emu.channel_messages(chan, include_deleted=True)
    monkeypatch.setattr("cogs.canon_cards.card_content", broken_now)
    reply = await emu.invoke(chan, world.gm, "canon review")  # a private "thinking…": the card goes public
    assert reply.deferred and reply.ephemeral and ERROR_ID_TEXT in (reply.content or "")
    assert reply.followups == []
    take_error_id(world, reply.content)
    assert emu.channel_messages(chan) == [m for m in before if not m["deleted"]]


async def test_a_failed_commit_click_leaves_the_card_and_answers_privately(world: World, monkeypatch) -> None:
    """A button's deferral (type 6) has no "thinking…": the clicked card is never the thing withdrawn."""
    emu, chan = world.emu, world.channel
    await emu.invoke(chan, world.gm, "scene start", title="The ambush")
    await emu.send_message(chan, world.pat, "I draw my bow.")
    await emu.invoke(chan, world.pat, "propose state", subject="Aldric", state="dead")
    await emu.invoke(chan, world.gm, "endscene")
    (card,) = [
        m
        for m in emu.channel_messages(chan)
        if any(i.startswith("lk:review:") for i in custom_ids(m["components"]))
    ]
    (commit,) = [i for i in custom_ids(card["components"]) if i.endswith(":commit")]
    await emu.click(card, commit.replace(":commit", ":accept_all"), world.gm)  # nothing left undecided
    card = emu.stored(card).view()
    monkeypatch.setattr(world.bot.services.canon, "commit_scene", broken)
    reply = await emu.click(card, commit, world.gm)
    assert reply.ephemeral and ERROR_ID_TEXT in (reply.content or "")
    assert emu.stored(card).view() == card  # neither deleted nor edited
    take_error_id(world, reply.content)
