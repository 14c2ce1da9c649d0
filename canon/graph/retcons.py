"""Retcons: a writer marks an entity or statement retconned (a status change), never changing the row."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from canon.errors import Conflict
from canon.graph.reads import LineageReader
from canon.models import NOW, CanonLevel
from canon.tables import StatusChangeRow


async def record_retcon(
    session: AsyncSession,
    stamp: dict[str, Any],
    reader: LineageReader,
    target_kind: str,
    target_id: int,
    replacement_id: int | None,
    rationale: str | None,
) -> None:
    """Mark an entity or statement retconned from this changeset on (`CanonWriter.retcon`); refuse one already
    retconned."""
    existing = await reader._retcons(target_kind, [target_id], NOW)
    if target_id in existing:
        current = existing[target_id].replacement_id
        what = "fact" if target_kind == "statement" else target_kind
        named = " A newer one replaced it: `/canon entity` shows it." if current else " Nothing replaced it."
        raise Conflict(f"That {what} was already retconned.{named}")
    session.add(
        StatusChangeRow(
            **stamp,
            target_kind=target_kind,
            target_id=target_id,
            level=CanonLevel.RETCONNED.value,
            replacement_id=replacement_id,
            rationale=rationale,
        )
    )
    await session.flush()
