"""Which entity a typed name means, as one viewer sees canon: the full name, an alias, or a whole word of one
name ("Mirela" for "Mirela Harrow" when no other entity the viewer sees has that word), and the words that tell
apart several entities a name could mean (their type, their place, a first fact), never their ids.

Only what the reader's viewer sees is ever matched or named (`canon.visibility` through the reader): a player's
"Grey" matches nothing when the only "Grey" is a GM-only entity, exactly as if there were none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from canon.errors import InvalidInput, NotFound
from canon.graph.keys import fold
from canon.models import NOW, AsOf, Entity, EntityCard, EntityRef, StatementKind
from canon.ontology import Ontology
from canon.wording.proposals import type_words

_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
_WORD = re.compile(r"[\w'’-]+")
#: Below this a name is too unlike the one typed to be offered as "Did you mean …?".
HINT_CUTOFF = 50


class NameReader(Protocol):
    """What naming needs of a reader of canon (`canon.graph.reader.CanonReader`), for one viewer."""

    ontology: Ontology

    async def find_exact(self, name: str, as_of: AsOf = NOW) -> list[Entity]: ...
    async def names(self) -> list[tuple[str, int]]: ...
    async def entity(self, entity_id: int, as_of: AsOf = NOW) -> Entity: ...
    async def entities(self, ids: Iterable[int], as_of: AsOf = NOW) -> dict[int, Entity]: ...
    async def card(
        self, entity_or_id: Entity | int, as_of: AsOf = NOW, *, with_evidence: bool = True
    ) -> EntityCard: ...


def words_of(name: str) -> list[str]:
    """Return a name's words, folded: "Mirela  Harrow" reads ["mirela", "harrow"]."""
    return _WORD.findall(fold(name))


def names_words(typed: str, name: str) -> bool:
    """Return whether `typed` is a run of whole words of `name` ("Harrow" of "Oswin Harrow", not "Harr")."""
    want, have = words_of(typed), words_of(name)
    if not want or len(want) >= len(have):
        return False
    return any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))


def starts_words(typed: str, name: str) -> bool:
    """Return whether `typed` begins a run of whole words of `name`, its last word maybe in part: "harrow",
    "mir" and "mirela h" of "Mirela Harrow", not "arrow" (for suggestions as a name is typed)."""
    want, have = words_of(typed), words_of(name)
    size = len(want)
    return bool(want) and any(
        have[i : i + size - 1] == want[:-1] and have[i + size - 1].startswith(want[-1])
        for i in range(len(have) - size + 1)
    )


async def by_id(reader: NameReader, typed: str, as_of: AsOf = NOW) -> Entity | None:
    """Return the entity a "#6" handle names, if the text is one (accepted quietly, never asked for)."""
    text = typed.strip()
    if text.startswith("#") and text[1:].isdigit():
        return await reader.entity(int(text[1:]), as_of)
    return None


async def candidates(
    reader: NameReader, typed: str, as_of: AsOf = NOW, *, exact: bool = False
) -> list[Entity]:
    """Return the entities `typed` could mean, as the reader's viewer sees canon.

    A full name, alias or key match wins; only when there is none do whole words of names count. More than
    one entity means the name is ambiguous; none, that it is unknown to this viewer. `exact`: full names,
    aliases and keys only.
    """
    found = await reader.find_exact(typed, as_of)
    if found or exact:
        return found
    ids = list(dict.fromkeys(e for n, e in await reader.names() if names_words(typed, n)))
    if not ids:
        return []
    seen = await reader.entities(ids, as_of)
    return [seen[i] for i in sorted(ids) if i in seen]


async def distinctions(reader: NameReader, entities: Sequence[Entity]) -> list[str]:
    """Return how to tell the entities apart in words: "Oswin Harrow (Person, Eastmarch)" for each.

    The type says enough when the types differ; otherwise a place the entity is tied to, or its first fact, as
    far as the reader's viewer sees them; and when even these are alike, the order they were added in
    ("added first"). `entities` come in id order.
    """
    types = {e.type for e in entities}
    said: list[str] = []
    for entity in entities:
        hints = [type_words(entity.type)]
        if len(types) < len(entities):
            extra = await _telling_word(reader, entity)
            if extra:
                hints.append(extra)
        said.append(f"{entity.name} ({', '.join(hints)})")
    # Twins nothing tells apart (a name written twice) are told apart by the order canon has them in.
    twins = {w for w in said if said.count(w) > 1}
    seen: dict[str, int] = {}
    for i, words in enumerate(said):
        if words in twins:
            seen[words] = seen.get(words, 0) + 1
            said[i] = f"{words[:-1]}, added {_ORDINALS.get(seen[words], str(seen[words]) + 'th')})"
    return said


