"""How a branch inherits from its ancestors: fork points, lineage steps and the settings a branch starts with.

A branch never copies its parent's rows. Every canon row is written by a `Changeset` (a numbered, timestamped
decision), and a branch records the last parent changeset it inherits (`fork_changeset_id`). A campaign's
*lineage* is therefore a short list of `(campaign_id, up_to_changeset)` pairs, from itself to the root, and a
row is visible in the campaign when its `(campaign_id, changeset_id)` falls inside one of them.

An inherited step can be cut further: by the story clock (`up_to_scene_order`: rows of later scenes stay out
even when their commit landed before the fork's changeset), by the campaign calendar (`world_until_key`: a
branch forked "at year 300" does not inherit what is dated after it) and by real time (`up_to_time`: imported
sources and scene-less NPC memories recorded after the fork). The last two are kept in the branch's
`settings["fork"]`, written once by `canon.campaigns.create_branch` and moved only by a rebase, with the
inherited sources that were hidden or disabled at the fork (they stay so in the branch) and the branch's copies
of sources its parent re-imported or deleted since (`PINNED_SOURCES`).

Settings are not versioned, so a branch starts with a copy of its parent's other settings as they are at the
fork (`branch_settings`): its ontology extension (the types and relations of the canon it inherits), its
authority policy, and any key added later. From then on they are the branch's own. A rebase brings the
parent's ontology extension forward (`merge_ontology_extensions`: an extension only adds, so the parent's later
additions are added to the branch's) and leaves the rest alone: a policy is how the branch's own table plays.

Everything here is pure: the rows are read and written by `canon.campaigns`.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

# A changeset id larger than any real one: "everything the campaign itself wrote".
OPEN_END = 2**62


class LineageStep(BaseModel):
    """One ancestor in a campaign's lineage and the last changeset of it that is visible.

    The campaign itself is the first step and is never cut (`up_to_changeset` is `OPEN_END`, the rest None).
    """

    model_config = ConfigDict(frozen=True)

    campaign_id: int
    up_to_changeset: int
    up_to_scene_order: int | None = None
    #: Rows dated in the world after this calendar key are not inherited (an `at_date` fork).
    world_until_key: int | None = None
    #: Material kept by real time (imported sources, scene-less memories) recorded after this is not inherited.
    up_to_time: dt.datetime | None = None
    #: Inherited sources that were hidden (or disabled) at a fork on the way: they stay so, whatever the
    #: ancestor does to them later (only a more restrictive change reaches a branch).
    hidden_sources: frozenset[int] = frozenset()
    disabled_sources: frozenset[int] = frozenset()

    @property
    def inherited(self) -> bool:
        """Return whether this step is an ancestor (cut at a fork point) rather than the campaign itself."""
        return self.up_to_changeset < OPEN_END


#: The key of a branch's settings holding the cut-offs that have no column of their own.
FORK_SETTINGS = "fork"
#: The campaign's ontology extension (`canon.ontology.Ontology.extended`): copied at a fork, merged by a rebase.
ONTOLOGY_SETTINGS = "ontology"
#: Which authorities' proposals are accepted without review (`canon.gate.authority_policy`): copied at a fork,
#: then the branch's own (a rebase leaves it alone).
POLICY_SETTINGS = "authority_policy"


class ForkedCampaign(Protocol):
    """What the fork readers need of a campaign: its row (`canon.campaigns.CampaignRow`) or its domain model."""

    @property
    def parent_id(self) -> int | None: ...
    @property
    def fork_changeset_id(self) -> int | None: ...
    @property
    def fork_scene_order(self) -> int | None: ...
    @property
    def fork_world_date(self) -> str | None: ...
    @property
    def settings(self) -> dict[str, Any]: ...


class ForkPoint(BaseModel):
    """Where a branch leaves its parent: the cut-offs of everything it inherits from it."""

    model_config = ConfigDict(frozen=True)

    changeset_id: int
    scene_order: int | None = None
    world_date: str | None = None
    world_until_key: int | None = None
    up_to_time: dt.datetime | None = None
    #: The inherited sources hidden from players, and disabled, at the fork (they stay so in the branch).
    hidden_sources: tuple[int, ...] = ()
    disabled_sources: tuple[int, ...] = ()


def fork_point_of(row: ForkedCampaign) -> ForkPoint | None:
    """Return a branch's fork point (None for a root campaign)."""
    if row.parent_id is None:
        return None
    extra = (row.settings or {}).get(FORK_SETTINGS) or {}
    until = extra.get("up_to_time")
    return ForkPoint(
        changeset_id=row.fork_changeset_id if row.fork_changeset_id is not None else 0,
        scene_order=row.fork_scene_order,
        world_date=row.fork_world_date,
        world_until_key=extra.get("world_until_key"),
        up_to_time=dt.datetime.fromisoformat(until) if until else None,
        hidden_sources=tuple(extra.get("hidden_sources") or ()),
        disabled_sources=tuple(extra.get("disabled_sources") or ()),
    )


