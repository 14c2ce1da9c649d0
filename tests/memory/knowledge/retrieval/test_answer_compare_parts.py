"""Comparisons answered part by part, in wordings and a book layout of their own (a salvage game's vehicles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.ask_compared import each_compared
from memory.knowledge.models import Answer, RetrievalTrace
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_comparison import (
    comparison,
    each_names_its_part,
    part_question,
    with_its_name,
)
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage

ROVER = passage(
    "## Dune Rover\n\n*Vehicle — ground*\n\n- **Price** 12 gp\n- **Speed** 40 ft.\n- **Cargo** 300 lb.\n"
    "- **Sensor Range** 90/270 ft.\n",
    "Motor Pool",
    "Dune Rover",
    chunk_id=21,
)
SKIMMER = passage(
    "## Skimmer\n\n*Vehicle — hover*\n\n- **Price** 80 sp\n- **Speed** 40 ft.\n- **Cargo** 150 lb.\n"
    "- **Sensor Range** 120/480 ft.\n",
    "Motor Pool",
    "Skimmer",
    chunk_id=22,
)
HOVER_DRAKE = passage(
    "## Hover Drake\n\n*Vehicle — hover*\n\n- **Price** 300 gp\n- **Speed** 90 ft.\n",
    "Motor Pool",
    "Hover Drake",
    chunk_id=23,
)
# A word of the same name in another part of the book: no vehicle.
SKIMMER_SLANG = passage("## Skimmer\n\n- **Meaning** a thief of fuel\n", "Slang", "Skimmer", chunk_id=24)
ALL = [HOVER_DRAKE, SKIMMER_SLANG, ROVER, SKIMMER]


@pytest.mark.parametrize(
    "question",
    [
        "dune rover vs skimmer",
        "dune rover versus skimmer?",
        "what's the difference between a dune rover and a skimmer",
    ],
)
def test_two_things_set_side_by_side_without_a_field_are_each_said_at_a_glance(question: str) -> None:
    said = comparison(analyse(question), [], ALL)
    assert said is not None and said.known
    assert said.text.index("Dune Rover (Vehicle — ground): price 12 gp") < said.text.index("Skimmer (Vehicle")
    assert "[3]" in said.text and "[4]" in said.text  # both cited, the vehicle Skimmer (not the slang)
    assert {c.number for c in said.citations if c.cited} == {3, 4}


def test_a_made_up_side_is_compared_with_nothing_else() -> None:
    for question in (
        "which is faster, a dune rover or a glimmerdrake?",
        "dune rover vs glimmerdrake",
        "what's the difference between a glimmerdrake and a skimmer",
    ):
        assert comparison(analyse(question), [], ALL) is None, question


def test_coins_and_ranges_are_weighed_by_their_worth_and_near_number() -> None:
    said = comparison(analyse("which costs more, a dune rover or a skimmer"), [], ALL)
    assert said is not None and said.text.endswith("Dune Rover has the higher price.")  # 12 gp over 80 sp
    said = comparison(analyse("which has the longer sensor range, a dune rover or a skimmer"), [], ALL)
    assert said is not None and said.text.endswith("Skimmer has the higher sensor range.")  # 120 over 90


def test_values_alike_say_neither_is_more() -> None:
    said = comparison(analyse("which is faster, a dune rover or a skimmer?"), [], ALL)
    assert said is not None and said.text.endswith("Both have the same speed.")
    said = comparison(analyse("is a skimmer faster than a dune rover?"), [], ALL)
    assert said is not None and said.text.startswith("No: ") and "[3]" in said.text and "[4]" in said.text


def test_a_part_named_inside_another_name_is_not_that_other() -> None:
    # "drake" is in Hover Drake's name: a part that finds the line another part found is not found.
    question = analyse("which is faster, a hover drake or a drake?")
    assert comparison(question, [], [HOVER_DRAKE]) is None


def test_a_versus_that_asks_something_else_is_no_bare_comparison() -> None:
    assert analyse("dune rover vs a sandstorm, what do i roll").parts == []


GARAGE = """# Motor Pool

## Dune Rover

*Vehicle — ground*

- **Price** 12 gp
- **Speed** 40 ft.

## Skimmer

*Vehicle — hover*

- **Price** 80 sp
- **Speed** 60 ft.
"""

SECRET = """
## Glimmerdrake (GM only)

*Vehicle — stolen prototype*

