"""The sentences of a passage as the short answer reads them: its paragraphs, list items and table rows, its
inner sections, bold-named blocks and kind lines. A passage is read once and kept (the answer forms read the
same passages again and again); each caller gets its own list."""

from __future__ import annotations

import functools
import re

from memory.chunking.secret import GM_LABEL, secret_title
from memory.knowledge.field_lines import own_line

__all__ = [
    "EXAMPLE_OPENS",
    "MIN_SENTENCE_CHARS",
    "SENTENCE_CHARS",
    "examples",
    "kind_line",
    "labelled_sentences",
    "sections_of",
    "sentences",
]

SENTENCE_CHARS = 320
#: Shorter pieces are not sentences ("Cost 5 gp" is one: a list item of a stat block).
MIN_SENTENCE_CHARS = 8

#: How many passages' blocks, sections and labelled sentences are kept, and how many texts' sentences (a
#: passage's blocks are read for their sentences too): a question reads some five passages, many times over.
_KEPT_PASSAGES = 1024
_KEPT_SENTENCES = 2048

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"“(]?[A-Z0-9])")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKUP = re.compile(r"[*_`>|]+")
_BLOCK_START = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s|\|)")


def _unlabelled(line: str) -> str:
    """Return a paragraph's first line without the GM's label leading it ("Secret: The toll-men …")."""
    text = GM_LABEL.sub("", line, count=1)
    return text if text == line or not text else text[0].upper() + text[1:]


@functools.lru_cache(maxsize=_KEPT_PASSAGES)
def _blocks(text: str) -> tuple[str, ...]:
    """Return a passage's paragraphs, list items and table rows, each on one line (headings left out)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        field = own_line(line)
        starts = not line.strip() or _HEADING.match(line) or _BLOCK_START.match(line) or field
        if starts and current:
            blocks.append(" ".join(current))
            current = []
        if field is not None:
            # A price list's line, a stat's: a block of its own ("Filter mask: 9 cr").
            blocks.append(_unlabelled(field))
            continue
        if (
            line.strip()
            and set(line.strip()) <= set("|-: ")
            and blocks
            and blocks[-1].lstrip().startswith("|")
        ):
            blocks.pop()  # the row above a table's rule is its header: names of columns, not a fact
        if line.strip() and not _HEADING.match(line) and not set(line.strip()) <= set("|-: "):
            current.append(_unlabelled(line.strip()) if not current else line.strip())
            if line.lstrip().startswith("|"):
                blocks.append(" ".join(current))
                current = []
    if current:
        blocks.append(" ".join(current))
    return tuple(blocks)


#: A block led by a bold name: `***Hellish Resistance.*** You have ...`, `**Cost:** 5 gp`.
_BOLD_LEAD = re.compile(r"^\s*(?:[-*+•]\s+)?\*{2,3}([^*]{1,60}?)[.:]?\*{2,3}[.:]?\s+(?=\S)")
#: A block led by a term in capitals, as a glossary prints its entries: `BITE. A die that shows …`,
#: `JUMPING THE WIRE — when a sled …` (two letters at least; a Roman numeral is a number, not a term).
_CAPITALS_LEAD = re.compile(
    r"^\s*(?:[-*+•]\s+)?(?![IVXLCDM]+[.\s])([A-Z][A-Z'’-]+(?: [A-Z][A-Z'’-]*){0,3})(?:\.|\s+[—–-])\s+(?=\S)"
)
#: A glossary entry's pointer to the rule it sums up, at its end: "(4.3)", "(see 2.1)", "(p. 12)".
_CROSS_REFERENCE = re.compile(
    r"\s*\((?:see\s+)?(?:p\.\s*|page\s+|§\s*)?\d+(?:[.,–-]\s*\d+)*\)\s*$", re.IGNORECASE
)
_SMALL_WORDS = frozenset({"a", "an", "the", "of", "in", "on", "at", "to", "and", "or", "for", "by"})


def _entry_term(capitals: str) -> str:
    """Return a term printed in capitals as a name is written ("JUMPING THE WIRE": "Jumping the Wire")."""
    words = capitals.casefold().split()
    return " ".join(w if i and w in _SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words))


#: The italic line just under a heading: the entry's kind ("*3rd-level evocation*"), not a sentence of it.
_KIND_LINE = re.compile(r"^\s*[*_]([^*_].*?)[*_]\s*$")
#: A table row is short and still a fact ("Hard 20").
MIN_ROW_CHARS = 3


def sentences(text: str) -> list[str]:
    """Return a passage's sentences (headings left out, markup stripped, each clipped).

    A trait's bold name stays with its first sentence ("Hellish Resistance: You have resistance to fire
    damage."): alone it says nothing. A table row is a sentence however short it is."""
    return list(_sentences(text))


