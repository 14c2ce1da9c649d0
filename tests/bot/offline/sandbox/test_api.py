"""The sandbox's server, in process: who sees what, refusals, the live stream, a continued session, the LLM notice.

Each sandbox runs the real bot against the emulator on a SQLite file of its own data folder (the sandbox never
uses another database: its settings force it), real Chroma and the offline embedding model.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.offline.emulator import InteractionResult
from bot.offline.sandbox.runner import Sandbox, loopback_warning, open_sandbox, sandbox_settings
from bot.offline.sandbox.sample import FILES
from bot.offline.sandbox.views import LLM_FEATURES
from config.settings import LLMSettings, Settings
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply
from tests.helpers.paths import REPO

pytestmark = pytest.mark.slow
ACT = {"X-Lorekeeper-Sandbox": "1"}
BOOK = REPO / "tests" / "fixtures" / "books" / "basic-rules.pdf"


class Client:
    """The page's requests, as one session of a browser."""

    def __init__(self, sandbox: Sandbox, http: aiohttp.ClientSession) -> None:
        self.sandbox, self.http, self.url = sandbox, http, sandbox.url

    def id(self, key: str) -> int:
        return self.sandbox.world.people[key].id

    def channel(self, key: str) -> int:
        return self.sandbox.world.channels[key].id

    async def post(
        self, path: str, body: dict[str, Any], *, headers: dict[str, str] = ACT
    ) -> tuple[int, Any]:
        async with self.http.post(self.url + path, json=body, headers=headers) as response:
            return response.status, await response.json()

    async def command(self, who: str, channel: str, name: str, /, **options: Any) -> tuple[int, Any]:
        body = {"user": self.id(who), "channel": self.channel(channel), "command": name, "options": options}
        return await self.post("/api/commands", body)

    async def say(self, who: str, channel: str, content: str) -> tuple[int, Any]:
        body = {"user": self.id(who), "channel": self.channel(channel), "content": content}
        return await self.post("/api/messages", body)

    async def messages(self, who: str, channel: str) -> list[dict[str, Any]]:
        url = f"{self.url}/api/channels/{self.channel(channel)}/messages?user={self.id(who)}"
        async with self.http.get(url) as response:
            assert response.status == 200
            result: list[dict[str, Any]] = await response.json()
            return result

    async def shown(self, who: str, channel: str, text: str) -> dict[str, Any]:
        """Wait until a message with ``text`` is in a channel as ``who`` sees it (work after the answer)."""
        for _ in range(3000):
            found = [m for m in await self.messages(who, channel) if text in text_of(m)]
            if found:
                return found[-1]
            await asyncio.sleep(0.02)
        raise AssertionError(f"no message with {text!r} in #{channel} for {who}")

    async def state(self, who: str) -> dict[str, Any]:
        async with self.http.get(f"{self.url}/api/state?user={self.id(who)}") as response:
            result: dict[str, Any] = await response.json()
            return result


def text_of(message: dict[str, Any]) -> str:
    return json.dumps([message["content"], message["embeds"]], ensure_ascii=False)


@pytest.fixture
def sandbox_config(settings: Settings, tmp_path: Path) -> Settings:
    return sandbox_settings(settings, tmp_path / "sandbox")


@pytest.fixture
async def client(sandbox_config: Settings) -> AsyncIterator[Client]:
    async with open_sandbox(sandbox_config, port=0) as sandbox, aiohttp.ClientSession() as http:
        yield Client(sandbox, http)