- **Price** 900 gp
- **Speed** 120 ft.
"""


async def test_a_player_never_sees_a_gm_only_side_of_a_comparison(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path)
    secret_campaign = await new_campaign(db, "Garage with a secret")
    plain_campaign = await new_campaign(db, "Garage without one")
    await service.import_bytes(secret_campaign, "garage.md", (GARAGE + SECRET).encode())
    await service.import_bytes(plain_campaign, "garage.md", GARAGE.encode())
    for question in ("which is faster, a dune rover or a glimmerdrake?", "dune rover vs glimmerdrake"):
        hidden = await service.ask(secret_campaign, question, viewer=Viewer.PLAYER)
        unknown = await service.ask(plain_campaign, question, viewer=Viewer.PLAYER)
        assert hidden.reply is not None and unknown.reply is not None
        assert hidden.reply.text == unknown.reply.text, question
        assert not hidden.reply.known, hidden.reply.text  # the rover's line alone says not which is faster
        assert not any(word in hidden.reply.text for word in ("120", "900", "prototype")), hidden.reply.text
    both = await service.ask(
        plain_campaign, "which is faster, a skimmer or a dune rover?", viewer=Viewer.PLAYER
    )
    assert both.reply is not None and both.reply.text.endswith("Skimmer has the higher speed."), (
        both.reply.text
    )


HEXES = """# Hexes

## Ember Hex

A ribbon of coals coils around the target, which takes 3d8 fire damage at the start of each of its turns.

## Frost Hex

Rime creeps over the target's limbs: it takes 2d10 cold damage and its speed is halved until your next turn.
"""


async def test_a_made_up_side_of_a_field_said_in_prose_says_nothing_of_the_other(
    db: Database, tmp_path: Path
) -> None:
    service = knowledge_service(db, tmp_path)
    campaign = await new_campaign(db, "Hexes")
    await service.import_bytes(campaign, "hexes.md", HEXES.encode())
    made_up = await service.ask(
        campaign, "which does more damage, ember hex or glimmer hex?", viewer=Viewer.PLAYER
    )
    assert made_up.reply is not None and "2d10" not in made_up.reply.text, made_up.reply.text
    assert not made_up.reply.known, made_up.reply.text


def _said(text: str, label: str) -> ShortAnswer:
    cited = Citation(number=1, kind="passage", label=label, chunk_id=1, source_id=1, cited=True)
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=[cited])


def test_each_part_asked_on_its_own_is_said_only_when_each_answer_is_of_its_part() -> None:
    asked = analyse("which does more damage, ember hex or frost hex?")
    assert [part_question(asked, p) for p in asked.parts] == ["damage of ember hex", "damage of frost hex"]
    ember = _said("The target takes 3d8 fire damage. [1]", "Hexes › Ember Hex")
    frost = _said("It takes 2d10 cold damage. [1]", "Hexes › Frost Hex")
    assert each_names_its_part(asked.parts, [ember, frost])
    assert with_its_name(ember).text.startswith("Ember Hex: The target takes 3d8")
    # One part answered by another thing's line, or not answered, or both by one line: not said.
    assert not each_names_its_part(
        asked.parts, [ember, _said("It takes 2d10 cold damage. [1]", "Hexes › Rime")]
    )
    assert not each_names_its_part(asked.parts, [ember, None])
    assert not each_names_its_part(asked.parts, [ember, ember])


def test_a_comparison_asking_a_quality_of_its_own_is_not_answered_at_a_glance() -> None:
    # "seats more" weighs something no line is labelled by: each entry's every line would not say which.
    asked = analyse("which seats more, a dune rover or a skimmer")
    assert asked.parts == [["dune", "rover"], ["skimmer"]]
    assert comparison(asked, [], ALL) is None
    assert (
        comparison(analyse("which is roomier, a dune rover or a skimmer"), [], ALL) is None
    )  # no parts read


def _answered(reply: ShortAnswer, unknown: list[str]) -> Answer:
    trace = RetrievalTrace(
        preset="default",
        mode="hybrid",
        lexical_query=None,
        lexical_candidates=0,
        semantic_candidates=0,
        semantic_status="ok",
        entity_matches=[],
        allowed_sources=1,
        blocked_sources=0,
        candidates=[],
        budgets={},
        used_tokens={},
        timings_ms={},
        unknown_words=unknown,
    )
    return Answer(
        campaign_id=1, question="q", viewer="player", results=[], canon_facts=[], trace=trace, reply=reply
    )


async def test_one_sides_line_is_no_answer_when_the_other_side_is_a_word_no_source_holds() -> None:
    async def never(question: str) -> Answer:
        raise AssertionError(question)

    rover = _said("Dune Rover's speed is 40 ft. [1]", "Motor Pool › Dune Rover")
    asked = analyse("which is faster, a dune rover or a glimmerdrake?")
    said = await each_compared(_answered(rover, ["glimmerdrake"]), asked, never)
    assert said.reply is not None and not said.reply.known
    assert (
        said.reply.text
        == "Nothing the table knows answers “which is faster, a dune rover or a glimmerdrake?”."
    )
    assert not any(c.cited for c in said.reply.citations)
    # Both sides held by some source: the answer stands as it was.
    kept = await each_compared(_answered(rover, []), asked, never)
    assert kept.reply is rover
