"""Populations a gazetteer writes in words ("about 41,000", "nearly 1.2 million", "roughly 900 souls") are read as
the numbers they say: "how many people live in X" gives them as written, and comparisons order the places by them
(a world of our own, the Fenmark towns)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world, import_written

CAMPAIGN = "fenmark"
FILES = {
    "calendar": "months: [Thaw, Frost]\n",
    "towns": """
locations:
  - name: Marrowgate
    population: about 41,000
  - name: Ashby
    population: 5200
  - name: Crane Hollow
    population: roughly 900 souls
  - name: Holm
    population: nearly 1.2 million
""",
}


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    return import_written(CAMPAIGN, tmp_path / CAMPAIGN, FILES)


def test_numbers_in_words_are_read_for_counts_and_comparisons(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(
        cli,
        tmp_path,
        CAMPAIGN,
        [
            "how many people live in Marrowgate?",
            "which is larger, Marrowgate or Ashby?",
            "which is smaller, Marrowgate or Ashby?",
            "is Ashby larger than Marrowgate?",
            "which is larger, Holm or Marrowgate?",
            "which is more populous, Crane Hollow or Ashby?",
        ],
        citations=False,
    )
    assert said["how many people live in Marrowgate?"] == "Marrowgate's population is about 41,000.", said
    # 41,000 read whole, never as 41: Marrowgate outnumbers Ashby's 5200.
    assert said["which is larger, Marrowgate or Ashby?"].startswith("Marrowgate is larger"), said
    assert said["which is smaller, Marrowgate or Ashby?"].startswith("Ashby is smaller"), said
    assert said["is Ashby larger than Marrowgate?"].startswith("No: Marrowgate is larger"), said
    assert said["which is larger, Holm or Marrowgate?"].startswith("Holm is larger"), said
    assert said["which is more populous, Crane Hollow or Ashby?"].startswith("Ashby is more populous"), said
