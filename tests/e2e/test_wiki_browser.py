"""The campaign wiki in a real browser: headless Chromium (Selenium) reading the bot's own wiki server.

The campaign is played as people play it: the fixtures' lore imported, two scenes played and committed through the
Discord emulator with the real client; the links come from `/wiki` (the GM's and a player's, through the
emulator), and Chromium opens them. One Chromium serves the module (the driver's calls run in a thread: the wiki
answers on the test's loop).
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from bot.wiki.server import WikiServer
from tests.e2e.conftest import World, sql_run_below
from tests.e2e.test_pictures_e2e import import_lore, play_a_scene
from tests.helpers.browser import CHROMEDRIVER, CHROMIUM, require_browser

pytestmark = [
    pytest.mark.slow,
    sql_run_below("tests/bot/wiki/test_page_cache.py", "tests/bot/wiki/test_wiki_pages.py"),
]

#: The browser's window: headless Chromium's own default (800 × 600), the page's default width for legibility.
WINDOW = (800, 600)
#: The smallest label a picture may show, in CSS pixels, at the page's default width.
SMALLEST_LABEL = 11


class Browser:
    """One headless Chromium for the module; every call runs in a worker thread."""

    def __init__(self) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"):
            options.add_argument(flag)
        options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
        self._profile = tempfile.mkdtemp(prefix="lk-wiki-chromium-")
        options.add_argument(f"--user-data-dir={self._profile}")
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)

    async def open(self, url: str) -> str:
        """Open a page; return its text as shown."""
        await asyncio.to_thread(self.driver.get, url)
        return await self.text()

    async def text(self) -> str:
        return str(await asyncio.to_thread(self.driver.execute_script, "return document.body.innerText"))

    async def run(self, script: str) -> Any:
        return await asyncio.to_thread(self.driver.execute_script, script)

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self._profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_browser()
    opened = Browser()
    try:
        yield opened
    finally:
        opened.close()


async def wiki_links(world: World) -> tuple[str, str, WikiServer]:
    """Serve the wiki on a free port; return the GM's and Pat's links, as `/wiki` answers them."""
    services = world.bot.services
    server = WikiServer(services.wiki)
    await server.start("127.0.0.1", 0)
    services.wiki.settings.base_url = f"http://127.0.0.1:{server.port}"
    links = []
    for who in (world.gm, world.pat):
        reply = await world.emu.invoke(world.channel, who, "wiki")
        found = re.search(r"<(http://127\.0\.0\.1:\d+/t/[^>]+/)>", reply.content or "")
        assert reply.ephemeral and found, reply.content
        links.append(found.group(1))
    return links[0], links[1], server


async def test_the_gm_and_a_player_read_the_same_campaign_each_as_they_may(
    world: World, browser: Browser
) -> None:
    await import_lore(world)
    await play_a_scene(world, "The ford", {"The ambush at the ford": "3rd_age.year_361"})
    await play_a_scene(world, "The hall", {"The parley in the hall": None})
    gm, pat, server = await wiki_links(world)
    try:
        # The journal after two scenes: both, newest first, with their titles.
        journal = await browser.open(pat)
        assert "The hall" in journal and "The ford" in journal
        assert journal.index("The hall") < journal.index("The ford")
        # The same entity: the GM sees the hidden heir (marked), the player neither sees nor counts him.
        aldric = "e/" + quote("Aldric_Raventhorne")
        gm_page = await browser.open(gm + aldric)
        player_page = await browser.open(pat + aldric)
        assert "Aldric Raventhorne" in gm_page and "Aldric Raventhorne" in player_page
        assert "the nameless heir" in gm_page.lower() and "🔒" in gm_page
        assert "Nameless" not in player_page and "🔒" not in player_page
        # The hidden heir's address answers the player exactly as a name nobody wrote.
        hidden = await browser.open(pat + "e/" + quote("The_Nameless_Heir"))
        unknown = await browser.open(pat + "e/" + quote("The_Nameless_Hare"))
        assert hidden == unknown and "Nameless" not in hidden.replace("The_Nameless", "")
        assert "The Nameless Heir" in await browser.open(gm + "e/" + quote("The_Nameless_Heir"))
        # Search: the player finds Aldric, never the heir; the GM finds the heir.
        found = await browser.open(pat + "search?q=" + quote("Aldric Raventhorne"))
        assert "Aldric Raventhorne" in found
        searched = await browser.open(pat + "search?q=" + quote("Nameless Heir"))
        assert "the nameless heir" not in searched.lower() and "hidden child" not in searched
        assert not await browser.run("return document.querySelectorAll('a[href*=\"Nameless\"]').length")
        assert "The Nameless Heir" in await browser.open(gm + "search?q=" + quote("Nameless Heir"))
    finally:
        await server.stop()


async def test_the_timeline_is_legible_at_the_page_s_default_width(world: World, browser: Browser) -> None:
    await import_lore(world)
    gm, pat, server = await wiki_links(world)
    try:
        shown = await browser.open(pat + "timeline")
        assert "Battle of Black Spire (340)" in shown and "Drowning of the Library" not in shown
        sizes = await browser.run(
            "return Array.from(document.querySelectorAll('figure.picture svg text')).map(t => "
            "[t.textContent, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a, "
            "t.getBoundingClientRect().height])"
        )
        assert len(sizes) > 10
        smallest = min(sizes, key=lambda s: s[1])
        assert smallest[1] >= SMALLEST_LABEL, smallest  # its font as drawn on screen, in CSS pixels
        assert min(s[2] for s in sizes if s[0].strip()) >= SMALLEST_LABEL  # and the box the browser drew
        width = await browser.run("return document.documentElement.clientWidth")
        assert width <= WINDOW[0]
        assert "Drowning of the Library" in await browser.open(gm + "timeline")
    finally:
        await server.stop()
