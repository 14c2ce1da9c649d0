"""Who is reading the wiki, in which campaign, and where its links point: one `Reading` per request.

A `Reading` is made from a checked link (`WikiPass`) on every request: the campaign the link is bound to, the
viewer (the GM, or a player through their active character's lens, as `/lore` and the cards see them), the
root of the page's links (the public base URL's path, or a reverse proxy's `X-Forwarded-Prefix`) and the
request's one database session (the link's check, the campaign and the page are read in it). Every page reads
canon through it, so nothing of another campaign is ever in reach.

The as-of view: any page opened with `?as_of=<a date in the campaign's words>` reads canon as it stood then
(`as_of`, read by `canon.as_of_reading`); its links keep the date, and the page says so with a way back to now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from canon.as_of_reading import AS_OF_PARAMETER, AsOfReading
from canon.campaigns import Campaign
from canon.models import Viewer
from canon.visibility import Knowing

from .html import esc, layout
from .tokens import WikiPass

#: A reverse proxy's path prefix is taken only when it is a plain path ("/wiki", "/lore/wiki").
_PREFIX = re.compile(r"^(/[A-Za-z0-9._~-]+)*$")


def link_root(base_url: str | None, forwarded_prefix: str | None) -> str:
    """Return the path the wiki's own links start with: a proxy's prefix when plain, else the base URL's path."""
    if forwarded_prefix is not None:
        prefix = forwarded_prefix.strip().rstrip("/")
        if _PREFIX.match(prefix):
            return prefix
    return urlsplit(base_url).path.rstrip("/") if base_url else ""


@dataclass(frozen=True)
class Reading:
    """One request's reader: the campaign, the viewer and their lens, and the root of the links."""

    grant: WikiPass
    campaign: Campaign
    viewer: Viewer
    knowing: Knowing | None
    root: str
    token: str
    #: The request's one session: every page reads through it (one snapshot, one connection per request).
    session: AsyncSession
    #: The point the page reads canon at (the present unless the page was opened with `?as_of=`).
    as_of: AsOfReading = field(default_factory=lambda: AsOfReading(text=""))

    @property
    def gm(self) -> bool:
        """Return whether the reader is the GM (sees everything, GM-only parts marked)."""
        return self.viewer == Viewer.GM

    def url(self, path: str = "") -> str:
        """Return the address of one of this reader's pages (`path` without a leading slash, with its query and
        fragment if any), keeping the page's as-of date."""
        address = f"{self.root}/t/{self.token}/{path}"
        if not self.as_of.said:
            return address
        address, hash_, fragment = address.partition("#")
        joined = f"{address}{'&' if '?' in address else '?'}{self.as_of.query()}"
        return f"{joined}{hash_}{fragment}"

    def present_url(self, path: str = "") -> str:
        """Return the address of one of this reader's pages as canon stands now."""
        return f"{self.root}/t/{self.token}/{path}"

    @property
    def css(self) -> str:
        """Return the style sheet's address."""
        return f"{self.root}/static/wiki.css"

    def nav(self) -> list[tuple[str, str]]:
        """Return the header's links: the journal, the index, search; the GM's own pages for the GM."""
        links = [
            (self.url(), "Journal"),
            (self.url("entities"), "Index"),
            (self.url("search"), "Search"),
            (self.url("timeline"), "Timeline"),
        ]
        if self.gm:
            links += [(self.url("sources"), "Sources"), (self.url("gm"), "Conflicts & notes")]
        return links

    def page(self, title: str, body: list[str], *, note: str | None = None) -> str:
        """Return a whole page for this reader."""
        if self.gm and note is None:
            note = "You are reading as the GM: 🔒 marks what players do not see."
        if self.as_of.said:
            when = f"As of {self.as_of.said}: canon as it stood then."
            note = f"{when} {note}" if note else when
        return layout(
            title,
            [*body, self.as_of_form()],
            campaign=self.campaign.name,
            nav=self.nav(),
            css=self.css,
            note=note,
        )

    def as_of_form(self) -> str:
        """Return the form that opens this page at a date typed in the campaign's words (or back at now)."""
        back = f' <a href="{esc(self.present_url())}">Back to now</a>' if self.as_of.said else ""
        return (
            f'<form class="as-of" method="get"><label>See the wiki as of '
            f'<input type="text" name="{AS_OF_PARAMETER}" value="{esc(self.as_of.said)}" maxlength="80" '
            'placeholder="a date in the campaign\'s calendar"></label> '
            f"<button>Look</button>{back}</form>"
        )
