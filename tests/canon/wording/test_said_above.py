"""A card says each of its names once: its aliases, said above its facts ("Also known as: …"), are no fact below."""

from __future__ import annotations

from canon.models import StatementKind
from canon.wording.statements import said_above
from tests.helpers.canon_samples import statement


def test_the_aliases_said_above_are_no_fact_below() -> None:
    aliases = statement(1, StatementKind.ATTRIBUTE, "aliases", value="The Shaft Nine Disaster, Black Ashsnow")
    assert said_above(aliases, ["The Shaft Nine Disaster", "Black Ashsnow"])
    assert said_above(aliases, ["the shaft nine disaster", "black ashsnow", "The Pit"])


def test_a_name_not_said_above_stays_a_fact() -> None:
    aliases = statement(1, StatementKind.ATTRIBUTE, "aliases", value="The Shaft Nine Disaster, Black Ashsnow")
    assert not said_above(aliases, [])
    assert not said_above(aliases, ["The Shaft Nine Disaster"])  # one of them is said nowhere else
    other = statement(2, StatementKind.ATTRIBUTE, "description", value="The Shaft Nine Disaster")
    assert not said_above(other, ["The Shaft Nine Disaster"])
