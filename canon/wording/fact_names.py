"""A fact's name, for picking it by what it says: its sentence and when it holds, never a number.

A GM picks a fact (to retcon it, to cite it) by its words: "Corvan Marrow is dead (since year 352 of the Third
Age)", or any of them that pick one fact; two facts of the same words are told apart by their scenes
(`told_apart`). A suggestion chosen sends back the fact's handle, "fact 53", which is understood as a typed
habit is, but never shown nor asked for. `matching_facts` decides which named facts a typed text
means: the handle, else the one whose whole name it is, else those holding every word typed, each word in any of
its forms ("Oswin's death" fits "Oswin Harrow is dead": `canon.wording.word_forms`). Several are the caller's
choices to show, never a guess; `nearest_facts` names the facts holding most of the words when none holds all.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from canon.models import StatementView, Viewer
from canon.wording.context import Wording
from canon.wording.statements import statement_words
from canon.wording.word_forms import FILLER, root

#: The GM's handle of a fact as typed back: "fact 53", "(fact 53)", "#53" or "53", alone or after the words.
_HANDLE = re.compile(r"(?:^|\(|\s)(?:fact\s*#?\s*|#)(\d{1,19})\s*\)?\s*$", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*#?\s*(\d{1,19})\s*$")
_WORD = re.compile(r"\w+")


def fact_handle(fact_id: int) -> str:
    """Return the GM's handle of a fact: "(fact 53)"."""
    return f"(fact {fact_id})"


def fact_name(view: StatementView, words: Wording) -> str:
    """Return what a fact says and when it holds, without evidence: the words it is picked by."""
    return statement_words(view, words, Viewer.GM, evidence=False)


def fact_words(view: StatementView, words: Wording, limit: int = 100) -> str:
    """Return a fact's words alone within `limit` characters (cut at the end): what a suggestion shows and a
    list of facts names; typed back, they pick the fact (any of its words do, `matching_facts`)."""
    return clip_words(fact_name(view, words), limit)


def clip_words(text: str, limit: int = 100) -> str:
    """Return a fact's name within `limit` characters (cut at the end, marked “…”)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def told_apart(
    views: Sequence[StatementView], lines: Sequence[str], words: Wording, viewer: Viewer = Viewer.GM
) -> list[str]:
    """Return the `lines` naming `views` (one each), those that read the same words told apart by the smallest
    words that differ: where each was said (its first evidence, a scene and its turns), else the day it was
    recorded; never a number."""
    seen: dict[tuple[str, ...], int] = {}
    for line in lines:
        key = tuple(folded_words(line))
        seen[key] = seen.get(key, 0) + 1
    told = []
    for view, line in zip(views, lines, strict=True):
        if seen[tuple(folded_words(line))] > 1:
            evidence = view.statement.evidence
            line += (
                f" — {words.evidence(evidence[0], viewer)}"
                if evidence
                else f" — recorded {view.statement.provenance.recorded_at:%-d %B %Y, %H:%M} UTC"
            )
        told.append(line)
    return told


def handle_in(text: str) -> int | None:
    """Return the fact number a typed text names by its handle ("fact 53", "(fact 53)", "#53", "53"), if any."""
    folded = unicodedata.normalize("NFKC", text)
    match = _NUMBER.match(folded) or _HANDLE.search(folded)
    return int(match[1]) if match is not None else None


def folded_words(text: str) -> list[str]:
    """Return a text's words, case and width folded, punctuation and accents aside."""
    plain = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    return _WORD.findall(plain)


def _meaning(words: Sequence[str]) -> list[str]:
    """Return the roots of the words that carry meaning ("that", "the" and the like aside; all when only those)."""
    kept = [w for w in words if w not in FILLER] or list(words)
    return [root(w) for w in kept]


def _fits(wanted: str, found: Sequence[str]) -> bool:
    """Return whether a typed word (a root) is a fact's word: its root, or the start of one of its words."""
    return any(word == wanted or word.startswith(wanted) for word in found)


def _roots_of(named: Sequence[tuple[int, str]]) -> dict[int, list[str]]:
    return {
        fact_id: [*folded, *(root(w) for w in folded)]
        for fact_id, name in named
        for folded in [folded_words(name)]
    }


def matching_facts(typed: str, named: Sequence[tuple[int, str]]) -> list[int]:
    """Return the ids of the facts a typed text means, among (id, name) pairs, best first.

    The handle names one fact (none when it is not among them); else a fact whose whole name is typed is the
    one meant; else every fact whose name holds each typed word that carries meaning, in any of its forms (at
    the start of one of its words).
    """
    number = handle_in(typed)
    if number is not None:
        return [number] if any(fact_id == number for fact_id, _ in named) else []
    typed_words = folded_words(typed)
    if not typed_words:
        return []
    whole = [fact_id for fact_id, name in named if folded_words(name) == typed_words]
    if whole:
        return whole
    wanted = _meaning(typed_words)
    return [fact_id for fact_id, found in _roots_of(named).items() if all(_fits(w, found) for w in wanted)]


def nearest_facts(typed: str, named: Sequence[tuple[int, str]]) -> list[int]:
    """Return the facts holding the most of a typed text's meaningful words when none holds them all: every
    word but one, at least one of them ("that Oswin died at the Lantern" -> the facts of Oswin's death); else none.
    """
    if handle_in(typed) is not None:
        return []
    wanted = _meaning(folded_words(typed))
    if len(wanted) < 2:
        return []
    scores = {fact_id: sum(_fits(w, found) for w in wanted) for fact_id, found in _roots_of(named).items()}
    best = max(scores.values(), default=0)
    if best < len(wanted) - 1 or best == 0:
        return []
    return [fact_id for fact_id, score in scores.items() if score == best]
