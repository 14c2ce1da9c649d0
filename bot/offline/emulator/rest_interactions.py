"""Interaction callbacks, followups and webhooks: how the bot answers users and speaks as NPCs."""

from __future__ import annotations

import copy
import secrets
from typing import Any

from . import discord_rules as rules
from .discord_rules import ApiError, invalid
from .interactions import AUTOCOMPLETE, MODAL_SUBMIT, InteractionResult
from .messages import StoredMessage, Webhook
from .models import EPHEMERAL, LOADING
from .rest_base import ApiRequest, RestContext, unknown


def _checked_choices(choices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return autocomplete choices within Discord's limits, else raise its 400."""
    errors: dict[str, str] = {}
    if len(choices) > 25:
        errors["data.choices"] = "Must be 25 or fewer in length."
    for i, choice in enumerate(choices):
        if not 1 <= len(choice.get("name") or "") <= 100:
            errors[f"data.choices.{i}.name"] = "Must be between 1 and 100 in length."
        if isinstance(choice.get("value"), str) and len(choice["value"]) > 100:
            errors[f"data.choices.{i}.value"] = "Must be 100 or fewer in length."
    if errors:
        raise invalid(errors)
    return choices


def _callback_response(record: InteractionResult, kind: int, message: StoredMessage | None) -> dict[str, Any]:
    """Return the body of a callback asked ``with_response``: the interaction and the message it made."""
    shown = message or record.original
    answer: dict[str, Any] = {
        "interaction": {
            "id": str(record.id),
            "type": record.type,
            "activity_instance_id": None,
            "response_message_id": None if shown is None else str(shown.id),
            "response_message_loading": kind == 5,
            "response_message_ephemeral": bool(shown is not None and shown.ephemeral),
        },
        "resource": {"type": kind},
    }
    if message is not None:
        answer["resource"]["message"] = copy.deepcopy(message.data)
    return answer


class InteractionRoutes(RestContext):
    """``/interactions/.../callback`` and ``/webhooks/...``."""

    async def callback(self, req: ApiRequest) -> tuple[int, Any]:
        record = self.emu.interactions.get(int(req.params["interaction_id"]))
        if record is None or record.token != req.params["token"]:
            raise unknown("interaction")
        rules.check_callback_in_time(record.created_at, self.emu.clock.now())
        if record.responded:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = req.json or {}
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        if (record.type == AUTOCOMPLETE) != (kind == 8):
            raise invalid({"type": f"Callback type {kind} is not valid for interaction type {record.type}"})
        if kind in (6, 7) and record.source_message is None:
            raise invalid({"type": f"Callback type {kind} needs a component message"})
        if kind == 9 and record.type == MODAL_SUBMIT:
            raise invalid({"type": "A modal cannot answer a modal submit"})
        message: StoredMessage | None = None
        channel = record.channel
        metadata = self._interaction_fields(record)
        if kind == 4:
            message = self.build_bot_message(channel, data, req.uploads, **metadata)
            record.original = message
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_CREATE", message)
            record.finish(message)
        elif kind == 5:
            flags = (int(data.get("flags") or 0) & EPHEMERAL) | LOADING
            message = self.build_bot_message(channel, {}, {}, flags=flags, allow_empty=True, **metadata)
            record.original = message
            record.deferred = True
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_CREATE", message)
            record.touch()
        elif kind == 6:
            record.original = record.source_message
            record.deferred = True
            record.response_type = kind
            record.callbacks.append(body)
            record.touch()
        elif kind == 7:
            message = record.source_message
            assert message is not None
            self.apply_edit(message, data, req.uploads)
            record.original = message
            record.response_type = kind
            record.callbacks.append(body)
            await self.announce("MESSAGE_UPDATE", message)
            record.finish(message)
        elif kind == 8:
            record.choices = _checked_choices(data.get("choices") or [])
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        elif kind == 9:
            rules.check_modal(data, self.emu.deprecations)
            record.modal = data
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        elif kind == 1:
            record.response_type = kind
            record.callbacks.append(body)
            record.finish(None)
        else:
            raise invalid({"type": f"Unsupported interaction callback type {kind}"})
        if req.query.get("with_response") not in ("1", "true", "True"):
            return 204, None
        return 200, _callback_response(record, kind, message)

    # -------------------------------------------------------------- webhooks

    async def execute_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        target = self._webhook_target(req)
        body = req.json or {}
        wait = req.query.get("wait") in ("1", "true", "True")
        if isinstance(target, InteractionResult):
            return await self._followup(target, body, req.uploads)
        channel = target.channel
        if "thread_id" in req.query:
            channel = self.emu.channels.get(int(req.query["thread_id"])) or channel
        if channel.deleted:
            raise unknown("Channel")
        if body.get("username") is not None:
            rules.check_webhook_name(body["username"], "username", username=True)
        username = (body.get("username") or target.name).strip()
        author = {
            "id": str(target.id),
            "username": username,
            "discriminator": "0000",
            "global_name": None,
            "avatar": None,
            "bot": True,
        }
        stored = self.build_bot_message(
            channel,
            body,
            req.uploads,
            author=author,
            with_member=False,
            avatar_url=body.get("avatar_url"),
            webhook_id=str(target.id),
        )
        await self.announce("MESSAGE_CREATE", stored)
        return (200, copy.deepcopy(stored.data)) if wait else (204, None)

    async def _followup(
        self, record: InteractionResult, body: dict[str, Any], uploads: dict[int, tuple[str, bytes]]
    ) -> tuple[int, Any]:
        if not record.responded:
            raise unknown("Webhook")
        original = record.original
        loading = original is not None and not original.deleted and original.data.get("flags", 0) & LOADING
        if (
            record.response_type == 5
            and original is not None
            and original.deleted
            and not record.done.is_set()
        ):
            rules.deprecated(
                self.emu.deprecations,
                f"{record.label}: a followup after the deferral's loading message was deleted (undocumented: "
                "interactions/receiving-and-responding#create-followup-message says nothing of it)",
            )
        if record.response_type == 5 and original is not None and loading:
            # interactions/receiving-and-responding#create-followup-message: "When using this endpoint directly
            # after responding to an interaction with DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, this endpoint will
            # function as Edit Original Interaction Response ... The ephemeral flag will be ignored ... This
            # behavior is deprecated". Deleted, the loading message is withdrawn: the followup is a new message.
            rules.deprecated(
                self.emu.deprecations,
                f"{record.label}: the first message after a thinking deferral was a followup "
                "(deprecated: edit the original response)",
            )
            self.apply_edit(original, {k: v for k, v in body.items() if k != "flags"}, uploads)
            record.followup_messages.append(original)
            await self.announce("MESSAGE_UPDATE", original)
            record.finish(original)
            return 200, copy.deepcopy(original.data)
        metadata = self._interaction_fields(record)
        stored = self.build_bot_message(record.channel, body, uploads, **metadata)
        record.followup_messages.append(stored)
        await self.announce("MESSAGE_CREATE", stored)
        record.finish(stored)
        return 200, copy.deepcopy(stored.data)

    def _webhook_message(self, req: ApiRequest) -> tuple[InteractionResult | Webhook, StoredMessage]:
        target = self._webhook_target(req)
        raw_id = req.params["message_id"]
        if isinstance(target, InteractionResult):
            if raw_id == "@original":
                stored = target.original
            else:
                candidates = [target.original, *target.followup_messages]
                stored = next((m for m in candidates if m is not None and m.id == int(raw_id)), None)
        else:
            if raw_id == "@original":
                raise unknown("Message")
            stored = self.emu.messages.get(int(raw_id))
            if stored is not None and stored.data.get("webhook_id") != str(target.id):
                stored = None
        if stored is None or stored.deleted:
            raise unknown("Message")
        return target, stored

    async def get_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        _, stored = self._webhook_message(req)
        return 200, copy.deepcopy(stored.data)

    async def edit_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        target, stored = self._webhook_message(req)
        self.apply_edit(stored, req.json or {}, req.uploads)
        await self.announce("MESSAGE_UPDATE", stored)
        if isinstance(target, InteractionResult):
            target.finish(stored)
        return 200, copy.deepcopy(stored.data)

    async def delete_webhook_message(self, req: ApiRequest) -> tuple[int, Any]:
        target, stored = self._webhook_message(req)
        withdrawn = bool(stored.data.get("flags", 0) & LOADING)
        stored.deleted = True
        await self.announce("MESSAGE_DELETE", stored)
        # Deleting the "thinking" message withdraws it: the interaction waits for its followup still.
        if isinstance(target, InteractionResult) and not withdrawn:
            target.finish(None)
        return 204, None

    async def create_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        name = (req.json or {}).get("name") or ""
        rules.check_webhook_name(name, "name", username=False)
        webhook = Webhook(self.emu.ids.next(), secrets.token_urlsafe(32), channel, name, self.emu.bot_user)
        self.emu.webhooks[webhook.id] = webhook
        return 200, webhook.payload()

    async def list_channel_webhooks(self, req: ApiRequest) -> tuple[int, Any]:
        channel = self._channel(req)
        return 200, [w.payload() for w in self.emu.webhooks.values() if w.channel is channel]

    async def list_guild_webhooks(self, req: ApiRequest) -> tuple[int, Any]:
        guild = self._guild(req)
        return 200, [w.payload() for w in self.emu.webhooks.values() if w.channel.guild is guild]

    async def get_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        webhook = self.emu.webhooks.get(int(req.params["webhook_id"]))
        if webhook is None or ("token" in req.params and req.params["token"] != webhook.token):
            raise unknown("Webhook")
        return 200, webhook.payload(with_token="token" not in req.params)

    async def delete_webhook(self, req: ApiRequest) -> tuple[int, Any]:
        webhook = self.emu.webhooks.get(int(req.params["webhook_id"]))
        if webhook is None or ("token" in req.params and req.params["token"] != webhook.token):
            raise unknown("Webhook")
        del self.emu.webhooks[webhook.id]
        return 204, None
