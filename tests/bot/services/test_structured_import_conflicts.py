"""Structured lore (YAML) against what canon already says on a real database: anachronisms, play, prose and relation limits, where the YAML wins and the conflict cites both sides.

Every test runs on SQLite and, when LOREKEEPER_TEST_POSTGRES_URL is set, on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.app import CanonServices
from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign
from canon.models import AsOf, Authority, CanonLevel, EvidenceKind, Viewer
from canon.proposals import EntityContent, FactContent, Ref, RelationshipContent
from canon.storage import Database, utc_now
from canon.tables import ConflictRow, StatusChangeRow
from memory.scenes import Actor, SpeakerKind
from memory.turn_batch import IncomingMessage
from memory.turn_log import TurnLog
from tests.conftest import DatabaseTarget
from tests.helpers.llm_stub import LLMStub
from tests.helpers.structured_import import FIXTURES, by_key, reader_of
from tests.helpers.valdorn import GM, KINDS, add_factions, fixture_files, ingest_all
from tests.helpers.voice_fixtures import open_services, settings_for
from tests.helpers.voice_stub import VoiceScript, items_reply

PAT = Actor(id=2, name="Pat", is_gm=False)


CHANNEL = 700


# --- checks on ingest ------------------------------------------------------------------------------------


async def test_anachronisms_are_warnings_recorded_as_conflicts(
    db: Database, importer: StructuredImportService, campaign: Campaign
) -> None:
    timeline = """\
kind: timeline
eras:
  - era: old_kingdom
    name: The Old Kingdom
    start: 100
    end: 500
"""
    late_events = """\
kind: timeline
events:
  - id: late_feast
    name: The Late Feast
    era: old_kingdom
    year: 700
    participants: [old_king]
"""
    tree = """\
lineage: kings
members:
  - id: old_king
    name: The Old King
    born: old_kingdom.year_200
    died: old_kingdom.year_260
  - id: young_prince
    name: The Young Prince
    born: old_kingdom.year_150
    parents: [old_king]
  - id: old_queen
    name: The Old Queen
    born: old_kingdom.year_210
    died: old_kingdom.year_270
  - id: late_heir
    name: The Late Heir
    born: old_kingdom.year_300
    parents: [old_king, old_queen]
