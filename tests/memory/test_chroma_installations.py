"""Databases sharing one Chroma server: each its own collections, a copied database refused, orphans pruned.

Collections are named by the installation id each database keeps (`lk_<installation>_c<campaign>`), so campaign 1
of one database never reads or writes campaign 1 of another. A copy of a database (the same installation id) is
refused with the way out; `doctor` lists orphaned collections and an older version's, `reindex --prune` drops them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy.engine import make_url

from bot.app import Services, build_services
from bot.offline.emulator import DiscordEmulator
from bot.ops.collections import check_collections, prune_collections, refusal
from bot.ops.installation import Installation
from canon.storage import Database
from config.settings import Settings
from memory.chroma_client import Owner, owned_name
from memory.vector_index import ChromaVectorIndex, VectorIndexError
from tests.conftest import DatabaseTarget
from tests.helpers.chroma_server import ChromaServer

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

SALT = "# The Salt Coast\n\n## The Drowned Abbey\nMonks of the tide sank their abbey to hide a relic.\n"
ASH = (
    "# The Ash Wastes\n\n## Cinder Keep\nA fortress of black glass where the fire-priests keep their oath.\n"
)


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    server = ChromaServer(tmp_path_factory.mktemp("chroma") / "server")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def settings_on(server: ChromaServer, data: Path, url: str | None = None) -> Settings:
    extra = {"database_url": url} if url else {}
    return Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=data, chroma={"host": server.host, "port": server.port}, **extra
    )


async def services_on(server: ChromaServer, db: Database, data: Path) -> Services:
    return await build_services(settings_on(server, data), db=db)


def client(server: ChromaServer):  # type: ignore[no-untyped-def]
    import chromadb

    return chromadb.HttpClient(host=server.host, port=server.port)


async def imported(services: Services, name: str, text: str, folder: Path) -> tuple[int, int]:
    """Create a campaign, import one text; return the campaign id and how many vectors it wrote."""
    campaign = await services.campaigns.create(name)
    path = folder / f"{name}.md"
    path.write_text(text)
    report = await services.knowledge.import_path(campaign.id, path)
    assert report.source.chunk_count > 0
    return campaign.id, await services.knowledge.chunk_vectors.vectors.count(campaign.id)  # type: ignore[union-attr]


async def test_two_databases_sharing_one_chroma_server_keep_their_own_vectors(
    chroma_server: ChromaServer, db_target: DatabaseTarget, tmp_path: Path
) -> None:
    first = await services_on(chroma_server, db_target.open(), tmp_path / "a")
    second_db = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'second.sqlite3'}")
    second = await services_on(chroma_server, second_db, tmp_path / "b")
    try:
        salt, salt_vectors = await imported(first, "Salt Coast", SALT, tmp_path)
        ash, ash_vectors = await imported(second, "Ash Wastes", ASH, tmp_path)
        assert salt == ash  # both databases' first campaign: the ids are the same, the collections are not
        ids = await first.installation.id(), await second.installation.id()
        assert ids[0] != ids[1]
        chroma = client(chroma_server)
        assert chroma.get_collection(owned_name(ids[0], "lk_c", salt)).count() == salt_vectors
        assert chroma.get_collection(owned_name(ids[1], "lk_c", ash)).count() == ash_vectors
        answer = await second.knowledge.ask(ash, "where did monks hide a relic under the sea?")
        assert answer.trace.semantic_status == "ok"
        assert all("Drowned Abbey" not in r.text for r in answer.results)
    finally:
        await first.close()
        await second.close()


async def test_a_copied_database_is_refused_until_it_has_an_installation_of_its_own(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    original = tmp_path / "original.sqlite3"
    services = await services_on(
        chroma_server, Database.from_url(f"sqlite+aiosqlite:///{original}"), tmp_path / "o"
    )
    try:
        await imported(services, "Salt Coast", SALT, tmp_path)
    finally:
        await services.close()
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(original, copy)
    settings = settings_on(chroma_server, tmp_path / "c", f"sqlite+aiosqlite:///{copy}")
    # The bot itself (`lorekeeper run`'s code) does not start against it.
    async with DiscordEmulator() as emu:
        emu.add_guild("Copied")
        env = {
            **os.environ,
            "LOREKEEPER_DATA_DIR": str(tmp_path / "c"),
            "LOREKEEPER_DATABASE_URL": f"sqlite+aiosqlite:///{copy}",
            "LOREKEEPER_CHROMA__HOST": chroma_server.host,
            "LOREKEEPER_CHROMA__PORT": str(chroma_server.port),
            "LOREKEEPER_DISCORD_TOKEN": emu.token,
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.e2e.ops_bot_process",
            emu.base_url,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 1, err.decode()[-2000:]
    assert "Not starting: the Chroma server at" in err.decode() and "so it is a copy" in err.decode()
    services = await build_services(settings)
    try:
        said = await refusal(settings, services.installation)
        assert said is not None and "carries the same installation id, so it is a copy" in said
        assert "`lorekeeper db new-installation`" in said and str(copy) in said and str(original) in said
        with pytest.raises(VectorIndexError, match="so it is a copy"):
            await services.knowledge.chunk_vectors.vectors.count(1)  # type: ignore[union-attr]
        doctor = await check_collections(settings)
        assert not doctor.ok and "so it is a copy" in doctor.detail
        await services.installation.renew()
    finally:
        await services.close()
    services = await build_services(settings)
    try:
        assert await refusal(settings, services.installation) is None
        report = await services.knowledge.reindex(1)
        assert report.vectors > 0
    finally:
        await services.close()


async def test_doctor_lists_orphans_and_older_collections_and_prune_removes_only_those(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    chroma = client(chroma_server)
    other = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}")
    other_services = await services_on(chroma_server, other, tmp_path / "x")
    mine = tmp_path / "mine.sqlite3"
    settings = settings_on(chroma_server, tmp_path / "m", f"sqlite+aiosqlite:///{mine}")
    services = await build_services(settings)
    try:
        theirs, _ = await imported(other_services, "Their table", ASH, tmp_path)
        campaign, _ = await imported(services, "Salt Coast", SALT, tmp_path)
        # A shared library's collection is no orphan: its holder is a campaign row, if no story.
        shared = await services.knowledge.library.import_bytes(
            "rules.md", b"# Rules\n\nHalf cover: +2 AC.\n", guild_id=None
        )
        installation = await services.installation.id()
        orphan = owned_name(installation, "lk_c", 999)
        chroma.create_collection(orphan)
        chroma.create_collection("lk_c4242")  # an older version's, never claimed
        doctor = await check_collections(settings)
        assert doctor.ok and doctor.warning, doctor
        assert f"1 orphaned (their campaign is gone): {orphan}" in doctor.detail
        assert "1 left by an older version, unclaimed: lk_c4242" in doctor.detail
        assert (
            "other installation, left alone" in doctor.detail
            or "other installations, left alone" in doctor.detail
        )  # the other tests' too: one server
        assert "`lorekeeper reindex --prune` removes them" in doctor.detail
        pruned = await prune_collections(settings, services.db)
        assert pruned == [orphan, "lk_c4242"]
        names = {c if isinstance(c, str) else c.name for c in chroma.list_collections()}
        assert orphan not in names and "lk_c4242" not in names
        assert owned_name(installation, "lk_c", campaign) in names
        assert owned_name(installation, "lk_c", shared.source.campaign_id) in names
        assert owned_name(await other_services.installation.id(), "lk_c", theirs) in names
        doctor = await check_collections(settings)
        assert doctor.ok and not doctor.warning, doctor
    finally:
        await services.close()
        await other_services.close()


async def test_an_older_versions_collection_is_claimed_on_first_use(chroma_server: ChromaServer) -> None:
    legacy = ChromaVectorIndex(host=chroma_server.host, port=chroma_server.port)
    vector = np.ones((1, 384), dtype=np.float32)
    await legacy.add(4343, [1], [1], vector)

    async def owner() -> Owner:
        return Owner("0123456789ab", "sqlite:///claimed.sqlite3")

    owned = ChromaVectorIndex(host=chroma_server.host, port=chroma_server.port, owner=owner)
    assert await owned.count(4343) == 1
    names = {c if isinstance(c, str) else c.name for c in client(chroma_server).list_collections()}
    assert "lk_0123456789ab_c4343" in names and "lk_c4343" not in names


async def test_the_installation_id_is_made_once(db: Database) -> None:
    made = await Installation(db).id()
    assert len(made) == 12 and await Installation(db).id() == made


async def test_a_database_reached_by_another_name_is_the_same_a_copy_is_not(
    db_target: DatabaseTarget, tmp_path: Path
) -> None:
    db = db_target.open()
    try:
        address = await Installation(db).address()
    finally:
        await db.dispose()
    if db_target.is_sqlite:
        copy = tmp_path / "copy.sqlite3"
        shutil.copy(make_url(db_target.url).database or "", copy)
        other = Database.from_url(f"sqlite+aiosqlite:///{copy}")
    else:  # the same server and database by another host name
        url = make_url(db_target.url)
        assert url.host == "127.0.0.1"
        other = Database.from_url(
            url.set(host="localhost").render_as_string(hide_password=False), search_path=db_target.search_path
        )
    try:
        same = await Installation(other).address() == address
    finally:
        await other.dispose()
    assert same is (not db_target.is_sqlite), address
