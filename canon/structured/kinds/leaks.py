"""Warn where a field a player may read gives away a truth the GM told the table otherwise.

A person's `public_status` or `public_cause_of_death`, an event's `public_outcome`: the table reads the story,
the GM keeps the truth. A field left public beside it may still tell the truth: a public `killed_by` beside a
fever, a public `held_at` beside "missing", a public `died:` beside "missing", an event's public `winner` beside
what the table is told of how it ended (unless that story itself names them). The import never decides for the GM (some stories are meant to be seen
through): it warns at the field's line, says what players would read, and gives the `gm_only:` line that keeps
it the GM's. The warnings ride on the file's load result (`LoadResult.warnings`), so an import of an unchanged
file can show them again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from canon.structured.records import LoreProblem
from canon.structured.schemas import LoreModel
from canon.structured.tree import Map, Scalar
from canon.visibility import entity_hidden
from canon.wording.counts import listed

if TYPE_CHECKING:
    from canon.structured.normalise import Normaliser
    from canon.structured.validate import Loc

#: The states in which someone has died.
_DEAD = frozenset({"dead", "undead"})


def warn_told_truths(
    n: Normaliser, entry: LoreModel, loc: Loc, hidden: tuple[str, ...], *, visibility: str | None
) -> None:
    """Warn at each public field of `entry` that gives away a truth its public story tells otherwise."""
    if visibility is not None and entity_hidden(visibility):
        return  # players never read the entry
    name = str(getattr(entry, "name", "") or getattr(entry, "id", ""))
    found = [
        (field, shown, story)
        for field, shown, story in _giveaways(n, entry, loc, name)
        if field not in hidden and not _secret_items(n, entry, loc, field)
    ]
    if not found:
        return
    written = [str(item) for item in getattr(entry, "gm_only", ())]
    fix = ", ".join([*written, *dict.fromkeys(f for f, _, _ in found if f not in written)])
    for field, shown, story in found:
        line, column = n.v.pos((*loc, field))
        n.warnings.append(
            LoreProblem(
                file=n.file,
                line=line,
                column=column,
                message=(
                    f'Players are told {story}, but {name}\'s "{field}" is public: they read {shown}. '
                    f"To keep it yours, write `gm_only: [{fix}]` on {name}."
                ),
            )
        )


def _giveaways(n: Normaliser, entry: LoreModel, loc: Loc, name: str) -> list[tuple[str, str, str]]:
    """Return (field, what players read there, the story it gives away) for each field the entry gives that
    tells a truth its public fields tell otherwise (hidden or not: the caller leaves the hidden out)."""
    value = {f: getattr(entry, f, None) for f in type(entry).model_fields}
    value.update({f: _as_written(n, loc, f, v) for f, v in value.items() if f in _NAMED})
    found: list[tuple[str, str, str]] = []

    def given(field: str) -> bool:
        return value.get(field) not in (None, [], "")

    told_status, status = value.get("public_status"), value.get("status")
    if told_status is not None and told_status != status:
        story = f"{name} is {told_status}"
        if told_status != "imprisoned" and given("held_at"):
            found.append(("held_at", f"that {name} is held at {value['held_at']}", story))
        if status in _DEAD and told_status not in _DEAD:
            died = [
                ("died", f"that {name} died ({value.get('died')})"),
                ("died_at", f"that {name} died at {value.get('died_at')}"),
                ("cause_of_death", f"that {name} died of {value.get('cause_of_death')}"),
                ("public_cause_of_death", f"that {name} died of {value.get('public_cause_of_death')}"),
                ("killed_by", f"that {value.get('killed_by')} killed {name}"),
            ]
            found += [(f, shown, story) for f, shown in died if given(f)]
        if status not in _DEAD and (told_status in _DEAD or told_status == "missing") and given("home"):
            found.append(("home", f"that {name} lives at {value['home']}", story))
    told_cause = value.get("public_cause_of_death")
    if told_cause is not None and given("killed_by") and not any(f == "killed_by" for f, _, _ in found):
        found.append(
            ("killed_by", f"that {value['killed_by']} killed {name}", f'{name} died of "{told_cause}"')
        )
    told_outcome = value.get("public_outcome")
    if told_outcome is not None:
        story = f'of {name} that "{told_outcome}"'
        for field, words in (("winner", "won"), ("winners", "won"), ("deaths", "died in it")):
            if given(field) and not _all_told(value[field], str(told_outcome)):
                found.append((field, f"that {_names(value[field])} {words}", story))
    return found


def _all_told(value: object, story: str) -> bool:
    """Tell whether the story players are told names everyone a field names ("House Vell held the ford" beside
    `winner: House Vell`): the field then tells them nothing the story does not."""
    names = (
        [str(v) for v in value]
        if isinstance(value, Sequence) and not isinstance(value, str)
        else [str(value)]
    )
    told = _words(story)
    return all(_words(name) in told for name in names if name.strip())


def _words(text: str) -> str:
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


_WORD = re.compile(r"\w+")


#: The fields whose value names someone or somewhere: said as the GM wrote the names, not as ids.
_NAMED = frozenset({"held_at", "died_at", "killed_by", "home", "winner", "winners", "deaths"})


def _as_written(n: Normaliser, loc: Loc, field: str | int, value: object) -> object:
    """Return the names a reference field gives, as the file writes them (`Hob Greave`, not its id)."""
    if isinstance(value, list):
        return [_as_written(n, (*loc, field), index, item) for index, item in enumerate(value)]
    node = n.v.positions.get((*loc, field))
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, Map):
        return next((v.value for k, v in node.pairs if k.value == "name" and isinstance(v, Scalar)), value)
    return value


def _names(value: object) -> str:
    if isinstance(value, Sequence) and not isinstance(value, str):
        return listed([str(v) for v in value])
    return str(value)


def _secret_items(n: Normaliser, entry: LoreModel, loc: Loc, field: str) -> bool:
    """Tell whether every name the field gives is kept for the GM one by one (`{name: .., gm_only: true}`)."""
    secret = n.v.secret_items
    if not secret:
        return False
    value = getattr(entry, field, None)
    if isinstance(value, list):
        return bool(value) and all((*loc, field, index) in secret for index in range(len(value)))
    return (*loc, field) in secret
