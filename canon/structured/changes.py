"""What a file imported again changed, in sentences: which facts of which entries it replaced, added or no
longer says, and why one changed date may move several facts (a tie a birth dates begins at the new date).

The statements stage notes each changed slot of a file imported before (`IngestState.slot_changes`); this
module says them with the entries' names, never their ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select

from canon.tables import EntityRow
from canon.wording.counts import counted, listed
from canon.wording.relations import attribute_words, possessive, relation_sentence

if TYPE_CHECKING:
    from canon.structured.state import IngestState

#: What a changed slot did: its fact replaced by a new value, added, or no longer said (retconned).
REPLACED, ADDED, GONE = "replaced", "added", "gone"
#: How many facts a sentence names before it counts the rest.
_SHOWN = 6
#: The states a life's dates write, in words.
_LIFE = {"alive": "birth", "dead": "death"}


def slot_words(slot: str, names: Mapping[str, str]) -> str:
    """Return a fact's slot in words: "Haskel Sarrane's birth", "that Oren Sarrane is Haskel Sarrane's parent"."""
    kind, _, rest = slot.partition("|")
    if kind == "rel":
        predicate, _, ends = rest.partition("|")
        source, _, target = ends.partition("|")
        target = target.partition("|")[0]  # `rel|LEADS|ann|guild|2`: a second span of the same tie
        return "that " + relation_sentence(predicate, _name(source, names), _name(target, names))
    key, _, what = rest.partition("|")
    name = _name(key, names)
    if kind == "state":
        return f"{possessive(name)} {_LIFE.get(what.partition('|')[0], 'state')}"  # `dead|event`: a death an event tells
    return f"{possessive(name)} {attribute_words(what)}"


def _name(key: str, names: Mapping[str, str]) -> str:
    return names.get(key) or key.replace("_", " ")


def _dated_by_a_life(slots: Sequence[str]) -> bool:
    """Tell whether a birth or a death changed along with ties of the same entry (a family tree's ties to
    parents and lineage start at the birth: the new date moves them too)."""
    lives = {
        slot.split("|")[1] for slot in slots if slot.startswith("state|") and slot.split("|")[2] in _LIFE
    }
    return any(slot.startswith("rel|") and (set(slot.split("|")[2:4]) & lives) for slot in slots)


def _order(slot: str) -> tuple[int, str]:
    """Return where a slot comes in a list of changes: a life's states first, then facts, then ties."""
    return ({"state": 0, "attr": 1}.get(slot.split("|")[0], 2), slot)


def file_changes(file: str, changes: Sequence[tuple[str, str]], names: Mapping[str, str]) -> str:
    """Return what one file imported again changed, as sentences: its replaced, added and retconned facts."""
    by_kind: dict[str, list[str]] = {REPLACED: [], ADDED: [], GONE: []}
    for what, slot in changes:
        by_kind[what].append(slot)
    parts: list[str] = []
    for what, verb in ((REPLACED, "changed"), (ADDED, "new"), (GONE, "no longer said (retconned)")):
        slots = by_kind[what]
        if not slots:
            continue
        said = [slot_words(slot, names) for slot in sorted(slots, key=_order)[:_SHOWN]]
        more = len(slots) - _SHOWN
        if more > 0:
            said.append(f"{more:,} more")  # "and 6 more": "more" has no plural
        parts.append(f"{counted(len(slots), 'fact')} {verb}: {listed(said)}")
    text = f"In {file}, {'; '.join(parts)}." if parts else f"{file} changed, but states the same facts."
    if by_kind[REPLACED] and _dated_by_a_life(by_kind[REPLACED]):
        text += (
            " A tie that begins at a birth or ends at a death (to a parent, to a lineage) is dated by it: the new "
            "date changes that tie too."
        )
    if by_kind[REPLACED] or by_kind[GONE]:
        text += " The old facts are kept, marked retconned."
    return text


def _keys(slot: str) -> list[str]:
    """Return the entry ids a slot names: its entry, or a relation's two ends."""
    parts = slot.split("|")
    return parts[2:4] if parts[0] == "rel" else parts[1:2]


async def say_changes(state: IngestState, ids: Mapping[str, int]) -> None:
    """Note, in `state.change_sentences`, what each file imported before and changed now changed, by name."""
    if not state.slot_changes:
        return
    keys = {key for changes in state.slot_changes.values() for _, slot in changes for key in _keys(slot)}
    wanted = {ids[key]: key for key in keys if key in ids}
    names: dict[str, str] = {}
    table = EntityRow.__table__.c
    if wanted:
        query = select(table.id, table.name).where(table.id.in_(sorted(wanted)))
        for entity_id, name in (await state.session.execute(query)).all():
            names[wanted[entity_id]] = name
    for loaded in state.changed:
        changes = state.slot_changes.get(loaded.name)
        if changes is not None:
            state.change_sentences.append(file_changes(loaded.name, changes, names))
