"""Warn where a faction's `leaders:` and a title naming the faction say different years for one leader.

A title held for a span that names a faction ("Speaker of the Brinemoot", from 600 to 620) already says who led
it and when; a `leaders:` entry for the same person says it again. The same years are one tenure (answers say it
once, by the title); other years contradict each other, and the import warns at both lines, with what to write.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from canon.structured.files import LoadedFile
from canon.structured.reports import IngestWarning
from canon.wording import PLAIN, Wording, in_prose

#: The kind of the warning (`canon.wording.findings.KIND_WORDS` says it in words).
LEADER_SPANS = "leader_spans_differ"
_ARTICLES = frozenset({"the", "a", "an"})


def _bare(text: str) -> str:
    return " ".join(w for w in re.findall(r"[^\W_]+", text.casefold()) if w not in _ARTICLES)


def _years(words: Wording, start: object, end: object) -> str:
    said = [words.date(str(d)) if d else None for d in (start, end)]
    if said[0] and said[1]:
        return f"from {said[0]} to {said[1]}"
    return f"from {said[0]}" if said[0] else f"until {said[1]}" if said[1] else "with no dates"


def leader_span_warnings(files: Iterable[LoadedFile], words: Wording = PLAIN) -> list[IngestWarning]:
    """Return a warning for each leader a faction's `leaders:` dates otherwise than their title naming it."""
    loaded = [f for f in files if f.result is not None]
    entries = {e.id: (e, f.name) for f in loaded for e in f.result.entries}  # type: ignore[union-attr]
    warnings: list[IngestWarning] = []
    for f in loaded:
        for tie in f.result.relations:  # type: ignore[union-attr]
            if tie.type != "LEADS" or tie.field != "leaders" or tie.source_id not in entries:
                continue
            group = entries.get(tie.target_id)
            holder, holder_file = entries[tie.source_id]
            if group is None:
                continue
            bare = _bare(group[0].name)
            led = (
                str(tie.valid_from) if tie.valid_from else None,
                str(tie.valid_until) if tie.valid_until else None,
            )
            spans = holder.attributes.get("held_titles")
            for span in spans if isinstance(spans, list) else []:
                if not isinstance(span, dict) or not bare:
                    continue
                if f" {bare} " not in f" {_bare(str(span.get('title', '')))} ":
                    continue
                if (span.get("from"), span.get("to")) == led:
                    continue
                title, line = span.get("title"), span.get("line")
                warnings.append(
                    IngestWarning(
                        kind=LEADER_SPANS,
                        message=(
                            f'{holder.name} leads {in_prose(group[0].name, "Faction")} {_years(words, *led)} by its "leaders" '
                            f"({f.name}, line {tie.line}), but holds “{title}” {_years(words, span.get('from'), span.get('to'))} "
                            f"({holder_file}, line {line}): answers would say both. Say it once: keep the title's "
                            f'span and leave {holder.name} out of "leaders", or give both the same years.'
                        ),
                        sides=(f"{f.name}, line {tie.line}", f"{holder_file}, line {line}"),
                    )
                )
    return warnings
