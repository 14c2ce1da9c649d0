"""The marks on what not everyone may read, in one place: 🔒 for the GM, and a player's own private knowledge.

The GM reads every GM-only thing marked 🔒, with its key. A player never reads a 🔒: what their character knows
beyond public canon is their character's plain knowledge. Only what the character itself learned (an entity or a
fact revealed to it, still hidden from the others) is marked 🗝️, on their own private answers, with the key
"Your character knows this; it is not common knowledge", so the player knows not to blurt it at the table. Nothing
derived is marked: a GM-only entity the character knows only by name, through one fact it learned, carries no
mark, since the mark would tell the player that entity's other facts are hidden. The GM looking through a
character's eyes reads the same marks keyed with that character's name: "Known to Sable; it is not common knowledge".
"""

from __future__ import annotations

from canon.knowing import Known
from canon.models import Entity, StatementView, Viewer
from canon.visibility import entity_hidden, shows_lock, view_hidden

LOCK = "🔒"
KNOWN = "🗝️"
GM_KEY = f"{LOCK} = GM only"
KNOWN_KEY = f"{KNOWN} Your character knows this; it is not common knowledge."


def statement_mark(view: StatementView, viewer: Viewer, known: Known | None = None) -> str:
    """Return the mark of a statement's line: 🔒 for the GM when it is hidden, 🗝️ for a player whose character
    learned it (and it is still hidden), else nothing."""
    if viewer == Viewer.GM:
        return LOCK if view_hidden(view) else ""
    learned = known is not None and view.statement.id in known.statements
    return KNOWN if learned and view_hidden(view) else ""


def entity_mark(entity: Entity, viewer: Viewer, known: Known | None = None) -> str:
    """Return the mark of an entity's name: 🔒 for the GM when it is GM-only, 🗝️ for a player whose character
    learned the entity itself (never one it knows only by name), else nothing."""
    if not entity_hidden(entity):
        return ""
    if viewer == Viewer.GM:
        return LOCK
    return KNOWN if known is not None and entity.id in known.entities else ""


def mark_key(viewer: Viewer, shown: str, seen_as: str | None = None) -> str | None:
    """Return the key to the marks a text shows (only to a mark it shows), or None. `seen_as`: the name of the
    character the GM looks through, whose knowledge the 🗝️ marks ("Known to Sable"); a player reads "Your
    character"."""
    if viewer == Viewer.GM:
        return GM_KEY if LOCK in shown else None
    if KNOWN not in shown:
        return None
    return KNOWN_KEY if seen_as is None else f"{KNOWN} Known to {seen_as}; it is not common knowledge."


def gm_lock(viewer: Viewer, hidden: bool) -> str:
    """Return 🔒 for the GM on a hidden thing; a player reads no lock, ever."""
    return LOCK if shows_lock(viewer, hidden) else ""
