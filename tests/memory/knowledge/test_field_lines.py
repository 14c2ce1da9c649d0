"""Fields stated in other books' shapes: a price list's dotted leaders, stat lines joined by slashes or commas, a
label and a dash, a bullet's value wrapped onto an indented line."""

from __future__ import annotations

from memory.knowledge.field_lines import line_fields
from memory.knowledge.fields import Field, read_fields


def test_a_dotted_leader_gives_its_entry_a_cost() -> None:
    assert line_fields("Desalter kit ..... 25 sh", "Sundries") == [
        ("Sundries › Desalter kit", "cost", "25 sh")
    ]
    assert line_fields("Rope, hempen . . . . 1 gp", "Gear") == [("Gear › Rope, hempen", "cost", "1 gp")]
    assert line_fields("Lantern … $40", "Gear") == [("Gear › Lantern", "cost", "$40")]


def test_a_leader_to_no_price_states_no_field() -> None:
    assert line_fields("Chapter 2: Combat ..... 41", "Contents") == []
    assert line_fields("Rope ..... 50 ft", "Gear") == []
    assert line_fields("Desalter kit ..... 25 sh", "") == []  # before any heading: of nothing named


def test_a_stat_line_joined_by_slashes_gives_each_part() -> None:
    assert line_fields("Armour 3 / Wounds 8 / Pool 3 / Claw 3 damage, and Pinned.", "Glassback Crab") == [
        ("Glassback Crab", "Armour", "3"),
        ("Glassback Crab", "Wounds", "8"),
        ("Glassback Crab", "Pool", "3"),
        ("Glassback Crab", "Claw", "3 damage, and Pinned."),
    ]
    assert line_fields("Either / or, as the GM likes.", "Rules") == []


def test_three_labels_and_numbers_in_prose_are_fields_and_two_are_not() -> None:
    said = "The sea. Armour 4, Wounds 30, Pool 7, two attacks each turn (Coil, 4 damage; Bite, 6 damage)."
    assert line_fields(said, "Tide Serpent") == [
        ("Tide Serpent", "Armour", "4"),
        ("Tide Serpent", "Wounds", "30"),
        ("Tide Serpent", "Pool", "7"),
    ]
    assert line_fields("It costs Grit 2, and Level 3 is the most.", "Rules") == []


def test_a_label_and_a_dash() -> None:
    assert line_fields("Wounds — 14", "Drowned Knight") == [("Drowned Knight", "Wounds", "14")]
    assert line_fields("Attack – Bite, 2 damage", "Hound") == [("Hound", "Attack", "Bite, 2 damage")]


def test_a_wrapped_bullet_goes_on_with_its_field_and_a_new_item_does_not() -> None:
    text = (
        "## Rest\n\n- **A Mooring** is a night in shelter. Recover all Strain, and\n  remove Glassfevered.\n"
        "- **A Lull** is an hour.\n  - a nested item\n"
    )
    fields = read_fields([], text)
    assert (
        Field("Rest", "A Mooring", "is a night in shelter. Recover all Strain, and remove Glassfevered.")
        in fields
    )
    assert Field("Rest", "A Lull", "is an hour.") in fields


def test_a_bold_label_with_a_spaced_colon() -> None:
    assert read_fields(["Old Tech"], "**Lumen-lamp** : lights Near range.") == [
        Field("Old Tech", "Lumen-lamp", "lights Near range.")
    ]


def test_a_bold_label_stated_as_a_formula_takes_the_words_before_its_equals_sign() -> None:
    fields = read_fields(
        ["Derived"], "- **Wounds** = Grit × 2 + 4.\n- **Strain** limit = Nerve + 3.\n- **Damage**: d6 = 3"
    )
    assert fields == [
        Field("Derived", "Wounds", "Grit × 2 + 4."),
        Field("Derived", "Strain limit", "Nerve + 3."),
        Field("Derived", "Damage", "d6 = 3"),
    ]