def _min(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def steps_of(chain_rows: list[tuple[int, ForkPoint | None]]) -> list[LineageStep]:
    """Return the lineage of a chain of (campaign id, its fork point), the campaign first.

    Each ancestor is visible up to the tightest cut-off of every fork between it and the campaign.
    """
    steps: list[LineageStep] = []
    limit, scene, world, until = OPEN_END, None, None, None
    hidden: frozenset[int] = frozenset()
    disabled: frozenset[int] = frozenset()
    for campaign_id, point in chain_rows:
        steps.append(
            LineageStep(
                campaign_id=campaign_id,
                up_to_changeset=limit,
                up_to_scene_order=scene,
                world_until_key=world,
                up_to_time=until,
                hidden_sources=hidden,
                disabled_sources=disabled,
            )
        )
        if point is not None:
            limit = min(limit, point.changeset_id)
            scene = _min(scene, point.scene_order)
            world = _min(world, point.world_until_key)
            until = _min(until, point.up_to_time)
            hidden = hidden | set(point.hidden_sources)
            disabled = disabled | set(point.disabled_sources)
    return steps


def branch_settings(parent: ForkedCampaign, point: ForkPoint) -> dict[str, Any]:
    """Return the settings a branch starts with: a copy of the parent's (all but its fork), and its own fork.

    Every key but `fork` is copied, including keys this module does not know (a setting added later is a
    campaign's setting, and a branch plays the parent's campaign as it stood). Time zones and GM channels are
    a server's (`bot.schema.ops_tables`), not a campaign's, so a branch shares its server's without a copy.
    """
    inherited = {
        key: copy.deepcopy(value) for key, value in (parent.settings or {}).items() if key != FORK_SETTINGS
    }
    return {**inherited, FORK_SETTINGS: fork_settings(point)}


_NAMED_SECTIONS = ("entity_types", "relation_types")
_STATE_NAMED_SECTIONS = ("tags", "via")


def merge_ontology_extensions(
    ours: dict[str, Any] | None, theirs: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, list[str], list[str]]:
    """Return `ours` with what `theirs` adds, the names added, and the names both define differently.

    Extensions only add to the base ontology, so adding the parent's later additions to a branch's extension
    never invalidates the branch's canon. A name both define (differently) keeps the branch's definition: its
    canon was written against it. Transitions are merged target by target. The caller validates the result
    (two additions can still clash, e.g. a transition out of a state the branch made terminal).
    """
    merged: dict[str, Any] = copy.deepcopy(ours) if ours else {}
    added: list[str] = []
    clashes: list[str] = []
    if not theirs:
        return merged or None, added, clashes

    def named(target: dict[str, Any], source: dict[str, Any], label: str) -> None:
        for name, spec in source.items():
            if name not in target:
                target[name] = copy.deepcopy(spec)
                added.append(f"{label} {name}")
            elif target[name] != spec:
                clashes.append(f"{label} {name}")

    for section, label in zip(_NAMED_SECTIONS, ("entity type", "relation"), strict=True):
        if isinstance(theirs.get(section), dict):
            named(merged.setdefault(section, {}), theirs[section], label)
    their_states = theirs.get("states")
    if isinstance(their_states, dict):
        states = merged.setdefault("states", {})
        for section, label in zip(_STATE_NAMED_SECTIONS, ("state", "event kind"), strict=True):
            if isinstance(their_states.get(section), dict):
                named(states.setdefault(section, {}), their_states[section], label)
        transitions = their_states.get("transitions")
        if isinstance(transitions, dict):
            own = states.setdefault("transitions", {})
            for source, targets in transitions.items():
                current = own.get(source, [])
                current = list(current) if isinstance(current, list) else [current]
                for target in targets if isinstance(targets, list) else [targets]:
                    if target not in current:
                        current.append(target)
                        added.append(f"transition {source} -> {target}")
                own[source] = current
    return merged or None, added, clashes


def fork_settings(point: ForkPoint) -> dict[str, Any]:
    """Return what a branch's `settings["fork"]` holds of a fork point (the cut-offs without a column)."""
    extra: dict[str, Any] = {
        "world_until_key": point.world_until_key,
        "up_to_time": point.up_to_time.isoformat() if point.up_to_time else None,
    }
    if point.hidden_sources:
        extra["hidden_sources"] = sorted(set(point.hidden_sources))
    if point.disabled_sources:
        extra["disabled_sources"] = sorted(set(point.disabled_sources))
    return extra


#: In a branch's `settings["fork"]`: its copies of inherited sources the parent changed or deleted since the
#: fork, {copy's source id: the content hash it was copied with} (`memory.knowledge.pinning.pin_for_branches`).
#: A rebase removes the copies still as copied (the parent's current version comes in) and clears the list.
PINNED_SOURCES = "pinned_sources"


def pinned_sources(campaign: ForkedCampaign) -> dict[int, str]:
    """Return a branch's pinned copies of inherited sources: {its own source id: content hash when copied}."""
    extra = (campaign.settings or {}).get(FORK_SETTINGS) or {}
    return {int(key): str(value) for key, value in (extra.get(PINNED_SOURCES) or {}).items()}
