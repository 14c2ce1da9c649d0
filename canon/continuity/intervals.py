"""Moments and intervals on the two clocks (world dates, scene order), and which statements hold at once.

See the package's docstring for how the clocks are compared; every rule reads time through these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import NamedTuple

from canon.continuity.findings import format_key, key_hi
from canon.models import Statement, Validity

LO = -(2**62)
HI = 2**62

# Clocks a comparison was made on.
ALWAYS_CLOCK = "always"
WORLD_CLOCK = "world"
STORY_CLOCK = "story"


class Moment(NamedTuple):
    world: int | None
    story: int | None
    world_text: str | None


def start_of(validity: Validity) -> Moment:
    return Moment(validity.world_from_key, validity.story_from, validity.world_from)


def before(a: Moment, b: Moment) -> str | None:
    """Return the clock on which `a` is certainly before `b`, or None when it is not (or cannot be told)."""
    if a.world is not None and b.world is not None:
        return WORLD_CLOCK if key_hi(a.world) < b.world else None
    if a.story is not None and b.story is not None:
        return STORY_CLOCK if a.story < b.story else None
    return None


def moment_text(moment: Moment, clock: str) -> str:
    if clock == WORLD_CLOCK and moment.world is not None:
        return moment.world_text or format_key(moment.world)
    if moment.story is not None:
        return f"scene {moment.story}"
    return "an unknown time"


def validity_text(v: Validity) -> str:
    parts: list[str] = []
    start = v.world_from or (format_key(v.world_from_key) if v.world_from_key is not None else None)
    end = v.world_until or (format_key(v.world_until_key) if v.world_until_key is not None else None)
    if start and end:
        parts.append(f"{start} – {end}")
    elif start:
        parts.append(f"from {start}")
    elif end:
        parts.append(f"until {end}")
    if v.story_from is not None and v.story_until is not None:
        parts.append(f"scenes {v.story_from}–{v.story_until}")
    elif v.story_from is not None:
        parts.append(f"scene {v.story_from}")
    elif v.story_until is not None:
        parts.append(f"until scene {v.story_until}")
    return ", ".join(parts)


def when_text(v: Validity) -> str:
    return validity_text(v) or "undated"


def has_world(v: Validity) -> bool:
    return v.world_from_key is not None or v.world_until_key is not None


def has_story(v: Validity) -> bool:
    return v.story_from is not None or v.story_until is not None


def sweep(cores: list[tuple[int, int, int]]) -> list[list[int]]:
    """Return the maximal sets of half-open intervals (lo, hi, index) that share a point, two or more each."""
    cores.sort()
    cliques: list[list[int]] = []
    active: list[tuple[int, int, int]] = []
    grown = False
    for core in cores:
        if active:
            still = [a for a in active if a[1] > core[0]]
            if len(still) != len(active):
                if grown and len(active) > 1:
                    cliques.append([a[2] for a in active])
                grown = False
                active = still
        active.append(core)
        grown = True
    if grown and len(active) > 1:
        cliques.append([a[2] for a in active])
    return cliques


def clock_cliques(members: Sequence[Statement], world: bool, supersede: bool) -> list[list[Statement]]:
    """Return the sets of members that certainly hold together on one clock (all members have that clock)."""
    rows: list[tuple[int, int, int, int | None, Statement]] = []
    for m in members:
        v = m.validity
        if world:
            f, u = v.world_from_key, v.world_until_key
            lo = LO if f is None else key_hi(f)
        else:
            f, u = v.story_from, v.story_until
            lo = LO if f is None else f
        rows.append((LO if f is None else f, m.id, lo, u, m))
    rows.sort()
    cores: list[tuple[int, int, int]] = []
    next_start = HI
    i = len(rows) - 1
    while i >= 0:
        start = rows[i][0]
        j = i
        while j >= 0 and rows[j][0] == start:
            _, _, lo, until, _m = rows[j]
            hi = until if until is not None else (next_start if supersede else HI)
            if lo < hi:
                cores.append((lo, hi, j))
            j -= 1
        next_start = start
        i = j
    return [[rows[k][4] for k in clique] for clique in sweep(cores)]


def cliques(
    members: Sequence[Statement], timeless_predicates: Collection[str], *, supersede: bool
) -> list[tuple[str, list[Statement]]]:
    """Return (clock, members that certainly hold together) sets, each of two or more members."""
    timeless: list[Statement] = []
    world: list[Statement] = []
    story: list[Statement] = []
    for m in members:
        v = m.validity
        if m.predicate in timeless_predicates:
            timeless.append(m)
            continue
        hw = v.world_from_key is not None or v.world_until_key is not None
        hs = v.story_from is not None or v.story_until is not None
        if hw:
            world.append(m)
        if hs:
            story.append(m)
        if not hw and not hs:
            timeless.append(m)
    found: list[tuple[str, list[Statement]]] = []
    if len(timeless) > 1:
        found.append((ALWAYS_CLOCK, timeless))
    if len(world) > 1:
        found += [(WORLD_CLOCK, c) for c in clock_cliques(world, True, supersede)]
    if len(story) > 1:
        found += [(STORY_CLOCK, c) for c in clock_cliques(story, False, supersede)]
    return found


def pair_overlaps(a: Statement, b: Statement, timeless_predicates: Collection[str], supersede: bool) -> bool:
    """Tell whether two statements certainly hold at once: `cliques` for a group of exactly these two."""
    va, vb = a.validity, b.validity
    wa = va.world_from_key is not None or va.world_until_key is not None
    wb = vb.world_from_key is not None or vb.world_until_key is not None
    sa = va.story_from is not None or va.story_until is not None
    sb = vb.story_from is not None or vb.story_until is not None
    timeless_a = a.predicate in timeless_predicates or not (wa or sa)
    timeless_b = b.predicate in timeless_predicates or not (wb or sb)
    if timeless_a or timeless_b:
        return timeless_a and timeless_b
    if wa and wb:
        fa, ua, fb, ub = va.world_from_key, va.world_until_key, vb.world_from_key, vb.world_until_key
        lo_a = LO if fa is None else key_hi(fa)
        lo_b = LO if fb is None else key_hi(fb)
    elif sa and sb:
        fa, ua, fb, ub = va.story_from, va.story_until, vb.story_from, vb.story_until
        lo_a = LO if fa is None else fa
        lo_b = LO if fb is None else fb
    else:
        return False
    start_a = LO if fa is None else fa
    start_b = LO if fb is None else fb
    hi_a = ua if ua is not None else (start_b if supersede and start_b > start_a else HI)
    hi_b = ub if ub is not None else (start_a if supersede and start_a > start_b else HI)
    return max(lo_a, lo_b) < min(hi_a, hi_b)


def successive(members: Sequence[Statement], timeless_predicates: Collection[str]) -> bool:
    """Tell whether every member is open-ended with its own start on each clock, so each ends as the next begins."""
    world_starts: set[int] = set()
    story_starts: set[int] = set()
    undated = 0
    for m in members:
        v = m.validity
        if m.predicate in timeless_predicates or v.world_until_key is not None or v.story_until is not None:
            return False
        f, s = v.world_from_key, v.story_from
        if f is None and s is None:
            undated += 1
            continue
        if f is not None:
            if f in world_starts:
                return False
            world_starts.add(f)
        if s is not None:
            if s in story_starts:
                return False
            story_starts.add(s)
    return undated < 2


def overlapping_pairs(
    members: Sequence[Statement],
    timeless_predicates: Collection[str],
    differs: Callable[[Statement, Statement], bool],
    *,
    supersede: bool = True,
) -> list[tuple[Statement, Statement]]:
    """Return the pairs of members (lower id first) that certainly hold at once and `differ`."""
    if len(members) == 2:
        a, b = members if members[0].id < members[1].id else (members[1], members[0])
        if a.replaces_id == b.id or b.replaces_id == a.id or not differs(a, b):
            return []
        return [(a, b)] if pair_overlaps(a, b, timeless_predicates, supersede) else []
    if supersede and successive(members, timeless_predicates):
        return []
    pairs: list[tuple[Statement, Statement]] = []
    seen: set[tuple[int, int]] = set()
    for clock, clique in cliques(members, timeless_predicates, supersede=supersede):
        for index, a in enumerate(clique):
            for b in clique[index + 1 :]:
                if clock == STORY_CLOCK and has_world(a.validity) and has_world(b.validity):
                    continue  # both dated in the world: the world clock decided
                if a.replaces_id == b.id or b.replaces_id == a.id:
                    continue
                first, second = (a, b) if a.id < b.id else (b, a)
                key = (first.id, second.id)
                if key in seen or not differs(first, second):
                    continue
                seen.add(key)
                pairs.append((first, second))
    return pairs
