"""What the REST handlers share: the request, lookups answering Discord's 404s, and building bot messages."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from . import discord_rules as rules
from .discord_rules import ApiError, invalid
from .interactions import InteractionResult
from .messages import StoredMessage, Webhook
from .models import EPHEMERAL, LOADING, Channel, Guild, now_iso
from .validation import validate_message

if TYPE_CHECKING:
    from .emulator import DiscordEmulator


SUPPRESS_EMBEDS = 1 << 2


class _MessageFields(TypedDict):
    """The fields of a message the bot's body gives: ``message_payload``'s keyword arguments, plus a poll."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[dict[str, Any]]
    flags: int
    poll: NotRequired[dict[str, Any]]


class _InteractionFields(TypedDict):
    """What a message answering an interaction carries beside its body."""

    interaction_metadata: dict[str, Any]
    webhook_id: str
    application_id: str


def unknown(kind: str) -> ApiError:
    codes = {
        "Channel": 10003,
        "Guild": 10004,
        "Member": 10007,
        "Message": 10008,
        "User": 10013,
        "Webhook": 10015,
        "interaction": 10062,
    }
    return ApiError(404, codes[kind], f"Unknown {kind}")


@dataclass
class ApiRequest:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    uploads: dict[int, tuple[str, bytes]]


