"""`/propose fact|entity|relationship|state|event`: anyone proposes canon during a scene, for the GM's review.

Thin adapters: build the content from the options (`canon.forms`), call `ProposalService.propose`, render with
`cogs.canon_embeds`. The answer is ephemeral: a player's warnings that rest on GM-only canon are left out.
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import replies
from bot.client.client import Lorekeeper
from bot.services.canon_queries import CanonQueries
from bot.services.proposal_service import ProposalService
from bot.services.review import ReviewService
from canon import forms
from canon.models import Viewer
from canon.proposals import ProposalContent, citations, renamed
from cogs import canon_embeds
from cogs.canon_options import (
    DATE_HELP,
    RELIES_ON_HELP,
    TURNS_HELP,
    Date,
    Facts,
    Name,
    Text,
    Turns,
    Word,
    attribute_names,
    cited_facts,
    date_choices,
    entity_name_list,
    entity_names,
    entity_types,
    fact_list_names,
    place_names,
    relation_types,
    state_tags,
    via_kinds,
)
from cogs.checks import IN_SERVERS, actor_of
from cogs.places import campaign_here

NONE = discord.AllowedMentions.none()
RESOLUTION_HELP = "The turn of the dice roll that decided it (another bot's message in this scene)"
PRESENT_HELP = "Only those present in this scene may learn it: kept off the public review card"
#: What the proposer reads when they kept a proposal to those present (`present_only`).
KEPT_TO_PRESENT = (
    "Kept to those present: no public card shows it. The GM decides it privately; once it is committed, the "
    "characters of the players who spoke in this scene know it."
)
Roll = app_commands.Range[int, 1, 1_000_000]


class ProposeCommands(commands.Cog):
    """Propose canon during this channel's scene: a fact, an entity, a relation, a change of state, an event."""

    propose = app_commands.Group(
        name="propose",
        description="Propose canon during this channel's scene",
        guild_only=True,
        allowed_contexts=IN_SERVERS,
    )

    def __init__(self, bot: Lorekeeper) -> None:
        self.bot = bot
        self.proposals: ProposalService = bot.services.proposals
        self.reviews: ReviewService = bot.services.reviews
        self.queries: CanonQueries = bot.services.queries

    async def _propose(
        self,
        interaction: discord.Interaction,
        build: Callable[[str | None], ProposalContent],
        turns: str | None,
        resolution: int | None = None,
        relies_on: str | None = None,
        present_only: bool = False,
    ) -> None:
        campaign = await campaign_here(interaction)
        span = forms.parse_turns(turns)
        content = build(await cited_facts(interaction, campaign, relies_on))
        await replies.think(interaction)
        actor = actor_of(interaction, self.bot.services.settings.gm_role)
        proposals = await self.proposals.propose(
            campaign,
            interaction.channel_id or 0,
            content,
            actor,
            turns=span,
            resolution=resolution,
            present_only=present_only,
        )
        # A player's warnings may rest on GM-only canon: those are left out, unmentioned (the GM reads them
        # on the review card). The proposal itself is the player's own: shown back even when kept to those present.
        secret: frozenset[int] = frozenset()
        if not actor.is_gm:
            _, secret = await self.reviews.secret_proposals(campaign, proposals)
        # A date the proposer did not give is the scene's: the reply says so, in the calendar's words.
        stored = proposals[-1].content  # "born 1190" is stored as the birth it is, dated by its own value
        scene_dated = (
            canon_embeds.date_of(content) is None
            and canon_embeds.date_of(stored) is not None
            and type(stored) is type(content)
        )
        cited = [
            e
            for p in proposals
            for e in (*p.evidence, *(e for w in p.warnings for side in w.sides for e in side.evidence))
        ]
        viewer = Viewer.GM if actor.is_gm else Viewer.PLAYER
        words = await self.queries.words(
            campaign,
            viewer=viewer,
            evidence=cited,
            facts=[i for p in proposals for i in citations(p.content)],
        )
        embed = canon_embeds.proposed_embed(
            proposals, secret=secret, words=words, scene_dated=scene_dated, renamed=renamed(content, stored)
        )
        if present_only:
            embed.add_field(name="Only those present", value=KEPT_TO_PRESENT, inline=False)
        await replies.answer(interaction, embed=embed)

    @propose.command(name="fact", description="Propose a fact: subject's attribute has a value")
    @app_commands.describe(
        subject="Who or what it is about",
        attribute="What about it, like title or eye colour",
        value="Its value",
        when=DATE_HELP,
        turns=TURNS_HELP,
        resolution=RESOLUTION_HELP,
        relies_on=RELIES_ON_HELP,
        present_only=PRESENT_HELP,
    )
    @app_commands.autocomplete(
        subject=entity_names, attribute=attribute_names, when=date_choices, relies_on=fact_list_names
    )
    async def propose_fact(
        self,
        interaction: discord.Interaction,
        subject: Name,
        attribute: Word,
        value: Text,
        when: Date | None = None,
        turns: Turns | None = None,
        resolution: Roll | None = None,
        relies_on: Facts | None = None,
        present_only: bool = False,
    ) -> None:
        """Propose `subject.attribute = value`."""
        await self._propose(
            interaction,
            lambda facts: forms.fact_content(
                subject=subject, attribute=attribute, value=value, when=when, relies_on=facts
            ),
            turns,
            resolution,
            relies_on=relies_on,
            present_only=present_only,
        )

    @propose.command(name="entity", description="Propose a new person, place, faction, item...")
    @app_commands.describe(
        name="Its name",
        type="Its type in the campaign's ontology",
        description="A few words about it",
        aliases="Other names, separated by commas",
        turns=TURNS_HELP,
        present_only=PRESENT_HELP,
    )
    @app_commands.autocomplete(type=entity_types)
    async def propose_entity(
        self,
        interaction: discord.Interaction,
        name: Name,
        type: Word,
        description: Text | None = None,
        aliases: Text | None = None,
        turns: Turns | None = None,
        present_only: bool = False,
    ) -> None:
        """Propose a new entity."""
        await self._propose(
            interaction,
            lambda facts: forms.entity_content(
                name=name, entity_type=type, description=description, aliases=aliases
            ),
            turns,
            present_only=present_only,
        )

    @propose.command(name="relationship", description="Propose a relation between two entities")
    @app_commands.describe(
        subject="Who or what it starts from",
        relation="How they are related, like “is an ally of” or “lives in”",
        target="Who or what it points at",
        since=DATE_HELP,
        until=DATE_HELP,
        turns=TURNS_HELP,
        relies_on=RELIES_ON_HELP,
        present_only=PRESENT_HELP,
    )
    @app_commands.rename(target="object")
    @app_commands.autocomplete(
        subject=entity_names,
        relation=relation_types,
        target=entity_names,
        since=date_choices,
        until=date_choices,
        relies_on=fact_list_names,
    )
    async def propose_relationship(
        self,
        interaction: discord.Interaction,
        subject: Name,
        relation: Word,
        target: Name,
        since: Date | None = None,
        until: Date | None = None,
        turns: Turns | None = None,
        relies_on: Facts | None = None,
        present_only: bool = False,
    ) -> None:
        """Propose `subject RELATION object`."""
        await self._propose(
            interaction,
            lambda facts: forms.relationship_content(
                subject=subject,
                relation=relation,
                target=target,
                since=since,
                until=until,
                relies_on=facts,
            ),
            turns,
            relies_on=relies_on,
            present_only=present_only,
        )

    @propose.command(name="state", description="Propose a change of state: dead, wounded, missing...")
    @app_commands.describe(
        subject="Who or what changes",
        state="The new state",
        via="The event that allows it, like resurrection",
        when=DATE_HELP,
        turns=TURNS_HELP,
        resolution=RESOLUTION_HELP,
        relies_on=RELIES_ON_HELP,
        present_only=PRESENT_HELP,
    )
    @app_commands.autocomplete(
        subject=entity_names, state=state_tags, via=via_kinds, when=date_choices, relies_on=fact_list_names
    )
    async def propose_state(
        self,
        interaction: discord.Interaction,
        subject: Name,
        state: Word,
        via: Word | None = None,
        when: Date | None = None,
        turns: Turns | None = None,
        resolution: Roll | None = None,
        relies_on: Facts | None = None,
        present_only: bool = False,
    ) -> None:
        """Propose that an entity enters a state."""
        await self._propose(
            interaction,
            lambda facts: forms.state_content(
                subject=subject, state=state, via=via, when=when, relies_on=facts
            ),
            turns,
            resolution,
            relies_on=relies_on,
            present_only=present_only,
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
        resolution=RESOLUTION_HELP,
        relies_on=RELIES_ON_HELP,
        present_only=PRESENT_HELP,
    )
    @app_commands.autocomplete(
        location=place_names,
        era=entity_names,
        participants=entity_name_list,
        when=date_choices,
        relies_on=fact_list_names,
    )
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
        resolution: Roll | None = None,
        relies_on: Facts | None = None,
        present_only: bool = False,
    ) -> None:
        """Propose an event."""
        await self._propose(
            interaction,
            lambda facts: forms.event_content(
                name=name,
                when=when,
                location=location,
                era=era,
                participants=participants,
                description=description,
                relies_on=facts,
            ),
            turns,
            resolution,
            relies_on=relies_on,
            present_only=present_only,
        )
