"""The data of a family tree or a timeline, read from the canon graph as the reader's viewer may see it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from canon.errors import InvalidInput, NotFound
from canon.graph import CanonReader
from canon.models import NOW, AsOf, Entity, StatementKind
from canon.render.drawing import MAX_TIMELINE_EVENTS, MAX_TREE_PEOPLE
from canon.render.family_tree import FamilyTree, TreePerson
from canon.render.timeline import EraBand, Timeline, era_bounds
from canon.render.timeline_rows import events_page
from canon.visibility import entity_hidden, gm_only, shows_lock


def _year_text(text: str | None, key: int | None) -> str | None:
    if key is not None:
        return str(key // 10000)
    if text:
        return text.split(".", 1)[0].replace("_", " ")  # an era only: say which
    return None


@dataclass
class _Kin:
    parents: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    children: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    spouses: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    # Of the parents, those who adopted or fostered the child (drawn with a dashed line): (parent, child).
    taken_in: set[tuple[int, int]] = field(default_factory=set)
    by_birth: set[tuple[int, int]] = field(default_factory=set)


#: The ties that make a parent: by birth, as the table believes it, and by taking a child in.
_TAKEN_IN = ("ADOPTIVE_PARENT_OF", "FOSTER_PARENT_OF")


async def _kinship(reader: CanonReader) -> tuple[_Kin, set[int]]:
    """Return who is whose parent and spouse, as the viewer may see it. A reputed parent (what the table believes:
    REPUTED_PARENT_OF) is drawn as a parent, unless the viewer sees a parent of that child kept for the GM: the
    GM's picture draws the truth, a player's the story the table believes. One who adopted or fostered a child
    is drawn as a parent too, by a dashed line (a tie kept for the GM is the GM's alone, as every statement)."""
    predicates = ["PARENT_OF", "SPOUSE_OF", "REPUTED_PARENT_OF", *_TAKEN_IN]
    statements = await reader.statements(predicates=predicates, with_evidence=False)
    secret = {s.object_id for s in statements if s.predicate == "PARENT_OF" and gm_only(s.visibility)}
    kin = _Kin()
    ids: set[int] = set()
    for s in statements:
        if s.object_id is None or (s.predicate == "REPUTED_PARENT_OF" and s.object_id in secret):
            continue
        ids |= {s.subject_id, s.object_id}
        if s.predicate in ("PARENT_OF", "REPUTED_PARENT_OF", *_TAKEN_IN):
            kin.parents[s.object_id].add(s.subject_id)
            kin.children[s.subject_id].add(s.object_id)
            if s.predicate in _TAKEN_IN:
                kin.taken_in.add((s.subject_id, s.object_id))
            else:
                kin.by_birth.add((s.subject_id, s.object_id))
        else:
            kin.spouses[s.subject_id].add(s.object_id)
            kin.spouses[s.object_id].add(s.subject_id)
    return kin, ids


async def family_tree_of(
    reader: CanonReader,
    name: str | Entity,
    *,
    up: int = 3,
    down: int = 3,
    max_people: int = MAX_TREE_PEOPLE,
) -> FamilyTree:
    """Return the family tree around a person (ancestors `up`, descendants `down` generations, spouses), or
    the members of a lineage, as the reader's viewer may see them."""
    entity = name if isinstance(name, Entity) else await reader.resolve(name)
    kin, _ = await _kinship(reader)
    if reader.ontology.is_a(entity.type, ["Lineage"]):
        members = await reader.statements(
            object_ids=[entity.id], predicates=["MEMBER_OF"], with_evidence=False
        )
        chosen = [s.subject_id for s in sorted(members, key=lambda s: s.id)]
        # Those who married in (of another lineage, or none) stand beside their spouses.
        chosen += [wed for member in list(chosen) for wed in sorted(kin.spouses.get(member, ()))]
        focus = None
        title = f"Family tree: {entity.name}"
    elif reader.ontology.is_a(entity.type, ["Person", "Creature", "Deity"]):
        chosen = _around(entity.id, kin, up, down)
        focus = entity.id
        title = f"Family tree of {entity.name}"
    else:
        raise InvalidInput(
            f"{entity.name} is a {entity.type}; a family tree is drawn for a person or a lineage."
        )
    visible = await reader.entities(chosen)
    ordered = [i for i in dict.fromkeys(chosen) if i in visible]
    omitted = max(0, len(ordered) - max_people)
    ordered = ordered[:max_people]
    if not ordered:
        raise NotFound(f"There is nobody to draw in the family tree of {entity.name}.")
    chosen_set = set(ordered)
    lives = await _lives(reader, ordered)
    people = tuple(
        TreePerson(
            id=i,
            name=visible[i].name,
            born=lives.get(i, (None, None))[0],
            died=lives.get(i, (None, None))[1],
            # Marked "GM only" on the GM's tree alone: a player's character knows whom it shows, plainly.
            hidden=shows_lock(reader.viewer, entity_hidden(visible[i])),
        )
        for i in ordered
    )
    links = sorted((p, c) for c in chosen_set for p in kin.parents.get(c, ()) if p in chosen_set)
    # A parent by birth too (a child adopted back by a parent) is drawn by birth.
    parent_of = tuple(link for link in links if link in kin.by_birth)
    taken_in = tuple(link for link in links if link not in kin.by_birth)
    spouses = tuple(
        sorted(
            {(min(a, b), max(a, b)) for a in chosen_set for b in kin.spouses.get(a, ()) if b in chosen_set}
        )
    )
    return FamilyTree(
        title=title,
        people=people,
        parent_of=parent_of,
        taken_in=taken_in,
        spouses=spouses,
        focus=focus,
        omitted=omitted,
        subject=entity.name,
    )


def _around(person: int, kin: _Kin, up: int, down: int) -> list[int]:
    """Return a person, their ancestors and descendants within reach, and everyone's spouses, nearest first."""
    chosen: dict[int, None] = {person: None}
    frontier = {person}
    for _ in range(up):
        frontier = {p for child in frontier for p in kin.parents.get(child, ())} - set(chosen)
        chosen.update(dict.fromkeys(sorted(frontier)))
    frontier = {person}
    for _ in range(down):
        frontier = {c for parent in frontier for c in kin.children.get(parent, ())} - set(chosen)
        chosen.update(dict.fromkeys(sorted(frontier)))
    for member in list(chosen):
        chosen.update(dict.fromkeys(sorted(kin.spouses.get(member, ()))))
    return list(chosen)


async def _lives(reader: CanonReader, ids: Iterable[int]) -> dict[int, tuple[str | None, str | None]]:
    """Return each entity's year of birth (first `alive`) and death (first terminal state), as shown."""
    id_list = list(ids)
    tags = reader.ontology.states.tags
    seen = (await reader.calendar()).words()  # a year in an era hidden from the reader is no year for them
    found: dict[int, tuple[str | None, str | None]] = {}
    for start in range(0, len(id_list), 400):
        chunk = id_list[start : start + 400]
        statements = await reader.statements(subject_ids=chunk, predicates=["state"], with_evidence=False)
        by_subject: dict[int, list[tuple[int, str | None, str]]] = defaultdict(list)
        for s in statements:
            if s.kind != StatementKind.STATE or s.value is None:
                continue
            key = s.validity.world_from_key
            text = s.validity.world_from
            shown = _year_text(text, key) if seen.seen(text) == text else None
            by_subject[s.subject_id].append((key if key is not None else 2**62, shown, s.value))
        for subject, states in by_subject.items():
            states.sort()
            born = next((text for _, text, value in states if value == "alive"), None)
            died = next((text for _, text, value in states if value in tags and tags[value].terminal), None)
            found[subject] = (born, died)
    return found


async def timeline_of(
    reader: CanonReader,
    era: str | None = None,
    *,
    max_events: int = MAX_TIMELINE_EVENTS,
    as_of: AsOf = NOW,
) -> Timeline:
    """Return the campaign's timeline (or one era's, sub-eras included), as the reader's viewer may see it;
    `as_of` keeps what had begun by then (eras begun, events dated or played up to that date or scene).

    A timeline, whole or of one era, reads one page of its events in the database (`timeline_rows.events_page`),
    so a campaign of any size costs `max_events` events.
    """
    types = reader.ontology.entity_types
    era_types = [t for t in types if reader.ontology.is_a(t, ["Era"])]
    event_types = [t for t in types if reader.ontology.is_a(t, ["Event"])]
    eras = {i: e for i, e in (await reader.all_entities(types=era_types)).items() if _begun(e, as_of)}
    links = await reader.statements(predicates=["SUB_ERA_OF"], with_evidence=False)
    parent: dict[int, int] = {}
    for s in links:
        if (
            s.object_id is not None
            and s.predicate == "SUB_ERA_OF"
            and s.subject_id in eras
            and s.object_id in eras
        ):
            parent.setdefault(s.subject_id, s.object_id)
    title = "Timeline"
    if era is not None:
        chosen = await reader.resolve(era)
        if chosen.id not in eras:
            raise InvalidInput(f"{chosen.name} is a {chosen.type}, not an era; name an era or nothing.")
        keep = _with_sub_eras(chosen.id, parent)
        eras = {i: e for i, e in eras.items() if i in keep}
        title = f"Timeline: {chosen.name}"
    bands = tuple(
        EraBand(
            id=i,
            name=e.name,
            start=_key_year(e.validity.world_from_key),
            end=_key_year(e.validity.world_until_key),
            parent=parent.get(i) if parent.get(i) in eras else None,
        )
        for i, e in sorted(eras.items())
    )
    # One era's timeline keeps the events of its eras or within their years.
    within = None if era is None else list(era_bounds(bands).values())
    # An event dated in an era hidden from the reader stands by no year (`events_page`).
    hidden = (await reader.calendar()).hidden_eras
    shown, total = await events_page(
        reader, event_types, list(eras), as_of=as_of, limit=max_events, within=within, hidden_eras=hidden
    )
    if not bands and not shown:
        raise NotFound("This campaign's canon has no eras or dated events yet to draw a timeline from.")
    return Timeline(title=title, eras=bands, events=tuple(shown), omitted=max(0, total - max_events))


def _key_year(key: int | None) -> int | None:
    return None if key is None else key // 10000


def _with_sub_eras(era: int, parent: dict[int, int]) -> set[int]:
    """Return an era and its sub-eras, at any depth."""
    keep = {era}
    changed = True
    while changed:
        changed = False
        for child, up in parent.items():
            if up in keep and child not in keep:
                keep.add(child)
                changed = True
    return keep


def _begun(entity: Entity, as_of: AsOf) -> bool:
    """Tell whether an era or event had begun at an as-of point (always, at the present)."""
    start, scene = entity.validity.world_from_key, entity.validity.story_from
    if as_of.world_key is not None and start is not None and start > as_of.world_key:
        return False
    return as_of.scene is None or scene is None or scene <= as_of.scene
