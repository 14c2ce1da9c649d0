"""`lorekeeper export` / `import`: a whole campaign to one archive and back as a NEW campaign.

The round trip runs on SQLite and PostgreSQL with real Chroma and the real embedding model: the same /lore
questions get the same passages and canon facts, every entity card is the same once its ids are translated,
and no restored row reuses an id. Archives of another version, damaged ones and name clashes are refused
without leaving anything behind.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from bot.app import Services, build_services
from bot.archive.campaign_archive import CampaignArchive, RestoreReport
from bot.archive.file import ARCHIVE_VERSION, ArchiveError, archive_bytes, read_archive
from bot.cli.main import app
from canon.campaigns import Campaign, CampaignRow
from canon.errors import Conflict
from canon.gate import Draft
from canon.models import NOW, Authority, Evidence, EvidenceKind, Viewer
from canon.proposals import EntityContent, FactContent, Ref
from canon.storage import utc_now
from canon.tables import EntityRow, EvidenceRow, ProposalRow, StatementRow, StatusChangeRow
from cogs.entity_embeds import entity_card_embed
from config.settings import LoreSettings, Settings
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.tables import KnowledgeSourceRow
from memory.scene_tables import TurnRevisionRow, TurnRow
from memory.voice_tables import NpcMemoryRow, SceneDigestRow
from tests.conftest import DatabaseTarget
from tests.helpers.voice_fixtures import GM, PAT, play, seed

WORLD_V1 = "# Westhaven\n\n## The Crown\n\nKing Borin rules Westhaven from the Gull Throne.\n"
WORLD = """# Westhaven

## The Crown

King Aldric rules Westhaven from the Gull Throne, high above the harbour of Thornwall.

## The Abbey

The monks of the Old Abbey keep the Ledger of Tides and ring the great bell at dusk.

## The Drowned Rat

Mira keeps the Drowned Rat, the oldest tavern of Thornwall, by the fish market.
"""
SECRETS = (
    "# Narrator notes\n\n## The Abbot\n\nThe abbot of the Old Abbey is a vampire who feeds in the crypt.\n"
)
MOOD = "# Mood\n\n## Fog\n\nFog, gulls and the smell of tar over the harbour at dusk.\n"
BESTIARY = """creatures:
  - id: pale_worm
    name: The Pale Worm
    description: A blind wyrm under the ice of Frostmere.
  - id: frost_hound
    name: Frost Hound
"""
QUESTIONS = (
    "Who rules from the Gull Throne?",
    "What do the monks of the Old Abbey keep?",
    "Where does Mira keep her tavern?",
    "Is the abbot a vampire?",
    "fog over the harbour",
    "Aldric",
)
CARDS = ("Mira", "Aldric", "Thornwall", "Orsolya", "Ledger of Tides", "The Pale Worm")


@pytest.fixture
async def services(db_target: DatabaseTarget, tmp_path: Path) -> AsyncIterator[Services]:
    """The application's services on the test database: real Chroma, the real model, small chunks."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", lore=LoreSettings(chunk_min_tokens=20)
    )
    built = await build_services(settings, db=db_target.open())
    try:
        yield built
    finally:
        await built.close()


def archive_of(services: Services) -> CampaignArchive:
    return CampaignArchive(services.db, services.knowledge, voice=services.voice)


