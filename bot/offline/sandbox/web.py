"""The sandbox's web server: the page, its files, the live stream and the actions a person takes on it.

Everything the page uses is served from here (no CDN). Requests that act carry a header a cross-site form cannot
send, and the Host header must name this server, so a web page elsewhere cannot drive the sandbox through a
visitor's browser.
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiohttp import BodyPartReader, web

from . import actions
from .actions import ActionRefused, Upload
from .hub import event_stream
from .views import INLINE_IMAGES, LLM_FEATURES, channel_messages, commands_view, person_view
from .world import CHANNELS, FIRST_CHANNEL, PEOPLE

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .runner import Sandbox

log = logging.getLogger(__name__)

ACTION_HEADER = "X-Lorekeeper-Sandbox"
STATIC_FILES = {
    "sandbox.css": "text/css",
    "sandbox.js": "text/javascript",
    "render.js": "text/javascript",
    "picker.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
SANDBOX_KEY: web.AppKey[Sandbox] = web.AppKey("sandbox")
#: The host names the page may be reached by (None: any, when listening on every address).
HOSTS_KEY: web.AppKey[set[str] | None] = web.AppKey("hosts")


def _static(name: str) -> bytes:
    return resources.files("bot.offline.sandbox").joinpath("static", name).read_bytes()


def _sandbox(request: web.Request) -> Sandbox:
    return request.app[SANDBOX_KEY]


def _int(value: Any, what: str) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise ActionRefused(f"The request names no valid {what}.") from None


def _same_origin(origin: str, request: web.Request) -> bool:
    """Return whether an Origin header names this server as the request reached it (scheme, host and port)."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == (request.host or "").lower()


def _allowed_hosts(host: str) -> set[str]:
    names = {host, "127.0.0.1", "localhost", "[::1]"}
    return {n.lower() for n in names}


@web.middleware
async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Refuse requests for another host name (DNS rebinding) and cross-site actions; add security headers.

    Every method is checked: a rebound name reading `/api/state` would read the world as anyone. A request a
    browser sends from another page carries that page's Origin: refused whatever its method. An action also
    carries the page's own header, with its one value.
    """
    allowed = request.app[HOSTS_KEY]
    host = (request.host or "").rsplit(":", 1)[0].lower()
    if allowed is not None and host not in allowed:
        return web.Response(status=421, text="This sandbox answers only to the address it was started on.")
    origin = request.headers.get("Origin")
    if origin is not None and not _same_origin(origin, request):
        return web.json_response({"error": "Requests come from the sandbox's own page."}, status=403)
    if request.method == "POST" and request.headers.get(ACTION_HEADER) != "1":
        return web.json_response({"error": "Actions come from the sandbox's own page."}, status=403)
    try:
        response = await handler(request)
    except ActionRefused as refused:
        response = web.json_response({"error": refused.message}, status=refused.status)
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


async def index(request: web.Request) -> web.Response:
    return web.Response(body=_static("index.html"), content_type="text/html", charset="utf-8")


async def static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC_FILES:
        raise web.HTTPNotFound()
    return web.Response(body=_static(name), content_type=STATIC_FILES[name])


async def attachment(request: web.Request) -> web.Response:
    sandbox = _sandbox(request)
    blob = sandbox.emu.blobs.get(_int(request.match_info["attachment_id"], "file"))
    if blob is None or blob.filename != request.match_info["filename"]:
        raise web.HTTPNotFound()
    kind = blob.content_type or ""
    if kind in INLINE_IMAGES:
        return web.Response(body=blob.data, content_type=kind)
    if kind.startswith("text/") or blob.filename.endswith((".md", ".txt", ".yaml", ".yml")):
        return web.Response(body=blob.data, content_type="text/plain", charset="utf-8")
    disposition = f'attachment; filename="{blob.filename.replace(chr(34), "")}"'
    return web.Response(
        body=blob.data, content_type="application/octet-stream", headers={"Content-Disposition": disposition}
    )


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def state(request: web.Request) -> web.Response:
    """The server, the people, the channels, what the chosen person may run, and what needs an LLM."""
    sandbox = _sandbox(request)
    world = sandbox.world
    asked = request.query.get("user", "")
    member = world.person(int(asked)) if asked.isdigit() else None
    if member is None:  # a first visit: the GM, who can import the sample world
        member = world.people[PEOPLE[0][0]]
    first = world.channels[FIRST_CHANNEL]
    return web.json_response(
        {
            "guild": {"id": str(world.guild.id), "name": world.guild.name},
            "bot": {"id": str(sandbox.emu.bot_user.id), "name": sandbox.emu.bot_user.name},
            "me": person_view(member, world, next(k for k, m in world.people.items() if m is member)),
            "people": [person_view(world.people[key], world, key) for key, _, _ in PEOPLE],
            "roles": [{"id": str(r.id), "name": r.name} for r in world.guild.roles.values() if not r.managed],
            "channels": [
                {"id": str(c.id), "name": c.name, "topic": c.topic}
                for c in (world.channels[key] for key, _, _ in CHANNELS)
            ],
            "first_channel": str(first.id),
            "commands": commands_view(sandbox.emu, first, member),
            "llm": {"configured": sandbox.llm_configured, "needs_it": list(LLM_FEATURES)},
            "sample": {
                "loaded": world.sample_loaded,
                "loading": sandbox.sample_task is not None and not sandbox.sample_task.done(),
                "campaign_started": world.lore_imported,
            },
        }
    )


async def messages(request: web.Request) -> web.Response:
    sandbox = _sandbox(request)
    channel = sandbox.world.channel(_int(request.match_info["channel_id"], "channel"))
    if channel is None:
        raise web.HTTPNotFound()
    user_id = _int(request.query.get("user"), "person")
    if sandbox.world.person(user_id) is None:
        raise ActionRefused("Pick who you are first: the GM or one of the players.", 403)
    return web.json_response(channel_messages(sandbox.emu, sandbox.world, channel, user_id))


async def events(request: web.Request) -> web.StreamResponse:
    """The live stream of one person's page: message changes they may see, and their notices."""
    sandbox = _sandbox(request)
    user_id = _int(request.query.get("user"), "person")
    if sandbox.world.person(user_id) is None:
        raise ActionRefused("Pick who you are first: the GM or one of the players.", 403)
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    await response.prepare(request)
    subscriber = sandbox.hub.subscribe(user_id)
    try:
        async for chunk in event_stream(subscriber):
            await response.write(chunk)
    except (ConnectionResetError, RuntimeError):
        pass  # the page went away
    finally:
        sandbox.hub.unsubscribe(subscriber)
    return response


