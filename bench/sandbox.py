"""The sandbox's page in headless Chromium: a page load, and a message's round trip from posted to rendered.

`lorekeeper sandbox` runs in its own process, as a person starts it. In the browser, a page load is the time
from navigation to the channel rendered with its messages (the page's `lk-ready` mark); a round trip is the
time from posting a message (the page's own request) to its element appearing, put there by the live stream.
The baseline, measured in the same run and browser, is a bare request to the sandbox (`/api/ping`): what any
round trip costs before the emulator, the bot and the stream. Goal: round trip p95 under 100 ms.

    .venv/bin/python -m bench.sandbox [--messages 100] [--loads 15]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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
    "--window-size=1280,900",
)

# Posts one message through the page's own request path and resolves when the live stream rendered it.
ROUND_TRIPS = """
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const list = document.getElementById("messages");
const headers = {"X-Lorekeeper-Sandbox": "1"};
const state = await (await fetch("/api/state?user=" + localStorage.getItem("lk-sandbox-user"))).json();
const channel = document.querySelector("#channels .channel.active").dataset.id;
const times = [];
for (let i = 0; i < count; i++) {
  const text = `round trip ${Date.now()}-${i}`;
  const shown = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      for (const node of list.querySelectorAll("article.message")) {
        if (node.textContent.includes(text)) { observer.disconnect(); resolve(); return; }
      }
    });
    observer.observe(list, {childList: true, subtree: true});
  });
  const start = performance.now();
  const body = new FormData();
  body.append("payload", JSON.stringify({user: state.me.id, channel, content: text}));
  await fetch("/api/messages", {method: "POST", headers, body});
  await shown;
  times.push(performance.now() - start);
}
done(times);
"""

PINGS = """
const [count, done] = [arguments[0], arguments[arguments.length - 1]];
const times = [];
for (let i = 0; i < count; i++) {
  const start = performance.now();
  await (await fetch("/api/ping")).json();
  times.push(performance.now() - start);
}
done(times);
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 2)


def start_sandbox(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """Start `lorekeeper sandbox --port 0`; return the process and the page's address once it is ready."""
    command = [
        str(Path(sys.executable).parent / "lorekeeper"),
        "sandbox",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"ready: open (http://\S+)", line)
        if found:
            return process, found.group(1)
    raise RuntimeError("the sandbox stopped before it was ready")


def browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='lk-bench-')}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(300)
    return driver


def wait_ready(driver: Any) -> float:
    """Wait until the page rendered its channel; return the time from navigation to then (ms)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = driver.execute_script(
            "const m = performance.getEntriesByName('lk-ready'); return m.length ? m[0].startTime : null"
        )
        if ready is not None:
            return float(ready)
        time.sleep(0.01)
    raise RuntimeError("the page did not get ready within 60 s")


def run(messages: int, loads: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        process, url = start_sandbox(Path(tmp) / "data")
        driver = browser()
        try:
            driver.get(url)
            wait_ready(driver)
            driver.execute_async_script(ROUND_TRIPS, 10)  # warm up: the first messages build caches
            load_times = []
            for _ in range(loads):
                driver.get(url)
                load_times.append(wait_ready(driver))
            baseline = driver.execute_async_script(PINGS, messages)
            trips = driver.execute_async_script(ROUND_TRIPS, messages)
        finally:
            driver.quit()
            process.terminate()
            process.wait(60)
    return {
        "bench": "sandbox",
        "loads": loads,
        "messages": messages,
        "page_load_ms_p50": percentile(load_times, 50),
        "page_load_ms_p95": percentile(load_times, 95),
        "round_trip_ms_p50": percentile(trips, 50),
        "round_trip_ms_p95": percentile(trips, 95),
        "baseline_ping_ms_p50": percentile(baseline, 50),
        "baseline_ping_ms_p95": percentile(baseline, 95),
        "goal_round_trip_ms_p95": 100,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--loads", type=int, default=15)
    args = parser.parse_args()
    try:
        import selenium  # noqa: F401
    except ImportError:
        print(json.dumps({"bench": "sandbox", "skipped": "Selenium is not installed (./scripts/setup)"}))
        return 0
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        reason = "Chromium is not installed (apt-get install chromium chromium-driver)"
        print(json.dumps({"bench": "sandbox", "skipped": reason}))
        return 0
    print(json.dumps(run(args.messages, args.loads)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
