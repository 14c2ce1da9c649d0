"""Options of the canon commands: their types and help texts, and autocomplete: entity names from canon
(players never see GM-only ones), and the ontology's entity types, relations, states and transition events.

Autocomplete only suggests: whatever is typed is checked again by the service, whose errors list the allowed
values.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

import discord
from discord import app_commands

from bot.client import limits
from canon.campaigns import Campaign
from canon.date_reading import examples, read_date
from canon.errors import GameError
from canon.models import EntityRef, Viewer
from canon.ontology import Ontology
from canon.visibility import Knowing
from canon.wording.relation_names import matching_relations, relation_phrase
from canon.wording.relations import attribute_words
from cogs.checks import is_gm
from cogs.embeds import clip
from cogs.places import campaign_here
from cogs.services import services_of

log = logging.getLogger(__name__)

MAX_CHOICES = 25
Choices = list[app_commands.Choice[str]]

Name = app_commands.Range[str, 1, 200]
Date = app_commands.Range[str, 1, 100]
Text = app_commands.Range[str, 1, 1000]
Turns = app_commands.Range[str, 1, 30]
Facts = app_commands.Range[str, 1, 200]
Word = app_commands.Range[str, 1, 60]

#: Command descriptions are the same in every campaign: the examples come from the campaign's calendar, in the
#: date options' suggestions (`date_choices`), never written here.
DATE_HELP = (
    "A date as your table says it (the list suggests your calendar's words), or a step: three days later"
)
CALENDAR_DATE_HELP = "The in-world date as your table says it (the list suggests your calendar's words)"
TURNS_HELP = "The turns that show it, like 12 or 12-15 (default: the latest turn)"
GM_ONLY_HELP = "Hide it from players (GM-only canon)"
RELIES_ON_HELP = "The facts it builds on, by their words (pick from the list); several separated by ;"


def viewer_of(interaction: discord.Interaction) -> Viewer:
    """Return whether the user reads canon as the GM or as a player."""
    return Viewer.GM if is_gm(interaction.user, services_of(interaction).settings.gm_role) else Viewer.PLAYER


async def lens_of(interaction: discord.Interaction, campaign: Campaign) -> Knowing | None:
    """Return what the user's active character knows (None for the GM, who sees all, or who plays nothing)."""
    if viewer_of(interaction) == Viewer.GM:
        return None
    return await services_of(interaction).reveals.lens(campaign, interaction.user.id)


async def campaign_of(interaction: discord.Interaction, *, allow_abandoned: bool = False) -> Campaign | None:
    """Return the campaign the interaction's channel plays in (None outside a server)."""
    if interaction.guild is None:
        return None
    return await campaign_here(interaction, allow_abandoned=allow_abandoned)


async def played_characters(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the campaign's player characters (for the GM: players are offered none)."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None or viewer_of(interaction) != Viewer.GM:
            return []
        links = await services_of(interaction).characters.roster(campaign)
    except GameError:
        return []
    typed = current.strip().casefold()
    names = dict.fromkeys(link.character for link in links if typed in link.character.casefold())
    return [app_commands.Choice(name=clip(n, 100), value=clip(n, 100)) for n in names][:MAX_CHOICES]


def ranked(names: Iterable[tuple[str, str]], current: str) -> Choices:
    """Return (value, label) pairs matching what was typed: prefix matches first, then substrings."""
    typed = current.strip().casefold().replace(" ", "_")
    pairs = list(names)
    starts = [p for p in pairs if p[0].casefold().startswith(typed)]
    inside = [p for p in pairs if typed in p[0].casefold() and p not in starts]
    return [
        app_commands.Choice(name=clip(label, 100), value=value[:100])
        for value, label in (starts + inside)[:MAX_CHOICES]
    ]


async def _ontology(interaction: discord.Interaction) -> Ontology | None:
    campaign = await campaign_of(interaction)
    return services_of(interaction).access.ontology_for(campaign) if campaign is not None else None


async def entity_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest entity names from canon that the user may see."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).queries.autocomplete(
            campaign, current, viewer=viewer_of(interaction), knowing=await lens_of(interaction, campaign)
        )
    except GameError:
        return []
    return entity_choices(found)


async def place_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the places of canon the user may see (a "where" box: never an event or a person)."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).queries.autocomplete(
            campaign,
            current,
            viewer=viewer_of(interaction),
            places=True,
            knowing=await lens_of(interaction, campaign),
        )
    except GameError:
        return []
    return entity_choices(found)


async def fact_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the facts of canon the user may see that fit what is typed, shown in words (each choice sends
    back the fact's handle, which the commands understand, as they do the words)."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).facts.suggestions(
            campaign, current, viewer=viewer_of(interaction)
        )
    except GameError:
        return []
    return [app_commands.Choice(name=name, value=value) for name, value in found[:MAX_CHOICES]]


async def fact_list_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest facts for a list of them (`relies_on`): the part after the last “;” is matched as `fact_names`
    does, the facts picked before it kept; each choice shows the words."""
    before, _, typed = current.rpartition(";")
    kept = "; ".join(p.strip() for p in before.split(";") if p.strip())
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).facts.suggestions(
            campaign, typed, viewer=viewer_of(interaction)
        )
    except GameError:
        return []
    choices = []
    for name, value in found[:MAX_CHOICES]:
        value = f"{kept}; {value}" if kept else value
        if len(value) > limits.CHOICE_VALUE:
            continue
        choices.append(app_commands.Choice(name=clip(f"…; {name}" if kept else name, 100), value=value))
    return choices


async def cited_facts(interaction: discord.Interaction, campaign: Campaign, typed: str | None) -> str | None:
    """Return the facts a `relies_on` option names, as their handles for `canon.forms` (None when empty);
    raise the picker's answer, in words, when a part names no fact or several."""
    found = await services_of(interaction).facts.pick_many(campaign, typed, viewer=viewer_of(interaction))
    return ", ".join(f"fact {i}" for i in found) or None


