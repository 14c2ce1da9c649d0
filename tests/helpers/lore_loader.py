"""Shared helpers for the structured-lore loader tests: the fixture files and the shapes of a load result."""

from __future__ import annotations

from canon.structured import (
    LoadResult,
    LoreModel,
    load_lore_file,
)
from tests.helpers.paths import YAML_FIXTURES

FIXTURES = YAML_FIXTURES


VALID = ["timeline", "family_tree", "gazetteer", "bestiary", "magic_system", "culture"]


# Factions are not defined by any of the six kinds; they stay unresolved for the caller.
EXTERNAL_FACTIONS = {"sisterhood_of_silver", "crimson_pact"}


def load(name: str, **kwargs: object) -> LoadResult:
    return load_lore_file(FIXTURES / name, **kwargs)  # type: ignore[arg-type]


def problems(result: LoadResult) -> list[tuple[int, int, str]]:
    return [(p.line, p.column, p.message) for p in result.problems]


def relations(result: LoadResult, kind: str) -> set[tuple[str, str]]:
    return {(r.source_id, r.target_id) for r in result.relations if r.type == kind}


class _Flags(LoreModel):
    enabled: bool
    note: str | None = None
