"""The sandbox in a real browser: a GM and two players play a scene to canon, and nobody sees what is not theirs.

One sandbox (started as `lorekeeper sandbox`, as the README says) and one Chromium serve the whole module.
Screenshots go to the test's temporary folder; with LOREKEEPER_SANDBOX_SCREENSHOT=docs/sandbox.png the GM's view
of the review card is also written there (the README's picture).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.offline.sandbox.sample import FILES
from tests.e2e.jargon import jargon_in
from tests.helpers.browser import Page, require_browser, sandbox_process
from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow

SAMPLE = REPO / "bot" / "offline" / "sandbox" / "sample"
SECRET = ("Ilsa", "pays for the silence")  # the GM-only member of House Vale, and what her entry says


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    require_browser()
    root = tmp_path_factory.mktemp("sandbox")
    with sandbox_process(root / "data") as url:
        shots = root / "screenshots"
        shots.mkdir()
        opened = Page(url, shots)
        try:
            yield opened
        finally:
            opened.close()


def test_a_scene_played_to_canon_in_the_browser(page: Page) -> None:
    # First visit: you are the GM, in an empty campaign; the page says what needs a language model.
    assert page.driver.find_element("id", "me-name").text == "Gwen"
    banners = page.driver.find_element("id", "banners").text
    assert "No language model: narration and NPC speech are off" in banners and "/npc talk" not in banners
    notice = page.driver.find_element("css selector", "#banners .banner.llm")
    assert notice.size["height"] < 60, notice.size  # one line, not a third of a narrow window
    page.driver.find_element("css selector", "#banners .banner-more").click()
    page.until(lambda: "NPC speech (/npc talk)" in page.driver.find_element("id", "banners").text, "more")
    assert "Import the sample world" in page.driver.find_element("id", "banners").text

    # The GM imports the sample world, file by file from disk, with /lore import in #lore-library.
    page.open_channel("lore-library")
    for name, options in FILES:
        extra = {"class": options["class"]} if "class" in options else {}
        page.command("lore import", files={"file": SAMPLE / name}, **extra)
        title = f"Imported: {name}"
        page.until(lambda title=title: title in page.text(), f"the import of {name} is answered")
    assert page.text().count("Only you can see this") == len(FILES)
    page.shot("1-imports")

    # The GM starts a scene at the Gilded Eel.
    page.open_channel("the-gilded-eel")
    page.command("scene start", title="Rain at the Gilded Eel", location="The Gilded Eel")
    page.until(lambda: "Scene 1: Rain at the Gilded Eel" in page.text(), "the scene starts")

    # Two players post turns; one proposes a fact, its subject picked from the bot's autocomplete.
    page.be("Pat")
    page.say("I slide a silver coin across the bar. Who has been asking about Lord Aldren?")
    page.be("Quinn")
    page.say("I keep an eye on the door. Corin Vale walks in, soaked and grinning.")
    _propose_with_autocomplete(page)
    page.until(lambda: "owes Brannoc forty silver" in page.text(), "Quinn's proposal is answered")

    # The GM ends the scene: a private answer for the GM, the review card for the table.
    page.be("Gwen")
    page.command("endscene")
    page.until(lambda: "Canon review" in page.text() and "Accept #1" in page.text(), "the review card")
    # The GM's private answer, once the scene has ended, says what to review and links the card.
    ending = page.message_with("open the review")
    assert ending is not None and "Only you can see this" in ending.text, page.text()
    assert "Your campaign is empty" not in page.driver.find_element("id", "banners").text
    page.driver.find_element("css selector", "#banners .banner-close").click()  # the LLM notice, read
    page.until(lambda: not page.driver.find_element("id", "banners").text, "the notice closes")
    _save_readme_picture(page.shot("2-review-card-gm"))

    # A player cannot decide: Pat's click is refused, privately, and the card does not change.
    page.be("Pat")
    assert "open the review" not in page.text()  # the GM's private answer is not Pat's to see
    page.click_button("Canon review", "Accept #1")
    page.until(lambda: "Only the GM can do that" in page.text(), "Pat is told only the GM decides")
    assert "pending" in page.message_with("Canon review").text

    # The GM opens the proposal in the Edit form: its optional attribute list has nothing chosen, and the
    # form submitted as it was shown accepts the proposal as it was (it once became a "description").
    page.be("Gwen")
    assert "Only the GM can do that" not in page.text()  # Pat's refusal was Pat's alone
    page.click_button("Canon review", "Edit #1")
    page.until(lambda: page.driver.find_element("id", "modal").is_displayed(), "the Edit form opens")
    pick = page.driver.find_element("id", "modal-lk:edit:attribute_pick")
    assert pick.get_attribute("value") == "", "the form chose an attribute for the GM"
    page.driver.find_element("css selector", "#modal .modal-submit").click()
    page.until(
        lambda: "accepted as it was" in page.text(), "the untouched form accepts the proposal as it was"
    )
    page.until(lambda: "accepted" in page.message_with("Canon review").text, "the proposal is accepted")
    assert "Corin Vale's debt: owes Brannoc forty silver" in page.message_with("Canon review").text
    page.click_button("Canon review", "Commit")
    page.until(lambda: "Canon committed" in page.text(), "the scene is committed")
    assert "#1 Corin Vale's debt: owes Brannoc forty silver" in page.message_with("Canon committed").text
    page.shot("3-committed")

    # A player asks the lore and opens an entity card and a family tree: no GM-only canon anywhere.
    page.be("Pat")
    page.open_channel("general")
    page.command("lore ask", question="Who rules Saltmarch?")
    page.until(lambda: "Lore: Who rules Saltmarch?" in page.text(), "Pat's answer")
    page.command("canon entity", name="Aldren Vale")
    page.until(lambda: "Aldren Vale (Person)" in page.text(), "Pat's entity card")
    page.command("canon tree", name="House Vale")
    page.until(
        lambda: page.driver.find_elements("css selector", ".attachment-image img, .embed-image"), "the tree"
    )
    card = page.message_with("Aldren Vale (Person)").text
    assert "Lord of Saltmarch" in card
    page.shot("4-player-lore")
    _assert_player_sees_no_secret(page)

    # The GM's own card does show the hidden daughter: what Pat did not see was really there.
    page.be("Gwen")
    page.open_channel("general")
    page.command("canon entity", name="Ilsa Marrow")
    page.until(lambda: "Ilsa Marrow (Person)" in page.text(), "the GM's card of the secret")
    assert SECRET[1] in page.message_with("Ilsa Marrow (Person)").text
    page.be("Pat")
    _assert_player_sees_no_secret(page)
    # Nobody reads the program's words, the GM included: every channel as each of them sees it, rendered.
    for who in ("Pat", "Gwen"):
        page.be(who)
        for channel in ("general", "lore-library", "the-gilded-eel"):
            page.open_channel(channel)
            assert not jargon_in(page.text()), f"{who} reads jargon in #{channel}: {jargon_in(page.text())}"


def _propose_with_autocomplete(page: Page) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.focus_input()
    page.keys("/propose fact")
    page.until(lambda: page.driver.find_element(By.ID, "picker").is_displayed(), "the command list")
    page.keys(Keys.ENTER)
    page.until(
        lambda: page.driver.find_element(By.ID, "opt-subject").is_displayed(), "/propose fact's options"
    )
    page.keys("Cori")  # the subject has the focus: the bot suggests names as it is typed
    suggestions = page.driver.find_element(By.CSS_SELECTOR, ".suggestions")
    page.until(  # the list shown answers what was typed, not an earlier, shorter text
        lambda: (
            suggestions.get_attribute("data-query") == "Cori" and "Corin Vale (Person)" in suggestions.text
        ),
        "the bot suggests Corin Vale",
    )
    page.keys(Keys.ENTER)  # picks the highlighted suggestion
    assert page.driver.find_element(By.ID, "opt-subject").get_attribute("value") == "Corin Vale (Person)"
    page.keys(Keys.TAB, "debt", Keys.TAB, "owes Brannoc forty silver", Keys.ENTER)
    page.until(
        lambda: not page.driver.find_element(By.ID, "command-form").is_displayed(), "the proposal is sent"
    )


def _assert_player_sees_no_secret(page: Page) -> None:
    """Look at every channel as the current player: no GM-only canon, no GM's private answer."""
    for channel in ("general", "lore-library", "the-gilded-eel", "the-north-road"):
        page.open_channel(channel)
        shown = page.text()
        assert SECRET[1] not in shown and "Ilsa Marrow" not in shown, f"#{channel} shows GM-only canon"
        for message in page.messages():
            if "Only you can see this" in message:
                assert message.splitlines()[0].startswith("Pat"), f"#{channel} shows another's private answer"
        if channel == "lore-library":
            assert "Imported: " not in shown  # the GM's import answers were the GM's


