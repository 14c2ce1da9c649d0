"""Comparisons of a field between two things in a book of another game's layout (a fleet register whose ships have
"Hull Points", "Crew" and "Cost" lines): each is said with its value, and which is more, in the ways a table asks."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from tests.conftest import DatabaseTarget
from tests.helpers.lore_worlds import ask_world

CAMPAIGN = "saltmarch"
REGISTER = """# The Saltmarch Fleet Register

Every hull that flies the Saltmarch pennant is listed here with its registered figures.

## Gullwing
*Light cutter, harbour patrol*
- **Hull Points** 24
- **Speed** 9 knots
- **Crew** 12
- **Cost** 1,800 crowns

A fast cutter that chases smugglers through the reed channels.

## Ironheron
*Heavy frigate, blockade*
- **Hull Points** 70
- **Speed** 5 knots
- **Crew** 140
- **Cost** 9,500 crowns

The slowest ship of the register, and the hardest to sink.

## Marrow Queen
*Merchant carrack*
- **Hull Points** 41
- **Speed** 6 knots
- **Crew** 38
- **Cost** 4,200 crowns

A broad-bellied trader that carries the salt tithe north.
"""


@pytest.fixture
def cli(cli_env: DatabaseTarget, tmp_path: Path) -> CliRunner:
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", CAMPAIGN]).exit_code == 0
    book = tmp_path / "register.md"
    book.write_text(REGISTER, encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(book), "-c", CAMPAIGN])
    assert result.exit_code == 0 and "problem" not in result.output, result.output
    return runner


def test_a_books_own_field_is_compared_between_two_things_however_asked(
    cli: CliRunner, tmp_path: Path
) -> None:
    asked = {
        "Ironheron or Gullwing: which one has more hull points?": "Ironheron has the higher hull points.",
        "compare the hull points of the Marrow Queen and the Gullwing": "Marrow Queen has the higher hull points.",
        "how do Gullwing and Ironheron compare in hull points": "Ironheron has the higher hull points.",
        "Marrow Queen vs Ironheron speed": "Marrow Queen has the higher speed.",
        "what's the difference in crew between the Gullwing and the Marrow Queen": "Marrow Queen has the higher crew.",
        "is the Marrow Queen faster than the Ironheron?": "Marrow Queen has the higher speed.",
        "which ship is cheaper, the Ironheron or the Marrow Queen": "Marrow Queen has the lower cost.",
        "compare the cost of Gullwing and Ironheron": "Ironheron has the higher cost.",
    }
    said = ask_world(cli, tmp_path, CAMPAIGN, list(asked), citations=False)
    for question, verdict in asked.items():
        assert said[question].endswith(verdict), (question, said[question])
    # Both values are said, each of its own ship.
    hulls = said["compare the hull points of the Marrow Queen and the Gullwing"]
    assert "Marrow Queen's hull points are 41" in hulls and "Gullwing's hull points are 24" in hulls, hulls
    crews = said["what's the difference in crew between the Gullwing and the Marrow Queen"]
    assert "Gullwing's crew is " in crews, crews  # a plural field reads "are", a singular one "is"


def test_two_ships_named_with_no_field_to_compare_get_no_verdict(cli: CliRunner, tmp_path: Path) -> None:
    said = ask_world(cli, tmp_path, CAMPAIGN, ["compare the Gullwing and the Ironheron"], citations=False)
    assert "higher" not in said["compare the Gullwing and the Ironheron"]
