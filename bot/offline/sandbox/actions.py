"""What a person does on the page, done in the emulator as Discord's client would: post, command, click, submit.

Values come from a web form: they are checked and typed here against the command's synced definition, as
Discord's client does before it sends anything, and a mistake is refused with a sentence naming the option.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.offline.emulator import Attachment, Channel, CommandNotAvailable, InteractionResult, Member
from bot.offline.emulator.interactions import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    ROLE,
    STRING,
    USER,
    modal_submission,
)
from bot.offline.emulator.messages import find_component

from .views import leaf_commands, visible_to

if TYPE_CHECKING:
    from .runner import Sandbox

#: How long the page waits for the bot's answer: Discord's interaction token lives 15 minutes.
ANSWER_TIMEOUT = 15 * 60.0
MAX_MESSAGE = 2000


class ActionRefused(Exception):
    """A page action Discord's client would not send; the message is for the person who tried."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Upload:
    """A file chosen on the page."""

    filename: str
    data: bytes
    content_type: str | None = None


def _member(sandbox: Sandbox, user_id: int) -> Member:
    member = sandbox.world.person(user_id)
    if member is None:
        raise ActionRefused("Pick who you are first: the GM or one of the players.", 403)
    return member


def _channel(sandbox: Sandbox, channel_id: int) -> Channel:
    channel = sandbox.world.channel(channel_id)
    if channel is None:
        raise ActionRefused("That channel does not exist in the sandbox.", 404)
    return channel


def _attachment(sandbox: Sandbox, upload: Upload) -> Attachment:
    limit = sandbox.emu.attachment_size_limit
    if len(upload.data) > limit:
        raise ActionRefused(
            f"“{upload.filename}” is {len(upload.data) // 1024} KB: Discord takes files up to {limit // 1024} KB."
        )
    return sandbox.emu.make_attachment(upload.filename, upload.data, content_type=upload.content_type)


async def post_message(
    sandbox: Sandbox,
    user_id: int,
    channel_id: int,
    content: str,
    uploads: list[Upload],
    *,
    settle: bool = False,
) -> None:
    """Post a message as a person, with files, the way Discord's client sends one.

    With ``settle``, return once the bot has handled it (the sample scene's turns are logged before it ends).
    """
    member, channel = _member(sandbox, user_id), _channel(sandbox, channel_id)
    content = content.strip()
    if not content and not uploads:
        raise ActionRefused("Type a message or attach a file first.")
    if len(content) > MAX_MESSAGE:
        raise ActionRefused(f"A message holds at most {MAX_MESSAGE} characters; this one has {len(content)}.")
    if len(uploads) > 10:
        raise ActionRefused("Discord takes at most 10 files a message.")
    files = [_attachment(sandbox, upload) for upload in uploads]
    await sandbox.emu.send_message(
        channel, member, content, attachments=files, settle=settle, timeout=ANSWER_TIMEOUT
    )


def _definition(sandbox: Sandbox, channel: Channel, member: Member, command: str) -> dict[str, Any]:
    for root in sandbox.emu.commands_for(channel, member):
        for leaf in leaf_commands(root):
            if leaf["name"] == command:
                return leaf
    raise ActionRefused(f"/{command} is not a command you can use here.", 404)


def _typed(option: dict[str, Any], raw: Any, sandbox: Sandbox, uploads: dict[str, Upload]) -> Any:
    name, kind = option["name"], option["type"]
    if kind == ATTACHMENT:
        upload = uploads.get(name)
        if upload is None:
            raise ActionRefused(f"Choose a file for “{name}”.")
        return _attachment(sandbox, upload)
    if kind == STRING:
        return str(raw)
    if kind == BOOLEAN:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "false"):
            return str(raw).lower() == "true"
        raise ActionRefused(f"“{name}” is True or False.")
    if kind in (INTEGER, NUMBER):
        try:
            return int(str(raw)) if kind == INTEGER else float(str(raw))
        except ValueError:
            what = "a whole number" if kind == INTEGER else "a number"
            raise ActionRefused(f"“{name}” takes {what}; “{raw}” is not one.") from None
    return _entity(option, raw, sandbox)


def _entity(option: dict[str, Any], raw: Any, sandbox: Sandbox) -> Any:
    name, kind = option["name"], option["type"]
    guild = sandbox.world.guild
    try:
        key = int(str(raw))
    except ValueError:
        raise ActionRefused(f"Pick a value for “{name}” from its list.") from None
    found: Any = None
    if kind in (USER, MENTIONABLE):
        found = guild.members.get(key)
    if kind in (ROLE, MENTIONABLE) and found is None:
        found = guild.roles.get(key)
    if kind == CHANNEL:
        found = sandbox.world.channel(key)
    if found is None:
        raise ActionRefused(f"Pick a value for “{name}” from its list.")
    return found


