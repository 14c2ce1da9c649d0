"""Who held something one after another: a faction's `leaders` and an item's `holders`, each a name or a name
held for a span (`{name: Tobin Aske, from: 420 RA, to: 450 RA}`, `gm_only: true` keeping that one for the GM;
`canon.structured.items` reads the mapping). Each is the edge of its field (LEADS, POSSESSES), valid from `from`
to `to`: the faction's leaders over time, the item's holders one after another."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from canon.calendar import WorldDate
    from canon.structured.normalise import Normaliser
    from canon.structured.schemas import EntityType
    from canon.structured.validate import Loc


def link_spans(
    n: Normaliser,
    entity_type: EntityType,
    field: str,
    owner: str,
    loc: Loc,
    names: list[str],
    hidden: tuple[str, ...],
) -> set[str]:
    """Record the edge of each name of a list of holders over time, with its span checked against the calendar
    (an end before its start is an error at the end's line); return the names linked. A name listed again (one
    who led twice, others between) is an edge for each span: the spans may not overlap (an error at the later's
    line); the last is the one the entry's `leader:` (`held_by:`) may name too."""
    spans: dict[str, list[tuple[WorldDate | None, WorldDate | None]]] = {}
    for index, name in enumerate(names):
        at = (*loc, field, index)
        start = n.v.item_dates.get(at) if n.v.item_dates else None
        end = n.v.item_dates.get((*at, "end")) if n.v.item_dates else None
        for part, date in (("start", start), ("end", end)):
            if date is not None:
                n.check_date(owner, date, (*at, part), field)
        if start is not None and end is not None and n.calendar.compare(end, start) == "before":
            said = {f: getattr(n.v.positions.get((*at, f)), "value", "") for f in ("start", "end")}
            n.v.report(
                (*at, "end"),
                f'"to" ({said["end"]}) is before "from" ({said["start"]}): a span runs from one to the other',
            )
            continue
        if (start or end) and any(_overlap(n, start, end, *other) for other in spans.get(name, ())):
            n.v.report(
                at,
                f'"{field}" names the same one twice for times that overlap: a span of theirs must end before the '
                "next starts",
            )
            continue
        spans.setdefault(name, []).append((start, end))
        again = names[index + 1 :].count(name)  # the last span is the plain edge: `leader:` merges into it
        n.link(entity_type, field, owner, at, name, valid_until=end, gm_only=field in hidden, again=again)
    return set(names)


def _overlap(n: Normaliser, start: WorldDate | None, end: WorldDate | None, *other: WorldDate | None) -> bool:
    """Tell whether two spans share a time (an open end runs on for ever; touching ends do not overlap)."""
    other_start, other_end = other
    first = end is not None and other_start is not None and n.calendar.compare(end, other_start) != "after"
    second = other_end is not None and start is not None and n.calendar.compare(other_end, start) != "after"
    return not (first or second)