@functools.lru_cache(maxsize=_KEPT_SENTENCES)
def _sentences(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for block in _blocks(text):
        lead = _BOLD_LEAD.match(block)
        if lead is not None:
            block = f"{lead.group(1).strip()}: {block[lead.end() :]}"
        elif (capitals := _CAPITALS_LEAD.match(block)) is not None:
            # A glossary entry: its term stays with its meaning ("Bite: A die that shows a 7 or an 8."), and a
            # short entry is one sentence: what it says after its meaning ("PLATE. Armour. It comes off every
            # hit.") is said of the term, which no other of its sentences names.
            block = f"{_entry_term(capitals.group(1))}: {block[capitals.end() :]}"
            entry = _CROSS_REFERENCE.sub("", " ".join(_MARKUP.sub(" ", block).split()))
            if len(entry) <= SENTENCE_CHARS:
                found.append(entry)
                continue
        clean = " ".join(_MARKUP.sub(" ", block).split()).strip(" -•")
        shortest = MIN_ROW_CHARS if block.lstrip().startswith("|") else MIN_SENTENCE_CHARS
        for piece in _SENTENCE.split(clean):
            piece = piece.strip()
            if len(piece) >= shortest:
                found.append(piece if len(piece) <= SENTENCE_CHARS else piece[: SENTENCE_CHARS - 1] + "…")
    return tuple(found)


#: The opening of an example ("For example, ...", "For instance, ...", "e.g. ...").
EXAMPLE_OPENS = re.compile(r"^(?:for (?:example|instance)|e\.g\.)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=_KEPT_PASSAGES)
def examples(text: str) -> frozenset[str]:
    """Return the sentences of a passage's paragraphs that open with an example, as `sentences` gives them: the
    sentences after the first illustrate the rule above too ("For example, a creature with a Constitution of 14
    can hold its breath for 3 minutes. If it starts suffocating, it has 2 rounds ...")."""
    found: set[str] = set()
    for block in _blocks(text):
        said = sentences(block)
        if said and EXAMPLE_OPENS.match(said[0]):
            found.update(said)
    return frozenset(found)


def labelled_sentences(text: str) -> list[tuple[str | None, str]]:
    """Return a passage's sentences as `sentences` does, each with the bold name of the block it is in
    ("Engulf" for every sentence of the Engulf action, not only its first), None outside a named block."""
    return list(_labelled(text))


@functools.lru_cache(maxsize=_KEPT_PASSAGES)
def _labelled(text: str) -> tuple[tuple[str | None, str], ...]:
    found: list[tuple[str | None, str]] = []
    for block in _blocks(text):
        lead = _BOLD_LEAD.match(block)
        name = " ".join(_MARKUP.sub(" ", lead.group(1)).split()) if lead is not None else None
        found += [(name, piece) for piece in _sentences(block)]
    return tuple(found)


@functools.lru_cache(maxsize=_KEPT_SENTENCES)
def kind_line(body: str) -> str | None:
    """Return the kind line of a section's text (its first line, in italics), as `sentences` gives it."""
    first = next((line for line in body.splitlines() if line.strip()), "")
    if not _KIND_LINE.match(first):
        return None
    said = sentences(first)
    return said[0] if said else None


_SECTION = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def sections_of(text: str) -> list[tuple[str | None, str]]:
    """Return a passage's sections: the heading inside the passage each is under (None before any), its text."""
    return list(_sections(text))


@functools.lru_cache(maxsize=_KEPT_PASSAGES)
def _sections(text: str) -> tuple[tuple[str | None, str], ...]:
    found: list[tuple[str | None, str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _SECTION.match(line)
        if match is None:
            lines.append(line)
            continue
        if any(x.strip() for x in lines):
            found.append((heading, "\n".join(lines)))
        heading, lines = secret_title(match.group(1))[0], []  # "The Ledger (GM only)": "The Ledger"
    if any(x.strip() for x in lines):
        found.append((heading, "\n".join(lines)))
    return tuple(found)
