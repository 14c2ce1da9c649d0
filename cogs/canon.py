"""`/propose`, `/canon ...` and `/retcon`: proposing canon in a scene, the GM's canon tools, and lookups.

Thin adapters: build the content from the options (`canon.forms`), call one `CanonService` method, render
with `cogs.canon_embeds`. Lookups and GM answers are ephemeral, since they may show GM-only canon. The review
card's buttons live in `cogs.canon_views`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.canon_service import CanonService, parse_as_of
from bot.client import Lorekeeper
from canon import forms
from canon.campaigns import Campaign
from canon.errors import InvalidInput
from canon.proposals import ProposalContent
from cogs import canon_embeds, canon_options, canon_pictures, canon_views
from cogs.canon_options import (
    entity_name_list,
    entity_names,
    entity_types,
    relation_types,
    state_tags,
    via_kinds,
)
from cogs.checks import actor_of, gm_only, guild_only_message
from cogs.places import campaign_here

NONE = discord.AllowedMentions.none()
Name = app_commands.Range[str, 1, 200]
Date = app_commands.Range[str, 1, 100]
Text = app_commands.Range[str, 1, 1000]
Turns = app_commands.Range[str, 1, 30]

DATE_HELP = "In-world date like 3rd_age.year_300 or 3rd_age.300.3.17"
TURNS_HELP = "The turns that show it, like 12 or 12-15 (default: the latest turn)"
GM_ONLY_HELP = "Hide it from players (GM-only canon)"
RELIES_ON_HELP = "The facts it builds on, like 12 or #12, #15 (a retcon of one lists it for review)"
Facts = app_commands.Range[str, 1, 200]


def _guild(interaction: discord.Interaction) -> discord.Guild:
    if interaction.guild is None:
        raise InvalidInput(guild_only_message())
    return interaction.guild


class CanonCommands(commands.Cog):
    """Propose canon during a scene; the GM adds, reviews, checks and retcons; everyone looks things up."""

    propose = app_commands.Group(
        name="propose", description="Propose canon during this channel's scene", guild_only=True
    )
    canon_group = app_commands.Group(
        name="canon", description="Look up and manage the campaign's canon", guild_only=True
    )
    add = app_commands.Group(name="add", description="Write canon directly (GM)", parent=canon_group)

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.canon: CanonService = bot.services.canon

    async def _campaign(self, interaction: discord.Interaction) -> Campaign:
        return await campaign_here(interaction)

    # -- /propose -------------------------------------------------------------------------------------

    async def _propose(
        self, interaction: discord.Interaction, build: Callable[[], ProposalContent], turns: str | None
    ) -> None:
        campaign = await self._campaign(interaction)
        span = forms.parse_turns(turns)
        content = build()
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        proposals = await self.canon.propose(
            campaign, interaction.channel_id or 0, content, actor, turns=span
        )
        # A player's warnings may rest on GM-only canon: those are left out, unmentioned (the GM reads them
        # on the review card).
        secret: frozenset[int] = frozenset()
        if not actor.is_gm:
            hidden, hidden_warnings = await self.canon.secret_proposals(campaign, proposals)
            secret = hidden | hidden_warnings
        await interaction.followup.send(
            embed=canon_embeds.proposed_embed(proposals, secret=secret), ephemeral=True, allowed_mentions=NONE
        )

    @propose.command(name="fact", description="Propose a fact: subject's attribute has a value")
    @app_commands.describe(
        subject="Who or what it is about",
        attribute="What about it, like title or eye colour",
        value="Its value",
        when=DATE_HELP,
        turns=TURNS_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(subject=entity_names)
    async def propose_fact(
        self,
        interaction: discord.Interaction,
        subject: Name,
        attribute: app_commands.Range[str, 1, 60],
        value: Text,
        when: Date | None = None,
        turns: Turns | None = None,
        relies_on: Facts | None = None,
    ) -> None:
        """Propose `subject.attribute = value`."""
        await self._propose(
            interaction,
            lambda: forms.fact_content(
                subject=subject, attribute=attribute, value=value, when=when, relies_on=relies_on
            ),
            turns,
        )

    @propose.command(name="entity", description="Propose a new person, place, faction, item...")
    @app_commands.describe(
        name="Its name",
        type="Its type in the campaign's ontology",
        description="A few words about it",
        aliases="Other names, separated by commas",
        turns=TURNS_HELP,
    )
    @app_commands.autocomplete(type=entity_types)
    async def propose_entity(
        self,
        interaction: discord.Interaction,
        name: Name,
        type: app_commands.Range[str, 1, 60],
        description: Text | None = None,
        aliases: Text | None = None,
        turns: Turns | None = None,
    ) -> None:
        """Propose a new entity."""
        await self._propose(
            interaction,
            lambda: forms.entity_content(
                name=name, entity_type=type, description=description, aliases=aliases
            ),
            turns,
        )

    @propose.command(name="relationship", description="Propose a relation between two entities")
    @app_commands.describe(
        subject="Who or what it starts from",
        relation="The relation, like ALLY_OF or LOCATED_IN",
        target="Who or what it points at",
        since=DATE_HELP,
        until=DATE_HELP,
        turns=TURNS_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.rename(target="object")
    @app_commands.autocomplete(subject=entity_names, relation=relation_types, target=entity_names)
    async def propose_relationship(
        self,
        interaction: discord.Interaction,
        subject: Name,
        relation: app_commands.Range[str, 1, 60],
        target: Name,
        since: Date | None = None,
        until: Date | None = None,
        turns: Turns | None = None,
        relies_on: Facts | None = None,
    ) -> None:
        """Propose `subject RELATION object`."""
        await self._propose(
            interaction,
            lambda: forms.relationship_content(
                subject=subject,
                relation=relation,
                target=target,
                since=since,
                until=until,
                relies_on=relies_on,
            ),
            turns,
        )

    @propose.command(name="state", description="Propose a change of state: dead, wounded, missing...")
    @app_commands.describe(
        subject="Who or what changes",
        state="The new state",
        via="The event that allows it, like resurrection",
        when=DATE_HELP,
        turns=TURNS_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(subject=entity_names, state=state_tags, via=via_kinds)
    async def propose_state(
        self,
        interaction: discord.Interaction,
        subject: Name,
        state: app_commands.Range[str, 1, 60],
        via: app_commands.Range[str, 1, 60] | None = None,
        when: Date | None = None,
        turns: Turns | None = None,
        relies_on: Facts | None = None,
    ) -> None:
        """Propose that an entity enters a state."""
        await self._propose(
            interaction,
            lambda: forms.state_content(
                subject=subject, state=state, via=via, when=when, relies_on=relies_on
            ),
            turns,
        )

    @propose.command(name="event", description="Propose an event: what happened, when, where, who took part")
    @app_commands.describe(
        name="What happened",
        when=DATE_HELP,
        location="Where it happened",
        era="The era it belongs to",
        participants="Who took part, separated by commas",
        description="A few words about it",
        turns=TURNS_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(location=entity_names, era=entity_names, participants=entity_name_list)
    async def propose_event(
        self,
        interaction: discord.Interaction,
        name: Name,
        when: Date | None = None,
        location: Name | None = None,
        era: Name | None = None,
        participants: Text | None = None,
        description: Text | None = None,
        turns: Turns | None = None,
        relies_on: Facts | None = None,
    ) -> None:
        """Propose an event."""
        await self._propose(
            interaction,
            lambda: forms.event_content(
                name=name,
                when=when,
                location=location,
                era=era,
                participants=participants,
                description=description,
                relies_on=relies_on,
            ),
            turns,
        )

    # -- /canon add -----------------------------------------------------------------------------------

    async def _add(
        self, interaction: discord.Interaction, build: Callable[[], ProposalContent], kind: str
    ) -> None:
        campaign = await self._campaign(interaction)
        content = build()
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        channel = getattr(interaction.channel, "name", None) or interaction.channel_id
        result = await self.canon.add_direct(
            campaign, content, actor, command=f"/canon add {kind} in #{channel}"
        )
        await interaction.followup.send(
            embed=canon_embeds.added_embed(result), ephemeral=True, allowed_mentions=NONE
        )

    @add.command(name="fact", description="Write a fact to canon (GM)")
    @app_commands.describe(
        subject="Who or what it is about",
        attribute="What about it",
        value="Its value",
        when=DATE_HELP,
        gm_only=GM_ONLY_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(subject=entity_names)
    @gm_only()
    async def add_fact(
        self,
        interaction: discord.Interaction,
        subject: Name,
        attribute: app_commands.Range[str, 1, 60],
        value: Text,
        when: Date | None = None,
        gm_only: bool = False,
        relies_on: Facts | None = None,
    ) -> None:
        """Write `subject.attribute = value`."""
        await self._add(
            interaction,
            lambda: forms.fact_content(
                subject=subject,
                attribute=attribute,
                value=value,
                when=when,
                gm_only=gm_only,
                relies_on=relies_on,
            ),
            "fact",
        )

    @add.command(name="entity", description="Write a new entity to canon (GM)")
    @app_commands.describe(
        name="Its name",
        type="Its type in the campaign's ontology",
        description="A few words about it",
        aliases="Other names, separated by commas",
        gm_only=GM_ONLY_HELP,
    )
    @app_commands.autocomplete(type=entity_types)
    @gm_only()
    async def add_entity(
        self,
        interaction: discord.Interaction,
        name: Name,
        type: app_commands.Range[str, 1, 60],
        description: Text | None = None,
        aliases: Text | None = None,
        gm_only: bool = False,
    ) -> None:
        """Write a new entity."""
        await self._add(
            interaction,
            lambda: forms.entity_content(
                name=name, entity_type=type, description=description, aliases=aliases, gm_only=gm_only
            ),
            "entity",
        )

    @add.command(name="relationship", description="Write a relation to canon (GM)")
    @app_commands.describe(
        subject="Who or what it starts from",
        relation="The relation, like ALLY_OF",
        target="Who or what it points at",
        since=DATE_HELP,
        until=DATE_HELP,
        gm_only=GM_ONLY_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.rename(target="object")
    @app_commands.autocomplete(subject=entity_names, relation=relation_types, target=entity_names)
    @gm_only()
    async def add_relationship(
        self,
        interaction: discord.Interaction,
        subject: Name,
        relation: app_commands.Range[str, 1, 60],
        target: Name,
        since: Date | None = None,
        until: Date | None = None,
        gm_only: bool = False,
        relies_on: Facts | None = None,
    ) -> None:
        """Write `subject RELATION object`."""
        await self._add(
            interaction,
            lambda: forms.relationship_content(
                subject=subject,
                relation=relation,
                target=target,
                since=since,
                until=until,
                gm_only=gm_only,
                relies_on=relies_on,
            ),
            "relationship",
        )

    @add.command(name="state", description="Write a change of state to canon (GM)")
    @app_commands.describe(
        subject="Who or what changes",
        state="The new state",
        via="The event that allows it, like resurrection",
        when=DATE_HELP,
        gm_only=GM_ONLY_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(subject=entity_names, state=state_tags, via=via_kinds)
    @gm_only()
    async def add_state(
        self,
        interaction: discord.Interaction,
        subject: Name,
        state: app_commands.Range[str, 1, 60],
        via: app_commands.Range[str, 1, 60] | None = None,
        when: Date | None = None,
        gm_only: bool = False,
        relies_on: Facts | None = None,
    ) -> None:
        """Write that an entity enters a state."""
        await self._add(
            interaction,
            lambda: forms.state_content(
                subject=subject, state=state, via=via, when=when, gm_only=gm_only, relies_on=relies_on
            ),
            "state",
        )

    @add.command(name="event", description="Write an event to canon (GM)")
    @app_commands.describe(
        name="What happened",
        when=DATE_HELP,
        location="Where it happened",
        era="The era it belongs to",
        participants="Who took part, separated by commas",
        description="A few words about it",
        gm_only=GM_ONLY_HELP,
        relies_on=RELIES_ON_HELP,
    )
    @app_commands.autocomplete(location=entity_names, era=entity_names, participants=entity_name_list)
    @gm_only()
    async def add_event(
        self,
        interaction: discord.Interaction,
        name: Name,
        when: Date | None = None,
        location: Name | None = None,
        era: Name | None = None,
        participants: Text | None = None,
        description: Text | None = None,
        gm_only: bool = False,
        relies_on: Facts | None = None,
    ) -> None:
        """Write an event."""
        await self._add(
            interaction,
            lambda: forms.event_content(
                name=name,
                when=when,
                location=location,
                era=era,
                participants=participants,
                description=description,
                gm_only=gm_only,
                relies_on=relies_on,
            ),
            "event",
        )

    # -- lookups --------------------------------------------------------------------------------------

    async def _show_card(
        self,
        interaction: discord.Interaction,
        name: str,
        *,
        date: str | None,
        scene: int | None,
        believed_at: str | None = None,
    ) -> None:
        campaign = await self._campaign(interaction)
        as_of = parse_as_of(at_date=date, at_scene=scene, believed_at=believed_at)
        viewer = canon_options.viewer_of(interaction)
        card = await self.canon.card(campaign, name, viewer=viewer, as_of=as_of)
        await interaction.response.send_message(
            embed=canon_embeds.entity_card_embed(card, viewer=viewer, as_of=as_of),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    @canon_group.command(
        name="entity", description="Show an entity's card: state, relations, facts, evidence"
    )
    @app_commands.describe(
        name="The entity", as_of_date=DATE_HELP, as_of_scene="As it stood after this scene (0: before any)"
    )
    @app_commands.autocomplete(name=entity_names)
    async def entity(
        self,
        interaction: discord.Interaction,
        name: Name,
        as_of_date: Date | None = None,
        as_of_scene: app_commands.Range[int, 0, 1_000_000] | None = None,
    ) -> None:
        """Show an entity's card."""
        await self._show_card(interaction, name, date=as_of_date, scene=as_of_scene)

    @canon_group.command(
        name="asof", description="Show an entity as of a date, a scene, or what we believed then"
    )
    @app_commands.describe(
        name="The entity",
        date=DATE_HELP,
        scene="As it stood after this scene (0: before any)",
        believed_at="What we believed at a real time, like 2026-11-30T18:00Z",
    )
    @app_commands.autocomplete(name=entity_names)
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
        title, views = await self.canon.timeline(campaign, name, viewer=viewer)
        await interaction.response.send_message(
            embed=canon_embeds.timeline_embed(title, views, viewer=viewer),
            ephemeral=True,
            allowed_mentions=NONE,
        )

    # -- the GM's tools -------------------------------------------------------------------------------

    @canon_group.command(name="conflicts", description="Show the recorded continuity conflicts (GM)")
    @gm_only()
    async def conflicts(self, interaction: discord.Interaction) -> None:
        """List recorded conflicts with both sides."""
        campaign = await self._campaign(interaction)
        found = await self.canon.conflicts(campaign)
        await interaction.response.send_message(
            embed=canon_embeds.conflicts_embed(found), ephemeral=True, allowed_mentions=NONE
        )

    @canon_group.command(name="check", description="Check the whole canon for continuity problems (GM)")
    @gm_only()
    async def check(self, interaction: discord.Interaction) -> None:
        """Run every continuity rule over the graph and report the new problems."""
        campaign = await self._campaign(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        findings, new = await self.canon.check(campaign)
        await interaction.followup.send(
            embed=canon_embeds.check_embed(findings, new), ephemeral=True, allowed_mentions=NONE
        )

    @canon_group.command(name="review", description="Post this channel's canon review card again (GM)")
    @app_commands.describe(private="Show it only to you, GM-only proposals included")
    @gm_only()
    async def review(self, interaction: discord.Interaction, private: bool = False) -> None:
        """Re-post the review card of the scene waiting for its commit."""
        _guild(interaction)
        review = await self.canon.review_in_channel(interaction.channel_id or 0)
        await interaction.response.defer(ephemeral=private, thinking=True)
        await canon_views.post_review(interaction, review, private=private)

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
        policy = await self.canon.set_policy(campaign, authority, mode)
        await interaction.response.send_message(
            embed=canon_embeds.policy_embed(policy), ephemeral=True, allowed_mentions=NONE
        )

    @app_commands.command(name="retcon", description="Retcon a fact, optionally replacing its value (GM)")
    @app_commands.describe(
        fact="The fact's number, as shown by /canon entity or /canon timeline",
        rationale="Why it no longer holds",
        new_value="The value (or, for a relation, the entity) that replaces it",
    )
    @app_commands.guild_only()
    @gm_only()
    async def retcon(
        self,
        interaction: discord.Interaction,
        fact: app_commands.Range[int, 1, 2**53],
        rationale: Text,
        new_value: Text | None = None,
    ) -> None:
        """Mark a fact retconned, link its replacement, and list the facts to review."""
        campaign = await self._campaign(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        result = await self.canon.retcon(campaign, fact, actor, rationale=rationale, new_value=new_value)
        await interaction.followup.send(
            embed=canon_embeds.retcon_embed(result, rationale), ephemeral=True, allowed_mentions=NONE
        )

    # -- the rationale modals, answered by custom id so that they survive a restart -------------------

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer a submitted rationale modal, accept or reject (see `cogs.canon_views`)."""
        if interaction.type != discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        match = canon_views.RATIONALE_MODAL.fullmatch(str(data.get("custom_id", "")))
        if match is not None:
            await canon_views.submit_rationale(
                interaction, int(match["id"]), accept=match["action"] == "rationale"
            )


async def setup(bot: Lorekeeper) -> None:
    """Register the canon commands and the review card's persistent buttons."""
    bot.add_dynamic_items(*canon_views.DYNAMIC_ITEMS)
    await bot.add_cog(CanonCommands(bot))


async def teardown(bot: Lorekeeper) -> None:
    """Forget the review card's buttons when the extension is unloaded."""
    bot.remove_dynamic_items(*canon_views.DYNAMIC_ITEMS)
