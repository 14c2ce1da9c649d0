"""The wiki's HTML: one layout, escaped text, links and pagers. Pure functions; nothing here reads the database.

Every piece of text from the campaign (names, facts, turns, recaps) goes through `esc`; attributes are quoted and
escaped; the pages carry no script. A page is built as a list of strings joined once.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from canon.wording.counts import counted

__all__ = ["Page", "esc", "href", "layout", "name_path", "pager", "plural"]


def esc(text: object) -> str:
    """Return text escaped for HTML (quotes too: safe in an attribute)."""
    return html.escape(str(text), quote=True)


def href(url: str, label: str, *, raw_label: bool = False) -> str:
    """Return a link; the label is escaped unless it is already HTML (`raw_label`)."""
    return f'<a href="{esc(url)}">{label if raw_label else esc(label)}</a>'


def name_path(name: str) -> str:
    """Return an entity's name as a readable URL path segment: spaces as underscores, the rest percent-encoded."""
    return quote(name.strip().replace(" ", "_"), safe="")


def plural(count: int, word: str) -> str:
    """Return "1 fact", "3 facts" (`canon.wording.counts.counted`, the one writer of counts)."""
    return counted(count, word)


@dataclass(frozen=True)
class Page:
    """A finished page: its status and its HTML."""

    status: int
    body: str


def pager(url: str, page: int, pages: int, params: dict[str, str] | None = None) -> str:
    """Return the links to the previous and next pages ("Page 2 of 9"), or nothing for one page."""
    if pages <= 1:
        return ""

    def to(number: int) -> str:
        query = {k: v for k, v in (params or {}).items() if v}
        if number > 1:
            query["page"] = str(number)
        return url + (f"{'&' if '?' in url else '?'}{urlencode(query)}" if query else "")

    parts = []
    if page > 1:
        parts.append(href(to(page - 1), "← Previous"))
    parts.append(f"<span>Page {page:,} of {pages:,}</span>")
    if page < pages:
        parts.append(href(to(page + 1), "Next →"))
    return f'<nav class="pager">{" ".join(parts)}</nav>'


def layout(
    title: str,
    body: Iterable[str],
    *,
    campaign: str | None = None,
    nav: Iterable[tuple[str, str]] = (),
    css: str,
    note: str | None = None,
) -> str:
    """Return a whole page: phone-sized viewport, the wiki's style sheet, a header with the campaign and links."""
    links = " ".join(href(url, label) for url, label in nav)
    heading = f'<p class="campaign">{esc(campaign)}</p>' if campaign else ""
    marked = f'<p class="note">{esc(note)}</p>' if note else ""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="robots" content="noindex, nofollow">'
        f"<title>{esc(title)}{' · ' + esc(campaign) if campaign else ''}</title>"
        f'<link rel="stylesheet" href="{esc(css)}"></head>'
        f'<body><header>{heading}<nav class="top">{links}</nav></header>'
        f"<main><h1>{esc(title)}</h1>{marked}{''.join(body)}</main></body></html>"
    )
