"""Read the point a page looks from ("as of"), typed in the campaign's words, for the wiki's as-of view.

`read_as_of(text, calendar)` reads a date with the one date reading (`canon.date_reading.read_date`) and turns it
into an `AsOf`; what is not a point on the campaign's calendar (a date outside every era, an era without a year,
"unknown", a relative date with nothing to count from, a misspelt word) is refused with the reading's own
sentence and the campaign's eras in words, to show on a page. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from canon.campaign_calendar import CampaignCalendar
from canon.continuity import world_key
from canon.date_reading import example, read_date
from canon.models import NOW, AsOf

#: The name of the query parameter that carries the typed date on every page.
AS_OF_PARAMETER = "as_of"


@dataclass(frozen=True)
class AsOfReading:
    """A typed as-of date: the point understood (`as_of`), or why not (`problem`), and the eras in words."""

    text: str
    as_of: AsOf = NOW
    said: str = ""  # the point in the calendar's words ("year 363 of the Third Age"); empty at the present
    problem: str = ""
    eras: tuple[str, ...] = ()
    example: str = ""

    @property
    def understood(self) -> bool:
        """Tell whether the text names a point to look from (nothing typed is the present)."""
        return not self.problem

    def query(self) -> str:
        """Return the query string that keeps this point on the next page ("" at the present)."""
        return urlencode({AS_OF_PARAMETER: self.said}) if self.said else ""


def eras_in_words(calendar: CampaignCalendar) -> tuple[str, ...]:
    """Return each era of the calendar in words, with its years: "the Third Age (TA, years -100–600)"."""
    return tuple(
        f"{calendar.era_phrase(era.key)} ({', '.join([*era.abbreviations[:1], era.span_words()])})"
        for era in calendar.eras
    )


def read_as_of(text: str | None, calendar: CampaignCalendar) -> AsOfReading:
    """Return the point a typed date names on the calendar (the present when nothing is typed)."""
    typed = " ".join((text or "").split())
    if not typed:
        return AsOfReading(text="")
    reading = read_date(typed, calendar)
    refusal = AsOfReading(text=typed, eras=eras_in_words(calendar), example=example(calendar))
    date = reading.date
    if date is None:
        return _refused(refusal, reading.sentence())
    if date.is_unknown or date.year is None:
        era = calendar.era(date.era) if date.era else None
        which = f"which year of {calendar.era_phrase(era.key)}" if era is not None else "a year"
        return _refused(
            refusal, f"“{typed}” names no year to look from; say {which}, like “{example(calendar)}”."
        )
    said = calendar.say(date)
    return AsOfReading(text=typed, as_of=AsOf(world=str(date), world_key=world_key(date)), said=said)


def _refused(refusal: AsOfReading, problem: str) -> AsOfReading:
    return AsOfReading(
        text=refusal.text, problem=problem, eras=refusal.eras, example=refusal.example, as_of=NOW
    )