def _save_readme_picture(shot: Path) -> None:
    target = os.environ.get("LOREKEEPER_SANDBOX_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)


def test_the_keyboard_alone_types_sends_and_runs_commands(page: Page) -> None:
    from selenium.webdriver.common.keys import Keys

    page.driver.get(page.url)  # a fresh page: the message box has the focus
    page.until(lambda: page.driver.execute_script("return document.body.dataset.ready") == "true", "the page")
    assert page.driver.switch_to.active_element.get_attribute("id") == "input"
    page.keys("Typed and sent without a mouse.", Keys.ENTER)
    page.until(lambda: "Typed and sent without a mouse." in page.text(), "the message shows")
    page.keys("/scene stat")
    page.until(lambda: "/scene status" in page.driver.find_element("id", "picker").text, "the list")
    page.keys(Keys.ARROW_DOWN, Keys.ARROW_UP, Keys.ENTER)  # move in the list and back, then pick
    page.until(lambda: page.driver.find_element("id", "command-form").is_displayed(), "the options")
    page.keys(Keys.ENTER)  # no options: the focus is on Send
    page.until(lambda: page.message_with("used /scene status") is not None, "the answer")
    page.keys("/lore ask")
    page.keys(Keys.ENTER)
    page.keys(Keys.ESCAPE)  # changed my mind: the form closes and the message box has the focus again
    page.until(lambda: not page.driver.find_element("id", "command-form").is_displayed(), "the form closes")
    assert page.driver.switch_to.active_element.get_attribute("id") == "input"
    # "/" alone lists every command the GM may use, the last letters' and the server admins' included.
    page.be("Gwen")
    page.focus_input()
    page.keys("/")
    page.until(lambda: page.driver.find_element("id", "picker").is_displayed(), "the list")
    names = [
        e.get_attribute("textContent")
        for e in page.driver.find_elements("css selector", "#picker .picker-name")
    ]
    assert len(names) > 60 and "/admin status" in names, names[-30:]
    assert any(n.startswith("/session") for n in names) and any(n.startswith("/timezone") for n in names)
    page.keys(Keys.ESCAPE)
