"""How the canon services open a campaign's canon: its ontology, its canonization gate, and readers through its
lineage, the lineages and ontologies cached (one `CanonAccess` shared by every service that reads canon)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from canon.campaigns import Campaign, lineage
from canon.forks import LineageStep, fork_point_of
from canon.graph import CanonReader
from canon.models import Viewer
from canon.ontology import Ontology, base_ontology
from canon.visibility import Knowing

if TYPE_CHECKING:
    from canon.gate import CanonizationGate


class CanonAccess:
    """A campaign's ontology, gate and readers, with the lineages and ontology extensions built once."""

    def __init__(self, ontology: Ontology | None = None) -> None:
        self.base_ontology = ontology or base_ontology()
        self._lineages: dict[tuple[int, int | None, int | None, str], list[LineageStep]] = {}
        self._ontologies: dict[str, Ontology] = {}

    def ontology_for(self, campaign: Campaign) -> Ontology:
        """Return the campaign's ontology: the base one plus the campaign's extension, if any."""
        extension = campaign.settings.get("ontology")
        if not extension:
            return self.base_ontology
        # Validating an extension costs more than the queries of a lookup: each distinct one is built once.
        key = json.dumps(extension, sort_keys=True)
        found = self._ontologies.get(key)
        if found is None:
            found = self._ontologies[key] = self.base_ontology.extended(extension)
        return found

    def gate_for(self, campaign: Campaign) -> CanonizationGate:
        """Return the canonization gate with the campaign's ontology."""
        # Imported here: the gate brings the continuity rules, which a lore lookup never runs.
        from canon.gate import CanonizationGate

        return CanonizationGate(self.ontology_for(campaign))

    async def reader(
        self, session: AsyncSession, campaign: Campaign, viewer: Viewer, knowing: Knowing | None = None
    ) -> CanonReader:
        """Return a canon reader for a campaign and viewer.

        Lineages are cached: only a rebase moves one, and it moves the branch's own fork point (a branch with
        branches of its own is never rebased), so the campaign's fork point is part of the key.
        """
        key = (
            campaign.id,
            campaign.fork_changeset_id,
            campaign.fork_scene_order,
            repr(fork_point_of(campaign)),
        )
        steps = self._lineages.get(key)
        if steps is None:
            steps = self._lineages[key] = await lineage(session, campaign.id)
        return CanonReader(session, steps, self.ontology_for(campaign), viewer=viewer, knowing=knowing)

    def forget_lineage(self, campaign_id: int) -> None:
        """Drop the cached lineage of a campaign (after a rebase or a delete)."""
        for key in [k for k in self._lineages if k[0] == campaign_id]:
            del self._lineages[key]