class Stream:
    """One page's live stream, read in the background."""

    def __init__(self, client: Client, who: str) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.client, self.who = client, who
        self.opened = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        url = f"{self.client.url}/api/events?user={self.client.id(self.who)}"
        async with self.client.http.get(url, timeout=aiohttp.ClientTimeout(total=None)) as response:
            event = ""
            async for raw in response.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("retry:"):
                    self.opened.set()
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    self.events.append((event, json.loads(line[6:])))

    def texts(self) -> list[str]:
        return [text_of(d["message"]) for e, d in self.events if e == "message" and "message" in d]

    async def until(self, predicate: Any, what: str) -> None:
        for _ in range(2000):
            if predicate():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{self.who}'s stream: {what} never came; got {self.texts()}")

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def test_a_private_answer_reaches_only_its_asker_in_lists_and_in_the_live_stream(
    client: Client,
) -> None:
    gm_stream, pat_stream = Stream(client, "gm"), Stream(client, "pat")
    await asyncio.wait_for(asyncio.gather(gm_stream.opened.wait(), pat_stream.opened.wait()), 30)
    status, answer = await client.command("gm", "general", "lore ask", question="Who rules the city?")
    assert status == 200 and answer == {}
    await gm_stream.until(
        lambda: any("Lore: Who rules the city?" in t for t in gm_stream.texts()), "the answer"
    )
    status, _ = await client.say("pat", "general", "Pat was here.")
    assert status == 200
    await pat_stream.until(lambda: any("Pat was here." in t for t in pat_stream.texts()), "Pat's message")
    # Pat's stream carried Pat's message, and nothing of the GM's private answer before or with it.
    assert not any("Who rules the city" in t for t in pat_stream.texts())
    assert not any("Pat" in t for t in pat_stream.texts() if "Lore" in t)
    await gm_stream.until(lambda: any("Pat was here." in t for t in gm_stream.texts()), "Pat's message")
    await gm_stream.close()
    await pat_stream.close()

    gm_view = await client.messages("gm", "general")
    pat_view = await client.messages("pat", "general")
    private = [m for m in gm_view if m["ephemeral"]]
    assert len(private) == 1 and "Lore: Who rules the city?" in text_of(private[0])
    assert private[0]["interaction"] == {"user": "Gwen", "command": "/lore ask"}
    assert [m["content"] for m in pat_view] == ["Pat was here."]


async def test_bad_actions_are_refused_with_a_sentence_and_change_nothing(client: Client) -> None:
    before = len(client.sandbox.emu.messages)
    body = {"user": client.id("pat"), "channel": client.channel("general"), "content": "hello"}
    assert (await client.post("/api/messages", body, headers={}))[0] == 403  # not from the page itself
    async with client.http.post(
        client.url + "/api/messages", json=body, headers={**ACT, "Host": "attacker.example"}
    ) as response:
        assert response.status == 421  # a rebound name is not this sandbox's address
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        ("/api/sample", {"user": client.id("pat")}, 403, "Only the GM can import the sample world."),
        ("/api/messages", {"user": 1, "channel": client.channel("general"), "content": "x"}, 403, "Pick who"),
        ("/api/messages", {**body, "content": "   "}, 400, "Type a message or attach a file first."),
        ("/api/messages", {**body, "content": "x" * 2001}, 400, "at most 2000 characters; this one has 2001"),
        ("/api/messages", {**body, "channel": 12}, 404, "That channel does not exist"),
        ("/api/commands", {**body, "command": "lore ask", "options": {}}, 400, "/lore ask needs “question”."),
        ("/api/commands", {**body, "command": "lore ask", "options": {"question": "q", "limit": "lots"}}, 400,
         "“limit” takes a whole number; “lots” is not one."),
        ("/api/commands", {**body, "command": "lore ask", "options": {"question": "q", "tone": "x"}}, 400,
         "/lore ask has no option “tone”."),
        ("/api/commands", {**body, "command": "lore import", "options": {}}, 400, "/lore import needs “file”."),
        ("/api/commands", {**body, "command": "dance", "options": {}}, 404,
         "/dance is not a command you can use here."),
        ("/api/click", {"user": client.id("pat"), "message": 99, "custom_id": "x"}, 404, "That message is gone."),
        ("/api/modal", {"user": client.id("pat"), "interaction": 5, "values": {}}, 404, "That form is closed"),
    ]  # fmt: skip
    for path, payload, status, message in cases:
        got, answer = await client.post(path, payload)
        assert (got, message in answer.get("error", "")) == (status, True), (path, payload, answer)
    assert len(client.sandbox.emu.messages) == before
    assert await client.messages("gm", "general") == []


