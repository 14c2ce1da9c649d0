"""Whom a person worships: `worships:` on a character or a family tree's member, a god's name or several
(`worships: The Tide Mother`, `worships: [The Tide Mother, Saint Orla]`; `religion:` and `faith:` are read the
same). The names are kept as written, the person's fact `religion`; each that names a Deity the import or canon
holds (a culture file's `deities`) ties the person to it, WORSHIPS, as a faction's `worships` does
(`normalise.tie`), so "who worships the Tide Mother" finds them. Words naming no god ("the old gods") stay words.
`gm_only: [worships]` keeps the names and the ties for the GM (`hidden.STORED_AS`). An empty name is refused at
its line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import JsonValue

from canon.structured.normalise import tie

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

#: The other words a file may write `worships` as.
FAITH_SPELLINGS: dict[str, str] = {"religion": "worships", "faith": "worships"}


def religion(names: list[str]) -> list[JsonValue] | None:
    """Return whom a person worships as their fact `religion` (None: no fact)."""
    return [name.strip() for name in names if name.strip()] or None


def link_faith(n: Normaliser, owner: str, names: list[str], loc: Loc, hidden: tuple[str, ...]) -> None:
    """Tie the person to each god their `worships` names that the import or canon holds (the GM's alone when
    hidden); report an empty name at its line."""
    for index, name in enumerate(names):
        at = (*loc, "worships", index)
        if not name.strip():
            n.v.report(at, f'{n.v.label(at)} is empty: give a god\'s name, like "The Tide Mother"')
            continue
        tie(n, "WORSHIPS", owner, "worships", name.strip(), at, gm_only="worships" in hidden)
