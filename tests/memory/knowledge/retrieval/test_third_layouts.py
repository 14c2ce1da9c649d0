"""Answers from layouts of a made-up game, "Cogmarsh": a beast's stats in a table of one row under its heading, a
gazetteer counting its dwellers in its own words, a rule denied in a short sentence, an amount asked that no
sentence says, a track filled to its end in the table's words."""

from __future__ import annotations

from pathlib import Path

from canon.models import Viewer
from canon.storage import Database
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.fields import read_fields
from memory.knowledge.glossary import expand
from memory.knowledge.question import analyse
from memory.knowledge.retrieval.answer_amount import amount_unsaid
from memory.knowledge.retrieval.answer_extractive import unnumbered
from memory.knowledge.retrieval.answer_step import reply
from tests.helpers.knowledge_helpers import knowledge_service, new_campaign
from tests.memory.knowledge.retrieval.test_answer import passage

BEASTS = """# Things of the Cogmarsh

## Rivet Crab

| Grip | Gears | Wind | Plating |
|---|---|---|---|
| 4 | 2 | 11 | 3 |

Crabs of brass that nest in sunken boilers. **Bounty:** 9 bt a shell. **Lair:** drowned engine rooms.

## Levels

| Level | Cogs |
|---|---|
| 1 | 2 |
| 2 | 5 |
"""


def test_a_table_of_one_row_under_labels_is_its_sections_stat_line() -> None:
    fields = {(f.subject, f.label): f.value for f in read_fields([], BEASTS)}
    assert fields["Rivet Crab", "Wind"] == "11"
    assert fields["Rivet Crab", "Plating"] == "3"
    # Bold labels run on after a sentence of the paragraph: each a field, up to the next label.
    assert fields["Rivet Crab", "Bounty"] == "9 bt a shell."
    assert fields["Rivet Crab", "Lair"] == "drowned engine rooms."
    # A table of several rows keyed by numbers keeps its rows.
    assert fields["Levels › 2", "Cogs"] == "5"
    assert ("Levels", "Cogs") not in fields


async def test_a_beasts_stat_in_a_one_row_table_answers_on_sqlite(db: Database, tmp_path: Path) -> None:
    service = knowledge_service(db, tmp_path, semantic=False)
    campaign = await new_campaign(db, "Cogmarsh")
    await service.import_bytes(campaign, "beasts.md", BEASTS.encode())
    answer = await service.ask(campaign, "rivet crab wind", viewer=Viewer.PLAYER, record=False)
    assert answer.reply is not None and "11" in answer.reply.text, answer.reply
    answer = await service.ask(
        campaign, "whats the bounty on a rivet crab", viewer=Viewer.PLAYER, record=False
    )
    assert answer.reply is not None and "9 bt" in answer.reply.text, answer.reply


def test_a_price_list_set_as_a_table_without_a_header_gives_each_entry_its_cost() -> None:
    # As a PDF reader writes a list whose prices stand flush right: a table of two columns, its header blank.
    text = "## Oddments\n\n|  |  |\n|---|---|\n| Brass key, any lock | 7 bt |\n| Oil, one flask | 2 bt |\n"
    fields = {(f.subject, f.label): f.value for f in read_fields([], text)}
    assert fields == {
        ("Oddments › Brass key, any lock", "cost"): "7 bt",
        ("Oddments › Oil, one flask", "cost"): "2 bt",
    }


def test_a_place_counting_its_dwellers_in_its_own_words_answers_how_many_people() -> None:
    town = passage(
        "### Gearford\n\nA river town of mills, home to some 2,400 souls, and the seat of the Clock Guild.",
        "Cogmarsh Gazetteer",
        "Towns",
        "Gearford",
    )
    answer = reply(analyse("how many people live in gearford", {}), [], [town])
    assert answer.known and "2,400" in answer.text, answer


def test_a_short_sentence_denying_what_is_asked_says_no() -> None:
    rule = passage(
        "### Overwinding\n\nOnce per scene you may Overwind: roll again every die that did not tick. "
        "You cannot Overwind a Jam.",
        "Cogmarsh Rules",
        "Overwinding",
    )
    answer = reply(analyse("can you overwind a jam", {}), [], [rule])
    assert answer.text.startswith("No"), answer


def _said(text: str) -> ShortAnswer:
    citation = Citation(number=1, kind="passage", label="Cogmarsh Gazetteer", cited=True)
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=[citation])


