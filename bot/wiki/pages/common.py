"""What every page family shares: the lock mark, page numbers from a query, the page of what is not found."""

from __future__ import annotations

from ..context import Reading
from ..html import Page, esc, layout

LOCK = "🔒"
#: The highest page number a query may ask for (past the end shows the last page).
MAX_PAGE = 1_000_000

NOT_FOUND_TITLE = "Not found"
NOT_FOUND_TEXT = "There is no such page in this campaign's wiki."


#: A scene's transcript shows the turns numbered 1-100 on its first page, 101-200 on its second, and so on.
TURNS_PER_PAGE = 100


def scene_url(reading: Reading, number: int, turn: int | None = None) -> str:
    """Return the address of a scene's page (at a turn: the page that holds it, scrolled to it)."""
    if turn is None or turn < 1:
        return reading.url(f"scenes/{number}")
    page = (turn - 1) // TURNS_PER_PAGE + 1
    return reading.url(f"scenes/{number}" + (f"?page={page}" if page > 1 else "") + f"#turn-{turn}")


def printable(text: str) -> str:
    """Return text without control characters and lone surrogates (a NUL in a URL reaches no database)."""
    return "".join(c for c in text if c.isprintable() or c == " ")


def page_number(text: str | None) -> int:
    """Return a page number from a query's text: 1 for anything that is not a number from 1 up."""
    if text is None or not text.isdigit() or len(text) > 7:
        return 1
    return min(max(1, int(text)), MAX_PAGE)


def not_found(reading: Reading) -> Page:
    """Return the page of anything not found (hidden or unknown alike: the same status and the same words)."""
    body = [f"<p>{NOT_FOUND_TEXT}</p>", f'<p><a href="{reading.url()}">Back to the journal</a></p>']
    return Page(404, reading.page(NOT_FOUND_TITLE, body, note=""))


def plain_page(status: int, title: str, text: str, css: str) -> Page:
    """Return a page outside any campaign (a link that opens nothing, an error), saying what to do."""
    return Page(status, layout(title, [f"<p>{text}</p>"], css=css))


def as_of_refused(reading: Reading) -> Page:
    """Return the page of an as-of date the calendar cannot place: why, the campaign's eras, and a way on."""
    as_of = reading.as_of
    eras = "".join(f"<li>{esc(era)}</li>" for era in as_of.eras)
    body = [
        f"<p>{esc(as_of.problem)}</p>",
        f"<p>This campaign's eras:</p><ul>{eras}</ul>" if eras else "",
        f"<p>Write a date like “{esc(as_of.example)}”, or "
        f'<a href="{esc(reading.present_url())}">read the wiki as it stands now</a>.</p>',
    ]
    return Page(400, reading.page("That date is not on this campaign's calendar", body, note=""))
