"""Fields a line states in the shapes books other than the SRD use: a price list's dotted leader, a stat line of
labels and numbers joined by slashes or commas, a label and a dash.

- `Desalter kit ..... 25 sh`: the entry is a row of its section's list and the value, a price (a number and a
  coin's short name, or a currency sign), is its cost: `Field("Sundries › Desalter kit", "cost", "25 sh")`. A
  leader before anything else (a contents page's "Chapter 2 ..... 41") states no field.
- `Armour 3 / Wounds 8 / Pool 3 / Claw 3 damage`: each part that is a label and a value starting with a number is a
  field of the section's subject; so are three labels or more each followed by a number and a comma, inside
  prose ("Armour 4, Wounds 30, Pool 7, two attacks").
- `Wounds — 14`: a label of one to four words, a dash, the value.
Pure: `memory.knowledge.fields.read_fields` calls `line_fields` on each line it reads no other field from.
"""

from __future__ import annotations

import re

__all__ = ["line_fields", "own_line", "price_field"]

#: An entry, a dotted leader (dots, spaced dots or an ellipsis) and its value.
_LEADER = re.compile(
    r"^\s*(?:[-*+•]\s+)?(?P<name>\S.{0,80}?)\s*(?:\.{3,}|(?:\.\s){3,}\.?|…+)\s*(?P<value>\S.{0,40})$"
)
#: A price: a currency sign and a number, or a number and a coin's short name ("25 sh", "3 gp", "$40", "12 cr.").
_PRICE = re.compile(r"^(?:[$£€¥]\s?\d[\d,.]*|\d[\d,.]*\s?(?P<coin>[A-Za-z]{1,3})\.?)$")
#: Short names of measures, never of coins.
_MEASURES = frozenset(
    {
        "ft",
        "in",
        "yd",
        "mi",
        "m",
        "cm",
        "mm",
        "km",
        "lb",
        "lbs",
        "kg",
        "g",
        "oz",
        "h",
        "hr",
        "hrs",
        "min",
        "s",
    }
)
#: A label (one to three words, the first capitalised) and a value starting with a number, one part of a stat line.
_PART = re.compile(r"^([A-Z][\w'’-]*(?: [\w'’-]+){0,2})\s*[:—–]?\s+([+−-]?\d.*)$")
#: A label and a number followed by a comma, a semicolon, a full stop or a bracket (`_runs`).
_PAIR = re.compile(r"(?<![\w'’-])([A-Z][a-z'’-]+(?: [A-Z][a-z'’-]+)?) ([+−-]?\d+)(?=[,;.)]|$)")
#: What may stand between two pairs of one run.
_JOINED = re.compile(r"^\s*[,;/]\s*$")
#: The fewest pairs a run in prose holds.
RUN = 3
_STAT_JOINT = re.compile(r"\s+[/|¦]\s+")
_DASHED = re.compile(r"^\s*(?:[-*+•]\s+)?([A-Z][\w'’()-]*(?: [\w'’()-]+){0,3}) [—–] (\S.*)$")


def line_fields(line: str, subject: str) -> list[tuple[str, str, str]]:
    """Return the fields (subject, label, value) a line states in one of the module's shapes."""
    leader = _LEADER.match(line)
    if leader:
        priced = price_field(leader.group("name"), leader.group("value"), subject)
        return [priced] if priced is not None else []
    # A stat line's parts joined by slashes or bars: "Wounds 14 / Armour 2", "BRN 3 | QCK 1 | HSK 12".
    parts = [p.strip() for p in _STAT_JOINT.split(line)] if not line.lstrip().startswith("|") else []
    if len(parts) >= 2:
        stated = [m for m in (_PART.match(p) for p in parts) if m]
        if len(stated) >= 2:
            return [(subject, m.group(1), m.group(2).strip()) for m in stated]
    found = _runs(line, subject)
    if found:
        return found
    dashed = _DASHED.match(line)
    if dashed:
        return [(subject, dashed.group(1), dashed.group(2).strip())]
    return []


def price_field(name: str, value: str, subject: str) -> tuple[str, str, str] | None:
    """Return the cost of an entry of a section's price list ("Desalter kit", "25 sh"), when the value is a
    price (a number and a coin's short name, or a currency sign), else None."""
    price = _PRICE.match(value.strip())
    if (
        price is None
        or (price.group("coin") or "").casefold() in _MEASURES
        or not subject
        or not name.strip()
    ):
        return None
    return (f"{subject} › {_clean(name)}", "cost", value.strip())


def own_line(line: str) -> str | None:
    """Return a line that is a field of its own as a sentence reads it ("Desalter kit: 25 sh" of its dotted
    leader, "Wounds — 14" as it is), or None for a line of prose (it may go on from the line before)."""
    leader = _LEADER.match(line)
    if leader:
        return f"{_clean(leader.group('name'))}: {leader.group('value').strip()}"
    return line.strip() if _DASHED.match(line) else None


def _runs(line: str, subject: str) -> list[tuple[str, str, str]]:
    """Return the pairs of the runs of `RUN` pairs or more a line holds ("Armour 4, Wounds 30, Pool 7")."""
    found: list[tuple[str, str, str]] = []
    run: list[re.Match[str]] = []
    for pair in [*_PAIR.finditer(line), None]:
        if pair is not None and run and _JOINED.match(line[run[-1].end() : pair.start()]):
            run.append(pair)
            continue
        if len(run) >= RUN:
            found += [(subject, m.group(1), m.group(2)) for m in run]
        run = [pair] if pair is not None else []
    return found


def _clean(text: str) -> str:
    return " ".join(text.replace("**", "").replace("*", "").replace("`", "").split()).strip()
