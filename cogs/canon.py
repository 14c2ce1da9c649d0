"""`/canon ...` and `/retcon`: lookups for everyone, the GM's canon tools; the extension of every canon command.

Thin adapters: call one service method (`CanonQueries`, `ReviewService`, `CanonService`, `CanonAdmin`), render with `cogs.canon_embeds`. Lookups and GM answers are
ephemeral, since they may show GM-only canon. The extension also registers `/propose` (`cogs.canon_propose`),
`/canon add` (`cogs.canon_add`) and the review card's buttons (`cogs.canon_views`).
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import replies
from bot.client.client import Lorekeeper
from bot.services.canon_admin import CanonAdmin
from bot.services.canon_queries import CanonQueries, parse_as_of
from bot.services.canon_service import CanonService
from bot.services.review import ReviewService
from canon.campaigns import Campaign
from canon.conflicts import Show
from canon.errors import NotAllowed
from canon.models import Viewer
from cogs import (
    canon_add,
    canon_cards,
    canon_directory,
    canon_embeds,
    canon_options,
    canon_pictures,
    canon_views,
    conflict_views,
    disagreement_views,
    entity_embeds,
    note_embeds,
    retcon_embeds,
    review_answers,
    review_embeds,
    review_modals,
    submitted,
)
from cogs.canon_options import DATE_HELP, Date, Name, Text, date_choices, entity_names, played_characters
from cogs.canon_propose import ProposeCommands
from cogs.checks import IN_SERVERS, NotGM, actor_of, gm_only, guild_of, not_gm_message
from cogs.places import campaign_here
from memory.knowledge.disagreement_admin import SourceDisagreements

NONE = discord.AllowedMentions.none()


class CanonCommands(commands.Cog):
    """Everyone looks canon up; the GM reviews, checks and retcons it."""

    canon_group = app_commands.Group(
        name="canon",
        description="Look up and manage the campaign's canon",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.canon: CanonService = bot.services.canon
        self.queries: CanonQueries = bot.services.queries
        self.reviews: ReviewService = bot.services.reviews
        self.admin: CanonAdmin = bot.services.admin
        self.disagreements: SourceDisagreements = bot.services.knowledge.disagreements

    async def _campaign(self, interaction: discord.Interaction) -> Campaign:
        return await campaign_here(interaction)

    # -- lookups --------------------------------------------------------------------------------------

    async def _show_card(
        self,
        interaction: discord.Interaction,
        name: str,
        *,
        date: str | None,
        scene: int | None,
        believed_at: str | None = None,
        as_character: str | None = None,
    ) -> None:
        campaign = await self._campaign(interaction)
        viewer = canon_options.viewer_of(interaction)
        calendar = await self.bot.services.calendars.calendar(campaign, viewer) if date else None
        as_of = parse_as_of(at_date=date, at_scene=scene, believed_at=believed_at, calendar=calendar)
        lens = await canon_options.lens_of(interaction, campaign)
        seen_as = None
        if as_character is not None:  # the GM's "as Sable sees it": a player's view through Sable's knowledge
            if viewer != Viewer.GM:
                raise NotAllowed("Only the GM may look at canon as a character sees it.")
            viewer = Viewer.PLAYER
            seen_as, lens = await self.bot.services.reveals.lens_of(campaign, as_character)
        card, words = await self.queries.worded_card(campaign, name, viewer=viewer, as_of=as_of, knowing=lens)
        content = canon_directory.card_content(card, viewer, words, lens)  # with a select of related entities
        embed = entity_embeds.entity_card_embed(
            card, viewer=viewer, as_of=as_of, words=words, knowing=lens, seen_as=seen_as
        )
        if viewer == Viewer.GM:  # the GM's own notes about it: the GM's view only
            note_embeds.add_card_notes(embed, await self.bot.services.notes.about(campaign, card.entity.id))
        content["embed"] = embed
        await interaction.response.send_message(ephemeral=True, allowed_mentions=NONE, **content)

    @canon_group.command(
        name="entity", description="Show an entity's card: state, relations, facts, evidence"
    )
    @app_commands.describe(
        name="The entity",
        as_of_date=DATE_HELP,
        as_of_scene="As it stood after this scene (0: before any)",
        as_character="GM: show it as this player character sees it",
    )
    @app_commands.autocomplete(name=entity_names, as_of_date=date_choices, as_character=played_characters)
    async def entity(
        self,
        interaction: discord.Interaction,
        name: Name,
        as_of_date: Date | None = None,
        as_of_scene: app_commands.Range[int, 0, 1_000_000] | None = None,
        as_character: Name | None = None,
    ) -> None:
        """Show an entity's card."""
        await self._show_card(
            interaction, name, date=as_of_date, scene=as_of_scene, as_character=as_character
        )

    @canon_group.command(
        name="asof", description="Show an entity as of a date, a scene, or what we believed then"
    )
    @app_commands.describe(
        name="The entity",
        date=DATE_HELP,
        scene="As it stood after this scene (0: before any)",
        believed_at="What we believed at a real time, like 2026-11-30T18:00Z",
    )
    @app_commands.autocomplete(name=entity_names, date=date_choices)
    async def asof(
        self,
        interaction: discord.Interaction,
        name: Name,
        date: Date | None = None,
        scene: app_commands.Range[int, 0, 1_000_000] | None = None,
        believed_at: app_commands.Range[str, 1, 60] | None = None,
    ) -> None:
        """Show an entity as of a point."""
        await self._show_card(interaction, name, date=date, scene=scene, believed_at=believed_at)

    @canon_group.command(
        name="timeline", description="Show an entity's story in order, or draw the timeline (of an era)"
    )
    @app_commands.describe(name="The entity; leave it out for the whole timeline, or name an era to draw it")
    @app_commands.autocomplete(name=entity_names)
    async def timeline(self, interaction: discord.Interaction, name: Name | None = None) -> None:
        """Show an entity's timeline (retconned rows struck through); no name or an era: a picture."""
        if name is None or await canon_pictures.names_an_era(interaction, name):
            await canon_pictures.send_timeline(interaction, name)  # a PNG (cogs.canon_pictures)
            return
        campaign = await self._campaign(interaction)
        viewer = canon_options.viewer_of(interaction)
        lens = await canon_options.lens_of(interaction, campaign)
        title, views, words = await self.queries.worded_timeline(campaign, name, viewer=viewer, knowing=lens)
        await interaction.response.send_message(
            embed=entity_embeds.timeline_embed(title, views, viewer=viewer, words=words, knowing=lens),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    # -- the GM's tools -------------------------------------------------------------------------------

    @canon_group.command(name="conflicts", description="Show the continuity conflicts, open ones first (GM)")
    @app_commands.describe(show="Which conflicts: open (the default), closed or all")
    @gm_only()
    async def conflicts(
        self, interaction: discord.Interaction, show: Literal["open", "closed", "all"] = "open"
    ) -> None:
        """List a page of conflicts with both sides, with buttons to resolve or dismiss the open ones; then the
        Canon sources that disagree, with a button per source that may prevail."""
        campaign = await self._campaign(interaction)
        page = await self.queries.conflict_page(campaign, show=Show(show))
        await interaction.response.send_message(
            ephemeral=True, allowed_mentions=NONE, **conflict_views.page_content(page)
        )
        found = await self.disagreements.find(campaign.id)
        if any(j.open for j in found) or (found and show != "open"):
            await interaction.followup.send(
                ephemeral=True, allowed_mentions=NONE, **disagreement_views.content(found)
            )

    @canon_group.command(name="check", description="Check the whole canon for continuity problems (GM)")
    @gm_only()
    async def check(self, interaction: discord.Interaction) -> None:
        """Run every continuity rule over the graph and report the new problems."""
        campaign = await self._campaign(interaction)
        await replies.think(interaction)
        findings, new = await self.queries.check(campaign)
        cited = [e for f in new[:10] for side in f.sides for e in side.evidence]  # the scenes the card names
        words = await self.queries.words(campaign, viewer=Viewer.GM, evidence=cited)
        await replies.answer(interaction, embed=canon_embeds.check_embed(findings, new, words))

    @canon_group.command(
        name="review",
        description="Post this channel's canon review card again (GM); a player reads it privately",
    )
    @app_commands.describe(private="GM: show it only to you, GM-only proposals included")
    async def review(self, interaction: discord.Interaction, private: bool = False) -> None:
        """Re-post the review card of the scene (or import) waiting for its commit in this channel; a player
        reads it privately, with what was kept to those present when they took part in the scene."""
        guild_of(interaction)
        gm_role = self.bot.services.settings.gm_role
        actor = actor_of(interaction, gm_role)
        if not actor.is_gm:  # a scene's review only, as they may read it; anything else is the GM's, unsaid
            read = await self.reviews.read_in_channel(interaction.channel_id or 0, actor)
            if read is None:
                raise NotGM(not_gm_message(gm_role))
            embed = review_embeds.read_review_embed(read)
            await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NONE)
            return
        review = await self.reviews.review_in_channel(interaction.channel_id or 0)
        await replies.think(interaction)
        await canon_cards.post_review(interaction, review, private=private)

    @canon_group.command(
        name="checkpoint",
        description="Review and commit this scene's proposals so far, without ending it (GM)",
    )
    @app_commands.describe(private="Show the card only to you, GM-only proposals included")
    @gm_only()
    async def checkpoint(self, interaction: discord.Interaction, private: bool = False) -> None:
        """Post the review card of the running scene's proposals so far; its Commit keeps the scene going."""
        guild_of(interaction)
        await replies.think(interaction)
        review = await self.canon.checkpoint(interaction.channel_id or 0)
        await canon_cards.post_review(interaction, review, private=private)

    @canon_group.command(name="policy", description="Choose whose proposals need the GM's review (GM)")
    @app_commands.describe(
        authority="Whose proposals", mode="auto: accepted at commit; review: the GM decides"
    )
    @gm_only()
    async def policy(
        self,
        interaction: discord.Interaction,
        authority: Literal["source", "gm", "player", "system"],
        mode: Literal["auto", "review"],
    ) -> None:
        """Change the campaign's authority policy."""
        campaign = await self._campaign(interaction)
        policy = await self.admin.set_policy(campaign, authority, mode)
        await interaction.response.send_message(
            embed=canon_embeds.policy_embed(policy), ephemeral=True, allowed_mentions=NONE
        )

    @app_commands.command(name="retcon", description="Retcon a fact, optionally replacing its value (GM)")
    @app_commands.describe(
        fact="The fact: type some of its words (a name it mentions) and pick it from the list",
        rationale="Why it no longer holds",
        new_value="The value (or, for a relation, the entity) that replaces it",
    )
    @app_commands.autocomplete(fact=canon_options.fact_names)
    @app_commands.guild_only()
    @gm_only()
    async def retcon(
        self,
        interaction: discord.Interaction,
        fact: Name,
        rationale: Text,
        new_value: Text | None = None,
    ) -> None:
        """Mark the fact the GM named retconned, link its replacement, and list the facts to review."""
        campaign = await self._campaign(interaction)
        await replies.think(interaction)
        fact_id = await self.bot.services.facts.pick(campaign, fact, viewer=Viewer.GM)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        result = await self.admin.retcon(campaign, fact_id, actor, rationale=rationale, new_value=new_value)
        await replies.answer(interaction, embed=retcon_embeds.retcon_embed(result, rationale))

    # -- the rationale modals, answered by custom id so that they survive a restart -------------------

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer a submitted review modal: accept, reject or edit (see `cogs.review_modals`)."""
        if interaction.type != discord.InteractionType.modal_submit:
            return
        used = submitted.custom_id(interaction)
        match = review_modals.MODAL.fullmatch(used)
        if match is not None:
            await review_answers.submit_modal(interaction, match["action"], int(match["id"]))
        reason = conflict_views.REASON_MODAL.fullmatch(used)
        if reason is not None:
            await conflict_views.submit_reason(interaction, reason)


async def setup(bot: Lorekeeper) -> None:
    """Register `/propose`, `/canon` (with `/canon add`), `/retcon` and the review card's persistent buttons."""
    bot.add_dynamic_items(
        *canon_views.DYNAMIC_ITEMS,
        *canon_directory.DYNAMIC_ITEMS,
        *conflict_views.DYNAMIC_ITEMS,
        *disagreement_views.DYNAMIC_ITEMS,
    )
    await bot.add_cog(ProposeCommands(bot))
    cog = CanonCommands(bot)
    await bot.add_cog(cog)
    canon_add.attach(cog.canon_group)
    canon_directory.attach(cog.canon_group)


async def teardown(bot: Lorekeeper) -> None:
    """Forget the review card's buttons when the extension is unloaded."""
    bot.remove_dynamic_items(
        *canon_views.DYNAMIC_ITEMS,
        *canon_directory.DYNAMIC_ITEMS,
        *conflict_views.DYNAMIC_ITEMS,
        *disagreement_views.DYNAMIC_ITEMS,
    )
