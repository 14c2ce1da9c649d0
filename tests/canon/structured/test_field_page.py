"""The cheat-sheet docs/lore-fields.md is written from the kinds' own fields, and kept up to date."""

from __future__ import annotations

from pathlib import Path

from canon.structured.field_page import field_page
from canon.structured.kinds import KINDS
from canon.structured.shapes import field_table

PAGE = Path(__file__).resolve().parents[3] / "docs" / "lore-fields.md"


def test_the_cheat_sheet_is_what_the_code_writes() -> None:
    assert PAGE.read_text(encoding="utf-8") == field_page(), (
        "docs/lore-fields.md is out of date: run `python scripts/lore_fields.py`"
    )


def test_every_field_the_importer_accepts_is_on_the_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for spec in KINDS.values():
        for model in (spec.model, *spec.entries):
            for written in field_table(model):
                assert f"`{written}`" in page, (model.__name__, written)


def test_the_page_says_which_fields_may_be_hidden_alone() -> None:
    page = field_page()
    character = page.split("### Character (Person)")[1].split("###")[0]
    assert "| `killed_by` | a name | yes |" in character
    assert "| `died_at` | a name | yes |" in character
    assert "| `gm_notes` | text | always the GM's |" in character
    era = page.split("### Era (Era)")[1].split("###")[0]
    assert "| `description` | text | no |" in era  # an era is hidden whole
