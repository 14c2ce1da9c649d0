"""Shared helpers for the branch tests: settings, playing and committing a scene, and counting what a campaign holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bot.app import Services
from bot.schema.database import metadata
from canon.campaigns import Campaign
from canon.errors import NotFound
from canon.models import AsOf, Viewer
from canon.proposals import (
    EntityContent,
    FactContent,
    ProposalContent,
    Ref,
)
from config.settings import Settings
from memory.knowledge.source_models import ImportReport
from memory.scenes import Actor, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage

GM = Actor(id=1, name="Gina", is_gm=True)


PAT = Actor(id=2, name="Pat", is_gm=False)


GUILD = 10


def settings_for(tmp_path: Path, *, semantic: bool = False) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", embedding={"enabled": semantic}
    )


async def add(services: Services, campaign: Campaign, content: ProposalContent) -> Any:
    return await services.canon.add_direct(campaign, content, GM, command="/canon add")


async def fact_value(services: Services, campaign: Campaign, name: str, attribute: str, **as_of: Any) -> Any:
    """Return the value of an entity's attribute in a campaign (None when absent or the entity is unknown)."""
    try:
        card = await services.queries.card(campaign, name, viewer=Viewer.GM, as_of=AsOf(**as_of))
    except NotFound:
        return None
    values = [v.statement.value for v in card.facts if v.statement.predicate == attribute]
    return values[-1] if values else None


async def play(services: Services, campaign: Campaign, channel: int, lines: list[str]) -> int:
    """Play a scene in a channel: start it, log the lines, and return its id."""
    scene = await services.scenes.start_scene(
        campaign_id=campaign.id, guild_id=GUILD, channel_id=channel, title="Scene", location=None, actor=GM
    )
    for number, line in enumerate(lines, 1):
        await services.turns.append(
            IncomingMessage(
                message_id=channel * 1000 + scene.story_order * 100 + number,
                channel_id=channel,
                author_id=PAT.id,
                author_name=PAT.name,
                speaker=SpeakerKind.PLAYER,
                text=line,
                created_at=scene.started_at,
            )
        )
    return scene.id


async def commit(services: Services, campaign: Campaign, channel: int, *proposals: ProposalContent) -> int:
    """Propose (as the GM), end and commit the channel's scene; return its story order."""
    for content in proposals:
        await services.proposals.propose(campaign, channel, content, GM)
    report, _ = await services.canon.end_scene(channel)
    if report.scene.status != SceneStatus.COMPLETED:
        await services.reviews.accept_all(report.scene.id, GM)
        await services.canon.commit_scene(report.scene.id, GM)
    await services.voice.drain()
    return report.scene.story_order


async def counts(services: Services, campaign_id: int) -> dict[str, int]:
    """Return how many rows of every campaign table belong to a campaign."""
    found: dict[str, int] = {}
    async with services.db.session() as session:
        for table in metadata().sorted_tables:
            if "campaign_id" in table.c:
                found[table.name] = int(
                    await session.scalar(select(func.count()).where(table.c.campaign_id == campaign_id)) or 0
                )
    return found


async def root(services: Services) -> Campaign:
    campaign = await services.campaigns.for_guild(GUILD, "Shattered Isles")
    await add(services, campaign, EntityContent(name="Aldric", entity_type="NPC", description="a knight"))
    await add(services, campaign, FactContent(subject=Ref(name="Aldric"), attribute="title", value="Knight"))
    return campaign


async def hidden_and_disabled(
    services: Services, campaign: Campaign, *, draft: str
) -> tuple[ImportReport, ImportReport]:
    """Import a hidden source (secret.md, about the mayor and the cult) and a disabled one (`draft`)."""
    knowledge = services.knowledge
    secret = await knowledge.import_bytes(
        campaign.id, "secret.md", b"# Pact\n\nThe mayor serves the cult.", hidden=True
    )
    old = await knowledge.import_bytes(campaign.id, draft, b"# Draft\n\nAn old draft.")
    await knowledge.disable_source(campaign.id, old.source.id)
    return secret, old
