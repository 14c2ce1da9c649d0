"""Interactions: slash commands, autocomplete, clicks and modal submissions, sent and waited for."""

# Each waiting call takes its own timeout: it bounds the wait and names the culprit on failure.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import copy
import secrets
from collections.abc import Iterable
from typing import Any

from .acting import UsersActing
from .delivery import _describe_tasks, handler_tasks
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    CommandNotAvailable,
    InteractionResult,
    OptionBuilder,
    modal_submission,
    nest_options,
    walk_command,
)
from .messages import StoredMessage, custom_ids, find_component
from .models import ADMINISTRATOR, ALL_PERMISSIONS, Channel, Guild, Member, User


def _bot_permissions(guild: Guild | None, bot_user_id: int) -> int:
    if guild is None:
        return ALL_PERMISSIONS
    return guild.permissions_of(guild.members[bot_user_id])


def _check_available(command: dict[str, Any], channel: Channel, member: Member | None, label: str) -> None:
    contexts = command.get("contexts")
    in_guild = channel.guild is not None
    if contexts is not None and (0 if in_guild else 1) not in contexts:
        raise CommandNotAvailable(
            f"{label}: not available in {'guilds' if in_guild else 'DMs'} ({contexts=})"
        )
    if not in_guild and contexts is None and command.get("dm_permission") is False:
        raise CommandNotAvailable(f"{label}: not available in DMs (dm_permission false)")
    required = command.get("default_member_permissions")
    if in_guild and required is not None and member is not None:
        needed = int(required)
        have = member.permissions
        allowed = bool(have & ADMINISTRATOR) if needed == 0 else have & needed == needed
        if not allowed:
            raise CommandNotAvailable(
                f"{label}: {member.name} lacks default_member_permissions {needed} (has {have})"
            )


def _unanswered(
    record: InteractionResult, pending: set[asyncio.Task[Any]], timeout: float, *, watch: bool, logged: str
) -> str:
    """Say why an interaction that had to be answered was not."""
    if record.deferred:
        state = f"deferred (type {record.response_type}) but never edited nor followed up"
    else:
        state = "never answered"
    if not watch:
        why = f"no answer within {timeout}s (the bot runs out of process: its handlers are not watched)"
    elif pending:
        why = f"handlers still running at the {timeout}s timeout:\n{_describe_tasks(pending)}"
    else:
        why = "the handlers returned without answering (unknown command or custom_id, or an error)"
    errors = f"\nErrors logged meanwhile:\n{logged}" if logged else ""
    return f"{record.label}: the interaction was {state}; {why}{errors}"


def _find_command(
    global_commands: list[dict[str, Any]],
    guild_commands: dict[int, list[dict[str, Any]]],
    channel: Channel,
    name: str,
) -> tuple[dict[str, Any], bool]:
    guild = channel.guild
    if guild is not None:
        for cmd in guild_commands.get(guild.id, []):
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd, True
    for cmd in global_commands:
        if cmd["name"] == name and cmd.get("type", 1) == 1:
            return cmd, False
    synced = sorted(
        {c["name"] for c in global_commands}
        | {c["name"] for c in guild_commands.get(guild.id if guild else 0, [])}
    )
    raise CommandNotAvailable(f"/{name} was not synced here (synced: {synced or 'nothing'})")


