"""The row of a table or list that a question names by its label: "DC for a very hard task" is the row "Very
hard" of a table of difficulties, not its neighbour "Hard"; "exhaustion level 4" is the item "4 - Hit point maximum
halved", not the rule above the list.

A passage's rows (`rows_of`) are a table's rows (the first cell the label, the header naming the other cells), a
numbered list's items ("4 - …", "4. …", "Level 4: …") and a definition list's terms ("**Term.** …", "Term: …",
"Term" then ": …" on the next line), at least two of a kind. The question names a row when it holds every word of
its label (a number as a figure, a word or an ordinal; a fraction or a die is no number named); of several, the one
whose label holds the others' ("very hard" holds "hard"). A table's column the question names too is the cell
asked ("Frey's symbol"); a table whose columns are named by its rows' abbreviations ("Gold (gp)" and the column
"GP") is read row by column ("how many gold is a platinum piece worth": the row Platinum, the column GP).

`named_row` answers with that row when the answer quotes the passage that holds it (or nothing yet quotes the best
passages) and does not already say it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.fields import fields_of
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FIELD_UNITS, HOW_UNITS, KIND_LINE, Question, analyse
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_words import fold_words, same_word

__all__ = ["Row", "named_row", "row_unsaid", "rows_of"]

#: The passages whose rows may answer: those the answer quotes, and the best ones.
ROWS_READ = 2
#: The fewest rows of one kind that make a table or a list.
MIN_ROWS = 2

_TABLE_ROW = re.compile(r"^\s*\|(.*?)\|?\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")
#: A numbered item: "4 - Speed halved", "4. Speed halved", "Level 4: Speed halved", "- 4) …".
_NUMBERED = re.compile(
    r"^\s*(?:[-*+•]\s+)?(?:\*{1,3})?(?:(?:level|lvl|rank|tier|stage|step|degree|grade)\s+)?(\d{1,3})(?:st|nd|rd|th)?"
    r"(?:\*{1,3})?\s*(?:[-–—:.)])\s*(?:\*{1,3})?\s*(\S.*)$",
    re.IGNORECASE,
)
#: A term led in bold: "**Term.** What it is", "- ***Term:*** …".
_BOLD_TERM = re.compile(r"^\s*(?:[-*+•]\s+)?\*{2,3}([^*]{1,60}?)[.:]?\*{2,3}[.:]?\s+(\S.*)$")
#: A term before a colon or a dash: "Term: what it is", "Term — what it is" (a short name, capitalised).
_PLAIN_TERM = re.compile(
    r"^\s*(?:[-*+•]\s+)?([A-Z][\w'’/()-]*(?:\s+[\w'’/()-]+){0,3}?)\s*(?::|\s[—–-])\s+(\S.*)$"
)
#: A definition list's definition on the line after its term: ": what it is".
_DEFINITION = re.compile(r"^\s*:\s+(\S.*)$")
#: What names no number in a question: a fraction ("3/4"), a die ("1d6"), a bonus ("+2").
_NOT_NUMBERS = re.compile(r"\d+\s*/\s*\d+|\d*d\d+|[+-]\d+")
_BRACKETS = re.compile(r"\(([^)]*)\)")
#: The word after "how" asks an amount or a manner ("how fast", "how long"), not a row of that name.
_HOW = re.compile(r"\bhow\s+[\w'-]+", re.IGNORECASE)
_MARKUP = re.compile(r"[*_`]+")


@dataclass(frozen=True, slots=True)
class Row:
    """A row of a table or list: its label, its cells (column name, value) and the kind of list it is in."""

    label: str
    cells: tuple[tuple[str, str], ...]
    kind: str

    def said(self, column: str | None = None) -> str:
        """Return the row as a sentence: its label, then its cells (the one `column` names, when given)."""
        cells = [(h, v) for h, v in self.cells if v and (column is None or h == column)]
        if self.kind == "numbered":
            body = "; ".join(v for _, v in cells)
            return _ended(f"{self.label} - {body}")
        if self.kind == "term":
            return _ended(f"{self.label}: {cells[0][1]}" if cells else self.label)
        return _ended(f"{self.label}: " + "; ".join(f"{h} {v}".strip() for h, v in cells))


def _ended(text: str) -> str:
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split()).strip()


def rows_of(text: str) -> list[Row]:
    """Return a passage's rows: its tables' rows, its numbered items and its terms, each kind when at least
    `MIN_ROWS` of it are there."""
    tables: list[Row] = []
    numbers: list[Row] = []
    terms: list[Row] = []
    header: list[str] | None = None
    previous = ""
    for line in [*text.splitlines(), ""]:
        table = _TABLE_ROW.match(line)
        if table is not None:
            if _TABLE_RULE.match(line):
                above = _TABLE_ROW.match(previous)
                header = [_clean(c) for c in above.group(1).split("|")] if above is not None else []
            elif header is not None:
                cells = [_clean(c) for c in table.group(1).split("|")]
                names = [*header[1:], *[""] * len(cells)]
                tables.append(Row(cells[0], tuple(zip(names, cells[1:], strict=False)), "table"))
            previous = line if _TABLE_RULE.match(line) is None else ""
            continue
        header, stripped = None, line.strip()
        definition = _DEFINITION.match(line)
        if definition is not None and previous and _TABLE_ROW.match(previous) is None:
            terms.append(Row(_clean(previous), (("", _clean(definition.group(1))),), "term"))
        elif (found := _NUMBERED.match(line)) is not None:
            numbers.append(Row(found.group(1), (("", _clean(found.group(2))),), "numbered"))
        elif (found := _BOLD_TERM.match(line) or _PLAIN_TERM.match(line)) is not None:
            terms.append(Row(_clean(found.group(1)), (("", _clean(found.group(2))),), "term"))
        previous = stripped
    return [row for kind in (tables, numbers, terms) if len(kind) >= MIN_ROWS for row in kind]


#: The words a label may leave out: they name nothing of it.
_ARTICLES = frozenset({"a", "an", "the", "of"})


def _label_words(label: str) -> list[str]:
    """Return the words of a row's label that name it: what is in brackets left out (an abbreviation: "Gold
    (gp)"), the description after a comma too ("Frey, god of fertility"); a label of stop words only names
    nothing."""
    name = _BRACKETS.sub(" ", label).split(",")[0]
    words = [w for w in fold_words(name) if w not in _ARTICLES]
    return words if any(w not in STOPWORDS or w.isdigit() for w in words) else []


def _holds(asked: Sequence[str], words: Sequence[str]) -> bool:
    return bool(words) and all(any(same_word(w, a) for a in asked) for w in words)


def _columns(rows: Sequence[Row]) -> dict[str, list[str]]:
    """Return the words naming each column of a table but its first: its header's, or the name of the row whose
    abbreviation the header is ("GP": "gold" of "Gold (gp)")."""
    short = {}
    for row in rows:
        for inner in _BRACKETS.findall(row.label):
            short[inner.strip().casefold()] = _label_words(row.label)
    named: dict[str, list[str]] = {}
    for header, _ in rows[0].cells if rows else ():
        words = [w for w in fold_words(header) if w not in STOPWORDS]
        named[header] = short.get(header.strip().casefold(), words)
    return named


#: The words that ask a count or an amount in the units of a column: "how many gold", "worth in gold".
_COUNTED = re.compile(r"\bhow (?:many|much)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)|\bin\s+([\w'-]+)\s*[?.!]*$")


def _column(question: str, columns: dict[str, list[str]]) -> str | None:
    """Return the column the question counts in ("how many gold": GP), when it names one alone that way."""
    found = _COUNTED.search(question.casefold())
    if found is None:
        return None
    counted = fold_words(found.group(1) or found.group(2) or "")
    named = [
        h for h, words in columns.items() if words and any(same_word(w, c) for w in words for c in counted)
    ]
    return named[0] if len(named) == 1 else None


def _chosen(question: str, asked: Sequence[str], rows: Sequence[Row]) -> tuple[Row, str | None] | None:
    """Return the row the question names and the column it names (None for the whole row), or None."""
    named = [r for r in rows if _holds(asked, _label_words(r.label))]
    tables = [r for r in rows if r.kind == "table"]
    columns = {h: w for h, w in _columns(tables).items() if _holds(asked, w)}
    column = _column(question, columns) if len(columns) > 1 else next(iter(columns), None)
    if column is not None and len(named) > 1:
        # The row named as the column counted ("gold" of "how many gold"): the other row is the one asked.
        named = [r for r in named if r.kind != "table" or not _holds(columns[column], _label_words(r.label))]
    if not named:
        return None
    best = max(named, key=lambda r: len(_label_words(r.label)))
    widest = _label_words(best.label)
    if any(r is not best and not _holds(widest, _label_words(r.label)) for r in named):
        return None  # two rows named, neither holding the other: a comparison, not a row asked
    if any(r is not best and _holds(_label_words(r.label), widest) for r in named):
        return None  # two rows of one label (two tables of one passage): which one is not said
    return best, column if best.kind == "table" else None


def _asked_words(question: str, result: LoreResult) -> list[str]:
    """Return the question's words that may name a row of a passage: not its numbers that are none (a fraction,
    a die), nor the words of the passage's title ("cast" of "Time Stop" names no "Casting Time")."""
    title = fold_words(" ".join(result.heading_path[-1:]))
    text = _HOW.sub(" ", _NOT_NUMBERS.sub(" ", question))  # "how fast" asks an amount: it names no row "Fast"
    return [w for w in fold_words(text) if not any(same_word(w, t) for t in title)]


