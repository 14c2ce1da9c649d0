"""A roster's `player:` links its player characters to the server's members at import: by name (resolved
against the members Discord lists) or by Discord id; a bad value is an error at its line and nothing is written.

On SQLite, then PostgreSQL when LOREKEEPER_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from bot.app import build_canon
from bot.services.characters import CharacterDesk
from bot.services.roster_players import ServerMembers
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign
from canon.knowledge.characters import LinkStatus
from canon.storage import Database
from canon.tables import EntityRow
from memory.scene_service import SceneService
from memory.scenes import Actor

GM = Actor(id=1, name="Gina", is_gm=True)
PAT, QUINN, PATRICIA = 200000000000000002, 200000000000000003, 200000000000000004
MEMBERS = ServerMembers.of(
    [
        (PAT, "Pat", ("pat_plays", "Pat")),
        (QUINN, "Quinn", ("quinn",)),
        (PATRICIA, "Patricia", ("pat",)),  # her user name folds to the same "pat" as Pat's display name
    ]
)

ROSTER = """\
characters:
  - id: kestrel
    name: Kestrel
    role: pc
    player: Quinn
  - id: sable
    name: Sable
    role: pc
    players: ["<@{pat}>", Patricia]
  - id: old_tom
    name: Old Tom
"""


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


async def _entities(db: Database, campaign: Campaign) -> int:
    async with db.session() as session:
        found = await session.scalar(select(func.count()).where(EntityRow.campaign_id == campaign.id))
        return int(found or 0)


async def test_a_roster_links_its_characters_to_the_members_it_names(
    db: Database, campaign: Campaign
) -> None:
    service = StructuredImportService(db)
    roster = ROSTER.format(pat=PAT).encode()
    report = await service.import_files(campaign, [("roster.yaml", roster)], GM, members=MEMBERS)
    assert report.ok and not report.errors, report.errors
    desk = CharacterDesk(db, build_canon(db, SceneService(db)).access)
    played = {(link.character, link.member_name, link.active) for link in await desk.roster(campaign)}
    assert played == {("Kestrel", "Quinn", True), ("Sable", "Pat", True), ("Sable", "Patricia", True)}
    assert all(link.status == LinkStatus.PLAYS for link in await desk.roster(campaign))
    # Imported again, changed elsewhere: nobody is linked twice.
    again = roster.replace(b"name: Old Tom", b"name: Old Tom\n    description: a fisherman")
    assert (await service.import_files(campaign, [("roster.yaml", again)], GM, members=MEMBERS)).ok
    assert len(await desk.roster(campaign)) == 3


@pytest.mark.parametrize(
    ("written", "line", "message"),
    [
        ("player: Rio", 5, "no member of this server is called “Rio”"),
        ("player: pat", 5, "2 members of this server are called “pat”: give the member's Discord id"),
        ("player: '999999999999999999'", 5, "no member of this server has the id 999999999999999999"),
        ("player: '  '", 5, '"player" is empty'),
    ],
)
async def test_a_player_naming_no_single_member_fails_at_its_line_and_writes_nothing(
    db: Database, campaign: Campaign, written: str, line: int, message: str
) -> None:
    roster = ROSTER.format(pat=PAT).replace("player: Quinn", written).encode()
    report = await StructuredImportService(db).import_files(
        campaign, [("roster.yaml", roster)], GM, members=MEMBERS
    )
    assert report.status == "failed"
    (error,) = report.errors
    assert error.line == line and message in error.message, error
    assert await _entities(db, campaign) == 0


async def test_player_on_an_npc_or_a_name_from_the_command_line_is_refused_at_its_line(
    db: Database, campaign: Campaign
) -> None:
    service = StructuredImportService(db)
    npc = ROSTER.format(pat=PAT).replace("name: Old Tom", "name: Old Tom\n    player: Quinn").encode()
    (error,) = (await service.import_files(campaign, [("roster.yaml", npc)], GM, members=MEMBERS)).errors
    assert error.line == 12 and '"player" is for a player character' in error.message
    # The command line knows no server: a name cannot be resolved there, an id can.
    report = await service.import_files(campaign, [("roster.yaml", ROSTER.format(pat=PAT).encode())], GM)
    assert report.status == "failed" and [e.line for e in report.errors] == [5, 9]
    assert "command line cannot ask the server" in report.errors[0].message
    assert await _entities(db, campaign) == 0
    ids_only = ROSTER.format(pat=PAT).replace("player: Quinn", f"player: '{QUINN}'").replace(", Patricia", "")
    assert (await service.import_files(campaign, [("roster.yaml", ids_only.encode())], GM)).ok
    desk = CharacterDesk(db, build_canon(db, SceneService(db)).access)
    assert {link.character for link in await desk.roster(campaign)} == {"Kestrel", "Sable"}
