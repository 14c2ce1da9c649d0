"""The SQL conditions that select a campaign's rows through its lineage, and those valid at an as-of point.

A branch reads its ancestors' rows up to its fork point, never later ones (see `canon.campaigns.lineage`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import BigInteger, ColumnElement, and_, false, literal, or_

from canon.forks import OPEN_END, LineageStep
from canon.models import AsOf

# Built conditions by (model, lineage): a branch's condition has a clause per ancestor, and building it for every
# query of a card costs more than the queries themselves. The model is kept in the value so its id stays its own.
_FILTERS: OrderedDict[tuple[int, tuple[LineageStep, ...]], tuple[Any, ColumnElement[bool]]] = OrderedDict()
_FILTERS_KEPT = 512


def lineage_filter(model: Any, steps: Sequence[LineageStep]) -> ColumnElement[bool]:
    """Return the SQL condition selecting rows of `model` visible through a campaign's lineage.

    An inherited step is cut at its changeset, and, for rows that carry the clocks, at its scene order (rows of
    the parent's later scenes, however early their commit) and at its world date (an `at_date` fork).
    """
    key = (id(model), tuple(steps))
    found = _FILTERS.get(key)
    if found is not None and found[0] is model:
        _FILTERS.move_to_end(key)
        return found[1]
    condition = _lineage_condition(model, key[1])
    _FILTERS[key] = (model, condition)
    while len(_FILTERS) > _FILTERS_KEPT:
        _FILTERS.popitem(last=False)
    return condition


def _lineage_condition(model: Any, steps: Sequence[LineageStep]) -> ColumnElement[bool]:
    world = getattr(model, "world_from_key", None)
    story = getattr(model, "story_from", None)
    clauses: list[ColumnElement[bool]] = []
    for step in steps:
        if step.up_to_changeset >= OPEN_END:
            clauses.append(model.campaign_id == step.campaign_id)
            continue
        parts = [model.campaign_id == step.campaign_id, model.changeset_id <= step.up_to_changeset]
        if step.up_to_scene_order is not None and story is not None:
            parts.append(or_(story.is_(None), story <= step.up_to_scene_order))
        if step.world_until_key is not None and world is not None:
            parts.append(or_(world.is_(None), world <= step.world_until_key))
        clauses.append(and_(*parts))
    if len(clauses) > 1:
        # The IN list first: it lets the planner seek a (campaign, ...) index once per campaign of the lineage.
        return and_(model.campaign_id.in_(fixed_list([step.campaign_id for step in steps])), or_(*clauses))
    return clauses[0] if clauses else false()


def fixed_list(values: Sequence[int]) -> list[Any]:
    """Return values for a fixed-length IN: one bound parameter each, so that the statement's SQL is compiled
    once (an expanding IN list is rewritten at every execution)."""
    return [literal(v, BigInteger) for v in values]


def in_lineage(campaign_id: int, changeset_id: int, steps: Sequence[LineageStep]) -> bool:
    """Return whether a row written by (campaign, changeset) is visible through a lineage."""
    return any(s.campaign_id == campaign_id and changeset_id <= s.up_to_changeset for s in steps)


def lineage_as_of(model: Any, steps: Sequence[LineageStep], as_of: AsOf) -> list[ColumnElement[bool]]:
    """Return the conditions for rows of `model` written through a lineage and recorded by the as-of point's
    real time (`believed_at`: what was believed then); who may see them is decided elsewhere."""
    conditions = [lineage_filter(model, steps)]
    if as_of.believed_at is not None:
        conditions.append(model.recorded_at <= as_of.believed_at)
    return conditions


def valid_at(model: Any, as_of: AsOf) -> list[ColumnElement[bool]]:
    """Return the conditions for rows valid at an as-of point: begun, and not yet ended.

    Validity is [from, until) on both clocks: a relation that ends in year 305 (or in scene 4) no longer
    holds in year 305 (after scene 4); an unknown end holds on.
    """
    conditions: list[ColumnElement[bool]] = []
    if as_of.world_key is not None:
        conditions.append(or_(model.world_from_key.is_(None), model.world_from_key <= as_of.world_key))
        conditions.append(or_(model.world_until_key.is_(None), model.world_until_key > as_of.world_key))
    if as_of.scene is not None:
        conditions.append(or_(model.story_from.is_(None), model.story_from <= as_of.scene))
        conditions.append(or_(model.story_until.is_(None), model.story_until > as_of.scene))
    return conditions
