"""Drive the sandbox's page in real headless Chromium (Debian's `chromium` and `chromium-driver`) with Selenium.

Only the keyboard types and sends: text goes to the focused element and Enter sends it, as a person without a
mouse would; choosing who you are and which channel to read are clicks, as they would be for anyone.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1440,1000",
)
#: How long a step may take before the test fails naming it: generous, since a loaded machine is slow.
WAIT = 90.0


def require_browser() -> None:
    """Skip with a clear message unless Selenium, Chromium and its driver are installed."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip(
            "the browser test needs Selenium (pinned in the test extras: ./scripts/setup installs it)"
        )
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip(
            "the browser test needs Debian's chromium and chromium-driver packages "
            "(apt-get install chromium chromium-driver; .ci/run installs them when it can)"
        )


@contextmanager
def sandbox_process(data_dir: Path) -> Iterator[str]:
    """Run `lorekeeper sandbox --port 0` as a person would; yield the page's address once it is ready."""
    command = [
        str(Path(sys.executable).parent / "lorekeeper"),
        "sandbox",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
    ]
    log = (data_dir.parent / "sandbox.log").open("w")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 240
        url = None
        while url is None:
            line = process.stdout.readline()
            if not line:
                raise AssertionError(f"the sandbox stopped before it was ready; see {log.name}")
            found = re.search(r"ready: open (http://\S+)", line)
            if found:
                url = found.group(1)
            if time.monotonic() > deadline:
                raise AssertionError("the sandbox did not get ready within 240 s")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


class Page:
    """The sandbox's page in Chromium, with the steps a person takes on it."""

    def __init__(self, url: str, shots: Path) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        self._profile = tempfile.mkdtemp(prefix="lk-chromium-")
        options.add_argument(f"--user-data-dir={self._profile}")
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.url = url
        self.shots = shots
        self.driver.get(url)
        self.until(
            lambda: self.driver.execute_script("return document.body.dataset.ready") == "true",
            "the page starts",
        )

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self._profile, ignore_errors=True)

    # -- waiting and reading -----------------------------------------------------------------------

    def until(self, condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        def check(_driver: Any) -> Any:
            try:
                return condition()
            except StaleElementReferenceException:
                return False

        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(check)
        except Exception as error:
            self.shot("failure")
            raise AssertionError(
                f"{what}: not so within {timeout:.0f} s; the page shows:\n{self.text()}"
            ) from error

    def text(self) -> str:
        """Return the text of the channel as shown."""
        from selenium.webdriver.common.by import By

        return str(self.driver.find_element(By.ID, "messages").text)

    def messages(self) -> list[str]:
        """Return each message's text, oldest first."""
        script = (
            "return Array.from(document.querySelectorAll('#messages article.message')).map(n => n.innerText)"
        )
        return list(self.driver.execute_script(script))

    def message_with(self, text: str) -> Any:
        """Return the newest message element containing ``text``."""
        from selenium.webdriver.common.by import By

        found = [
            m
            for m in self.driver.find_elements(By.CSS_SELECTOR, "#messages article.message")
            if text in m.text
        ]
        return found[-1] if found else None

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

    # -- acting --------------------------------------------------------------------------------------

    def be(self, name: str) -> None:
        """Switch who you are (the select in the corner)."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import Select

        picker = Select(self.driver.find_element(By.ID, "who"))
        option = next(o for o in picker.options if o.text.startswith(f"{name} ("))
        picker.select_by_value(option.get_attribute("value") or "")
        self.until(lambda: self.driver.find_element(By.ID, "me-name").text == name, f"the page shows {name}")

    def open_channel(self, name: str) -> None:
        from selenium.webdriver.common.by import By

        for button in self.driver.find_elements(By.CSS_SELECTOR, "#channels .channel"):
            if button.text.strip() == f"#{name}" or button.text.strip().endswith(name):
                button.click()
                break
        else:
            raise AssertionError(f"no channel #{name}")
        self.until(lambda: self.driver.find_element(By.ID, "channel-name").text == name, f"#{name} opens")

    def focus_input(self) -> None:
        from selenium.webdriver.common.by import By

        self.driver.find_element(By.ID, "input").click()

    def keys(self, *keys: str) -> None:
        """Type into whatever has the focus, as a keyboard does."""
        self.driver.switch_to.active_element.send_keys(*keys)

    def say(self, text: str) -> None:
        """Type a message and press Enter; wait until it is in the channel."""
        from selenium.webdriver.common.keys import Keys

        self.focus_input()
        self.keys(text, Keys.ENTER)
        self.until(lambda: text in self.text(), f"the message {text!r} shows")

    def command(self, name: str, /, *, files: dict[str, Path] | None = None, **values: str) -> None:
        """Type /name, pick it with Enter, fill its options (Tab between them) and send it with Enter."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.focus_input()
        self.keys(f"/{name}")
        self.until(lambda: self.driver.find_element(By.ID, "picker").is_displayed(), "the command list opens")
        self.keys(Keys.ENTER)
        self.until(
            lambda: self.driver.find_element(By.ID, "command-form").is_displayed(), f"/{name}'s options open"
        )
        for option, path in (files or {}).items():
            self.driver.find_element(By.ID, f"opt-{option}").send_keys(str(path))
        for option, value in values.items():
            field = self.driver.find_element(By.ID, f"opt-{option}")
            if field.tag_name == "select":
                from selenium.webdriver.support.ui import Select

                Select(field).select_by_value(value)
            else:
                field.click()
                field.send_keys(value)
                if field.get_attribute("role") == "combobox":
                    self._pick_suggestion(field, value)
        last = self.driver.switch_to.active_element
        if last.tag_name not in ("input", "select", "textarea") or last.get_attribute("type") == "file":
            last = self.driver.find_element(
                By.CSS_SELECTOR, "#command-form .send-command"
            )  # Enter presses it
        last.send_keys(Keys.ENTER)
        self.until(
            lambda: not self.driver.find_element(By.ID, "command-form").is_displayed(), f"/{name} is sent"
        )

    def _pick_suggestion(self, field: Any, value: str) -> None:
        """Wait for the bot's suggestions for what was typed and pick the first with Enter, as a user does.

        Enter picks a suggestion while the list is open (as in Discord): picking it first, rather than racing
        the bot's answer, is what makes the next Enter send the command, however loaded the machine.
        """
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        listbox = field.find_element(By.XPATH, "following-sibling::div[contains(@class, 'suggestions')]")
        self.until(
            lambda: listbox.is_displayed() and listbox.get_attribute("data-query") == value,
            f"suggestions for {value!r}",
        )
        first = listbox.find_element(By.CSS_SELECTOR, ".suggestion.active").text
        assert value in first, f"the first suggestion for {value!r} is {first!r}"

        field.send_keys(Keys.ENTER)
        self.until(
            lambda: not listbox.is_displayed() and field.get_attribute("data-choice") is not None,
            f"{value!r} picked",
        )

    def click_button(self, message_text: str, label: str) -> None:
        """Press a button of the newest message containing ``message_text``."""
        from selenium.webdriver.common.by import By

        message = self.until(lambda: self.message_with(message_text), f"a message with {message_text!r}")
        button = next(
            b for b in message.find_elements(By.CSS_SELECTOR, "button.component-button") if b.text == label
        )
        button.click()