class RestContext:
    """The emulator a handler works on, and what several groups of handlers need."""

    emu: DiscordEmulator

    # -------------------------------------------------------------- lookups

    def _channel(self, req: ApiRequest) -> Channel:
        channel = self.emu.channels.get(int(req.params["channel_id"]))
        if channel is None or channel.deleted:
            raise unknown("Channel")
        return channel

    def _guild(self, req: ApiRequest) -> Guild:
        guild = self.emu.guilds.get(int(req.params["guild_id"]))
        if guild is None or self.emu.bot_user.id not in guild.members:
            raise unknown("Guild")
        return guild

    def _message(self, req: ApiRequest, channel: Channel) -> StoredMessage:
        stored = self.emu.messages.get(int(req.params["message_id"]))
        if stored is None or stored.deleted or stored.channel is not channel or stored.ephemeral:
            raise unknown("Message")
        return stored

    def _webhook_target(self, req: ApiRequest) -> InteractionResult | Webhook:
        webhook_id, token = int(req.params["webhook_id"]), req.params["token"]
        if webhook_id == self.emu.application_id:
            record = self.emu.interactions_by_token.get(token)
            if record is not None:
                rules.check_token_alive(record.created_at, self.emu.clock.now(), responded=record.responded)
                return record
        webhook = self.emu.webhooks.get(webhook_id)
        if webhook is None or webhook.token != token:
            raise unknown("Webhook")
        return webhook

    # -------------------------------------------------------------- message building

    def _store_upload(self, upload: tuple[str, bytes], entry: dict[str, Any]) -> dict[str, Any]:
        filename, data = upload
        if len(data) > self.emu.attachment_size_limit:
            raise ApiError(413, 40005, "Request entity too large")
        att = self.emu.make_attachment(
            entry.get("filename") or filename, data, description=entry.get("description")
        )
        return att.payload()

    def _attachments(
        self,
        body: dict[str, Any],
        uploads: dict[int, tuple[str, bytes]],
        existing: list[dict[str, Any]] | None,
    ) -> list[dict[str, Any]] | None:
        """Resolve the attachments of a create or edit: kept ones by id, new ones by upload index."""
        if body.get("attachments") is not None:
            kept = {str(a["id"]): a for a in existing or []}
            result = []
            for i, entry in enumerate(body["attachments"]):
                key = str(entry.get("id"))
                if key in kept:
                    result.append(kept[key])
                elif key.isdigit() and int(key) in uploads:
                    result.append(self._store_upload(uploads[int(key)], entry))
                else:
                    raise invalid({f"attachments.{i}.id": f"Unknown attachment or upload {key}"})
            return result
        if uploads:
            return list(existing or []) + [self._store_upload(uploads[i], {}) for i in sorted(uploads)]
        return None

    def build_bot_message(
        self,
        channel: Channel,
        body: dict[str, Any],
        uploads: dict[int, tuple[str, bytes]],
        *,
        author: dict[str, Any] | None = None,
        with_member: bool = True,
        flags: int | None = None,
        allow_empty: bool = False,
        avatar_url: str | None = None,
        **extra: Any,
    ) -> StoredMessage:
        """Create (and store) a message the bot, its interactions or a webhook posted."""
        emu = self.emu
        body = body or {}
        allowed = body.get("allowed_mentions")
        rules.check_allowed_mentions(allowed)
        ref = body.get("message_reference")
        fields: _MessageFields = {
            "content": body.get("content") or "",
            "embeds": [{"type": "rich", **e} for e in body.get("embeds") or []],
            "components": body.get("components") or [],
            "attachments": self._attachments(body, uploads, None) or [],
            "flags": int(body.get("flags") or 0) if flags is None else flags,
        }
        if body.get("poll"):
            fields["poll"] = body["poll"]
        validate_message(fields, allow_empty=allow_empty)
        rules.check_file_count(len(fields["attachments"]))
        bot_member = channel.guild.members.get(emu.bot_user.id) if channel.guild is not None else None
        member = bot_member if with_member else None
        # Interaction responses and webhook messages parse users only when allowed_mentions is absent.
        webhook_like = "interaction_metadata" in extra or "webhook_id" in extra
        default_parse = rules.INTERACTION_DEFAULT_PARSE if webhook_like else rules.MESSAGE_DEFAULT_PARSE
        data = emu.message_payload(
            channel,
            author=author or emu.bot_user.payload(),
            member=member,
            allowed_mentions=allowed,
            message_type=19 if ref else 0,
            message_reference=ref,
            default_parse=default_parse,
            mentioner=bot_member,
            **fields,
            **extra,
        )
        if body.get("nonce") is not None:
            data["nonce"] = body["nonce"]
        stored = StoredMessage(
            data,
            channel,
            emu.blobs,
            allowed_mentions=allowed,
            avatar_url=avatar_url,
            from_bot=True,
            default_parse=default_parse,
            mentioner=bot_member,
        )
        emu.messages[stored.id] = stored
        return stored

    def apply_edit(
        self, stored: StoredMessage, body: dict[str, Any], uploads: dict[int, tuple[str, bytes]]
    ) -> None:
        """Apply a PATCH body to a stored message, as Discord merges edits."""
        body = body or {}
        data = copy.deepcopy(stored.data)
        if "content" in body:
            data["content"] = body["content"] or ""
        if "embeds" in body:
            data["embeds"] = [{"type": "rich", **e} for e in body["embeds"] or []]
        if "components" in body:
            data["components"] = body["components"] or []
        attachments = self._attachments(body, uploads, data.get("attachments"))
        if attachments is not None:
            data["attachments"] = attachments
        was_loading = bool(data.get("flags", 0) & LOADING)
        flags = data.get("flags", 0) & ~LOADING
        if body.get("flags") is not None:
            flags = (flags & ~SUPPRESS_EMBEDS) | (int(body["flags"]) & SUPPRESS_EMBEDS) | (flags & EPHEMERAL)
        data["flags"] = flags
        if body.get("poll"):
            data["poll"] = body["poll"]
        validate_message(data)
        rules.check_file_count(len(data.get("attachments") or []))
        if "content" in body or "allowed_mentions" in body:
            rules.check_allowed_mentions(body.get("allowed_mentions"))
            # resources/message#edit-message: an edit of the content re-parses its mentions under the edit's
            # allowed_mentions, or, when it has none, under the default allowances.
            stored.allowed_mentions = body.get("allowed_mentions")
        self.emu.set_mentions(stored, data)
        # Filling in a deferred "thinking" message does not show as an edit.
        data["edited_timestamp"] = None if was_loading else now_iso()
        stored.data = data

    async def announce(self, event: str, stored: StoredMessage) -> None:
        """Echo a bot-side change on the gateway (ephemeral messages stay private) and to the observers."""
        self.emu.observe(event, stored)
        if stored.ephemeral:
            return
        if event == "MESSAGE_DELETE":
            await self.emu.broadcast_delete(stored)
        else:
            await self.emu.broadcast_message(event, stored)

    def _complete_deferred_update(self, stored: StoredMessage) -> None:
        """A channel edit of the clicked message finishes a deferred component update (type 6)."""
        for record in self.emu.interactions.values():
            if not record.done.is_set() and record.response_type == 6 and record.source_message is stored:
                record.finish(stored)

    # -------------------------------------------------------------- interactions

    def _interaction_fields(self, record: InteractionResult) -> _InteractionFields:
        return {
            "interaction_metadata": {
                "id": str(record.id),
                "type": record.type,
                "user": record.user.payload(),
                "authorizing_integration_owners": record.payload.get("authorizing_integration_owners", {}),
            },
            "webhook_id": str(self.emu.application_id),
            "application_id": str(self.emu.application_id),
        }
