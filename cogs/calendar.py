"""`/calendar show|set|clear|read`: the campaign's calendar, seen by everyone, set by the GM.

`show` says the calendar in sentences (a player sees the eras a player may see); `set` takes the GM's calendar
block (YAML, `docs/calendar.md`) as an attached file or typed text; `clear` drops it (canon's eras stay);
`read` says how the bot understands a typed date, or the readings to choose from (its autocomplete, like every
date option's, offers dates in words: `cogs.canon_options.date_choices`).
"""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client.client import Lorekeeper
from bot.client.limits import MESSAGE
from canon.date_reading import read_date
from canon.errors import InvalidInput
from canon.models import Viewer
from cogs.attachments import read_attachment
from cogs.canon_options import CALENDAR_DATE_HELP, date_choices, viewer_of
from cogs.checks import IN_SERVERS, gm_only
from cogs.embeds import clip
from cogs.places import campaign_here

NONE = discord.AllowedMentions.none()
#: The largest calendar file taken (a calendar is a short YAML block).
MAX_FILE = 20_000


class CalendarCommands(commands.Cog):
    """See and set the campaign's calendar."""

    group = app_commands.Group(
        name="calendar",
        description="The campaign's calendar: eras, months, seasons",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot

    @group.command(name="show", description="Show the campaign's calendar: its eras, months and seasons")
    async def show(self, interaction: discord.Interaction) -> None:
        """Say the calendar in sentences (the GM also gets the block to edit and set again)."""
        campaign = await campaign_here(interaction)
        calendars = self.bot.services.calendars
        if viewer_of(interaction) == Viewer.GM:
            view = await calendars.view(campaign)
            text = view.sentences
            files = (
                [discord.File(io.BytesIO(view.block.encode()), filename="calendar.yaml")]
                if view.block
                else []
            )
            if not view.block:
                text += "\nNo calendar block is set: `/calendar set` adds abbreviations, months and seasons."
        else:
            text, files = (await calendars.calendar(campaign, Viewer.PLAYER)).describe(), []
        await interaction.response.send_message(
            clip(text, MESSAGE), files=files, ephemeral=True, allowed_mentions=NONE
        )

    @group.command(name="set", description="Set the campaign's calendar from a YAML file or text (GM)")
    @app_commands.describe(
        file="A calendar file (YAML): eras, months, seasons, as in the calendar guide",
        text="Or the calendar typed out: in words as /calendar show says it, or YAML",
    )
    @gm_only()
    async def set_calendar(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment | None = None,
        text: app_commands.Range[str, 1, 4000] | None = None,
    ) -> None:
        """Check the block against canon's eras and store it; say the calendar that results."""
        if (file is None) == (text is None):
            raise InvalidInput("Attach a calendar file or type the calendar, one of the two.")
        if file is not None:
            if file.size > MAX_FILE:
                raise InvalidInput(f"“{file.filename}” is too large for a calendar (at most 20,000 bytes).")
            try:
                text = (await read_attachment(file)).decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidInput(f"“{file.filename}” is not a text file; a calendar is YAML.") from None
        campaign = await campaign_here(interaction)
        view = await self.bot.services.calendars.set_block(campaign, text or "")
        await interaction.response.send_message(
            clip("The campaign's calendar is set.\n" + view.sentences, MESSAGE),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @group.command(name="clear", description="Drop the calendar block; eras from canon stay (GM)")
    @gm_only()
    async def clear(self, interaction: discord.Interaction) -> None:
        """Store an empty block."""
        view = await self.bot.services.calendars.set_block(await campaign_here(interaction), "")
        await interaction.response.send_message(
            clip("The calendar block is cleared.\n" + view.sentences, MESSAGE),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @group.command(name="read", description="See how a date you type is understood on this calendar")
    @app_commands.describe(date=CALENDAR_DATE_HELP)
    @app_commands.autocomplete(date=date_choices)
    async def read(self, interaction: discord.Interaction, date: app_commands.Range[str, 1, 200]) -> None:
        """Answer with the date in the calendar's words, or why not and the readings to choose from."""
        campaign = await campaign_here(interaction)
        calendar = await self.bot.services.calendars.calendar(campaign, viewer_of(interaction))
        reading = read_date(date, calendar)
        if reading.date is None:
            raise InvalidInput(reading.sentence())
        answer = f"That is {calendar.say(reading.date)}."
        if reading.note:
            answer += " " + reading.note
        await interaction.response.send_message(answer, ephemeral=True, allowed_mentions=NONE)


async def setup(bot: Lorekeeper) -> None:
    """Load the calendar commands."""
    await bot.add_cog(CalendarCommands(bot))