def _options(
    definition: dict[str, Any],
    values: dict[str, Any],
    uploads: dict[str, Upload],
    sandbox: Sandbox,
    *,
    focused: str | None = None,
) -> dict[str, Any]:
    by_name = {o["name"]: o for o in definition["options"]}
    typed: dict[str, Any] = {}
    for name, raw in values.items():
        option = by_name.get(name)
        if option is None:
            raise ActionRefused(f"/{definition['name']} has no option “{name}”.")
        if name == focused or raw is None or raw == "":
            continue
        typed[name] = _typed(option, raw, sandbox, uploads)
    for name in uploads:
        if name not in typed and name in by_name and by_name[name]["type"] == ATTACHMENT:
            typed[name] = _typed(by_name[name], None, sandbox, uploads)
    if focused is None:
        missing = [o["name"] for o in definition["options"] if o.get("required") and o["name"] not in typed]
        if missing:
            raise ActionRefused(f"/{definition['name']} needs “{missing[0]}”.")
    return typed


def _outcome(sandbox: Sandbox, record: InteractionResult) -> dict[str, Any]:
    """Return what the page needs from an answered interaction: a modal to open, if the bot opened one."""
    if record.modal is not None:
        sandbox.modals[record.id] = record
        return {"modal": record.modal, "interaction_id": str(record.id)}
    return {}


def _refusal(error: AssertionError, what: str) -> ActionRefused:
    if isinstance(error, CommandNotAvailable):
        return ActionRefused(f"Discord would refuse this: {error}")
    return ActionRefused(f"Lorekeeper did not answer {what}. The sandbox's log says why.", 502)


async def run_command(
    sandbox: Sandbox,
    user_id: int,
    channel_id: int,
    command: str,
    values: dict[str, Any],
    uploads: dict[str, Upload],
) -> dict[str, Any]:
    """Run a slash command as a person; return once the bot answered (a modal comes back to open)."""
    member, channel = _member(sandbox, user_id), _channel(sandbox, channel_id)
    definition = _definition(sandbox, channel, member, command)
    options = _options(definition, values, uploads, sandbox)
    try:
        record = await sandbox.emu.invoke(
            channel, member, command, options=options, timeout=ANSWER_TIMEOUT, settle=False
        )
    except AssertionError as error:
        raise _refusal(error, f"/{command}") from error
    return _outcome(sandbox, record)


async def autocomplete(
    sandbox: Sandbox, user_id: int, channel_id: int, command: str, focused: str, values: dict[str, Any]
) -> list[dict[str, Any]]:
    """Ask the bot for an option's choices as a person types it."""
    member, channel = _member(sandbox, user_id), _channel(sandbox, channel_id)
    definition = _definition(sandbox, channel, member, command)
    option = next((o for o in definition["options"] if o["name"] == focused), None)
    if option is None or not option.get("autocomplete"):
        raise ActionRefused(f"“{focused}” of /{command} has no suggestions.")
    typed = _options(definition, values, {}, sandbox, focused=focused)
    try:
        return await sandbox.emu.autocomplete(
            channel, member, command, focused, str(values.get(focused) or ""), options=typed
        )
    except AssertionError as error:
        raise _refusal(error, f"the suggestions for “{focused}”") from error


async def click(
    sandbox: Sandbox, user_id: int, message_id: int, custom_id: str, values: list[str] | None
) -> dict[str, Any]:
    """Press a button or pick from a select menu as a person; the bot decides whether they may."""
    member = _member(sandbox, user_id)
    message = sandbox.emu.messages.get(message_id)
    if message is None or message.deleted or message.channel.guild is not sandbox.world.guild:
        raise ActionRefused("That message is gone.", 404)
    if not visible_to(message, user_id):
        raise ActionRefused("That message is gone.", 404)
    component = find_component(message.data.get("components", []), custom_id)
    if component is None:
        raise ActionRefused("That button is no longer on the message.", 404)
    if component.get("disabled"):
        raise ActionRefused("That button is disabled.")
    try:
        record = await sandbox.emu.click(
            message, custom_id, member, values=values, timeout=ANSWER_TIMEOUT, settle=False
        )
    except AssertionError as error:
        raise _refusal(error, "the click") from error
    return _outcome(sandbox, record)


async def submit_modal(
    sandbox: Sandbox, user_id: int, interaction_id: int, values: dict[str, Any]
) -> dict[str, Any]:
    """Submit a form the bot opened for this person."""
    member = _member(sandbox, user_id)
    opened = sandbox.modals.get(interaction_id)
    if opened is None or opened.user.id != member.id or opened.modal is None:
        raise ActionRefused("That form is closed: open it again.", 404)
    try:
        modal_submission(opened.modal, values, "the form")  # what Discord's client checks before sending
    except AssertionError as error:
        raise ActionRefused(f"The form is not filled in as it asks: {error}") from error
    try:
        record = await sandbox.emu.submit_modal(opened, member, values, timeout=ANSWER_TIMEOUT, settle=False)
    except AssertionError as error:
        raise _refusal(error, "the form") from error
    sandbox.modals.pop(interaction_id, None)
    return _outcome(sandbox, record)
