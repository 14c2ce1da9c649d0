"""The wiki's full-size pictures and its as-of view, over HTTP, on a campaign with eras, events and a family tree.

The fixtures' YAML lore (the Third Age and its sub-era, dated events, House Vyr's and the Raventhornes' family
with a GM-only heir and a GM-only event) is imported through the bot's own service; the wiki runs on a real port.
"""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient, TestServer

from bot.app import Services, build_services
from bot.wiki.server import wiki_app
from config.settings import Settings
from tests.bot.wiki.conftest import GM, PAT
from tests.conftest import BACKENDS, drop_target, make_target
from tests.helpers.valdorn import add_factions, fixture_files

pytestmark = pytest.mark.asyncio(loop_scope="module")
KINDS = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]


@dataclass
class Lore:
    services: Services
    client: TestClient
    gm: str
    player: str

    async def get(self, path: str) -> tuple[int, str, dict[str, str]]:
        response = await self.client.get(path, allow_redirects=False)
        return response.status, await response.text(), dict(response.headers)


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=BACKENDS)
async def lore(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Lore]:
    tmp_path: Path = tmp_path_factory.mktemp("wiki-lore")
    target = await make_target(request.param, tmp_path)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=tmp_path / "data", gm_role="GM", embedding={"enabled": False}
    )
    services = await build_services(settings, db=target.open())
    try:
        campaign = await services.campaigns.for_guild(30, "Valdorn")
        await add_factions(services, campaign)
        report = await services.structured.import_files(campaign, fixture_files(*KINDS), GM)
        assert report.status == "ingested", report.summary()
        client = TestClient(TestServer(wiki_app(services.wiki)))
        await client.start_server()
        links = services.wiki.links
        try:
            yield Lore(
                services,
                client,
                gm=f"/t/{await links.issue(campaign.id, GM.id, gm=True)}/",
                player=f"/t/{await links.issue(campaign.id, PAT.id, gm=False)}/",
            )
        finally:
            await client.close()
    finally:
        await services.close()
        await drop_target(target)


def texts_of_svg(body: str) -> list[str]:
    svg = body[body.index("<svg") : body.index("</svg>")]
    return re.findall(r"<text [^>]*>([^<]*)</text>", svg)


async def test_the_timeline_at_full_size_shows_each_reader_what_they_may_see(lore: Lore) -> None:
    status, body, headers = await lore.get(lore.player + "timeline")
    assert status == 200 and "script-src" not in headers["Content-Security-Policy"]
    assert "<script" not in body and body.count("<svg") == 1
    drawn = texts_of_svg(body)
    assert "Battle of Black Spire (340)" in drawn and "The Age of Iron" in drawn
    assert "Drowning" not in body and "nameless birth" not in body  # GM-only events: absent, not counted
    assert "not shown" not in body
    # Each label links to its page, through the player's own link.
    assert f'<a href="{lore.player}e/Battle_of_Black_Spire">' in body
    size = re.search(r'<svg [^>]*width="(\d+)"', body)
    assert size is not None and int(size.group(1)) >= 1200  # drawn wide, shown at its size
    assert min(int(s) for s in re.findall(r'font-size="(\d+)"', body)) >= 12
    _, gm_body, _ = await lore.get(lore.gm + "timeline")
    assert "Drowning of the Library (-300)" in texts_of_svg(gm_body)
    assert f'href="{lore.player}timeline"' in body  # the header links to it


async def test_the_family_tree_at_full_size_leaves_the_hidden_heir_out_for_a_player(lore: Lore) -> None:
    status, body, _ = await lore.get(lore.player + "tree/Aldric_Raventhorne")
    assert status == 200 and "Family tree of Aldric Raventhorne" in body
    assert "Aldric Raventhorne" in texts_of_svg(body) and "Corvin Raventhorne" in texts_of_svg(body)
    assert "Nameless" not in body and "GM only" not in body
    _, gm_body, _ = await lore.get(lore.gm + "tree/Aldric_Raventhorne")
    assert {"The Nameless Heir", "GM only"} <= set(texts_of_svg(gm_body))
    # The heir's tree answers the player exactly as a name nobody wrote.
    hidden = await lore.get(lore.player + "tree/The_Nameless_Heir")
    unknown = await lore.get(lore.player + "tree/The_Nameless_Hare")
    assert hidden[0] == unknown[0] == 404 and hidden[1] == unknown[1]
    _, page, _ = await lore.get(lore.player + "e/Aldric_Raventhorne")
    assert f'href="{lore.player}tree/Aldric_Raventhorne">Family tree</a>' in page
    status, place, _ = await lore.get(lore.player + "tree/Thornwall_Keep")
    assert status == 200 and "a family tree is drawn for a person or a lineage" in place


async def test_a_page_as_of_a_date_in_the_campaign_s_words(lore: Lore) -> None:
    when = quote("year 345 of the Third Age")
    status, body, _ = await lore.get(lore.player + f"timeline?as_of={when}")
    assert status == 200 and "As of year 345 of the Third Age" in body
    drawn = texts_of_svg(body)
    assert "Battle of Black Spire (340)" in drawn and not any(
        t.startswith("Treaty of Emberport") for t in drawn
    )
    status, page, _ = await lore.get(lore.player + f"e/Aldric_Raventhorne?as_of={when}")
    assert status == 200 and "As of year 345 of the Third Age" in page
    assert "as_of=year+345+of+the+Third+Age" in page  # its links keep the date
    assert f'href="{lore.player}"' in page  # and one goes back to now
    status, now, _ = await lore.get(lore.player + "timeline")
    assert "As of" not in now and any(t.startswith("Treaty of Emberport") for t in texts_of_svg(now))


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("year 5000 of the Third Age", "Year 5000 is not in the Third Age"),
        ("year 90000", "is in none of this campaign's eras"),
        ("the Third Age", "names no year to look from"),
        ("<script>alert(1)</script>", "which no date has"),
        ("x" * 10_000, "not a date"),
    ],
)
async def test_an_as_of_date_outside_every_era_is_a_clear_page_with_the_campaign_s_eras(
    lore: Lore, typed: str, says: str
) -> None:
    for page in ("", "timeline", "e/Aldric_Raventhorne", "tree/Aldric_Raventhorne"):
        status, body, _ = await lore.get(lore.player + page + "?as_of=" + quote(typed))
        assert status == 400, (page, body)
        assert "<script>alert" not in body
        shown = html.unescape(body)
        assert "That date is not on this campaign's calendar" in shown and says in shown
        assert "the Third Age (years -100–600)" in shown and "Traceback" not in shown
