"""The wiki's pictures at full size: the campaign's timeline and a person's or lineage's family tree, as SVG.

Drawn by the same code as the pictures Discord shows (`canon.render`), wider and whole (`canon.render.svg`),
read as the reader sees canon (`PictureService`: a player's picture never holds a GM-only person or event, nor
counts one; a player sees what their character learned). The SVG is written into the page itself: its text can
be selected and searched, each box and label links to its page, the browser zooms it crisply, and it keeps its
drawn size (a wide picture scrolls sideways; nothing is shrunk below its 12-pixel labels). The timeline honours
the page's as-of point (what had begun by then).

Routes (under a link's `/t/{token}/`): `timeline`, `tree/{name}`.
"""

from __future__ import annotations

from aiohttp import web

from canon.errors import InvalidInput, NotFound
from canon.render.svg import Linker

from .context import Reading
from .deps import WikiDeps
from .html import Page, esc, href, name_path
from .pages.entity import entity_url

#: A family tree reaches this many generations up and down from a person.
TREE_GENERATIONS = 6
#: The most events a full timeline draws (the earliest first; the rest are counted in its title).
TIMELINE_EVENTS = 200
HINT = "Scroll sideways to see all of it; zoom with your browser. Each name opens its page."


def tree_url(reading: Reading, name: str) -> str:
    """Return the address of the full-size family tree of a person or lineage."""
    return reading.url(f"tree/{name_path(name)}")


def timeline_url(reading: Reading) -> str:
    """Return the address of the full-size timeline."""
    return reading.url("timeline")


def _linker(reading: Reading) -> Linker:
    """Return the link from a drawn name to its entity's page, through the reader's own link."""
    return lambda _id, name: entity_url(reading, name)


def _figure(svg: str, title: str) -> str:
    # The SVG is our own drawing (`canon.render.canvas` escapes every text and attribute, and holds no script).
    return f'<figure class="picture" aria-label="{esc(title)}">{svg}</figure><p class="muted">{esc(HINT)}</p>'


async def timeline_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the campaign's timeline at full size, as the reader sees canon at the page's as-of point."""
    try:
        picture = await deps.pictures.full_timeline(
            reading.campaign,
            viewer=reading.viewer,
            knowing=reading.knowing,
            as_of=reading.as_of.as_of,
            link=_linker(reading),
            max_events=TIMELINE_EVENTS,
            session=reading.session,
        )
    except (NotFound, InvalidInput):
        body = ["<p>This campaign's canon has no eras or dated events yet to draw a timeline from.</p>"]
        return Page(200, reading.page("Timeline", body))
    return Page(200, reading.page("Timeline", [_figure(picture.svg, picture.title)]))


async def tree_page(deps: WikiDeps, reading: Reading, request: web.Request) -> Page:
    """Return the family tree of a person or lineage at full size (a name the reader may not see: not found)."""
    name = request.match_info["name"].replace("_", " ").strip()
    if not name or len(name) > 300:
        raise NotFound("no such name")
    session = reading.session
    reader = await deps.access.reader(session, reading.campaign, reading.viewer, reading.knowing)
    found = await reader.find_exact(name)
    if len(found) != 1:
        raise NotFound("no such name")
    entity = found[0]
    try:
        picture = await deps.pictures.full_family_tree(
            reading.campaign,
            entity.id,
            viewer=reading.viewer,
            knowing=reading.knowing,
            generations=TREE_GENERATIONS,
            link=_linker(reading),
            session=reading.session,
        )
    except InvalidInput as refused:
        body = [
            f"<p>{esc(refused.message)}</p>",
            f"<p>{href(entity_url(reading, entity.name), entity.name)}</p>",
        ]
        return Page(200, reading.page(f"Family tree of {entity.name}", body))
    back = f"<p>{href(entity_url(reading, entity.name), 'Back to ' + entity.name)}</p>"
    return Page(200, reading.page(picture.title, [_figure(picture.svg, picture.title), back]))


ROUTES = [("timeline", timeline_page), ("tree/{name}", tree_page)]
