"""The GM's administration of canon: retcons, the authority policy, the ontology extension, closing conflicts.

Each use case owns its transaction; canon is never deleted, a retcon marks the old fact and links its
replacement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.canon_access import CanonAccess
from bot.services.wording import wording_for
from canon import campaigns
from canon import conflicts as lifecycle
from canon.campaigns import Campaign, ChangesetKind, open_changeset
from canon.checks import RecordedConflict
from canon.errors import Conflict, InvalidInput, NotFound
from canon.gate import authority_policy
from canon.graph import CanonReader, CanonWriter
from canon.models import Authority, Evidence, EvidenceKind, Statement, StatementView, Viewer
from canon.ontology import Ontology
from canon.storage import Database
from canon.wording import Wording
from memory.scenes import Actor


@dataclass(frozen=True)
class RetconResult:
    """A retcon's outcome: the replacement (if any) and the facts to review because they relied on the old one."""

    retconned_id: int
    replacement_id: int | None
    dependents: list[StatementView]
    #: The campaign's words (its calendar), as the GM reads them: the result's dates say its months and eras.
    words: Wording
    retconned: StatementView | None = None
    replacement: StatementView | None = None
    closed: list[RecordedConflict] = field(default_factory=list)


class CanonAdmin:
    """The GM's changes to canon itself and its rules, for the cogs and the command line."""

    def __init__(self, db: Database, *, access: CanonAccess) -> None:
        self.db = db
        self.access = access

    async def retcon(
        self,
        campaign: Campaign,
        statement_id: int,
        actor: Actor,
        *,
        rationale: str,
        new_value: str | None = None,
    ) -> RetconResult:
        """Mark a fact retconned (optionally replacing its value) and list the facts that relied on it."""
        if not rationale.strip():
            raise InvalidInput("A retcon needs a rationale: why the old fact no longer holds.")

        async def work(session: AsyncSession) -> RetconResult:
            reader = await self.access.reader(session, campaign, Viewer.GM)
            found = await reader.statements(statement_ids=[statement_id], include_retconned=True)
            if not found:
                raise NotFound("That fact is not in this campaign's canon; pick one from the suggestions.")
            old = found[0]
            changeset = await open_changeset(
                session,
                campaign.id,
                ChangesetKind.RETCON,
                actor_id=actor.id,
                actor_name=actor.name,
                rationale=rationale,
            )
            writer = CanonWriter(session, changeset, reader.ontology)
            replacement = None
            if new_value is not None:
                note = f"/retcon by {actor.name}: {rationale}"
                replacement = await _replace(reader, writer, old, new_value, note)
            await writer.retcon(reader, "statement", old.id, replacement_id=replacement, rationale=rationale)
            closed = await lifecycle.resolve_answered(
                session,
                campaign.id,
                [old.id],
                resolution=lifecycle.Resolution.RETCON,
                reason=rationale,
                by=actor.name,
            )
            dependents = [
                d for d in await reader.dependents("statement", old.id) if d.statement.id != replacement
            ]
            shown = {
                v.statement.id: v
                for v in await reader.views(
                    await reader.statements(
                        statement_ids=[old.id] + ([replacement] if replacement else []),
                        include_retconned=True,
                    )
                )
            }
            return RetconResult(
                retconned_id=old.id,
                replacement_id=replacement,
                dependents=dependents,
                words=await wording_for(session, reader),
                retconned=shown.get(old.id),
                replacement=shown.get(replacement) if replacement else None,
                closed=closed,
            )

        return await self.db.run(work, attempts=1)

    async def set_ontology(self, campaign: Campaign, extension: dict[str, Any] | None) -> Ontology:
        """Replace the campaign's ontology extension (None clears it); return the campaign's new ontology.

        The extension is validated against the base ontology; one that leaves out a type, relation, state
        or event kind the campaign's canon uses is refused, since canon is never deleted.
        """
        new = self.access.base_ontology.extended(extension) if extension else self.access.base_ontology

        async def work(session: AsyncSession) -> Ontology:
            current = await campaigns.get_campaign(session, campaign.id)
            old = self.access.ontology_for(current)
            reader = await self.access.reader(session, current, Viewer.GM)
            used = await reader.names_in_use(
                entity_types=set(old.entity_types) - set(new.entity_types),
                relations=set(old.relation_types) - set(new.relation_types),
                states=set(old.states.tags) - set(new.states.tags),
                via=set(old.states.via) - set(new.states.via),
            )
            if used:
                raise Conflict(
                    f"The campaign's canon uses {', '.join(sorted(used))}, which the new extension leaves "
                    "out; keep them in it (canon is never deleted, only retconned)."
                )
            await campaigns.update_campaign_settings(session, campaign.id, {"ontology": extension or None})
            return new

        return await self.db.run(work)

    async def close_conflict(
        self, campaign: Campaign, conflict_id: int, actor: Actor, *, dismiss: bool, reason: str
    ) -> RecordedConflict:
        """Resolve an open conflict with the GM's rationale, or dismiss it for good with a reason."""
        return await self.db.run(
            lambda s: lifecycle.close(
                s, campaign.id, conflict_id, dismiss=dismiss, reason=reason, by=actor.name
            ),
            attempts=1,
        )

    async def set_policy(self, campaign: Campaign, authority: str, mode: str) -> dict[str, str]:
        """Set whether an authority's proposals are accepted without review; return the whole policy."""
        try:
            who = Authority(authority.strip().lower())
        except ValueError:
            raise InvalidInput(
                f"“{authority}” is not an authority. Allowed: {', '.join(a.value for a in Authority)}."
            ) from None
        how = mode.strip().lower()
        if how not in {"auto", "review"}:
            raise InvalidInput(f"“{mode}” is not a policy. Allowed: auto, review.")

        async def work(session: AsyncSession) -> dict[str, str]:
            current = await campaigns.get_campaign(session, campaign.id)
            policy = {**(current.settings.get("authority_policy") or {}), who.value: how}
            updated = await campaigns.update_campaign_settings(
                session, campaign.id, {"authority_policy": policy}
            )
            return authority_policy(updated.settings)

        return await self.db.run(work)


async def _replace(
    reader: CanonReader, writer: CanonWriter, old: Statement, new_value: str, note: str
) -> int:
    """Write the statement that replaces a retconned one: the same, with a new value (a relation: a new other
    end, named) as the GM's, with the retcon as evidence; return its id."""
    if old.kind.value == "relation":
        target = await reader.resolve(new_value)
        obj, value = target.id, None
    else:
        obj, value = None, new_value
    return await writer.add_statement(
        kind=old.kind,
        subject_id=old.subject_id,
        predicate=old.predicate,
        object_id=obj,
        value=value,
        via=old.via,
        validity=old.validity,
        authority=Authority.GM,
        visibility=old.visibility,
        replaces_id=old.id,
        evidence=[Evidence(kind=EvidenceKind.COMMAND, note=note)],
    )