async def build_campaign(services: Services) -> Campaign:
    """A campaign with a bit of everything: sources and versions, canon, a scene, proposals, memories, YAML."""
    campaign = await services.campaigns.create("Westreach", guild_id=77)
    knowledge = services.knowledge
    await knowledge.import_bytes(campaign.id, "world.md", WORLD_V1.encode())
    world = await knowledge.import_bytes(campaign.id, "world.md", WORLD.encode(), tags=["setting"])
    await knowledge.import_bytes(
        campaign.id, "secrets.md", SECRETS.encode(), hidden=True, knowledge_class=KnowledgeClass.CANON
    )
    mood = await knowledge.import_bytes(
        campaign.id, "mood.md", MOOD.encode(), knowledge_class=KnowledgeClass.INSPIRATION
    )
    await knowledge.import_bytes(campaign.id, "off.md", b"# Off\n\nA disabled note about the Gull Throne.\n")
    off = next(s for s in await knowledge.list_sources(campaign.id) if s.filename == "off.md")
    await knowledge.disable_source(campaign.id, off.id)
    await knowledge.ask(campaign.id, QUESTIONS[0])  # one use counted
    assert mood.chunk_count >= 1 and world.chunk_count >= 3

    seeded = await seed(services, campaign=campaign)
    # A scene: turns (one edited), a player's proposal accepted and committed, NPC memories of it.
    channel = 5150
    scene = await play(
        services,
        seeded,
        [
            (GM, "Mira pours ale while Aldric watches the door."),
            (PAT, "I ask Mira about the Ledger of Tides."),
        ],
        channel_id=channel,
    )
    await services.turns.edit(
        channel * 1000 + 2, "I ask Mira, quietly, about the Ledger of Tides.", utc_now()
    )
    await services.proposals.propose(
        campaign,
        channel,
        FactContent(subject=Ref(name="Aldric"), attribute="title", value="Lord of Thornwall"),
        PAT,
    )
    _report, review = await services.canon.end_scene(channel)
    for proposal in review.proposals:
        await services.reviews.decide(proposal.id, accept=True, actor=GM)
    await services.canon.commit_scene(scene.id, GM)
    await services.voice.drain()
    await services.recaps.recap_scene(scene.id)  # the campaign journal
    # A retcon with a replacement (status change, replaces).
    card = await services.queries.card(campaign, "Aldric", viewer=Viewer.GM)
    title = next(v for v in card.facts if v.statement.predicate == "title")
    await services.admin.retcon(
        campaign, title.statement.id, GM, rationale="He was crowned", new_value="King of Thornwall"
    )
    # Proposals read from a source chunk: one batch committed, one left pending.
    chunk = (await knowledge.chunks(campaign.id, world.source.id))[1]
    evidence = [Evidence(kind=EvidenceKind.CHUNK, source_id=world.source.id, chunk_id=chunk.id)]

    def draft(name: str) -> Draft:
        return Draft(
            content=EntityContent(name=name, entity_type="Item", description="kept by the monks"),
            authority=Authority.SOURCE,
            evidence=evidence,
            origin="prose_extraction",
            confidence=0.6,
        )

    stored = await services.proposals.submit(
        campaign, [draft("Ledger of Tides")], scene_id=None, batch="extract:1:1"
    )
    await services.reviews.decide(stored[0].id, accept=True, actor=GM)
    await services.canon.commit_batch(campaign, "extract:1:1", GM)
    await services.proposals.submit(campaign, [draft("Bell of Dusk")], scene_id=None, batch="extract:1:2")
    # Structured lore.
    yaml = await services.structured.import_files(campaign, [("bestiary.yaml", BESTIARY.encode())])
    assert yaml.ok, yaml.summary()
    # The GM's notes: one about an entity, one done.
    await services.notes.add(campaign, "The worm wakes at midwinter", GM, tags="plot", about="The Pale Worm")
    done = await services.notes.add(campaign, "Print the map", GM, tags="todo")
    await services.notes.mark_done(campaign, done.page.notes[0].id)
    await services.queries.check(campaign)
    return campaign


async def answers(services: Services, campaign_id: int) -> dict[tuple[str, str], Any]:
    """Return what every question gets, for a player and for the GM: passages and canon facts."""
    out: dict[tuple[str, str], Any] = {}
    for question in QUESTIONS:
        for viewer in (Viewer.PLAYER, Viewer.GM):
            answer = await services.knowledge.ask(campaign_id, question, viewer=viewer, record=False)
            out[(question, viewer.value)] = (
                [(r.filename, r.heading_path, r.knowledge_class, r.hidden, r.text) for r in answer.results],
                [(f.entity_name, f.entity_type, f.hidden, f.facts) for f in answer.canon_facts],
            )
    return out


def card_text(card: Any, viewer: Viewer) -> str:
    embed = entity_card_embed(card, viewer=viewer, as_of=NOW).to_dict()
    parts = [embed.get("title", ""), embed.get("description") or "", embed["footer"]["text"]]
    parts += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


async def cards(services: Services, campaign: Campaign) -> dict[tuple[str, str], str]:
    out = {}
    for name in CARDS:
        for viewer in (Viewer.PLAYER, Viewer.GM):
            try:
                card = await services.queries.card(campaign, name, viewer=viewer)
            except Exception as error:  # a player does not find a GM-only entity
                out[(name, viewer.value)] = type(error).__name__
                continue
            out[(name, viewer.value)] = card_text(card, viewer)
    return out


def translate(text: str, report: RestoreReport) -> str:
    """Rewrite the ids in a card's text to the ids the import gave (so old and new cards compare)."""
    ids = report.ids

    def sub(pattern: str, table: str) -> None:
        nonlocal text
        text = re.sub(pattern, lambda m: m.group(1) + str(ids[table][int(m.group(2))]), text)

    sub(r"(\(fact )(\d+)(?=\))", "statements")
    sub(r"(entity #)(\d+)", "entities")
    sub(r"(scene #)(\d+)", "scenes")
    sub(r"(\(source )(\d+)(?=\))", "knowledge_sources")
    sub(r"(chunk #)(\d+)", "knowledge_chunks")
    return text