class InteractionsSent(UsersActing):
    """Send interactions as users would and wait until the bot answered them."""

    # ------------------------------------------------------------------ interactions

    def _new_interaction(
        self,
        kind: int,
        label: str,
        channel: Channel,
        who: Member | User,
        data: dict[str, Any],
        *,
        source: StoredMessage | None = None,
        locale: str = "en-US",
    ) -> InteractionResult:
        self._check_channel(channel)
        user, member = self._member_or_user(channel, who)
        interaction_id = self.ids.next()
        token = f"emu{interaction_id}{secrets.token_hex(12)}"
        guild = channel.guild
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": {
                **channel.payload(),
                "permissions": str(member.permissions if member else ALL_PERMISSIONS),
            },
            "locale": locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.attachment_size_limit,
            "app_permissions": str(_bot_permissions(guild, self.bot_user.id)),
        }
        if guild is not None and member is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member.payload(with_permissions=True),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        else:
            payload.update(user=user.payload(), context=1, authorizing_integration_owners={"0": str(user.id)})
        if source is not None:
            payload["message"] = copy.deepcopy(source.data)
        record = InteractionResult(
            interaction_id,
            token,
            kind,
            label,
            channel,
            user,
            member,
            payload,
            source_message=source,
            created_at=self.clock.now(),
        )
        self.interactions[interaction_id] = record
        self.interactions_by_token[token] = record
        return record

    async def _run_interaction(
        self, record: InteractionResult, *, timeout: float | None, expect_response: bool, settle: bool
    ) -> InteractionResult:
        timeout = self.timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        guild_id = record.channel.guild_id
        sessions = self.ready_sessions(guild_id)
        if not sessions:
            where = "DMs" if guild_id is None else f"guild {guild_id}"
            raise AssertionError(f"{record.label}: no ready gateway session receives events of {where}")
        session = sessions[-1]  # the newest connection, as one bot process would get it
        before = handler_tasks()
        errors_before = len(self.errors.records)
        await session.dispatch("INTERACTION_CREATE", record.payload)
        await session.sync(timeout)
        # Handlers can only be watched when the bot runs in this process (started by start_bot).
        watch = bool(self._bots)
        while not record.done.is_set():
            pending = {t for t in handler_tasks() if t not in before}
            if watch and not pending:
                break  # every handler returned: nothing is going to answer
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            done_waiter = asyncio.ensure_future(record.done.wait())
            try:
                await asyncio.wait(
                    {done_waiter, *pending}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                done_waiter.cancel()
        if expect_response and not record.done.is_set():
            pending = {t for t in handler_tasks() if t not in before}
            logged = self.errors.records[errors_before:]
            raise AssertionError(
                _unanswered(
                    record,
                    pending,
                    timeout,
                    watch=watch,
                    logged=self.errors.format_records(logged) if logged else "",
                )
            )
        if settle:
            await self._wait_handlers(before, deadline, record.label)
        return record

    def find_command(self, channel: Channel, name: str) -> tuple[dict[str, Any], bool]:
        """Find a synced chat-input command by root name: the guild's commands first, then global ones."""
        return _find_command(self.global_commands, self.guild_commands, channel, name)

    def commands_for(self, channel: Channel, who: Member | User) -> list[dict[str, Any]]:
        """Return the synced chat-input commands a user's client offers in a channel (guild ones first).

        Discord's client lists only what Discord would let this user run there: the same checks as ``invoke``.
        """
        _, member = self._member_or_user(channel, who)
        guild = channel.guild
        scoped = self.guild_commands.get(guild.id, []) if guild is not None else []
        names = {c["name"] for c in scoped}
        offered = []
        for command in [*scoped, *(c for c in self.global_commands if c["name"] not in names)]:
            if command.get("type", 1) != 1:
                continue
            try:
                _check_available(command, channel, member, command["name"])
            except CommandNotAvailable:
                continue
            offered.append(command)
        return offered

    def _command_interaction_data(
        self,
        channel: Channel,
        who: Member | User,
        command: str,
        values: dict[str, Any],
        *,
        focused: str | None = None,
        focused_value: str = "",
    ) -> tuple[dict[str, Any], str]:
        parts = command.strip().lstrip("/").split()
        if not parts:
            raise ValueError("empty command")
        label = "/" + " ".join(parts)
        cmd, guild_scoped = self.find_command(channel, parts[0])
        _, member = self._member_or_user(channel, who)
        _check_available(cmd, channel, member, label)
        leaf, chain = walk_command(cmd, parts[1:])
        builder = OptionBuilder(label, channel.guild, member.permissions if member else ALL_PERMISSIONS)
        leaf_options = builder.build(
            leaf.get("options", []), values, focused=focused, focused_value=focused_value
        )
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": nest_options(chain, leaf_options),
        }
        if builder.resolved:
            data["resolved"] = builder.resolved
        if guild_scoped and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return data, label

    async def invoke(
        self,
        channel: Channel,
        user: Member | User,
        command: str,
        /,
        *,
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
        locale: str = "en-US",
        **kw_options: Any,
    ) -> InteractionResult:
        """Run a slash command ("group sub" for subcommands) and wait until it is answered.

        Options are given by name, typed per the synced definitions (records for users,
        channels, roles and attachments); ``options={...}`` passes names that clash with
        these parameters. Waits for an immediate response, or for a deferral then an edit of
        the original or a followup; with ``settle`` also for the handler to return. Raises
        ``CommandNotAvailable`` when Discord would refuse the command, AssertionError when the
        bot never answers (after ``timeout``, or as soon as its handlers returned).
        """
        values = {**(options or {}), **kw_options}
        data, label = self._command_interaction_data(channel, user, command, values)
        record = self._new_interaction(APPLICATION_COMMAND, label, channel, user, data, locale=locale)
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )

    async def autocomplete(
        self,
        channel: Channel,
        user: Member | User,
        command: str,
        /,
        focused: str,
        value: str = "",
        *,
        options: dict[str, Any] | None = None,
        timeout: float | None = None,
        **kw_options: Any,
    ) -> list[dict[str, Any]]:
        """Send an autocomplete interaction for option ``focused`` typed as ``value``; return the choices."""
        values = {**(options or {}), **kw_options}
        data, label = self._command_interaction_data(
            channel, user, command, values, focused=focused, focused_value=value
        )
        record = self._new_interaction(AUTOCOMPLETE, f"{label} (autocomplete {focused})", channel, user, data)
        await self._run_interaction(record, timeout=timeout, expect_response=True, settle=True)
        if record.choices is None:
            raise AssertionError(f"{record.label}: answered with type {record.response_type}, not choices")
        return record.choices

    async def click(
        self,
        message: dict[str, Any] | StoredMessage,
        custom_id: str,
        user: Member | User,
        *,
        values: Iterable[str] | None = None,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Click a button (or pick select ``values``) on a message, as it is now; wait for the answer."""
        stored = self.stored(message)
        if stored.deleted:
            raise AssertionError(f"message {stored.id} was deleted")
        component = find_component(stored.data.get("components", []), custom_id)
        if component is None:
            known = custom_ids(stored.data.get("components", []))
            raise AssertionError(f"message {stored.id} has no component {custom_id!r}; it has {known}")
        if component.get("disabled"):
            raise AssertionError(f"component {custom_id!r} on message {stored.id} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            picked = list(values or [])
            if component["type"] == 3:
                offered = [o["value"] for o in component.get("options", [])]
                unknown = [v for v in picked if v not in offered]
                if unknown:
                    raise AssertionError(f"select {custom_id!r} offers {offered}, not {unknown}")
            data["values"] = picked
        record = self._new_interaction(
            MESSAGE_COMPONENT, f"click {custom_id!r}", stored.channel, user, data, source=stored
        )
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )

    async def submit_modal(
        self,
        result: InteractionResult,
        user: Member | User,
        values: dict[str, Any],
        *,
        timeout: float | None = None,
        expect_response: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot opened in ``result`` with field values by custom_id."""
        if result.modal is None:
            raise AssertionError(f"{result.label} did not open a modal")
        modal = result.modal
        label = f"modal {modal.get('custom_id')!r}"
        components, resolved = modal_submission(modal, values, label)
        data: dict[str, Any] = {"custom_id": modal["custom_id"], "components": components}
        if resolved:
            data["resolved"] = resolved
        record = self._new_interaction(
            MODAL_SUBMIT, label, result.channel, user, data, source=result.source_message
        )
        return await self._run_interaction(
            record, timeout=timeout, expect_response=expect_response, settle=settle
        )
