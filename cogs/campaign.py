"""`/campaign fork|use|unbind|list|info|rebase|promote|abandon|delete`: what-if branches from Discord.

Thin adapters over `bot.services.branches.BranchService`. A command acts on the campaign of its channel (`cogs.places`)
unless it names a branch. Rebase and delete answer with a confirmation button first: the button carries the
branch id (and for a rebase the token of the plan the GM was shown), so a stale confirmation changes nothing.

Custom ids (DynamicItems, registered when the extension loads):

    lk:rebase:{branch_id}:{token}             move the fork point as the plan shown (`RebasePlan.token`: the
                                              changeset, scene and sources it brings in)
    lk:branchdel:{branch_id}                  delete the branch, after the warning was shown
"""

from __future__ import annotations

import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import limits, replies
from bot.client.client import Lorekeeper
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.wording.dates import PLAIN_CALENDAR
from cogs import campaign_embeds, canon_cards
from cogs.canon_options import date_choices, viewer_of
from cogs.checks import IN_SERVERS, actor_of, gm_only, guild_of, require_gm
from cogs.embeds import clip
from cogs.places import campaign_here, place_of
from cogs.review_common import guarded
from cogs.services import services_of

NONE = discord.AllowedMentions.none()
Name = app_commands.Range[str, 1, 100]
Scope = Literal["channel", "category"]