def _rows(result: LoreResult, quoted: bool) -> list[Row]:
    """Return a passage's rows that may answer: a table's only, of a passage the answer does not quote; no line
    that is a field of the passage (a stat block's "Speed 40 ft." is the field answer's)."""
    labels = {f.label.casefold() for f in fields_of(result)}
    return [
        r
        for r in rows_of(result.text)
        if (quoted or r.kind == "table") and (r.kind != "term" or r.label.casefold() not in labels)
    ]


def _past_title(question: str, result: LoreResult, rows: Sequence[Row]) -> tuple[Row, str | None] | None:
    """Return the row the question names by the passage's title and more words of its own ("Kelp Hound
    pack-mother" under "Kelp Hound"), the row's whole label named, or None."""
    title = [w for w in fold_words(" ".join(result.heading_path[-1:])) if w not in _ARTICLES]
    longer = [
        r for r in rows if len(_label_words(r.label)) > len(title) and _holds(_label_words(r.label), title)
    ]
    return _chosen(question, fold_words(_HOW.sub(" ", question)), longer) if title and longer else None


def _bare(row: Row, column: str | None, text: str) -> bool:
    """Return whether an answer quotes a table's row as its cells alone, one after the other ("Kelp Hound 1 5 3
    Bite, 2 damage."): the row said with its columns' names is the answer then."""
    values = [v for _, v in row.cells if v]
    bare = " ".join([row.label, *values])
    return row.kind == "table" and column is None and len(values) > 1 and bare.casefold() in text.casefold()


