"""`/canon add fact|entity|relationship|state|event`: the GM writes canon directly, without a scene's review.

The `add` group joins the `/canon` group of `cogs.canon` when that extension loads (`attach`). Thin adapters:
build the content from the options (`canon.forms`), call `CanonService.add_direct`, render the result
ephemerally (it may be GM-only canon).
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands

from bot.client import replies
from canon import forms
from canon.errors import AskedAttribute, InvalidInput
from canon.models import Viewer
from canon.proposals import ProposalContent, citations
from cogs import canon_embeds
from cogs.canon_options import (
    DATE_HELP,
    GM_ONLY_HELP,
    RELIES_ON_HELP,
    Date,
    Facts,
    Name,
    Text,
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
from cogs.checks import actor_of, gm_only
from cogs.places import campaign_here
from cogs.services import services_of

NONE = discord.AllowedMentions.none()

add = app_commands.Group(name="add", description="Write canon directly (GM)")


NEW_DETAIL_HELP = (
    "Keep the attribute as a new kind of detail, even when it is close to one the campaign knows"
)


async def _add(
    interaction: discord.Interaction,
    build: Callable[[str | None], ProposalContent],
    kind: str,
    relies_on: str | None = None,
    new_detail: bool = False,
) -> None:
    campaign = await campaign_here(interaction)
    content = build(await cited_facts(interaction, campaign, relies_on))
    await replies.think(interaction)
    services = services_of(interaction)
    actor = actor_of(interaction, services.settings.gm_role)
    channel = getattr(interaction.channel, "name", None) or interaction.channel_id
    try:
        result = await services.canon.add_direct(
            campaign, content, actor, command=f"/canon add {kind} in #{channel}", new_detail=new_detail
        )
    except AskedAttribute as asked:  # the GM says which attribute they meant: nothing is picked for them
        raise InvalidInput(asked.sentence("add it again with new_detail: True")) from None
    words = await services.queries.words(campaign, viewer=Viewer.GM, facts=citations(content))
    await replies.answer(interaction, embed=canon_embeds.added_embed(result, words))


@add.command(name="fact", description="Write a fact to canon (GM)")
@app_commands.describe(
    subject="Who or what it is about",
    attribute="What about it",
    value="Its value",
    when=DATE_HELP,
    gm_only=GM_ONLY_HELP,
    relies_on=RELIES_ON_HELP,
    new_detail=NEW_DETAIL_HELP,
)
@app_commands.autocomplete(
    subject=entity_names, attribute=attribute_names, when=date_choices, relies_on=fact_list_names
)
@gm_only()
async def add_fact(
    interaction: discord.Interaction,
    subject: Name,
    attribute: Word,
    value: Text,
    when: Date | None = None,
    gm_only: bool = False,
    relies_on: Facts | None = None,
    new_detail: bool = False,
) -> None:
    """Write `subject.attribute = value`."""
    await _add(
        interaction,
        lambda facts: forms.fact_content(
            subject=subject,
            attribute=attribute,
            value=value,
            when=when,
            gm_only=gm_only,
            relies_on=facts,
        ),
        "fact",
        relies_on=relies_on,
        new_detail=new_detail,
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
    interaction: discord.Interaction,
    name: Name,
    type: Word,
    description: Text | None = None,
    aliases: Text | None = None,
    gm_only: bool = False,
) -> None:
    """Write a new entity."""
    await _add(
        interaction,
        lambda facts: forms.entity_content(
            name=name, entity_type=type, description=description, aliases=aliases, gm_only=gm_only
        ),
        "entity",
    )


@add.command(name="relationship", description="Write a relation to canon (GM)")
@app_commands.describe(
    subject="Who or what it starts from",
    relation="How they are related, like “is an ally of” or “rules”",
    target="Who or what it points at",
    since=DATE_HELP,
    until=DATE_HELP,
    gm_only=GM_ONLY_HELP,
    relies_on=RELIES_ON_HELP,
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
@gm_only()
async def add_relationship(
    interaction: discord.Interaction,
    subject: Name,
    relation: Word,
    target: Name,
    since: Date | None = None,
    until: Date | None = None,
    gm_only: bool = False,
    relies_on: Facts | None = None,
) -> None:
    """Write `subject RELATION object`."""
    await _add(
        interaction,
        lambda facts: forms.relationship_content(
            subject=subject,
            relation=relation,
            target=target,
            since=since,
            until=until,
            gm_only=gm_only,
            relies_on=facts,
        ),
        "relationship",
        relies_on=relies_on,
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
@app_commands.autocomplete(
    subject=entity_names, state=state_tags, via=via_kinds, when=date_choices, relies_on=fact_list_names
)
@gm_only()
async def add_state(
    interaction: discord.Interaction,
    subject: Name,
    state: Word,
    via: Word | None = None,
    when: Date | None = None,
    gm_only: bool = False,
    relies_on: Facts | None = None,
) -> None:
    """Write that an entity enters a state."""
    await _add(
        interaction,
        lambda facts: forms.state_content(
            subject=subject, state=state, via=via, when=when, gm_only=gm_only, relies_on=facts
        ),
        "state",
        relies_on=relies_on,
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
@app_commands.autocomplete(
    location=place_names,
    era=entity_names,
    participants=entity_name_list,
    when=date_choices,
    relies_on=fact_list_names,
)
@gm_only()
async def add_event(
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
    await _add(
        interaction,
        lambda facts: forms.event_content(
            name=name,
            when=when,
            location=location,
            era=era,
            participants=participants,
            description=description,
            gm_only=gm_only,
            relies_on=facts,
        ),
        "event",
        relies_on=relies_on,
    )


def attach(canon_group: app_commands.Group) -> None:
    """Put `/canon add` into the `/canon` group."""
    if canon_group.get_command(add.name) is None:
        canon_group.add_command(add)


def detach(canon_group: app_commands.Group) -> None:
    """Take `/canon add` out of the `/canon` group again."""
    canon_group.remove_command(add.name)