async def speaker_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the beings that can speak (people, creatures, deities) that the user may see."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).queries.autocomplete(
            campaign, current, viewer=viewer_of(interaction), speaking=True
        )
    except GameError:
        return []
    return entity_choices(found)


async def character_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the characters one may play (people, creatures) that the user may see, as a claim reads canon."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        found = await services_of(interaction).queries.autocomplete(
            campaign, current, viewer=viewer_of(interaction), playable=True
        )
    except GameError:
        return []
    return entity_choices(found)


def entity_choices(refs: Sequence[EntityRef]) -> Choices:
    """Return the choices of an entity name box: "Name (Type)"; a name past a value's 100 characters is sent
    as `#id`, which `CanonReader.resolve` resolves."""
    return [
        app_commands.Choice(
            name=limits.clip(f"{r.name} ({r.type})", limits.CHOICE_NAME),
            value=r.name if len(r.name) <= limits.CHOICE_VALUE else f"#{r.id}",
        )
        for r in refs[:MAX_CHOICES]
    ]


async def attribute_names(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest attribute names: those the ontology declares for the subject's type, then those canon uses."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        subject = getattr(interaction.namespace, "subject", None)
        found = await services_of(interaction).queries.attribute_names(
            campaign,
            current,
            viewer=viewer_of(interaction),
            subject=subject if isinstance(subject, str) else None,
        )
    except GameError:
        return []
    # In words ("eye colour"), as the player would type them: the service folds them to the same attribute.
    return [
        app_commands.Choice(name=clip(attribute_words(name), 100), value=attribute_words(name)[:60])
        for name in found[:MAX_CHOICES]
    ]


async def entity_name_list(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the last name of a comma-separated list (participants), keeping the names before it."""
    head, _, last = current.rpartition(",")
    prefix = f"{head.strip()}, " if head.strip() else ""
    choices = await entity_names(interaction, last.strip())
    return [
        app_commands.Choice(name=clip(prefix + c.name, 100), value=prefix + c.value)
        for c in choices
        if len(prefix + c.value) <= 100
    ]


async def entity_types(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the ontology's entity types."""
    ontology = await _ontology(interaction)
    if ontology is None:
        return []
    return ranked(
        (
            (name, f"{name} — {spec.description}" if spec.description else name)
            for name, spec in sorted(ontology.entity_types.items())
        ),
        current,
    )


async def relation_types(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest relations in words ("is an ally of") by the words typed, matched on their words and synonyms
    ("hates" finds "is an enemy of"): only those the chosen subject may start from when it is known, those that
    may point at the chosen object first; the value is the relation's key."""
    try:
        campaign = await campaign_of(interaction)
        if campaign is None:
            return []
        services = services_of(interaction)
        ontology = services.access.ontology_for(campaign)
        types = []
        for option in ("subject", "object"):
            named = getattr(interaction.namespace, option, None)
            types.append(
                await services.queries.entity_type_named(campaign, named, viewer=viewer_of(interaction))
                if isinstance(named, str)
                else None
            )
        subject_type, object_type = types
    except GameError:
        return []
    relations = ontology.relation_types
    fitting = [
        name
        for name in relations
        if subject_type is None or ontology.is_a(subject_type, relations[name].from_types)
    ]

    def points_at_object(name: str) -> bool:
        return object_type is None or ontology.is_a(object_type, relations[name].to_types)

    return [
        app_commands.Choice(name=clip(relation_phrase(name), 100), value=name[:100])
        for name in matching_relations(current, fitting, points_at_object)[:MAX_CHOICES]
    ]


async def state_tags(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the ontology's states, with what they apply to."""
    ontology = await _ontology(interaction)
    if ontology is None:
        return []
    return ranked(
        (
            (name, f"{name} — {tag.description or name} ({', '.join(tag.applies_to)})")
            for name, tag in sorted(ontology.states.tags.items())
        ),
        current,
    )


async def via_kinds(interaction: discord.Interaction, current: str) -> Choices:
    """Suggest the events that allow otherwise forbidden state changes (a resurrection)."""
    ontology = await _ontology(interaction)
    if ontology is None:
        return []
    return ranked(
        (
            (name, f"{name} ({', '.join(via.from_states)} → {', '.join(via.to_states)})")
            for name, via in sorted(ontology.states.via.items())
        ),
        current,
    )


async def date_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Suggest dates in the campaign calendar's words: how the typed text reads, or the readings to choose."""
    if interaction.guild is None:
        return []
    calendar = await services_of(interaction).calendars.calendar(
        await campaign_here(interaction), viewer_of(interaction)
    )
    typed = current.strip()
    if not typed:  # how a date is written, in this campaign's own words
        return [app_commands.Choice(name=clip(s, 100), value=s[:100]) for s in examples(calendar)]
    reading = read_date(typed[:100], calendar)
    said = [calendar.say(reading.date)] if reading.date is not None else list(reading.choices)
    if not said:  # a relative date ("three days later") or words still being typed: keep what was typed
        said = [typed]
    return [app_commands.Choice(name=clip(s, 100), value=s[:100]) for s in said[:25]]