async def test_another_address_or_page_can_neither_read_nor_act(client: Client) -> None:
    """DNS rebinding reads are refused like actions; a foreign Origin is refused; the action header has one
    value; the page may not be framed."""
    state = f"{client.url}/api/state?user={client.id('gm')}"
    async with client.http.get(state, headers={"Host": "attacker.example"}) as response:
        assert response.status == 421
    async with client.http.get(client.url + "/", headers={"Host": "attacker.example:8080"}) as response:
        assert response.status == 421
    async with client.http.get(state, headers={"Origin": "http://attacker.example"}) as response:
        assert response.status == 403
    before = len(client.sandbox.emu.messages)
    body = {"user": client.id("pat"), "channel": client.channel("general"), "content": "hello"}
    for headers in (
        {"X-Lorekeeper-Sandbox": "0"},
        {"X-Lorekeeper-Sandbox": ""},
        {**ACT, "Origin": "http://attacker.example"},
        {**ACT, "Origin": "null"},
    ):
        status, answer = await client.post("/api/messages", body, headers=headers)
        assert status == 403 and "the sandbox's own page" in answer["error"], headers
    assert len(client.sandbox.emu.messages) == before
    # The page's own requests pass: the same origin, and a read without one.
    own = client.url.rstrip("/")
    async with client.http.get(state, headers={"Origin": own}) as response:
        assert response.status == 200
        policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy
    async with client.http.get(client.url + "/") as response:
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert (await client.post("/api/messages", body, headers={**ACT, "Origin": own}))[0] == 200


async def test_a_form_opened_for_one_person_cannot_be_submitted_by_another(client: Client) -> None:
    sandbox = client.sandbox
    gm, pat = sandbox.world.people["gm"], sandbox.world.people["pat"]
    opened = InteractionResult(
        7, "token", 2, "/x", sandbox.world.channels["general"], gm.user, gm, {}, modal={"custom_id": "m"}
    )
    sandbox.modals[opened.id] = opened
    status, answer = await client.post("/api/modal", {"user": pat.id, "interaction": 7, "values": {}})
    assert status == 404 and "That form is closed" in answer["error"]
    assert sandbox.modals[7] is opened  # still the GM's to submit


async def test_the_page_and_its_files_come_from_the_sandbox_alone(client: Client) -> None:
    async with client.http.get(client.url + "/") as response:
        page = await response.text()
        policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    for attribute in ("src", "href"):
        for value in page.split(f'{attribute}="')[1:]:
            target = value.split('"', 1)[0]
            assert target.startswith(("/static/", "#")), f"{attribute}={target} is not served by the sandbox"
    for name in ("sandbox.css", "sandbox.js", "render.js", "picker.js", "favicon.svg"):
        async with client.http.get(f"{client.url}/static/{name}") as response:
            assert response.status == 200
            body = await response.text()
        assert "@import" not in body and "url(http" not in body and 'fetch("http' not in body
    async with client.http.get(client.url + "/static/..%2Fweb.py") as response:
        assert response.status == 404


async def test_without_a_language_model_the_page_lists_what_needs_one(client: Client) -> None:
    state = await client.state("pat")
    assert state["llm"] == {"configured": False, "needs_it": list(LLM_FEATURES)}
    assert any("/npc talk" in feature for feature in LLM_FEATURES)
    assert any("/narrate" in feature for feature in LLM_FEATURES)
    assert state["me"]["name"] == "Pat" and not state["me"]["gm"]
    names = {c["name"] for c in state["commands"]}
    assert {"lore ask", "canon entity", "canon tree", "npc talk", "propose fact"} <= names


async def test_with_a_language_model_an_npc_speaks_under_its_own_name(sandbox_config: Settings) -> None:
    async with LLMStub(
        responder=lambda _body: Reply.text("Evening, stranger. Rain keeps the honest ones home.")
    ) as stub:
        config = sandbox_config.model_copy(
            update={"llm": LLMSettings(base_url=stub.base_url, model=STUB_MODEL)}
        )
        async with open_sandbox(config, port=0) as sandbox, aiohttp.ClientSession() as http:
            client = Client(sandbox, http)
            assert (await client.state("gm"))["llm"]["configured"] is True
            status, _ = await client.command(
                "gm", "tavern", "canon add entity", name="Brannoc", type="Person"
            )
            assert status == 200
            status, _ = await client.command("pat", "tavern", "npc talk", npc="Brannoc", message="Evening.")
            assert status == 200
            shown = await client.messages("quinn", "tavern")
            spoken = [m for m in shown if m["author"]["webhook"]]
            assert [(m["author"]["name"], m["content"]) for m in spoken] == [
                ("Brannoc", "Evening, stranger. Rain keeps the honest ones home.")
            ]


