"""What the page is sent: messages as a person sees them, the people, the channels and the commands.

Pure functions of the emulator's records. One rule lives here, `visible_to`: an ephemeral message reaches only
the user of the interaction it answered, as on Discord; every list and live event the page gets goes through it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from bot.offline.emulator import Attachment, Channel, DiscordEmulator, Member, StoredMessage
from bot.offline.emulator.models import LOADING

from .world import SandboxWorld

#: The features that need a language model, as the page lists them when none is configured.
LLM_FEATURES = (
    "narration (/narrate, and /scene narrator on)",
    "NPC speech (/npc talk)",
    "reading a scene's transcript into canon proposals at /endscene",
    "reading imported prose into proposals (/lore import extract:true)",
)

#: Pictures the page shows inline; any other file is offered as a download.
INLINE_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def visible_to(message: StoredMessage, user_id: int) -> bool:
    """Return whether a user sees a message: everyone sees a channel's messages; an ephemeral one, its user."""
    if not message.ephemeral:
        return True
    owner = (message.data.get("interaction_metadata") or {}).get("user") or {}
    return str(owner.get("id")) == str(user_id)


def attachment_path(attachment_id: int | str, filename: str) -> str:
    """Return where the page fetches a file (the sandbox serves it; the emulator's port is not the page's)."""
    return f"/attachments/{attachment_id}/{quote(filename)}"


def _attachment_view(entry: dict[str, Any], blob: Attachment | None) -> dict[str, Any]:
    content_type = entry.get("content_type") or (blob.content_type if blob else None) or ""
    return {
        "id": str(entry["id"]),
        "filename": entry["filename"],
        "size": int(entry.get("size") or 0),
        "url": attachment_path(entry["id"], entry["filename"]),
        "image": content_type in INLINE_IMAGES,
        "description": entry.get("description"),
    }


def _local_image(url: str | None, attachments: dict[str, str], emu: DiscordEmulator) -> str | None:
    """Return an embed picture's address on the sandbox, or None: the page loads nothing from elsewhere."""
    if not url:
        return None
    if url.startswith("attachment://"):
        return attachments.get(url.removeprefix("attachment://"))
    prefix = f"{emu.base_url}/attachments/"
    if url.startswith(prefix):
        return "/attachments/" + url.removeprefix(prefix)
    return None


def _embed_view(embed: dict[str, Any], attachments: dict[str, str], emu: DiscordEmulator) -> dict[str, Any]:
    view = {key: value for key, value in embed.items() if key not in ("image", "thumbnail", "video")}
    for key in ("image", "thumbnail"):
        picture = embed.get(key) or {}
        local = _local_image(picture.get("url"), attachments, emu)
        if local is not None:
            view[key] = {"url": local}
    author = embed.get("author")
    if isinstance(author, dict):
        view["author"] = {"name": author.get("name", ""), "url": author.get("url")}
    footer = embed.get("footer")
    if isinstance(footer, dict):
        view["footer"] = {"text": footer.get("text", "")}
    return view


def author_view(message: StoredMessage, emu: DiscordEmulator) -> dict[str, Any]:
    """Return who a message is from as the page shows it: a person, the bot, or an NPC's webhook."""
    author = message.data.get("author") or {}
    webhook = bool(message.data.get("webhook_id")) and "interaction_metadata" not in message.data
    name = author.get("global_name") or author.get("username") or "Someone"
    guild = message.channel.guild
    member = guild.members.get(int(author.get("id", 0))) if guild is not None and not webhook else None
    if member is not None and member.nick:
        name = member.nick
    return {
        "id": str(author.get("id", "")),
        "name": name,
        "bot": bool(author.get("bot")),
        "webhook": webhook,
        "is_lorekeeper": str(author.get("id")) == str(emu.bot_user.id),
    }


def message_view(message: StoredMessage, emu: DiscordEmulator, world: SandboxWorld) -> dict[str, Any]:
    """Return a message as the page renders it (pictures and files at the sandbox's own addresses)."""
    data = message.data
    attachments = [_attachment_view(a, emu.blobs.get(int(a["id"]))) for a in data.get("attachments", [])]
    by_name = {a["filename"]: a["url"] for a in attachments}
    # As Discord does: a file an embed shows (`attachment://NAME`) appears in the embed only, not again below.
    shown = {
        str((embed.get(key) or {}).get("url", "")).removeprefix("attachment://")
        for embed in data.get("embeds", [])
        for key in ("image", "thumbnail")
        if str((embed.get(key) or {}).get("url", "")).startswith("attachment://")
    }
    interaction = None
    metadata = data.get("interaction_metadata")
    if metadata:
        user_id = int((metadata.get("user") or {}).get("id", 0))
        user = emu.users.get(user_id)
        interaction = {
            "user": user.global_name or user.name if user else "Someone",
            "command": world.labels.get(message.id) or command_label(emu, int(metadata.get("id", 0))),
        }
    flags = int(data.get("flags", 0))
    return {
        "id": str(message.id),
        "channel_id": str(message.channel.id),
        "author": author_view(message, emu),
        "content": data.get("content") or "",
        "embeds": [_embed_view(e, by_name, emu) for e in data.get("embeds", [])],
        "components": data.get("components", []),
        "attachments": [a for a in attachments if a["filename"] not in shown],
        "ephemeral": message.ephemeral,
        "loading": bool(flags & LOADING),
        "edited": data.get("edited_timestamp") is not None,
        "timestamp": data.get("timestamp"),
        "interaction": interaction,
    }


def command_label(emu: DiscordEmulator, interaction_id: int) -> str | None:
    """Return what the page says a message answered ("/lore ask", "a button"), while the emulator knows it."""
    record = emu.interactions.get(interaction_id)
    if record is None:
        return None
    return record.label if record.label.startswith("/") else None


def channel_messages(
    emu: DiscordEmulator, world: SandboxWorld, channel: Channel, user_id: int, *, limit: int = 200
) -> list[dict[str, Any]]:
    """Return the newest messages of a channel a user sees, oldest first."""
    shown = [
        m for m in emu.messages.values() if m.channel is channel and not m.deleted and visible_to(m, user_id)
    ]
    shown.sort(key=lambda m: m.id)
    return [message_view(m, emu, world) for m in shown[-limit:]]


def person_view(member: Member, world: SandboxWorld, key: str) -> dict[str, Any]:
    """Return one of the people you can be on the page."""
    return {"key": key, "id": str(member.id), "name": member.nick or member.name, "gm": world.is_gm(member)}


def leaf_commands(command: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten a synced command into what the picker lists: "/lore ask" with its own options."""
    found: list[dict[str, Any]] = []

    def walk(node: dict[str, Any], path: list[str]) -> None:
        subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
        if not subs:
            found.append(
                {
                    "name": " ".join(path),
                    "description": node.get("description", ""),
                    "options": [o for o in node.get("options") or [] if o.get("type") not in (1, 2)],
                }
            )
        for sub in subs:
            walk(sub, [*path, sub["name"]])

    walk(command, [command["name"]])
    return found


def commands_view(emu: DiscordEmulator, channel: Channel, member: Member) -> list[dict[str, Any]]:
    """Return the commands a person's picker offers in a channel, sorted by name."""
    leaves = [leaf for command in emu.commands_for(channel, member) for leaf in leaf_commands(command)]
    return sorted(leaves, key=lambda c: c["name"])
