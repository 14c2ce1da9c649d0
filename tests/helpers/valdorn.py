"""The Valdorn world of the YAML fixtures: its files, their import, and databases that hold it, built once.

`ingest_all` imports every hand-written kind (and the bestiary) through the structured import, with the two
factions that come from play. Tests that only read the imported world take a copy of a database that holds it
(`VALDORN.fill`), built once per test process and backend: on SQLite the built file, on PostgreSQL every row of
the built schema copied into the test's own, its sequences where the build left them.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from bot.app import CanonServices, Services, build_canon
from bot.services.structured_import import StructuredImportService
from canon import campaigns
from canon.campaigns import Campaign, ChangesetRow
from canon.proposals import EntityContent
from canon.storage import Database
from canon.structured.tables import StructuredFileRow
from canon.tables import ConflictRow, EntityRow, EvidenceRow, StatementRow, StatusChangeRow
from memory.scene_service import SceneService
from memory.scenes import Actor
from tests.helpers.db_templates import TEMPLATES
from tests.helpers.paths import YAML_FIXTURES

if TYPE_CHECKING:
    from tests.conftest import DatabaseTarget

KINDS = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]
GM = Actor(id=1, name="Gina", is_gm=True)
NAME, GUILD = "Valdorn", 20


def fixture_files(*kinds: str) -> list[tuple[str, bytes]]:
    return [(f"{kind}.yaml", (YAML_FIXTURES / f"{kind}.yaml").read_bytes()) for kind in kinds]


async def add_factions(canon: CanonServices | Services, campaign: Campaign) -> None:
    """The fixtures' two factions: no YAML kind defines factions, so they come from play (no key)."""
    for name in ("Sisterhood of Silver", "The Crimson Pact"):
        await canon.canon.add_direct(
            campaign, EntityContent(name=name, entity_type="Faction"), GM, command="/canon add"
        )


async def counts(db: Database) -> dict[str, int]:
    tables = {
        "entities": EntityRow,
        "statements": StatementRow,
        "evidence": EvidenceRow,
        "status": StatusChangeRow,
        "changesets": ChangesetRow,
        "files": StructuredFileRow,
        "conflicts": ConflictRow,
    }
    async with db.session() as session:
        return {
            name: int(await session.scalar(select(func.count()).select_from(model)) or 0)
            for name, model in tables.items()
        }


async def ingest_all(importer: StructuredImportService, canon: CanonServices, campaign: Campaign) -> Any:
    await add_factions(canon, campaign)
    report = await importer.import_files(campaign, fixture_files(*KINDS), GM)
    assert report.status == "ingested", report.summary()
    return report


async def build(db: Database) -> Campaign:
    """Create the Valdorn campaign in a migrated, empty database and import the whole world into it."""
    campaign = await db.run(lambda s: campaigns.create_campaign(s, NAME, guild_id=GUILD))
    canon = build_canon(db, SceneService(db))
    await ingest_all(StructuredImportService(db, canon.access.ontology_for), canon, campaign)
    return campaign


async def campaign_in(db: Database) -> Campaign:
    """Return the Valdorn campaign of a database `VALDORN.fill` filled."""
    return await db.run(lambda s: campaigns.find_campaign_by_name(s, NAME))


class _Worlds:
    """The databases holding the imported world in this process: a SQLite file, a schema per PostgreSQL server."""

    def __init__(self) -> None:
        self._file: Path | None = None
        self._schemas: dict[str, str] = {}

    async def fill(self, target: DatabaseTarget) -> None:
        """Make a migrated, empty test database (not opened yet) hold the imported world."""
        if target.is_sqlite:
            if self._file is None:
                path = Path(tempfile.mkdtemp(prefix="lorekeeper-valdorn-")) / "valdorn.sqlite3"
                await TEMPLATES.copy_sqlite(path)
                db = Database.from_url(f"sqlite+aiosqlite:///{path}")
                try:
                    await build(db)
                finally:
                    await db.dispose()  # the last connection checkpoints the write-ahead log into the file
                self._file = path
            dest = Path(target.url.removeprefix("sqlite+aiosqlite:///"))
            shutil.copyfile(self._file, dest)
            return
        assert target.search_path is not None
        source = self._schemas.get(target.url)
        if source is None:
            source = await TEMPLATES.create_postgres(target.url)
            TEMPLATES.drop_at_end(target.url, source)
            db = Database.from_url(target.url, search_path=source)
            try:
                await build(db)
            finally:
                await db.dispose()
            self._schemas[target.url] = source
        await TEMPLATES.copy_postgres_rows(target.url, source, target.search_path)

    @contextlib.asynccontextmanager
    async def opened(self, target: DatabaseTarget) -> AsyncIterator[Database]:
        """Yield the test's database holding the imported world (a copy of one built once per process)."""
        await self.fill(target)
        db = target.open()
        try:
            yield db
        finally:
            await db.dispose()

    def remove(self) -> None:
        """Remove this process's SQLite world (its PostgreSQL schemas go with the templates)."""
        if self._file is not None:
            shutil.rmtree(self._file.parent, ignore_errors=True)
            self._file = None
        self._schemas.clear()


#: The built worlds of this test process.
VALDORN = _Worlds()