def named_row(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer:
    """Return the answer with the row the question names by its label in its stead, when the answer quotes the
    passage that holds it (or no passage) and does not say the row already (see the module docstring)."""
    if answer.mode not in (AnswerMode.EXTRACTIVE, AnswerMode.NOTHING):
        return answer
    first = len(facts) + 1
    quoted = {c.number - first for c in answer.citations if c.cited and c.number >= first}
    # Where nothing answered, only the best passage's cell of the row and the column named may.
    read = range(min(ROWS_READ if answer.known else 1, len(results)))
    for at in sorted(quoted | set(read), key=lambda i: (i not in quoted, i)):
        if at >= len(results) or not results[at].is_fact:
            continue
        rows = _rows(results[at], at in quoted)
        found = _chosen(question, _asked_words(question, results[at]), rows) or _past_title(
            question, results[at], rows
        )
        if found is None or (at not in quoted and found[1] is None):
            continue  # a passage not quoted answers by the cell of the row and column named
        row, column = found
        values = [v for h, v in row.cells if v and (column is None or h == column)]
        if not values or (all(v in answer.text for v in values) and not _bare(row, column, answer.text)):
            return answer
        text = f"{row.said(column)} [{first + at}]"
        marked = [c.model_copy(update={"cited": c.number == first + at}) for c in numbered(facts, results)]
        return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)
    return answer


#: The "how" word whose units say each field's amount ("Mass (kg)" heads a weight, "Move (ft)" a speed).
_FIELD_HOW = {"weight": "heavy", "speed": "fast", "range": "far", "size": "big", "duration": "long"}


def _says_field(text: str, field: str, own: frozenset[str]) -> bool:
    """Return whether a header, a cell or a passage's prose says a field: by the field's name or a word the
    glossary reads as it ("Price" is a cost), the question's own word for it, or a unit of its amounts ("kg",
    "12kg")."""
    if field in analyse(text).fields:
        return True
    units = {*FIELD_UNITS.get(field, ()), *HOW_UNITS.get(_FIELD_HOW.get(field, ""), ())}
    words = {w.lstrip("0123456789.,") for w in fold_words(text)}
    return any(same_word(w, o) for w in words for o in own) or bool(words & units)


def row_unsaid(question: Question, quoted: Sequence[LoreResult], answer: str) -> str | None:
    """Return the field a question asks ("weight") when the answer is a table's row said whole and neither the
    row's columns, nor its cells, nor any passage quoted says that field: the row of an item in a table of prices
    is no weight. None otherwise."""
    asked = [f for f in question.fields if f and f != KIND_LINE]
    rows = [
        r
        for result in quoted
        for r in rows_of(result.text)
        if r.kind == "table"
        and r.label
        and r.label.casefold() in answer.casefold()
        and any(v and v.casefold() in answer.casefold() for _, v in r.cells)
    ]
    if not asked or not rows:
        return None
    prose = "\n".join(
        " ".join([*r.heading_path, *(ln for ln in r.text.splitlines() if _TABLE_ROW.match(ln) is None)])
        for r in quoted
    )
    for field in asked:
        own = frozenset(
            w
            for w in fold_words(" ".join([field, question.asked_by.get(field, ""), *question.glossary_used]))
            if w not in STOPWORDS
        )
        cells = [
            f"{r.label} {h} {v}" for r in rows for h, v in r.cells
        ]  # a row named by the field: "Challenge | 12"
        if not any(_says_field(text, field, own) for text in [*cells, prose]):
            return field
    return None
