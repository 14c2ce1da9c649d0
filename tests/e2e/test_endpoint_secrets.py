"""An LLM base URL's credentials (`user:password@`, `?key=...`) never reach what players or admins see."""

from __future__ import annotations

import socket

from discord import Permissions

from config.settings import LLMSettings
from tests.e2e.conftest import World, embed_fields, sql_run_below
from tests.helpers.llm_stub import STUB_MODEL, LLMStub, Reply

#: The flows below whose SQL is run on PostgreSQL by lower tests (the others here stay on both).
SQL_RUN_BELOW = sql_run_below(
    "tests/bot/wiki/test_page_cache.py", "tests/bot/services/branches/test_branches.py"
)

USER, PASSWORD, KEY = "lk-user", "s3cret-pass", "k3y-value"


def with_credentials(host: str) -> str:
    """Return a base URL for `host` that carries a user name, a password and an API key in its query."""
    return f"http://{USER}:{PASSWORD}@{host}/v1?key={KEY}"


def closed_port() -> int:
    """Return a loopback port nothing listens on (connections to it are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def shown(message: dict | object) -> str:  # type: ignore[type-arg]
    """Return everything a reply shows: its text and its embeds."""
    content = getattr(message, "content", None) or ""
    return content + repr(getattr(message, "embeds", []))


def assert_no_credentials(text: str) -> None:
    for secret in (PASSWORD, KEY, f"{USER}:", "key="):
        assert secret not in text, f"{secret!r} shown: {text}"


async def use_llm(world: World, base_url: str) -> None:
    llm = LLMSettings(base_url=base_url, model=STUB_MODEL, max_retries=0, timeout_seconds=5)
    world.settings = world.settings.model_copy(update={"llm": llm})
    await world.restart()


@SQL_RUN_BELOW
async def test_narrate_names_only_the_host_of_an_endpoint_that_does_not_answer(world: World) -> None:
    port = closed_port()
    await use_llm(world, with_credentials(f"127.0.0.1:{port}"))
    await world.emu.invoke(world.channel, world.gm, "scene start", title="Dark harbour")
    await world.emu.send_message(world.channel, world.pat, "I light a lantern.")
    reply = await world.emu.invoke(world.channel, world.gm, "narrate")
    assert reply.ephemeral
    assert f"The language model at 127.0.0.1:{port} did not answer" in (reply.content or ""), reply.content
    assert_no_credentials(shown(reply))
    for message in world.emu.channel_messages(world.channel, include_ephemeral=True):
        assert_no_credentials(str(message))


@SQL_RUN_BELOW
async def test_a_refused_api_key_names_only_the_host(world: World) -> None:
    async with LLMStub() as stub:
        stub.add(*[Reply.error(401, "bad key")] * 3)
        # No query here: the OpenAI client would send it as part of the path, and the server answer 404.
        await use_llm(world, f"http://{USER}:{PASSWORD}@{stub.host}/v1")
        await world.emu.invoke(world.channel, world.gm, "scene start", title="Locked door")
        reply = await world.emu.invoke(world.channel, world.gm, "narrate")
        assert stub.requests, "the request reached the server"
    expected = f"The language model at {stub.host} rejected the API key (HTTP 401)"
    assert reply.ephemeral and expected in (reply.content or ""), reply.content
    assert_no_credentials(shown(reply))


async def test_admin_status_masks_the_base_urls_password_and_leaves_off_its_query(world: World) -> None:
    port = closed_port()
    await use_llm(world, with_credentials(f"127.0.0.1:{port}"))
    admin = world.emu.add_member(
        world.guild,
        "Ada",
        roles=[world.emu.add_role(world.guild, "Admin", permissions=Permissions(manage_guild=True))],
    )
    result = await world.emu.invoke(world.channel, admin, "admin status")
    assert result.ephemeral
    llm = embed_fields(result.embeds[0])["LLM tokens (this server)"]
    assert f"{STUB_MODEL} at 'http://{USER}:***@127.0.0.1:{port}/v1': no calls yet" in llm, llm
    assert_no_credentials(shown(result).replace(f"{USER}:***@", ""))
