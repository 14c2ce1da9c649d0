"""Write docs/lore-fields.md, the one-page cheat-sheet of structured lore, from the code's field definitions."""

from __future__ import annotations

from pathlib import Path

from canon.structured.field_page import field_page

PAGE = Path(__file__).resolve().parent.parent / "docs" / "lore-fields.md"

if __name__ == "__main__":
    PAGE.write_text(field_page(), encoding="utf-8")
    print(f"Wrote {PAGE}")