async def count(services: Services, model: Any, campaign_id: int) -> int:
    async with services.db.session() as session:
        return int(
            await session.scalar(
                select(func.count()).select_from(model).where(model.campaign_id == campaign_id)
            )
            or 0
        )


async def test_a_round_trip_keeps_every_answer_and_card_and_never_reuses_an_id(
    services: Services, tmp_path: Path
) -> None:
    campaign = await build_campaign(services)
    before_answers = await answers(services, campaign.id)
    before_cards = await cards(services, campaign)
    assert any("vampire" in str(v) for k, v in before_answers.items() if k[1] == "gm")
    assert not any("vampire" in str(v) for k, v in before_answers.items() if k[1] == "player")

    path = tmp_path / "out" / "westreach.zip"
    exported = await archive_of(services).export_campaign(campaign.id, path)
    assert exported.tables["statements"] > 0 and exported.tables["turn_revisions"] == 1
    assert exported.files == 5  # four sources, and the first version of world.md
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        assert manifest["format"] == "lorekeeper-campaign" and manifest["version"] == ARCHIVE_VERSION
        assert not any("embedding" in name or "chroma" in name for name in archive.namelist())

    report = await archive_of(services).import_campaign(path, name="Westreach Copy")
    copy = report.campaign
    assert copy.name == "Westreach Copy" and copy.id != campaign.id and copy.guild_id is None
    assert not report.warnings, report.warnings

    # Fresh ids everywhere: nothing restored shares an id with the original.
    for table, mapping in report.ids.items():
        if table not in {"scene_digests", "journal_entries"}:  # keyed by scene id, checked through scenes
            assert not set(mapping) & set(mapping.values()), table
    for model in (EntityRow, StatementRow, StatusChangeRow, EvidenceRow, ProposalRow, TurnRow, NpcMemoryRow):
        assert await count(services, model, copy.id) == await count(services, model, campaign.id), model
    assert await count(services, SceneDigestRow, copy.id) == 1
    # The campaign journal came along: the same recap, of the restored scene.
    (recap,) = await services.recaps.latest(campaign, 10)
    (restored_recap,) = await services.recaps.latest(copy, 10)
    assert restored_recap.scene_id == report.ids["scenes"][recap.scene_id]
    assert restored_recap.model_dump(exclude={"scene_id", "campaign_id"}) == recap.model_dump(
        exclude={"scene_id", "campaign_id"}
    )
    assert recap.facts == ("Aldric is Lord of Thornwall",) and recap.cited
    async with services.db.session() as session:
        revisions = await session.scalar(
            select(func.count())
            .select_from(TurnRevisionRow)
            .join(TurnRow, TurnRow.id == TurnRevisionRow.turn_id)
            .where(TurnRow.campaign_id == copy.id)
        )
        scopes = set(
            (
                await session.execute(select(NpcMemoryRow.scope).where(NpcMemoryRow.campaign_id == copy.id))
            ).scalars()
        )
        statuses = sorted(
            (
                await session.execute(select(ProposalRow.status).where(ProposalRow.campaign_id == copy.id))
            ).scalars()
        )
        chunk_evidence = list(
            (
                await session.execute(
                    select(EvidenceRow.source_id, EvidenceRow.chunk_id).where(
                        EvidenceRow.campaign_id == copy.id, EvidenceRow.kind == "chunk"
                    )
                )
            ).all()
        )
    assert revisions == 1
    assert scopes and all(s.startswith(f"/campaign/{copy.id}") for s in scopes)
    assert statuses.count("pending") == 1 and "committed" in statuses
    assert chunk_evidence and all(
        s in report.ids["knowledge_sources"].values() and c in report.ids["knowledge_chunks"].values()
        for s, c in chunk_evidence
    )

    # The sources keep their settings; the same questions get the same answers; the cards are the same.
    restored = {s.filename: s for s in await services.knowledge.list_sources(copy.id)}
    assert restored["secrets.md"].hidden and not restored["off.md"].enabled
    assert restored["world.md"].version == 2 and restored["world.md"].tags == ["setting"]
    assert restored["world.md"].times_used == 1
    assert await answers(services, copy.id) == before_answers
    after_cards = await cards(services, copy)
    assert after_cards == {key: translate(text, report) for key, text in before_cards.items()}
    assert "Ledger of Tides" in after_cards[("Ledger of Tides", "gm")]

    # The GM's notes came along, about the restored entity, the done one still done.
    notes = (await services.notes.search(copy, include_done=True)).page.notes
    assert [(n.text, n.tags, n.done) for n in notes] == [
        ("The worm wakes at midwinter", ("plot",), False),
        ("Print the map", ("todo",), True),
    ]
    worm = await services.queries.card(copy, "The Pale Worm", viewer=Viewer.GM)
    assert [n.text for n in await services.notes.about(copy, worm.entity.id)] == [
        "The worm wakes at midwinter"
    ]
    # The YAML bookkeeping came along: importing the same file again writes nothing.
    again = await services.structured.import_files(copy, [("bestiary.yaml", BESTIARY.encode())])
    assert again.status == "unchanged", again.summary()
    # The original is untouched.
    assert await answers(services, campaign.id) == before_answers


