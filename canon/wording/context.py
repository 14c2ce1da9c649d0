"""The words a campaign's cards speak in: its calendar's names, its scenes' turns, and how text is escaped.

Every card builder (the bot's cards, the command line's text) takes one `Wording` and says names, relations,
dates and evidence through it. The service that reads the canon builds it (`Wording` holds no ids a player
reads); a builder given none speaks plainly (`PLAIN`: dates from their keys' eras, evidence without links).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from canon.models import Evidence, Validity, Viewer
from canon.wording.dates import PLAIN_CALENDAR, CalendarWords
from canon.wording.evidence import SceneWords, evidence_words


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True)
class Wording:
    """Say a campaign's dates, evidence and names: calendar words, scenes by id, and an escape for user text.

    `escape` is applied to every piece of user text (names, values, notes); `links` lets evidence link to
    the turns' messages (markdown).
    """

    calendar: CalendarWords = PLAIN_CALENDAR
    scenes: Mapping[int, SceneWords] = field(default_factory=dict)
    sexes: Mapping[int, str] = field(default_factory=dict)
    #: The people a card speaks of who are dead as it reads: where one lived reads in the past ("lived in").
    dead: frozenset[int] = frozenset()
    #: The people a card speaks of who are dead as its reader reads them, with when each died (stored, as a key;
    #: `unknown` when nobody knows): a tie to the dead reads in the past (`canon.wording.dead_ties`).
    deaths: Mapping[int, tuple[str, int | None]] = field(default_factory=dict)
    #: The states of being alive a timeline says as the births they began with ("Mott Brae was born in year 300 of
    #: …"), by statement id: beside a death it tells, "alive (since …)" would say both (`timeline_births`).
    births: frozenset[int] = frozenset()
    escape: Callable[[str], str] = _identity
    #: What the facts a proposal cites say, by id: a line names what a proposal relies on in words.
    facts: Mapping[int, str] = field(default_factory=dict)
    #: Those of `facts` players may not read: a player's line says only "earlier canon" of them.
    hidden_facts: frozenset[int] = frozenset()
    links: bool = False
    #: Whether a card says what is over in the past (`canon.wording.tense`), at `now_key`: the world key of the
    #: point it reads at (the story's date, or the date it is asked as of; None: no date is known).
    tensed: bool = False
    now_key: int | None = None

    def rich(self, escape: Callable[[str], str]) -> Wording:
        """Return this wording for markdown: user text escaped with `escape`, evidence linked."""
        return replace(self, escape=escape, links=True)

    def date(self, text: str | None) -> str:
        """Return a stored date in the calendar's words."""
        return self.calendar.date(text)

    def seen(self, text: str | None) -> str | None:
        """Return a stored date as this wording's reader has it: `unknown` when hidden from them, else as stored."""
        return self.calendar.seen(text)

    def dated(self, text: str | None) -> bool:
        """Tell whether a stored date reads as a date to this wording's reader (not unknown, nor hidden from them)."""
        return self.calendar.dated(text)

    def when(self, text: str | None) -> str:
        """Return a stored date after its preposition ("on 3 Frostmoot, …", "in year 330")."""
        return self.calendar.when(text)

    def span(self, validity: Validity) -> str:
        """Return when something holds, in the calendar's words."""
        return self.calendar.span(validity)

    def evidence(self, evidence: Evidence, viewer: Viewer) -> str:
        """Return one piece of evidence in words for a viewer."""
        return evidence_words(evidence, viewer, self.scenes, escape=self.escape, links=self.links)

    def name(self, text: str) -> str:
        """Return a name (or any user text) escaped for where it is shown."""
        return self.escape(text)


PLAIN = Wording()
