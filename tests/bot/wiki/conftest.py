"""A small campaign served by the wiki, shared by the read-only tests of a module (SQLite, then PostgreSQL).

Aldric (public, with a public title and a GM-only secret), Vell (GM-only), the Watch (a faction Aldric leads),
two played and committed scenes, and a second campaign on another server with its own Aldric. The wiki runs on
a real port (aiohttp's test server) and is asked over HTTP.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select

from bot.app import Services, build_services
from bot.services.characters import Member
from bot.wiki.server import wiki_app
from canon.campaigns import Campaign
from canon.models import Visibility
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent
from canon.tables import EvidenceRow, StatementRow
from config.settings import Settings
from memory.knowledge.tables import KnowledgeChunkRow, KnowledgeSourceRow
from memory.scenes import Actor, SceneStatus, SpeakerKind
from memory.turn_batch import IncomingMessage
from tests.conftest import BACKENDS, drop_target, make_target

GM = Actor(id=1, name="Gina", is_gm=True)
PAT = Actor(id=2, name="Pat", is_gm=False)
QUINN = Actor(id=3, name="Quinn", is_gm=False)
GUILD, OTHER_GUILD = 10, 20


@dataclass
class World:
    services: Services
    campaign: Campaign
    other: Campaign
    client: TestClient
    gm_token: str
    player_token: str
    other_token: str
    branch_token: str
    #: Quinn plays Sable, who learned Aldric's GM-only secret.
    quinn_token: str

    async def get(self, path: str, **headers: str) -> tuple[int, str, dict[str, str]]:
        response = await self.client.get(path, headers=headers, allow_redirects=False)
        return response.status, await response.text(), dict(response.headers)


async def add(services: Services, campaign: Campaign, content: object) -> None:
    await services.canon.add_direct(campaign, content, GM, command="/canon add")  # type: ignore[arg-type]


async def play_scene(
    services: Services, campaign: Campaign, channel: int, lines: list[str], title: str
) -> None:
    """Play and commit a scene whose first turn supports a fact (the GM proposes it, citing turn 1)."""
    scene = await services.scenes.start_scene(
        campaign_id=campaign.id,
        guild_id=GUILD,
        channel_id=channel,
        title=title,
        location="Greyhaven",
        actor=GM,
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
    fact = FactContent(subject=Ref(name="Aldric"), attribute=f"deed_{scene.story_order}", value=lines[0][:60])
    await services.proposals.propose(campaign, channel, fact, GM)
    report, _ = await services.canon.end_scene(channel)
    if report.scene.status != SceneStatus.COMPLETED:
        await services.reviews.accept_all(report.scene.id, GM)
        await services.canon.commit_scene(report.scene.id, GM)
    await services.recaps.recap_scene(report.scene.id)


ANNALS = b"# Annals of the Watch\n\n## Founding\n\nThe Watch was founded in the year of the long frost.\n"
LEDGER = b"# Ledger\n\n## Bribes\n\nAldric sold the gate codes to the smugglers.\n"


async def cite_imports(services: Services, campaign: Campaign) -> None:
    """Import a public and a hidden source, and make two facts rest on their passages (as extraction does)."""
    await add(
        services,
        campaign,
        FactContent(subject=Ref(name="The Watch"), attribute="motto", value="we hold the gate"),
    )
    await services.knowledge.import_bytes(campaign.id, "annals.md", ANNALS)
    await services.knowledge.import_bytes(campaign.id, "ledger.md", LEDGER, hidden=True)
    async with services.db.session() as session, session.begin():
        chunks = {
            row.filename: (row.source_id, row.id)
            for row in (
                await session.execute(
                    select(
                        KnowledgeSourceRow.filename, KnowledgeChunkRow.source_id, KnowledgeChunkRow.id
                    ).join(KnowledgeChunkRow, KnowledgeChunkRow.source_id == KnowledgeSourceRow.id)
                )
            ).all()
        }
        for predicate, filename in (("motto", "annals.md"), ("secret", "ledger.md")):
            statement = (
                await session.execute(select(StatementRow).where(StatementRow.predicate == predicate))
            ).scalar_one()
            source_id, chunk_id = chunks[filename]
            session.add(
                EvidenceRow(
                    campaign_id=campaign.id,
                    changeset_id=statement.changeset_id,
                    target_kind="statement",
                    target_id=statement.id,
                    kind="chunk",
                    source_id=source_id,
                    chunk_id=chunk_id,
                )
            )


#: How many facts the Chronicle holds: more than one page of an entity's facts.
CHRONICLE_FACTS = 130


async def build_world(services: Services) -> tuple[Campaign, Campaign, Campaign]:
    campaign = await services.campaigns.for_guild(GUILD, "Shattered Isles")
    await add(
        services,
        campaign,
        EntityContent(name="Aldric", entity_type="NPC", description="a knight of the Watch"),
    )
    await add(services, campaign, EntityContent(name="The Watch", entity_type="Faction"))
    await add(
        services, campaign, EntityContent(name="Vell", entity_type="NPC", visibility=Visibility.GM_ONLY)
    )
    await add(
        services,
        campaign,
        FactContent(subject=Ref(name="Aldric"), attribute="title", value="knight-commander"),
    )
    secret = FactContent(
        subject=Ref(name="Aldric"),
        attribute="secret",
        value="sold the gate codes",
        visibility=Visibility.GM_ONLY,
    )
    await add(services, campaign, secret)
    await add(
        services,
        campaign,
        RelationshipContent(subject=Ref(name="Aldric"), relation="LEADS", object=Ref(name="The Watch")),
    )
    await play_scene(
        services, campaign, 501, ["Aldric rides out at dawn <b>boldly</b>.", "The gate creaks."], "The Ride"
    )
    await play_scene(services, campaign, 501, ["Aldric returns wounded.", "Pat binds his arm."], "The Return")
    await add(services, campaign, EntityContent(name="The Chronicle", entity_type="Item"))
    for n in range(1, CHRONICLE_FACTS + 1):
        await add(
            services,
            campaign,
            FactContent(subject=Ref(name="The Chronicle"), attribute=f"entry_{n:03}", value=f"line {n}"),
        )
    await cite_imports(services, campaign)
    await add(services, campaign, EntityContent(name="Sable", entity_type="PC"))
    await services.characters.assign(campaign, "Sable", Member(QUINN.id, QUINN.name), GM)
    async with services.db.session() as session:
        secret_id = (
            await session.execute(select(StatementRow.id).where(StatementRow.predicate == "secret"))
        ).scalar_one()
    await services.reveals.reveal(campaign, GM, to="Sable", reason="a letter", fact=secret_id)
    branch = await services.branches.fork(campaign, "Aldric Fell", actor=GM)
    await add(
        services, branch, FactContent(subject=Ref(name="Aldric"), attribute="fate", value="fell at the gate")
    )
    other = await services.campaigns.for_guild(OTHER_GUILD, "Elsewhere")
    await add(services, other, EntityContent(name="Morwen", entity_type="NPC", description="elsewhere only"))
    return campaign, other, branch


@pytest_asyncio.fixture(scope="package", loop_scope="package", params=BACKENDS)
async def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[World]:
    """The shared campaign and its wiki, built once for the package's tests (read-only tests only)."""
    tmp_path: Path = tmp_path_factory.mktemp("wiki")
    target = await make_target(request.param, tmp_path)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", embedding={"enabled": False}
    )
    services = await build_services(settings, db=target.open())
    try:
        campaign, other, branch = await build_world(services)
        links = services.wiki.links
        client = TestClient(TestServer(wiki_app(services.wiki)))
        await client.start_server()
        try:
            yield World(
                services,
                campaign,
                other,
                client,
                gm_token=await links.issue(campaign.id, GM.id, gm=True),
                player_token=await links.issue(campaign.id, PAT.id, gm=False),
                other_token=await links.issue(other.id, PAT.id, gm=False),
                branch_token=await links.issue(branch.id, PAT.id, gm=False),
                quinn_token=await links.issue(campaign.id, QUINN.id, gm=False),
            )
        finally:
            await client.close()
    finally:
        await services.close()
        await drop_target(target)