async def test_archives_of_another_version_damaged_or_clashing_are_refused_and_leave_nothing(
    services: Services, tmp_path: Path
) -> None:
    campaign = await services.campaigns.create("Small")
    await services.knowledge.import_bytes(campaign.id, "world.md", WORLD.encode())
    await seed(services, campaign=campaign)
    path = tmp_path / "small.zip"
    await archive_of(services).export_campaign(campaign.id, path)
    contents = read_archive(path)

    newer = tmp_path / "newer.zip"
    newer.write_bytes(
        archive_bytes(type(contents)({**contents.manifest, "version": 99}, contents.tables, contents.files))
    )
    with pytest.raises(ArchiveError, match=r"version 99; this Lorekeeper reads version 1 only.*newer"):
        await archive_of(services).import_campaign(newer, name="Newer")
    not_zip = tmp_path / "notes.zip"
    not_zip.write_text("just text")
    with pytest.raises(ArchiveError, match="not a Lorekeeper campaign archive"):
        await archive_of(services).import_campaign(not_zip)
    with pytest.raises(Conflict, match="already exists; import under another name"):
        await archive_of(services).import_campaign(path)  # "Small" exists

    # An inconsistent archive fails after its sources were imported: everything is removed again.
    broken = dict(contents.tables)
    broken["statements"] = [{**broken["statements"][0], "subject_id": 10**9}, *broken["statements"][1:]]
    bad = tmp_path / "bad.zip"
    bad.write_bytes(archive_bytes(type(contents)(contents.manifest, broken, contents.files)))
    sources_before = await count(services, KnowledgeSourceRow, campaign.id)
    with pytest.raises(ArchiveError, match="inconsistent"):
        await archive_of(services).import_campaign(bad, name="Broken")
    async with services.db.session() as session:
        assert await session.scalar(select(func.count()).where(CampaignRow.name == "Broken")) == 0
        total_sources = await session.scalar(select(func.count()).select_from(KnowledgeSourceRow))
    assert total_sources == sources_before

    # Under a new name it imports, and again under another: each a campaign of its own.
    first = await archive_of(services).import_campaign(path, name="Small Two")
    second = await archive_of(services).import_campaign(path, name="Small Three")
    assert len({campaign.id, first.campaign.id, second.campaign.id}) == 3
    for copy in (first.campaign, second.campaign):
        card = await services.queries.card(copy, "Mira", viewer=Viewer.PLAYER)
        assert card.entity.name == "Mira"


def test_the_command_line_exports_and_imports_under_a_new_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("LOREKEEPER_DATABASE_URL", "LOREKEEPER_CONFIG", "LOREKEEPER_DISCORD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOREKEEPER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOREKEEPER_EMBEDDING__ENABLED", "false")
    runner = CliRunner()
    (tmp_path / "world.md").write_text(WORLD, encoding="utf-8")
    assert runner.invoke(app, ["campaign", "create", "Origin"]).exit_code == 0
    ingested = runner.invoke(app, ["ingest", str(tmp_path / "world.md"), "--campaign", "Origin", "--json"])
    assert ingested.exit_code == 0, ingested.output
    exported = runner.invoke(app, ["export", str(tmp_path / "origin.zip"), "--campaign", "Origin", "--json"])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout)["tables"]["knowledge_sources"] == 1
    imported = runner.invoke(app, ["import", str(tmp_path / "origin.zip"), "--as", "Copy", "--json"])
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["campaign"] == "Copy"
    clash = runner.invoke(app, ["import", str(tmp_path / "origin.zip"), "--as", "Copy"])
    assert clash.exit_code == 1 and "already exists" in clash.output
    asked = runner.invoke(app, ["lore", "Who rules from the Gull Throne?", "--campaign", "Copy", "--json"])
    assert asked.exit_code == 0 and "world.md" in asked.stdout
