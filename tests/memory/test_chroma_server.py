"""Lore through a Chroma server (`chromadb.HttpClient`), and what happens while that server is down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import Services, build_services
from bot.ops.recovery import resume_indexing
from config.settings import Settings
from memory.chroma_client import owned_name
from memory.knowledge.source_models import VectorStatus
from tests.conftest import DatabaseTarget
from tests.helpers.chroma_server import ChromaServer

BIBLE = """# The Salt Coast

## Westhaven
Westhaven is a harbour town ruled by the Lady Mira Vell, who keeps the lighthouse burning.

## The Drowned Abbey
Monks of the tide sank their abbey to hide a relic; its bell still rings at low water.

## Ember Pass
A mountain road where caravans pay the wyvern toll in copper and salt.
"""


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    """A Chroma server on a free port, its data in tmp_path; stopped at the end."""
    server = ChromaServer(tmp_path / "chroma-server")
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def services_on(server: ChromaServer, target: DatabaseTarget, tmp_path: Path) -> Services:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        chroma={"host": server.host, "port": server.port},
    )
    return await build_services(settings, db=target.open())


def bible(tmp_path: Path) -> Path:
    path = tmp_path / "salt-coast.md"
    path.write_text(BIBLE)
    return path


async def test_lore_import_and_lookup_through_a_chroma_server(
    chroma_server: ChromaServer, db_target: DatabaseTarget, tmp_path: Path
) -> None:
    services = await services_on(chroma_server, db_target, tmp_path)
    try:
        installation = await services.installation.id()
        campaign = await services.campaigns.create("Salt Coast")
        report = await services.knowledge.import_path(campaign.id, bible(tmp_path))
        assert report.source.vector_status == VectorStatus.INDEXED
        answer = await services.knowledge.ask(campaign.id, "where do monks hide a sacred object under water?")
        assert answer.trace.semantic_status == "ok" and answer.trace.semantic_candidates > 0
        assert "Drowned Abbey" in " ".join(r.text for r in answer.results[:2])
        assert not answer.trace.warnings
    finally:
        await services.close()
    # The vectors are in the server, not in the data folder.
    import chromadb

    client = chromadb.HttpClient(host=chroma_server.host, port=chroma_server.port)
    assert (
        client.get_collection(owned_name(installation, "lk_c", campaign.id)).count()
        >= report.source.chunk_count
        > 0
    )
    assert not (tmp_path / "data" / "chroma").exists()


async def test_a_chroma_server_that_is_down_falls_back_to_words_and_indexing_resumes(
    chroma_server: ChromaServer, db_target: DatabaseTarget, tmp_path: Path
) -> None:
    services = await services_on(chroma_server, db_target, tmp_path)
    try:
        campaign = await services.campaigns.create("Salt Coast")
        await services.knowledge.import_path(campaign.id, bible(tmp_path))
        chroma_server.stop()

        answer = await services.knowledge.ask(campaign.id, "who rules Westhaven?")
        assert answer.results and "Mira Vell" in answer.results[0].text  # words alone still find it
        assert answer.trace.semantic_status not in ("ok", "empty")
        assert any("semantic search unavailable" in w and "words only" in w for w in answer.trace.warnings)

        late = tmp_path / "late.md"
        late.write_text("# The Glass Marsh\n\nWill-o'-wisps lead travellers to the sunken observatory.\n")
        report = await services.knowledge.import_path(campaign.id, late)
        assert report.source.vector_status == VectorStatus.FAILED  # the import stands; vectors wait
        assert await resume_indexing(services.knowledge) == {campaign.id: "unreachable"}

        chroma_server.start()
        assert await resume_indexing(services.knowledge) == {campaign.id: VectorStatus.INDEXED.value}
        sources = await services.knowledge.list_sources(campaign.id)
        assert {s.vector_status for s in sources} == {VectorStatus.INDEXED}
        found = await services.knowledge.ask(campaign.id, "lights that lure walkers into a swamp")
        assert found.trace.semantic_status == "ok" and "Glass Marsh" in found.results[0].text
    finally:
        await services.close()
