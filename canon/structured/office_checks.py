"""Ingest: the titles this import says were held for a span (`title_spans`), checked as continuity warnings.

A span outside its holder's life (held before being born, or after dying, as the import's own `born:`/`died:`
say it) is a warning, as a founding outside its founder's life is; so are two holders of one office at one time,
unless their spans say the office is `shared`, in this import or beside a span canon holds already (a file imported
before). Each warning names the file and line of the span, and the holders and dates in the campaign calendar's
words. Only the files this import changed are read: a file imported again unchanged is not, and warns of nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from canon.calendar import DateError, parse_date
from canon.continuity import world_key
from canon.continuity.findings import key_hi
from canon.models import Validity
from canon.structured.files import LoadedFile
from canon.structured.reports import IngestWarning
from canon.structured.state import IngestState
from canon.structured.title_spans import HELD_TITLE
from canon.wording import Wording

#: The kinds of the warnings (`canon.wording.findings.KIND_WORDS` says them in words).
OUTSIDE_LIFE = "office_outside_life"
TWO_HOLDERS = "office_two_holders"


@dataclass(frozen=True, slots=True)
class _Span:
    holder: str
    key_of: str | int  # the holder's YAML id, or an entity id of canon
    title: str
    start: str | None
    end: str | None
    shared: bool
    where: str  # "folk.yaml, line 12"

    def key(self, text: str | None) -> int | None:
        try:
            return world_key(parse_date(text)) if text else None
        except (DateError, ValueError):
            return None


def _spans(changed: Sequence[LoadedFile]) -> tuple[list[_Span], dict[str, tuple[str | None, str | None]]]:
    """Return every span the changed files state, and each holder's birth and death as written."""
    spans: list[_Span] = []
    lives: dict[str, tuple[str | None, str | None]] = {}
    for loaded in changed:
        for entry in loaded.result.entries if loaded.result is not None else ():
            held = entry.attributes.get("held_titles")
            if not isinstance(held, list):
                continue
            born, died = entry.attributes.get("born"), entry.attributes.get("died")
            lives[entry.name] = (
                born if isinstance(born, str) else None,
                died if isinstance(died, str) else None,
            )
            for span in held:
                if isinstance(span, dict):
                    spans.append(
                        _Span(
                            entry.name,
                            entry.id,
                            str(span.get("title")),
                            span.get("from") if isinstance(span.get("from"), str) else None,  # type: ignore[arg-type]
                            span.get("to") if isinstance(span.get("to"), str) else None,  # type: ignore[arg-type]
                            bool(span.get("shared")),
                            f"{loaded.name}, line {span.get('line')}",
                        )
                    )
    return spans, lives


def _when(words: Wording, start: str | None, end: str | None) -> str:
    """Return a span in the calendar's words ("from year 690 to 731 of the Lantern Age"; "at no date said")."""
    return words.span(Validity(world_from=start, world_until=end)) or "at no date said"


def _outside_life(span: _Span, born: str | None, died: str | None, words: Wording) -> str | None:
    """Return how a span falls outside its holder's life, in words, or None."""
    start, end = span.key(span.start), span.key(span.end)
    born_key, died_key = span.key(born), span.key(died)
    office = f"“{span.title}” ({_when(words, span.start, span.end)})"
    if start is not None and born_key is not None and key_hi(start) < born_key:
        return f"{span.holder} holds {office} before being born ({words.date(born)})"
    late = start if end is None else end
    if late is not None and died_key is not None and late > key_hi(died_key):
        return f"{span.holder} holds {office} after dying ({words.date(died)})"
    return None


def _overlap(a: _Span, b: _Span) -> bool:
    """Tell whether two spans of one office by two holders share some time (both started)."""
    a0, a1, b0, b1 = a.key(a.start), a.key(a.end), b.key(b.start), b.key(b.end)
    if a0 is None or b0 is None:
        return False
    return a0 < (b1 if b1 is not None else a0 + 1) and b0 < (a1 if a1 is not None else b0 + 1)


async def _in_canon(state: IngestState, spans: Sequence[_Span], ids: Mapping[str, int]) -> list[_Span]:
    """Return the spans of the same offices canon holds of others than this import's holders (files imported
    before, as the GM reads them), to check against the import's."""
    titles = {_office(s.title) for s in spans}
    mine = {ids.get(str(s.key_of)) for s in spans}
    held = [
        st
        for st in await state.reader.statements(predicates=[HELD_TITLE], with_evidence=False)
        if st.subject_id not in mine and _office(st.value or "") in titles
    ]
    names = await state.reader.entities({st.subject_id for st in held}) if held else {}
    return [
        _Span(
            names[st.subject_id].name,
            st.subject_id,
            st.value or "",
            st.validity.world_from,
            st.validity.world_until,
            False,
            "as canon says it",
        )
        for st in held
        if st.subject_id in names
    ]


def _office(title: str) -> str:
    return " ".join(title.casefold().split())


async def office_warnings(
    state: IngestState, changed: Sequence[LoadedFile], ids: Mapping[str, int]
) -> list[IngestWarning]:
    """Return a warning for each span held outside its holder's life and each pair of holders of one office at
    one time, in this import or with canon's (see the module docstring)."""
    spans, lives = _spans(changed)
    if not spans:
        return []
    others = await _in_canon(state, spans, ids)
    words = Wording(calendar=(await state.reader.calendar()).words())
    warnings: list[IngestWarning] = []
    for span in spans:
        said = _outside_life(span, *lives.get(span.holder, (None, None)), words)
        if said is not None:
            warnings.append(
                IngestWarning(kind=OUTSIDE_LIFE, message=f"{said}: {span.where}.", sides=(span.where,))
            )
    by_title = sorted([*spans, *others], key=lambda s: _office(s.title))
    for _, group in itertools.groupby(by_title, key=lambda s: _office(s.title)):
        pairs = [(a, b) for a, b in itertools.combinations(list(group), 2) if a in spans or b in spans]
        for a, b in pairs:
            if a.key_of == b.key_of or a.shared or b.shared or not _overlap(a, b):
                continue
            message = (
                f"{a.holder} and {b.holder} both hold “{a.title}” at one time: {a.holder} "
                f"{_when(words, a.start, a.end)} ({a.where}), {b.holder} {_when(words, b.start, b.end)} "
                f"({b.where}). Give one an end before the other begins, or write shared: true on both spans "
                "if the office has several holders at once."
            )
            warnings.append(IngestWarning(kind=TWO_HOLDERS, message=message, sides=(a.where, b.where)))
    return warnings