def test_an_amount_asked_that_the_sentence_does_not_say_is_nothing_known() -> None:
    ferry = _said("Its warden, Tobin Reed, keeps the only ferry across the Sump. [1]")
    declined = amount_unsaid("how much does the ferry across the sump charge", ferry)
    assert declined is not None and not declined.known
    assert amount_unsaid(
        "how many cogs does a tinker start with", _said("A tinker starts with a wrench. [1]")
    )
    # An amount said, in figures or words, answers; a question asking no amount is left alone.
    assert amount_unsaid("how much does the ferry charge", _said("The ferry charges two bits. [1]")) is None
    assert amount_unsaid("how many guards walk the wall", _said("A dozen guards walk the wall. [1]")) is None
    for said in ("Forty barges", "Seventeen barges", "Ninety-one barges", "Sixty barges"):
        assert amount_unsaid("how many barges ply the sump", _said(f"{said} ply the Sump. [1]")) is None, said
    assert amount_unsaid("who keeps the ferry", ferry) is None


def test_a_track_maxed_out_reads_as_at_its_limit() -> None:
    assert expand("what happens when rust maxes out")[0] == "what happens when rust is at its limit"


def test_a_numbered_section_the_question_names_answers_what_happens() -> None:
    jam = passage(
        "### 4.2 Jam\n\nA roll is a Jam when no die ticks and one shows a 1. A Jam fails, and the Keeper of the "
        "Clock adds a setback.",
        "Cogmarsh Rules",
        "4. Rolling",
        "4.2 Jam",
        chunk_id=1,
    )
    overwind = passage(
        "### 4.3 Overwinding\n\nOnce per scene you may Overwind: roll again every die that did not tick. You "
        "cannot Overwind a Jam.",
        "Cogmarsh Rules",
        "4. Rolling",
        "4.3 Overwinding",
        chunk_id=2,
    )
    answer = reply(analyse("what happens when you jam", {}), [], [jam, overwind])
    assert "setback" in answer.text, answer


def test_a_headings_number_is_no_word_of_its_name() -> None:
    assert [unnumbered(h) for h in ("2.4 Bust", "3. Gunplay", "Chapter 4: Tests", "IV. The Void")] == [
        "Bust",
        "Gunplay",
        "Tests",
        "The Void",
    ]
    assert [unnumbered(h) for h in ("100 Years War", "Ivy Hall", "Part One")] == [
        "100 Years War",
        "Ivy Hall",
        "Part One",
    ]


def test_what_happens_on_a_condition_is_the_sentence_stating_it_not_a_fields_value() -> None:
    gauges = passage(
        "#### Gauges\n\n**Rust limit:** 5, whatever the tinker.\n**Rust gained:** 1 for each night in the rain.",
        "Cogmarsh Rules",
        "1 Tinkers",
        "Gauges",
        chunk_id=1,
    )
    oiling = passage(
        "#### 3.2 Oiling\n\nA flask of oil takes 2 Rust away. Once a tinker's Rust reaches the limit, the tinker "
        "Seizes: they stand frozen until someone oils every joint.",
        "Cogmarsh Rules",
        "3 Wear",
        "3.2 Oiling",
        chunk_id=2,
    )
    answer = reply(analyse("what happens when rust is at its limit", {}), [], [gauges, oiling])
    assert "Seizes" in answer.text, answer


def test_how_fast_one_heals_asks_a_rate_not_a_speed() -> None:
    assert "speed" not in analyse("how fast do tinkers recover with an oilwife", {}).fields
    assert "speed" not in analyse("how fast does my gear wound heal", {}).fields
    assert "speed" in analyse("how fast does a rivet crab scuttle", {}).fields
    assert "speed" in analyse("how fast is a rivet crab", {}).fields


def test_a_charge_named_is_no_price_asked() -> None:
    said = _said("A barrier charge soaks 3 harm. [1]")
    assert (
        amount_unsaid("can barrier charges soak harm", _said("Barrier charges soak harm from blasts. [1]"))
        is None
    )
    assert amount_unsaid("what interest does the clock guild charge", _said("The Guild lends coin. [1]"))
    assert amount_unsaid("what does a brass key cost", said) is None


def test_what_counts_as_a_thing_asks_what_it_is() -> None:
    assert expand("what counts as a success on a die")[0] == "what is a success on a die"
