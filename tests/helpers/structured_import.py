"""Shared helpers for the structured-import tests: the campaign, canon and importer fixtures, and reading an
entity back by its key."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app import CanonServices, build_canon
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import base_ontology
from canon.storage import Database
from memory.scene_service import SceneService
from tests.helpers.paths import YAML_FIXTURES


@pytest.fixture
async def campaign(db: Database) -> Campaign:
    return await db.run(lambda s: campaigns.create_campaign(s, "Valdorn", guild_id=20))


@pytest.fixture
async def canon(db: Database) -> CanonServices:
    return build_canon(db, SceneService(db))


@pytest.fixture
def importer(db: Database, canon: CanonServices) -> StructuredImportService:
    return StructuredImportService(db, canon.access.ontology_for)


FIXTURES = YAML_FIXTURES


async def reader_of(
    db: Database, session: Any, campaign: Campaign, viewer: Viewer = Viewer.GM
) -> CanonReader:
    return await CanonReader.open(session, campaign.id, base_ontology(), viewer=viewer)


async def by_key(db: Database, campaign: Campaign, key: str) -> Any:
    """Return the standing entity with a key, its statements and each statement's evidence."""
    async with db.session() as session:
        reader = await reader_of(db, session, campaign)
        found = [e for e in await reader.find_exact(key) if e.key == key]
        assert len(found) == 1, f"{key}: {found}"
        entity = found[0]
        statements = await reader.statements(subject_ids=[entity.id], object_ids=[entity.id])
        evidence = (await reader.evidence("entity", [entity.id])).get(entity.id, [])
        return entity, statements, evidence