async def _form(request: web.Request) -> tuple[dict[str, Any], dict[str, Upload], list[Upload]]:
    """Read an action: JSON, or a multipart form with a `payload` field and files."""
    if request.content_type != "multipart/form-data":
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ActionRefused("The request is not valid JSON.") from None
        if not isinstance(body, dict):
            raise ActionRefused("The request is not valid JSON.")
        return body, {}, []
    payload: dict[str, Any] = {}
    named: dict[str, Upload] = {}
    loose: list[Upload] = []
    reader = await request.multipart()
    async for part in reader:
        if not isinstance(part, BodyPartReader):
            continue
        if part.name == "payload":
            payload = json.loads(await part.text())
        elif part.filename is not None:
            upload = Upload(part.filename, bytes(await part.read()), part.headers.get("Content-Type"))
            if part.name and part.name.startswith("option:"):
                named[part.name.removeprefix("option:")] = upload
            else:
                loose.append(upload)
    return payload, named, loose


async def post_message(request: web.Request) -> web.Response:
    body, _, files = await _form(request)
    sandbox = _sandbox(request)
    await actions.post_message(
        sandbox,
        _int(body.get("user"), "person"),
        _int(body.get("channel"), "channel"),
        str(body.get("content") or ""),
        files,
    )
    return web.json_response({"ok": True})


async def run_command(request: web.Request) -> web.Response:
    body, files, _ = await _form(request)
    outcome = await actions.run_command(
        _sandbox(request),
        _int(body.get("user"), "person"),
        _int(body.get("channel"), "channel"),
        str(body.get("command") or ""),
        dict(body.get("options") or {}),
        files,
    )
    return web.json_response(outcome)


async def autocomplete(request: web.Request) -> web.Response:
    body, _, _ = await _form(request)
    choices = await actions.autocomplete(
        _sandbox(request),
        _int(body.get("user"), "person"),
        _int(body.get("channel"), "channel"),
        str(body.get("command") or ""),
        str(body.get("focused") or ""),
        dict(body.get("options") or {}),
    )
    return web.json_response({"choices": choices})


async def click(request: web.Request) -> web.Response:
    body, _, _ = await _form(request)
    values = body.get("values")
    outcome = await actions.click(
        _sandbox(request),
        _int(body.get("user"), "person"),
        _int(body.get("message"), "message"),
        str(body.get("custom_id") or ""),
        [str(v) for v in values] if isinstance(values, list) else None,
    )
    return web.json_response(outcome)


async def submit_modal(request: web.Request) -> web.Response:
    body, _, _ = await _form(request)
    outcome = await actions.submit_modal(
        _sandbox(request),
        _int(body.get("user"), "person"),
        _int(body.get("interaction"), "form"),
        dict(body.get("values") or {}),
    )
    return web.json_response(outcome)


async def load_sample(request: web.Request) -> web.Response:
    """Import the sample world (the GM's choice; players cannot)."""
    body, _, _ = await _form(request)
    sandbox = _sandbox(request)
    member = sandbox.world.person(_int(body.get("user"), "person"))
    if member is None or not sandbox.world.is_gm(member):
        raise ActionRefused("Only the GM can import the sample world.", 403)
    if sandbox.world.sample_loaded:
        raise ActionRefused("The sample world is already imported.", 409)
    sandbox.start_sample()
    return web.json_response({"ok": True})


def build_app(sandbox: Sandbox, host: str) -> web.Application:
    """Return the sandbox's web application."""
    app = web.Application(middlewares=[guard], client_max_size=sandbox.emu.attachment_size_limit * 11)
    app[SANDBOX_KEY] = sandbox
    everywhere = host in ("0.0.0.0", "::")  # noqa: S104 (listening everywhere: any name may reach it)
    app[HOSTS_KEY] = None if everywhere else _allowed_hosts(host)
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/attachments/{attachment_id}/{filename}", attachment)
    app.router.add_get("/api/ping", ping)
    app.router.add_get("/api/state", state)
    app.router.add_get("/api/channels/{channel_id}/messages", messages)
    app.router.add_get("/api/events", events)
    app.router.add_post("/api/messages", post_message)
    app.router.add_post("/api/commands", run_command)
    app.router.add_post("/api/autocomplete", autocomplete)
    app.router.add_post("/api/click", click)
    app.router.add_post("/api/modal", submit_modal)
    app.router.add_post("/api/sample", load_sample)
    return app
