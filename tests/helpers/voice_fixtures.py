"""A small campaign for the voice's tests: canon with an NPC, an alias, a place and hidden canon; scene helpers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.app import Services, build_services
from canon.campaigns import Campaign
from canon.models import Visibility
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent, StateChangeContent
from canon.storage import utc_now
from config.settings import LLMSettings, Settings, VoiceSettings
from memory.scenes import Actor, Scene, SpeakerKind
from memory.turn_batch import IncomingMessage
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import STUB_MODEL, LLMStub

GM = Actor(id=1, name="Gina", is_gm=True)
PAT = Actor(id=2, name="Pat", is_gm=False)
QUINN = Actor(id=3, name="Quinn", is_gm=False)
SECRET_VALUE = "the Crimson Pact"


def settings_for(tmp_path: Path, stub: LLMStub | None = None, **voice: Any) -> Settings:
    """Settings with data in tmp_path, the stub as the LLM (if given) and quick retries."""
    llm = (
        LLMSettings(base_url=stub.base_url, model=STUB_MODEL, max_retries=3, timeout_seconds=2.0)
        if stub is not None
        else LLMSettings()
    )
    voice.setdefault("narrator_debounce_seconds", 0.05)
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", llm=llm, voice=VoiceSettings(**voice)
    )


async def open_services(target: DatabaseTarget, settings: Settings) -> Services:
    """Build the services on a test database."""
    return await build_services(settings, db=target.open())


@dataclass
class World:
    """The campaign and the ids of its canon."""

    campaign: Campaign
    mira: int
    aldric: int
    thornwall: int
    orsolya: int


async def seed(
    services: Services, name: str = "Shattered Isles", guild_id: int = 10, *, campaign: Campaign | None = None
) -> World:
    """Give a (new) campaign canon that knows Mira (alias the Innkeeper), Aldric, Thornwall and a hidden Orsolya."""
    if campaign is None:
        campaign = await services.campaigns.create(name, guild_id=guild_id)
    canon = services.canon

    async def add(content: Any) -> int:
        result = await canon.add_direct(campaign, content, GM, command="/canon add")
        return next(iter(result.entity_ids.values())) if result.entity_ids else 0

    mira = await add(
        EntityContent(
            name="Mira",
            entity_type="NPC",
            description="keeper of the Drowned Rat",
            aliases=("the Innkeeper",),
        )
    )
    aldric = await add(EntityContent(name="Aldric", entity_type="NPC", description="a knight of Thornwall"))
    thornwall = await add(
        EntityContent(name="Thornwall", entity_type="Location", description="a harbour town")
    )
    orsolya = await add(
        EntityContent(
            name="Orsolya", entity_type="NPC", description="a spymaster", visibility=Visibility.GM_ONLY
        )
    )
    await canon.add_direct(
        campaign,
        RelationshipContent(subject=Ref(name="Mira"), relation="LOCATED_IN", object=Ref(name="Thornwall")),
        GM,
        command="/canon add",
    )
    await canon.add_direct(
        campaign,
        FactContent(
            subject=Ref(name="Mira"),
            attribute="true_allegiance",
            value=SECRET_VALUE,
            visibility=Visibility.GM_ONLY,
        ),
        GM,
        command="/canon add",
        new_detail=True,  # close to `allegiance`, kept as a detail of its own on purpose
    )
    await canon.add_direct(
        campaign, StateChangeContent(subject=Ref(name="Aldric"), state="alive"), GM, command="/canon add"
    )
    return World(campaign, mira, aldric, thornwall, orsolya)


async def play(
    services: Services,
    world: World,
    lines: Sequence[tuple[Actor, str]],
    *,
    channel_id: int,
    title: str = "The Drowned Rat",
    location: str | None = "Thornwall",
) -> Scene:
    """Start a scene in a channel and log the lines as turns (message ids derived from the channel)."""
    scene = await services.scenes.start_scene(
        campaign_id=world.campaign.id,
        guild_id=world.campaign.guild_id,
        channel_id=channel_id,
        title=title,
        location=location,
        actor=GM,
    )
    await say(services, scene, lines)
    return scene


async def say(services: Services, scene: Scene, lines: Sequence[tuple[Actor, str]]) -> None:
    """Log more turns in a running scene."""
    for actor, text in lines:
        services_turns = services.turns
        count = len(await _turns(services, scene.id))
        await services_turns.append(
            IncomingMessage(
                message_id=scene.channel_id * 1000 + count + 1,
                channel_id=scene.channel_id,
                author_id=actor.id,
                author_name=actor.name,
                speaker=SpeakerKind.GM if actor.is_gm else SpeakerKind.PLAYER,
                text=text,
                created_at=utc_now(),
            )
        )


async def _turns(services: Services, scene_id: int) -> list[Any]:
    _scene, turns = await services.scenes.transcript(scene_id)
    return turns


class Posts:
    """Collects what a service posted through its callback, handing out message ids."""

    def __init__(self, first_id: int = 900_000) -> None:
        self.next_id = first_id
        self.narrations: list[tuple[str, int]] = []
        self.npc_lines: list[tuple[str, str]] = []

    async def narration(self, text: str, narration_id: int) -> int:
        self.narrations.append((text, narration_id))
        self.next_id += 1
        return self.next_id

    async def npc(self, name: str, text: str) -> int:
        self.npc_lines.append((name, text))
        self.next_id += 1
        return self.next_id
