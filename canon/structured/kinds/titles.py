"""The titles of a person of a roster or a family tree: those written as text, and those held for a span
(`canon.structured.title_spans`), kept as the entry's attribute `held_titles` for the import to state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import JsonValue

from canon.calendar import WorldDate

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc


def held_titles(
    n: Normaliser,
    owner: str,
    loc: Loc,
    titles: list[str],
    died: WorldDate | None,
    hidden: tuple[str, ...],
) -> tuple[list[JsonValue], list[JsonValue]]:
    """Return a person's titles held for no span (the attribute `titles`, as before) and each held for a span as
    the attribute `held_titles` keeps it: the title, its dates as text, whether it is the GM's, shared, and its
    line. `to` left out is the death, when the death is told (and not kept for the GM). A `to` before its `from`
    is an error at its line."""
    plain: list[JsonValue] = []
    spans: list[JsonValue] = []
    for index, title in enumerate(titles):
        at = (*loc, "titles", index)
        span = n.v.title_spans.get(at) if n.v.title_spans else None
        if span is None:
            plain.append(title)
            continue
        for field, date in (("start", span.start), ("end", span.end)):
            n.check_date(owner, date, (*at, field), "titles")
        start, end = span.start, span.end
        if start is not None and end is not None and n.calendar.compare(end, start) == "before":
            said = {f: getattr(n.v.positions.get((*at, f)), "value", "") for f in ("start", "end")}
            n.v.report(
                (*at, "end"),
                f'"to" ({said["end"]}) is before "from" ({said["start"]}): a title is held from one to the other',
            )
        to_death = end is None and died is not None and "died" not in hidden
        line, _ = n.v.pos(at)
        spans.append(
            {
                "title": " ".join(title.split()),
                "from": n.date_text(start),
                "to": n.date_text(died if to_death else end),
                "gm_only": span.secret or "titles" in hidden,
                "shared": span.shared,
                "line": line,
            }
        )
    return plain, spans