async def ambiguity(reader: NameReader, typed: str, entities: Sequence[Entity]) -> InvalidInput:
    """Return the error that asks which of several entities `typed` means, in words a person can type back."""
    listed = await distinctions(reader, entities[:5])
    more = f" and {len(entities) - 5} more" if len(entities) > 5 else ""
    names = {fold(e.name) for e in entities}
    ask = (
        "Which one? Type the full name."
        if len(names) == len(entities)
        else "Which one? Type the full name with the word in brackets, like “" + listed[0] + "”."
    )
    return InvalidInput(f"“{typed}” could mean {either(listed)}{more}. {ask}")


async def pick(reader: NameReader, typed: str, entities: Sequence[Entity]) -> Entity | None:
    """Return the one entity of `entities` whose words (as `distinctions` writes them) `typed` repeats."""
    said = await distinctions(reader, entities)
    chosen = [e for e, words in zip(entities, said, strict=True) if fold(words) == fold(typed)]
    return chosen[0] if len(chosen) == 1 else None


async def settle(
    reader: NameReader, typed: str, as_of: AsOf = NOW, *, exact: bool = False
) -> tuple[Entity | None, list[Entity]]:
    """Return the one entity `typed` means, or None with the candidates (several: ask; none: unknown).

    "#6" and the words `distinctions` writes ("Oswin Harrow (Person, Eastmarch)") are read back too;
    `exact` as `candidates`.
    """
    entity = await by_id(reader, typed, as_of)
    if entity is not None:
        return entity, [entity]
    bare = re.sub(r"\s*\([^()]*\)\s*$", "", typed).strip()
    if bare and bare != typed.strip():
        found = await candidates(reader, bare, as_of, exact=exact)
        chosen = await pick(reader, typed, found) if len(found) > 1 else None
        if chosen is not None or len(found) == 1:
            return chosen or found[0], found
    found = await candidates(reader, typed, as_of, exact=exact)
    return (found[0] if len(found) == 1 else None), found


async def closest(
    reader: NameReader,
    typed: str,
    matches: Sequence[tuple[EntityRef, float]],
    cutoff: float,
    as_of: AsOf = NOW,
) -> Entity:
    """Return the entity a misspelt name means (the closest of `matches` at `cutoff` or above), or raise.

    A typo of a name several entities share means any of them: they are asked about, never one picked. An
    unknown name's answer offers each name once (two entities may share one), and only names like it.
    """
    if matches and matches[0][1] >= cutoff:
        twins = [m.id for m, _ in matches if fold(m.name) == fold(matches[0][0].name)]
        if len(twins) == 1:
            return await reader.entity(twins[0], as_of)
        seen = await reader.entities(twins, as_of)
        raise await ambiguity(reader, typed, [seen[i] for i in sorted(seen)])
    near = {fold(m.name): m.name for m, score in matches if score >= HINT_CUTOFF}
    hint = f" Did you mean {either(list(near.values()))}?" if near else ""
    raise NotFound(f"Nothing in this campaign's canon is called “{typed}”.{hint}")


def either(listed: Sequence[str]) -> str:
    """Return names as a person says a choice: "A", "A or B", "A, B or C"."""
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]


async def _telling_word(reader: NameReader, entity: Entity) -> str | None:
    """Return a place the entity is tied to, else its first fact's value, as the viewer sees its card."""
    card = await reader.card(entity, with_evidence=False)
    for view in card.relations:
        other = view.object if view.subject.id == entity.id else view.subject
        if other is None or view.statement.kind != StatementKind.RELATION:
            continue
        if reader.ontology.is_a(other.type, ["Location"]):
            return other.name
    for view in card.facts:
        if view.statement.kind == StatementKind.ATTRIBUTE and view.statement.value:
            return view.statement.value
    return None