def buttons(message: dict[str, Any]) -> dict[str, str]:
    return {
        c["label"]: c["custom_id"]
        for row in message["components"]
        for c in row["components"]
        if c["type"] == 2
    }


async def test_the_sample_world_is_imported_once_and_a_session_goes_on_after_a_restart(
    sandbox_config: Settings,
) -> None:
    async with open_sandbox(sandbox_config, port=0, sample=True) as sandbox, aiohttp.ClientSession() as http:
        assert sandbox.sample_task is not None
        await asyncio.wait_for(sandbox.sample_task, 600)
        client = Client(sandbox, http)
        assert sandbox.world.sample_loaded and (await client.state("gm"))["sample"]["loaded"]
        imports = await client.messages("gm", "lore")
        assert len(imports) == len(FILES) and all(m["ephemeral"] for m in imports)  # the GM's answers
        assert await client.messages("pat", "lore") == []
        card = await client.shown("gm", "tavern", "Canon review")
        assert "Corin Vale's debt: owes Brannoc Marrow forty silver" in text_of(card)
        await sandbox.emu.settle()
        kept = [m["id"] for m in await client.messages("gm", "tavern") if not m["ephemeral"]]

    async with open_sandbox(sandbox_config, port=0, sample=True) as sandbox, aiohttp.ClientSession() as http:
        client = Client(sandbox, http)
        assert sandbox.sample_task is None  # never twice
        assert not sandbox.emu.requests_to("PUT", r"/commands$")  # Discord kept the commands: no sync
        scene = await client.messages("gm", "tavern")
        assert [m["id"] for m in scene] == kept  # the same messages, the same ids
        card = next(m for m in scene if "Canon review" in text_of(m))
        body = {"user": client.id("gm"), "message": card["id"], "custom_id": buttons(card)["Accept #1"]}
        status, _ = await client.post("/api/click", body)  # buttons work after a restart
        assert status == 200
        card = await client.shown("gm", "tavern", "1 accepted")
        assert "Canon review" in text_of(card)
        assert (await client.say("pat", "tavern", "Still here."))[0] == 200
        newest = (await client.messages("quinn", "tavern"))[-1]
        assert newest["content"] == "Still here." and int(newest["id"]) > max(int(i) for i in kept)


def test_listening_beyond_this_machine_prints_a_warning() -> None:
    assert loopback_warning("127.0.0.1") is None
    assert loopback_warning("localhost") is None
    assert loopback_warning("::1") is None
    warning = loopback_warning("0.0.0.0")  # noqa: S104 (the address under test)
    assert warning is not None and "Anyone who can reach it can act as the GM" in warning
    assert loopback_warning("192.168.1.20") is not None


async def test_a_pdf_uploaded_from_the_page_imports_and_answers(client: Client) -> None:
    form = aiohttp.FormData()
    body = {
        "user": client.id("gm"),
        "channel": client.channel("general"),
        "command": "lore import",
        "options": {},
    }
    form.add_field("payload", json.dumps(body))
    form.add_field(
        "option:file", BOOK.read_bytes(), filename="basic-rules.pdf", content_type="application/pdf"
    )
    async with client.http.post(client.url + "/api/commands", data=form, headers=ACT) as response:
        assert response.status == 200, await response.text()
    await client.shown("gm", "general", "Imported: basic-rules.pdf")
    status, _ = await client.command(
        "pat", "general", "lore ask", question="What does three-quarters cover give?"
    )
    assert status == 200
    answer = await client.shown("pat", "general", "+5 bonus to AC")
    assert "Basic Rules" in text_of(answer)


async def test_the_sandbox_serves_the_campaign_wiki_and_wiki_links_to_it(client: Client) -> None:
    status, _ = await client.command("gm", "general", "wiki")
    assert status == 200
    answer = await client.shown("gm", "general", "personal link")
    found = re.search(r"<(http://127\.0\.0\.1:[0-9]+/t/[^>]+)>", answer["content"])
    assert found, answer["content"]
    async with client.http.get(found.group(1)) as response:
        assert response.status == 200
        assert "Journal" in await response.text()
    assert not any("personal link" in text_of(m) for m in await client.messages("pat", "general"))
