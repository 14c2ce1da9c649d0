"""Attribute names as a GM types them: the synonyms read without asking, and the close names offered.

An attribute typed is read as the one a type declares when it says that attribute and nothing else: its name or an
alias in any spelling (`birthyear`, `birth-year`, `Birth Year` are the alias `birth_year` of `born`), or followed
by a preposition (`born in`, `died on`). Anything else is no attribute the type declares: `close_names` offers the
declared ones a typed name is close to (a typo, a word they share, a name within the typed one), never to pick one
but to ask the GM, who decides (`canon.gate.drafts.settle_attribute`, `bot.services.canon_service`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import TypeVar

_T = TypeVar("_T")

#: Words a table puts after an attribute's name ("born in 1190", "died on the 3rd"): read as the name alone.
_TRAILING = frozenset({"in", "on", "at", "of", "from", "since", "is", "was"})
#: Words too common to say two names are about the same thing.
_COMMON = frozenset({"the", "and", "for", "date", "name", "year", "day", "kind", "type"})


def squashed(spelling: str) -> str:
    """Return a spelling without what does not tell names apart: case, spaces, `_`, `-` and marks."""
    return re.sub(r"[^0-9a-z]", "", spelling.casefold())


def read_attribute(index: Mapping[str, _T], folded: str) -> _T | None:
    """Return what `index` (folded spellings -> declared attribute) holds for a folded typed name, read as a
    synonym when it is one: another spelling of one name or alias, or a name followed by a preposition. A
    spelling two attributes share is no synonym (None)."""
    found = index.get(folded)
    if found is not None:
        return found
    words = folded.split("_")
    while len(words) > 1 and words[-1] in _TRAILING:
        words = words[:-1]
        found = index.get("_".join(words))
        if found is not None:
            return found
    wanted = squashed("_".join(words))
    owners = {id(v): v for k, v in index.items() if squashed(k) == wanted}
    return next(iter(owners.values())) if len(owners) == 1 else None


def close_names(index: Mapping[str, tuple[str, object]], typed: str, limit: int = 3) -> list[str]:
    """Return the declared attributes (names) a typed name not declared is close to, closest first: a typo of
    a name or alias, a word they share, or a name or alias within the typed one (`birthplace` holds `birth`)."""
    wanted = squashed(typed)
    words = {w for w in re.split(r"[^0-9a-z]+", typed.casefold()) if len(w) >= 3} - _COMMON
    scored: dict[str, float] = {}
    for spelling, (name, _) in index.items():
        plain = squashed(spelling)
        ratio = difflib.SequenceMatcher(None, wanted, plain).ratio()
        shared = words & (set(spelling.split("_")) - _COMMON)
        within = len(plain) >= 4 and plain in wanted
        if ratio >= 0.8 or shared or within:
            scored[name] = max(scored.get(name, 0.0), ratio + (1.0 if ratio >= 0.8 else 0.0))
    return sorted(scored, key=lambda n: -scored[n])[:limit]