"""
    first = await importer.import_files(
        campaign, [("eras.yaml", timeline.encode()), ("kings.yaml", tree.encode())], GM
    )
    assert first.status == "ingested", first.summary()
    assert sorted(w.kind for w in first.warnings) == ["born_after_parents_death", "born_before_parent"]
    born = next(w for w in first.warnings if w.kind == "born_before_parent")
    assert "The Young Prince" in born.message and "The Old King" in born.message
    assert any("kings.yaml" in side for side in born.sides)
    orphan = next(w for w in first.warnings if w.kind == "born_after_parents_death")
    assert orphan.message.startswith("The Late Heir is born (year 300 of the Old Kingdom) after the deaths")
    assert "The Old King (year 260 of the Old Kingdom)" in orphan.message
    assert "The Old Queen (year 270 of the Old Kingdom)" in orphan.message
    lines = tree.splitlines()
    cited = {int(side.rsplit("line ", 1)[1]) for side in orphan.sides if "kings.yaml, line" in side}
    assert {
        lines.index("    born: old_kingdom.year_300") + 1,
        lines.index("    died: old_kingdom.year_270") + 1,
    } <= cited
    second = await importer.import_files(campaign, [("events.yaml", late_events.encode())], GM)
    assert second.status == "ingested", second.summary()
    kinds = {w.kind for w in second.warnings}
    assert {"event_outside_era", "dead_acting"} <= kinds
    async with db.session() as session:
        recorded = set((await session.execute(select(ConflictRow.kind))).scalars())
    assert {"born_before_parent", "born_after_parents_death", "event_outside_era", "dead_acting"} <= recorded


async def test_yaml_contradicting_play_wins_and_the_conflict_cites_both_sides(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    # Play first: a player says the Pale Worm is lawful good, and that Orrin is Aldric's parent.
    scene = await canon.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=20, channel_id=CHANNEL, title="Rumours", location=None, actor=GM
    )
    log = TurnLog(db)
    log.start()
    await log.append(
        IncomingMessage(
            message_id=9001,
            channel_id=CHANNEL,
            author_id=PAT.id,
            author_name="Pat",
            speaker=SpeakerKind.PLAYER,
            text="The Pale Worm is kind, and Orrin fathered Aldric.",
            created_at=utc_now(),
        )
    )
    await log.close()
    await canon.proposals.propose(
        campaign, CHANNEL, EntityContent(name="The Pale Worm", entity_type="Creature"), PAT
    )
    await canon.proposals.propose(
        campaign,
        CHANNEL,
        FactContent(subject=Ref(name="The Pale Worm"), attribute="alignment", value="lawful good"),
        PAT,
    )
    await canon.canon.end_scene(CHANNEL)
    await canon.reviews.accept_all(scene.id, GM)
    await canon.canon.commit_scene(scene.id, GM)
    worm_id: int
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        (worm,) = await reader.find_exact("The Pale Worm")
        worm_id = worm.id
        (played,) = await reader.statements(subject_ids=[worm.id], predicates=["alignment"])
    assert played.provenance.authority == Authority.PLAYER

    await add_factions(canon, campaign)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "ingested", report.summary()
    assert report.entities.adopted == 1  # the Pale Worm of play is the bestiary's pale_worm, not a second one
    worm, statements, _ = await by_key_or_id(db, campaign, worm_id)
    yaml_fact = next(
        s for s in statements if s.predicate == "alignment" and s.provenance.authority == Authority.SOURCE
    )
    assert yaml_fact.value == "chaotic_evil"
    contradiction = next(w for w in report.warnings if w.kind == "contradicts_higher_authority")
    assert contradiction.prevailing_id == yaml_fact.id
    assert set(contradiction.statement_ids) == {yaml_fact.id, played.id}
    assert "chaotic_evil" in contradiction.message and "prevails" in contradiction.message
    assert contradiction.superseded_ids == (played.id,) and report.statements.superseded == 1
    async with db.session() as session:
        row = (
            await session.execute(
                select(ConflictRow).where(ConflictRow.kind == "contradicts_higher_authority")
            )
        ).scalar_one()
    sides = row.details["sides"]
    cited = {e["kind"] for side in sides for e in side["evidence"]}
    assert {"yaml", "turns"} <= cited  # the YAML file and line, and the turns of play
    assert row.details["prevailing_id"] == yaml_fact.id
    await assert_yaml_is_current(db, campaign, worm_id, yaml_fact.id, played.id, "chaotic_evil")


async def assert_yaml_is_current(
    db: Database, campaign: Campaign, entity_id: int, yaml_id: int, other_id: int, value: str
) -> None:
    """Check that the card shows only the YAML value, and that the other fact is kept, superseded by it."""
    async with db.session() as session:
        for viewer in (Viewer.GM, Viewer.PLAYER):
            reader = await reader_of(db, session, campaign, viewer)
            card = await reader.card(entity_id)
            alignments = [v.statement for v in card.facts if v.statement.predicate == "alignment"]
            assert [(s.id, s.value) for s in alignments] == [(yaml_id, value)]
            as_of = await reader.card(entity_id, AsOf(world="3rd_age.year_400", world_key=400 * 10000))
            assert [v.statement.id for v in as_of.facts if v.statement.predicate == "alignment"] == [yaml_id]
        reader = await reader_of(db, session, campaign)
        (kept,) = await reader.statements(statement_ids=[other_id], include_retconned=True)
        assert kept.provenance.level == CanonLevel.RETCONNED and kept.provenance.replaced_by == yaml_id
        history = [v.statement.id for v in await reader.timeline(entity_id)]
        assert other_id in history and yaml_id in history
        why = await session.scalar(
            select(StatusChangeRow.rationale).where(
                StatusChangeRow.target_kind == "statement", StatusChangeRow.target_id == other_id
            )
        )
    assert why is not None and "bestiary.yaml, line" in why and "prevails" in why


async def test_yaml_contradicting_prose_wins_and_the_conflict_cites_the_chunk(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    # Prose first, the way `/lore import` + extraction writes it: authority source, confidence 0.6, a chunk.
    script = VoiceScript(
        extraction=items_reply(
            {"kind": "entity", "name": "The Pale Worm", "entity_type": "Creature", "turns": [1]},
            {
                "kind": "fact",
                "subject": "The Pale Worm",
                "attribute": "alignment",
                "value": "lawful good",
                "turns": [1],
            },
        )
    )
    async with LLMStub(responder=script) as stub:
        services = await open_services(db_target, settings_for(tmp_path, stub))
        try:
            campaign = await services.campaigns.create("Valdorn", guild_id=20)
            imported = await services.knowledge.import_bytes(
                campaign.id,
                "worm.md",
                b"# The Pale Worm\n\nThe Pale Worm is gentle and kind to travellers.\n",
            )
            extraction = await services.voice.extract_source(campaign, imported.source.id)
            assert extraction.batch is not None and extraction.stored == 2
            await services.reviews.accept_all(None, GM, campaign_id=campaign.id, batch=extraction.batch)
            await services.canon.commit_batch(campaign, extraction.batch, GM)
            async with services.db.session() as session:
                reader = await reader_of(services.db, session, campaign)
                (worm,) = await reader.find_exact("The Pale Worm")
                (prose,) = await reader.statements(subject_ids=[worm.id], predicates=["alignment"])
            assert (prose.provenance.authority, prose.provenance.confidence) == (Authority.SOURCE, 0.6)
            assert EvidenceKind.CHUNK in [e.kind for e in prose.evidence]

            await add_factions(services, campaign)
            report = await services.structured.import_files(campaign, fixture_files(*KINDS), GM)
            assert report.status == "ingested", report.summary()
            assert report.entities.adopted == 1
            _, statements, _ = await by_key_or_id(services.db, campaign, worm.id)
            (yaml_fact,) = [
                s for s in statements if s.predicate == "alignment" and s.provenance.confidence == 1.0
            ]
            (contradiction,) = [w for w in report.warnings if w.kind == "contradicts_higher_authority"]
            assert contradiction.prevailing_id == yaml_fact.id
            assert set(contradiction.statement_ids) == {yaml_fact.id, prose.id}
            assert contradiction.superseded_ids == (prose.id,) and report.statements.superseded == 1
            assert "lawful good" in contradiction.message and "superseded" in contradiction.message
            async with services.db.session() as session:
                row = (
                    await session.execute(
                        select(ConflictRow).where(
                            ConflictRow.campaign_id == campaign.id,
                            ConflictRow.kind == "contradicts_higher_authority",
                        )
                    )
                ).scalar_one()
            evidence = {
                side["statement_id"]: [(e["kind"], e["file"], e["source_id"]) for e in side["evidence"]]
                for side in row.details["sides"]
            }
            assert ("chunk", None, imported.source.id) in evidence[prose.id]
            assert [kind for kind, _, _ in evidence[yaml_fact.id]] == ["yaml"]
            assert evidence[yaml_fact.id][0][1] == "bestiary.yaml"
            await assert_yaml_is_current(
                services.db, campaign, worm.id, yaml_fact.id, prose.id, "chaotic_evil"
            )
        finally:
            await services.close()


async def by_key_or_id(db: Database, campaign: Campaign, entity_id: int) -> Any:
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        entity = await reader.entity(entity_id)
        return entity, await reader.statements(subject_ids=[entity_id]), []


async def test_a_relation_limit_broken_by_play_is_won_by_the_yaml(
    db: Database, importer: StructuredImportService, canon: CanonServices, campaign: Campaign
) -> None:
    await ingest_all(importer, canon, campaign)
    # A player (in a scene) claims a third parent for Aldric; the family tree gives two.
    scene = await canon.canon.scenes.start_scene(
        campaign_id=campaign.id, guild_id=20, channel_id=CHANNEL, title="Gossip", location=None, actor=GM
    )
    (proposal,) = await canon.proposals.propose(
        campaign,
        CHANNEL,
        RelationshipContent(
            subject=Ref(name="Orrin Vyr"), relation="PARENT_OF", object=Ref(name="Aldric Raventhorne")
        ),
        PAT,
    )
    assert proposal.warnings  # three parents: the GM accepts it anyway, with a reason
    await canon.canon.end_scene(CHANNEL)
    await canon.reviews.decide(proposal.id, accept=True, actor=GM, rationale="Rumour has it.")
    result = (await canon.canon.commit_scene(scene.id, GM)).result
    assert len(result.statement_ids) == 1
    # Re-ingesting the tree with a change that rewrites Aldric's parent edges checks them against play.
    tree = (FIXTURES / "family_tree.yaml").read_text()
    changed = tree.replace(
        "    parents: [cael_vyr, yssa_raventhorne]\n    spouse_of: [elara_raventhorne]",
        "    parents: [yssa_raventhorne, cael_vyr]\n    spouse_of: [elara_raventhorne]\n    description: Slayer.",
        1,
    )
    changed = changed.replace(
        "  - id: aldric_raventhorne\n    name: Aldric Raventhorne\n    born: 3rd_age.year_300",
        "  - id: aldric_raventhorne\n    name: Aldric Raventhorne\n    born: 3rd_age.year_301",
        1,
    )
    report = await importer.import_files(campaign, [("family_tree.yaml", changed.encode())], GM)
    assert report.status == "ingested", report.summary()
    contradiction = next(w for w in report.warnings if w.kind == "contradicts_higher_authority")
    assert (
        "Orrin Vyr is Aldric Raventhorne's parent" in contradiction.message
        and "the YAML prevails" in contradiction.message
    )
    # The YAML's two parents stand; the played third one is kept, superseded by a YAML parent.
    (played,) = result.statement_ids
    assert contradiction.superseded_ids == (played,) and report.statements.superseded == 1
    aldric, _, _ = await by_key(db, campaign, "aldric_raventhorne")
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        card = await reader.card(aldric.id)
        parents = {
            v.subject.name
            for v in card.relations
            if v.statement.predicate == "PARENT_OF" and v.object and v.object.id == aldric.id
        }
        assert parents == {"Cael Vyr", "Yssa Raventhorne"}
        (kept,) = await reader.statements(statement_ids=[played], include_retconned=True)
    assert kept.provenance.level == CanonLevel.RETCONNED
    assert (
        contradiction.prevailing_id is not None and kept.provenance.replaced_by == contradiction.prevailing_id
    )
