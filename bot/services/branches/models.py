"""The values the branch use cases return: bindings, the tree, a branch's info, a rebase plan, a promotion."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from canon.campaigns import Campaign
from canon.continuity import Finding
from canon.forks import ForkPoint
from canon.models import StatementView
from canon.proposals import Proposal

#: A promotion's batch in the parent: this, then ":{attempt}".
PROMOTION_BATCH = "promote:{branch}:{statement}"


@dataclass(frozen=True)
class Binding:
    """A channel or category bound to a campaign."""

    guild_id: int
    channel_id: int
    kind: str
    campaign_id: int
    bound_by_name: str | None


@dataclass(frozen=True)
class BranchNode:
    """One campaign of a tree of branches, in display order."""

    campaign: Campaign
    depth: int
    parent_name: str | None
    fork: ForkPoint | None
    bindings: list[Binding]


@dataclass(frozen=True)
class BranchInfo:
    """A campaign's place among its branches and what it wrote itself."""

    campaign: Campaign
    parent: Campaign | None
    fork: ForkPoint | None
    children: list[Campaign]
    bindings: list[Binding]
    own: dict[str, int]
    #: Changesets the parent committed after the fork (what a rebase would bring in).
    behind: int


@dataclass(frozen=True)
class RebasePlan:
    """What moving a branch's fork point to its parent's latest changeset brings in, and the conflicts it makes."""

    branch: Campaign
    parent: Campaign
    current: ForkPoint
    target: ForkPoint
    changesets: int
    scenes: int
    #: The parent's sources the rebase brings in (imported after the current fork point).
    source_ids: tuple[int, ...]
    #: Continuity findings of the rebased graph that the branch does not have now.
    conflicts: list[Finding]
    #: The story orders of the branch's own scenes (before the rebase, or after it once applied).
    own_scenes: tuple[int, ...] = ()
    #: How many places the branch's own scenes move, to come after the parent's scenes the rebase brings in.
    shift: int = 0
    applied: bool = False
    #: What of the parent's ontology extension the branch lacks ("relation CREWS", "entity type Starship").
    ontology_added: tuple[str, ...] = ()
    #: Names both extensions define differently: the branch keeps its own definition.
    ontology_kept: tuple[str, ...] = ()
    #: The branch's ontology extension once rebased (its own, plus `ontology_added`).
    ontology: dict[str, Any] | None = None
    #: The branch's copies of sources the parent re-imported or deleted since the fork (as they were at the
    #: fork): the rebase drops them, so the parent's current version (or nothing) comes in.
    refreshed_ids: tuple[int, ...] = ()

    @property
    def sources(self) -> int:
        """Return how many of the parent's sources the rebase brings in (or brings up to date)."""
        return len(self.source_ids) + len(self.refreshed_ids)

    @property
    def up_to_date(self) -> bool:
        """Return whether the parent has nothing the branch does not already inherit."""
        return self.changesets == 0 and self.scenes == 0 and self.sources == 0 and not self.ontology_added

    @property
    def renumbered(self) -> tuple[int, int, int, int] | None:
        """Return (first, last) of the branch's own scenes before and after the rebase, if they move."""
        if not self.shift or not self.own_scenes:
            return None
        first, last = self.own_scenes[0], self.own_scenes[-1]
        if self.applied:
            return first - self.shift, last - self.shift, first, last
        return first, last, first + self.shift, last + self.shift

    @property
    def scene_move(self) -> tuple[str, str] | None:
        """Return the branch's own scenes before and after the rebase in words ("scenes 4–5", "scenes 7–8", "scene 3"), if they move."""
        moved = self.renumbered
        return None if moved is None else (_span(moved[0], moved[1]), _span(moved[2], moved[3]))

    @property
    def token(self) -> str:
        """Return what the GM was shown, for the confirmation: the target changeset, scene and sources.

        A rebase confirmed with another token changes nothing (the parent moved on since the plan was shown).
        """
        ids = ",".join(map(str, sorted(self.source_ids)))
        if self.refreshed_ids:
            ids += "/" + ",".join(map(str, sorted(self.refreshed_ids)))
        sources = hashlib.sha256(ids.encode()).hexdigest()[:12]
        token = f"{self.target.changeset_id}-{self.target.scene_order or 0}-{sources}"
        if self.ontology_added:  # the parent extended its ontology since the preview: shown again
            token += "-" + hashlib.sha256("\n".join(self.ontology_added).encode()).hexdigest()[:8]
        return token


@dataclass(frozen=True)
class Promotion:
    """A branch fact proposed to the parent: the parent's batch and its proposals, waiting for the GM."""

    branch: Campaign
    parent: Campaign
    batch: str
    statement: StatementView
    proposals: list[Proposal]


@dataclass(frozen=True)
class DeleteReport:
    """What deleting a branch removed."""

    name: str
    rows: dict[str, int] = field(default_factory=dict)
    files_removed: int = 0
    collections_dropped: int = 0


def _span(first: int, last: int) -> str:
    return f"scene {first}" if first == last else f"scenes {first}–{last}"
