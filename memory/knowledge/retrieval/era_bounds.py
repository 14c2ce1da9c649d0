"""A question naming a year its era never reached: "who was warden in 470 EY?" when the Ember Years ended in year
400. Nothing canon says can fall in that year, and an answer read from the year's number alone would be of
another era's year 470: the reply says plainly that the era ended (or had not begun), and which era holds the
year, in the calendar's words. Pure.
"""

from __future__ import annotations

import re

from canon.campaign_calendar import CampaignCalendar

__all__ = ["outside_era"]

#: A year and the abbreviation after it ("470 EY"), or a year "of" an era named ("year 470 of the Ember Years").
_YEAR_ERA = re.compile(
    r"\b(?P<year>\d{1,6})\s+(?P<era>[A-Za-z]{1,6})\b(?!\s+\w)|\byear\s+(?P<y2>\d{1,6})\s+of\s+"
    r"(?P<name>(?:the\s+)?[A-Z][\w' ]*?)\s*[?.!]*$"
)


def outside_era(question: str, calendar: CampaignCalendar) -> str | None:
    """Return the plain sentence for a question naming a year outside the era it names (see the module
    docstring), or None when it names none."""
    for found in _YEAR_ERA.finditer(question.replace("’", "'")):
        year = int(found["year"] or found["y2"])
        said = (found["era"] or found["name"] or "").casefold().removeprefix("the ").strip()
        era = next(
            (
                e
                for e in calendar.eras
                if said in {a.casefold() for a in e.abbreviations}
                or said == e.name.casefold().removeprefix("the ")
            ),
            None,
        )
        if era is None or era.contains(year):
            continue
        phrase = calendar.era_phrase(era.key)
        edge = (
            f"ended in year {era.end}"
            if era.end is not None and year > era.end
            else f"began in year {era.start}"
        )
        text = f"Year {year} of {phrase} never came: {phrase} {edge}."
        others = [e for e in calendar.eras if e.contains(year)]
        if others:  # the first era the calendar lists holding it: an era before the eras set within it
            text += f" Year {year} falls in {calendar.era_phrase(others[0].key)}."
        return text[:1].upper() + text[1:]
    return None
