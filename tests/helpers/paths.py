"""Where the tests find the repository, its YAML fixtures and the shared material beside it, from any folder."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
YAML_FIXTURES = REPO / "tests" / "fixtures" / "yaml"
# Read-only material beside the repository (reference corpora); tests that need it skip when it is absent.
SHARED = REPO.parent / "shared"
