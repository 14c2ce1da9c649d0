"""`/session schedule|list|cancel`, `/timezone set|show`, `/server timezone|gm-channel|idle`, `/admin status`."""

from __future__ import annotations

from typing import Literal
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import replies
from bot.client.client import Lorekeeper
from bot.ops.status import collect
from canon.errors import InvalidInput
from canon.storage import utc_now
from cogs import operations_embeds as render
from cogs.checks import IN_SERVERS, IN_SERVERS_AND_DMS, gm_only, guild_only_message
from cogs.places import campaign_here
from cogs.services import services_of

NONE = discord.AllowedMentions.none()
_ZONES = sorted(available_timezones())


async def session_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
    """Suggest the server's scheduled sessions by title and next start; the value is the session's id."""
    if interaction.guild_id is None:
        return []
    services = services_of(interaction)
    now, typed = utc_now(), current.strip().casefold()
    labels = [
        (s.id, render.session_choice_label(s, now)) for s in await services.ops.sessions(interaction.guild_id)
    ]
    return [
        app_commands.Choice(name=label[:100], value=session_id)
        for session_id, label in labels
        if typed in label.casefold() or typed == str(session_id)
    ][:25]


def _guild_id(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise InvalidInput(guild_only_message())
    return interaction.guild_id


async def zone_names(_: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Offer IANA zone names containing what was typed."""
    typed = current.casefold().replace(" ", "_")
    found = (
        [z for z in _ZONES if typed in z.casefold()]
        if typed
        else ["UTC", "Europe/London", "America/New_York"]
    )
    return [app_commands.Choice(name=z, value=z) for z in found[:25]]


class OperationsCommands(commands.Cog):
    """Scheduled sessions, time zones and the server admin's status page."""

    session = app_commands.Group(
        name="session", description="Schedule game sessions", guild_only=True, allowed_contexts=IN_SERVERS
    )
    timezone = app_commands.Group(
        name="timezone",
        description="Your time zone, for scheduled times",
        allowed_contexts=IN_SERVERS_AND_DMS,
    )
    admin = app_commands.Group(
        name="admin",
        description="The bot's health (server admins)",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
        default_permissions=discord.Permissions(manage_guild=True),
    )
    server = app_commands.Group(
        name="server",
        description="This server's time zone, GM channel and reminders (GM)",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.services = bot.services

    # -- /session -------------------------------------------------------------------------------------

    @session.command(name="schedule", description="Schedule a session in this channel, with a reminder (GM)")
    @app_commands.describe(
        when="In your time zone: 2026-12-05 19:30, tomorrow 7pm, friday 19:30, in 2 hours",
        repeat="Once, every day or every week",
        title="What the session is called",
        players="The players' role: the reminder pings it (and nobody else)",
    )
    @gm_only()
    async def schedule(
        self,
        interaction: discord.Interaction,
        when: app_commands.Range[str, 1, 100],
        repeat: Literal["none", "daily", "weekly"] = "none",
        title: app_commands.Range[str, 1, 200] | None = None,
        players: discord.Role | None = None,
    ) -> None:
        """Put a session on the calendar and schedule its reminder."""
        guild_id = _guild_id(interaction)
        now = utc_now()
        scheduled = await self.services.ops.schedule_session(
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            user_id=interaction.user.id,
            when=when,
            repeat=repeat,
            title=title,
            ping_role_id=players.id if players is not None else None,
            now=now,
        )
        # The session is stored first. Where this process runs no scheduler (another process runs shard 0,
        # and the jobs), or the job is lost in a crash, the scheduler adds it within a minute (`reconcile`).
        if self.services.scheduler is not None:
            await self.services.scheduler.schedule_session(scheduled)
        pingable = players is None or players.mentionable or interaction.app_permissions.mention_everyone
        await interaction.response.send_message(
            render.scheduled_text(
                scheduled, self.services.settings.ops.session_reminder_minutes, now, role_pingable=pingable
            ),
            allowed_mentions=NONE,
        )

    @session.command(name="list", description="List this server's scheduled sessions")
    @app_commands.describe(page="Which page, when they do not fit one message")
    async def list_sessions(
        self, interaction: discord.Interaction, page: app_commands.Range[int, 1, 1000] = 1
    ) -> None:
        """Show the upcoming sessions (times in each reader's own time zone)."""
        sessions = await self.services.ops.sessions(_guild_id(interaction))
        await interaction.response.send_message(
            render.sessions_text(sessions, utc_now(), page), ephemeral=True, allowed_mentions=NONE
        )

    @session.command(name="cancel", description="Cancel a scheduled session (GM)")
    @app_commands.describe(session_id="The session: pick it from the suggestions")
    @app_commands.autocomplete(session_id=session_choices)
    @gm_only()
    async def cancel(self, interaction: discord.Interaction, session_id: app_commands.Range[int, 1]) -> None:
        """Cancel a session and its reminders."""
        cancelled = await self.services.ops.cancel_session(_guild_id(interaction), session_id)
        # Without a scheduler here, the job stays until the scheduler's next reconciliation removes it; were
        # it due first, it finds the session cancelled and posts nothing.
        if self.services.scheduler is not None:
            await self.services.scheduler.cancel_session(cancelled.id)
        await interaction.response.send_message(
            f"Cancelled the session **{render.title_text(cancelled.title)}**.",
            allowed_mentions=NONE,
        )

    # -- /timezone ------------------------------------------------------------------------------------

    @timezone.command(name="set", description="Set your time zone (times you type are read in it)")
    @app_commands.describe(zone="An IANA name, like Europe/Berlin or America/New_York")
    @app_commands.autocomplete(zone=zone_names)
    async def timezone_set(
        self, interaction: discord.Interaction, zone: app_commands.Range[str, 1, 64]
    ) -> None:
        """Set the member's own time zone."""
        name = await self.services.ops.set_user_timezone(interaction.user.id, zone)
        await interaction.response.send_message(
            f"Your time zone is now **{name}**.", ephemeral=True, allowed_mentions=NONE
        )

    @timezone.command(name="show", description="Show the time zone your times are read in")
    async def timezone_show(self, interaction: discord.Interaction) -> None:
        """Show the zone the member's times are read in."""
        name = await self.services.ops.timezone_for(interaction.user.id, interaction.guild_id)
        await interaction.response.send_message(
            f"Times you type are read in **{name}**. Change it with `/timezone set`.",
            ephemeral=True,
            allowed_mentions=NONE,
        )

    # -- /admin ---------------------------------------------------------------------------------------

    @admin.command(name="status", description="Database, jobs, command latency and LLM use (server admins)")
    async def status(self, interaction: discord.Interaction) -> None:
        """Show the bot's health as this server sees it."""
        guild_id = _guild_id(interaction)
        await replies.think(interaction)
        campaign = self.services.campaigns.cached_campaign_id(guild_id)
        if interaction.guild is not None:
            campaign = (await campaign_here(interaction, allow_abandoned=True)).id
        status = await collect(self.services, guild_id, campaign)
        await replies.answer(interaction, embed=render.status_embed(status))

    # -- /server (GM) ----------------------------------------------------------------------------------

    @server.command(name="timezone", description="Set the server's default time zone (GM)")
    @app_commands.describe(zone="An IANA name, like Europe/Berlin")
    @app_commands.autocomplete(zone=zone_names)
    @gm_only()
    async def admin_timezone(
        self, interaction: discord.Interaction, zone: app_commands.Range[str, 1, 64]
    ) -> None:
        """Set the zone members without their own are read in."""
        settings = await self.services.ops.configure_guild(_guild_id(interaction), timezone=zone)
        await interaction.response.send_message(
            render.guild_settings_text(settings), ephemeral=True, allowed_mentions=NONE
        )

    @server.command(name="gm-channel", description="Where GM reminders and the nightly check go (GM)")
    @app_commands.describe(channel="A channel only GMs can read: conflicts may name hidden canon")
    @gm_only()
    async def gm_channel(self, interaction: discord.Interaction, channel: discord.TextChannel) -> None:
        """Set the GM channel."""
        settings = await self.services.ops.configure_guild(_guild_id(interaction), gm_channel_id=channel.id)
        await interaction.response.send_message(
            render.guild_settings_text(settings), ephemeral=True, allowed_mentions=NONE
        )

    @server.command(name="idle", description="Remind the GM after a scene is quiet this long (GM; 0: off)")
    @app_commands.describe(minutes="Minutes without a turn; 0 switches the reminder off")
    @gm_only()
    async def idle(
        self, interaction: discord.Interaction, minutes: app_commands.Range[int, 0, 43200]
    ) -> None:
        """Set the idle-scene reminder of this server."""
        settings = await self.services.ops.configure_guild(_guild_id(interaction), idle_minutes=minutes)
        await interaction.response.send_message(
            render.guild_settings_text(settings), ephemeral=True, allowed_mentions=NONE
        )


async def setup(bot: Lorekeeper) -> None:
    """Register the operations commands."""
    await bot.add_cog(OperationsCommands(bot))