async def campaign_names(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest the names of this server's campaigns and branches."""
    if interaction.guild is None:
        return []
    nodes = await services_of(interaction).branches.tree(guild_id=interaction.guild.id)
    typed = current.strip().casefold()
    names = [n.campaign.name for n in nodes if typed in n.campaign.name.casefold()]
    return [app_commands.Choice(name=clip(name, 100), value=name[:100]) for name in names[:25]]


async def _named(interaction: discord.Interaction, name: str | None) -> Campaign:
    """Return the server's campaign called `name`, or the channel's campaign (even an abandoned one)."""
    guild = guild_of(interaction)
    if name is None:
        return await campaign_here(interaction, allow_abandoned=True)
    return await services_of(interaction).campaigns.of_guild_by_name(guild.id, name)


def _place(interaction: discord.Interaction, scope: str) -> tuple[int, list[int]]:
    """Return the id bound for a scope (the channel or its category) and the channels the binding moves."""
    channel = interaction.channel
    channel_id, parent_id, category_id = place_of(channel)
    here = channel_id if channel_id is not None else interaction.channel_id or 0
    if scope == "channel":
        return here, [here]
    if category_id is None:
        raise InvalidInput("This channel is not in a category; bind the channel itself.")
    guild = guild_of(interaction)
    category = guild.get_channel(category_id)
    inside = [c.id for c in getattr(category, "channels", [])] or ([parent_id or here])
    return category_id, inside


class RebaseButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lk:rebase:(?P<branch>[0-9]{1,19}):(?P<token>[0-9a-f-]{1,60})",
):
    """Confirm a rebase that was shown."""

    def __init__(self, branch_id: int, token: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Rebase",
                style=discord.ButtonStyle.danger,
                custom_id=f"lk:rebase:{branch_id}:{token}",
            )
        )
        self.branch_id = branch_id
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RebaseButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["branch"]), match["token"])

    async def callback(self, interaction: discord.Interaction) -> None:
        """Rebase the branch as the plan shown, unless the parent moved on meanwhile."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            guild = guild_of(interaction)
            branch = await services.campaigns.of_guild(self.branch_id, guild.id, guild.name)
            actor = actor_of(interaction, services.settings.gm_role)
            plan = await services.branches.rebase(branch, actor, expect=self.token)
            await interaction.response.edit_message(embed=campaign_embeds.plan_embed(plan), view=None)

        await guarded(interaction, work)


class DeleteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"lk:branchdel:(?P<branch>[0-9]{1,19})"
):
    """Confirm deleting a branch."""

    def __init__(self, branch_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Delete the branch",
                style=discord.ButtonStyle.danger,
                custom_id=f"lk:branchdel:{branch_id}",
            )
        )
        self.branch_id = branch_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DeleteButton:
        """Rebuild the button from its custom id."""
        return cls(int(match["branch"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        """Delete the branch and what it wrote."""

        async def work() -> None:
            services = services_of(interaction)
            require_gm(interaction, services.settings.gm_role)
            guild = guild_of(interaction)
            branch = await services.campaigns.of_guild(self.branch_id, guild.id, guild.name)
            await interaction.response.defer()
            report = await services.branches.delete(branch)
            await interaction.edit_original_response(
                content=campaign_embeds.deleted_text(report), embed=None, view=None
            )

        await guarded(interaction, work)


DYNAMIC_ITEMS = (RebaseButton, DeleteButton)


class CampaignCommands(commands.Cog):
    """Fork what-if branches, choose where they play, bring them up to date, promote, retire."""

    campaign = app_commands.Group(
        name="campaign",
        description="Campaigns and their what-if branches",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot

    @property
    def services(self) -> Any:
        return self.bot.services

    @campaign.command(name="fork", description="Fork a what-if branch of this channel's campaign (GM)")
    @app_commands.describe(
        name="The branch's name",
        at_scene="Fork right after this scene (default: now)",
        at_date="Fork at this in-world date (the list suggests your calendar's words): later canon left out",
    )
    @app_commands.autocomplete(at_date=date_choices)
    @gm_only()
    async def fork(
        self,
        interaction: discord.Interaction,
        name: Name,
        at_scene: app_commands.Range[int, 1, 1_000_000] | None = None,
        at_date: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        """Create a branch: one row, the parent read up to the fork point."""
        parent = await campaign_here(interaction)
        actor = actor_of(interaction, self.services.settings.gm_role)
        branch = await self.services.branches.fork(
            parent, name, at_scene=at_scene, at_date=at_date, actor=actor
        )
        # Posted in the channel: the fork's date as players read it (one in a GM-only era is none).
        words = (await self.services.calendars.calendar(parent)).words() if at_date else PLAIN_CALENDAR
        await interaction.response.send_message(
            embed=campaign_embeds.forked_embed(branch, parent, words), allowed_mentions=NONE
        )

    @campaign.command(
        name="use", description="Play this channel (or its category) in a campaign or branch (GM)"
    )
    @app_commands.describe(
        branch="The campaign or branch", scope="This channel, or every channel of its category"
    )
    @app_commands.autocomplete(branch=campaign_names)
    @gm_only()
    async def use(self, interaction: discord.Interaction, branch: Name, scope: Scope = "channel") -> None:
        """Bind the channel or its category."""
        guild = guild_of(interaction)
        target = await self.services.campaigns.of_guild_by_name(guild.id, branch)
        place, channels = _place(interaction, scope)
        actor = actor_of(interaction, self.services.settings.gm_role)
        await self.services.branches.bind(guild.id, place, scope, target, actor, channels=channels)
        where = (
            "This channel" if scope == "channel" else "Every channel of this category without its own binding"
        )
        await interaction.response.send_message(
            f"{where} now plays in **{target.name}**: its scenes, canon, NPCs and `/lore` answers belong to it.",
            allowed_mentions=NONE,
        )

    @campaign.command(
        name="unbind", description="Stop binding this channel (or its category) to a branch (GM)"
    )
    @app_commands.describe(scope="This channel's binding, or its category's")
    @gm_only()
    async def unbind(self, interaction: discord.Interaction, scope: Scope = "channel") -> None:
        """Remove a binding: the channel plays in what it inherits (its category's, else the server's campaign)."""
        guild = guild_of(interaction)
        place, channels = _place(interaction, scope)
        removed = await self.services.branches.unbind(guild.id, place, channels=channels)
        now = await campaign_here(interaction, allow_abandoned=True)
        text = (
            f"Unbound. This channel now plays in **{now.name}**."
            if removed is not None
            else f"Nothing was bound here; this channel plays in **{now.name}**."
        )
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=NONE)

    @campaign.command(name="list", description="Show this server's campaigns and branches as a tree")
    async def list_(self, interaction: discord.Interaction) -> None:
        """Show the tree with fork points and bound channels."""
        guild = guild_of(interaction)
        here = await campaign_here(interaction, allow_abandoned=True)
        nodes = await self.services.branches.tree(guild_id=guild.id)
        await interaction.response.send_message(
            embed=campaign_embeds.tree_embed(nodes, here=here.id), ephemeral=True, allowed_mentions=NONE
        )

    @campaign.command(
        name="info", description="Show a campaign's or branch's fork point, branches and channels"
    )
    @app_commands.describe(branch="The campaign or branch (default: this channel's)")
    @app_commands.autocomplete(branch=campaign_names)
    async def info(self, interaction: discord.Interaction, branch: Name | None = None) -> None:
        """Show one campaign's card."""
        target = await _named(interaction, branch)
        # A player's counts are of what players may see: hidden canon moves none of them.
        info = await self.services.branches.info(target, viewer=viewer_of(interaction))
        await interaction.response.send_message(
            embed=campaign_embeds.info_embed(info), ephemeral=True, allowed_mentions=NONE
        )

    @campaign.command(
        name="rebase", description="Bring this channel's branch up to its parent's latest canon (GM)"
    )
    @app_commands.describe(branch="The branch (default: this channel's)")
    @app_commands.autocomplete(branch=campaign_names)
    @gm_only()
    async def rebase(self, interaction: discord.Interaction, branch: Name | None = None) -> None:
        """Show what a rebase brings in and the conflicts it makes, with a button to confirm."""
        target = await _named(interaction, branch)
        await replies.think(interaction)
        plan = await self.services.branches.plan_rebase(target)
        if plan.up_to_date:
            await replies.answer(
                interaction, f"**{target.name}** already has everything of **{plan.parent.name}**."
            )
            return
        view = discord.ui.View(timeout=None)
        view.add_item(RebaseButton(target.id, plan.token))
        await replies.answer(interaction, embed=campaign_embeds.plan_embed(plan), view=view)

    @campaign.command(name="promote", description="Propose one of this branch's facts to its parent (GM)")
    @app_commands.describe(fact="The fact's number (#id, as shown by /canon lookups)")
    @gm_only()
    async def promote(
        self, interaction: discord.Interaction, fact: app_commands.Range[int, 1, 2**53]
    ) -> None:
        """Propose the fact in the parent; its review card decides (nothing moves until the GM accepts)."""
        branch = await campaign_here(interaction)
        await replies.think(interaction)
        actor = actor_of(interaction, self.services.settings.gm_role)
        promotion = await self.services.branches.promote(branch, fact, actor)
        review = await self.services.reviews.review(
            None, campaign_id=promotion.parent.id, batch=promotion.batch
        )
        await canon_cards.post_review(interaction, review, private=True)

    @campaign.command(name="abandon", description="Abandon a branch: its channels stop answering (GM)")
    @app_commands.describe(branch="The branch (default: this channel's)")
    @app_commands.autocomplete(branch=campaign_names)
    @gm_only()
    async def abandon(self, interaction: discord.Interaction, branch: Name | None = None) -> None:
        """Mark the branch abandoned; its pending promotions are rejected."""
        target = await _named(interaction, branch)
        actor = actor_of(interaction, self.services.settings.gm_role)
        done = await self.services.branches.abandon(target, actor)
        await interaction.response.send_message(
            f"**{done.name}** is abandoned: channels bound to it no longer answer, and nothing of it will reach "
            "another campaign.",
            allowed_mentions=NONE,
        )

    @campaign.command(name="delete", description="Delete a branch and everything it wrote (GM)")
    @app_commands.describe(branch="The branch")
    @app_commands.autocomplete(branch=campaign_names)
    @gm_only()
    async def delete(self, interaction: discord.Interaction, branch: Name) -> None:
        """Ask for confirmation; the button deletes."""
        target = await _named(interaction, branch)
        if not target.is_branch:
            raise InvalidInput(f"“{target.name}” is a campaign, not a branch; only branches can be deleted.")
        info = await self.services.branches.info(target)
        if info.children:
            names = limits.fit_inline([k.name for k in info.children], 1000)
            raise InvalidInput(f"“{target.name}” has branches of its own ({names}); delete them first.")
        own = info.own
        view = discord.ui.View(timeout=None)
        view.add_item(DeleteButton(target.id))
        await interaction.response.send_message(
            f"Delete **{target.name}**? This removes what it wrote — {own.get('facts', 0)} facts, "
            f"{own.get('scenes', 0)} scenes, {own.get('sources', 0)} sources, {own.get('npc_memories', 0)} NPC "
            f"memories — and its channel bindings. {info.parent.name if info.parent else 'Its parent'} is not "
            "touched. This cannot be undone.",
            view=view,
            ephemeral=True,
            allowed_mentions=NONE,
        )


async def setup(bot: Lorekeeper) -> None:
    """Register the campaign commands and their confirmation buttons."""
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    await bot.add_cog(CampaignCommands(bot))


async def teardown(bot: Lorekeeper) -> None:
    """Forget the confirmation buttons when the extension is unloaded."""
    bot.remove_dynamic_items(*DYNAMIC_ITEMS)
