"""`/lore import` routing and `/lore set` parsing, without Discord or a database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.services.lore_service import LoreImportService, parse_tags, setting_change
from canon.errors import InvalidInput
from config.settings import LoreSettings
from memory.knowledge.models import KnowledgeClass


class _Stub:
    """Only the limits the upload check reads."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


def service(tmp_path: Path) -> LoreImportService:
    knowledge = _Stub(settings=LoreSettings(max_file_bytes=2048))
    structured = _Stub(max_bytes=1024)
    return LoreImportService(knowledge, structured, reviews=None)  # type: ignore[arg-type]


def test_uploads_are_routed_by_suffix_and_refused_with_a_reason(tmp_path: Path) -> None:
    imports = service(tmp_path)
    assert imports.check_upload("World.MD", 10) == "prose"
    assert imports.check_upload("notes.txt", 10) == "prose"
    assert imports.check_upload("bestiary.yml", 10) == "structured"
    assert imports.check_upload("Rules.PDF", 10) == "prose"
    assert imports.check_upload("bible.docx", 3000) == "prose"  # a book may be larger than a text file
    with pytest.raises(InvalidInput, match=r"\.md, \.txt, \.pdf, \.docx, \.epub or \.html.*\.yaml"):
        imports.check_upload("map.png", 10)
    # A 200 MB upload is refused from its declared size, before a byte of it is downloaded.
    with pytest.raises(InvalidInput, match=r"rules.pdf is 200.0 MB; the import limit is 60.0 MB"):
        imports.check_upload("rules.pdf", 200 * 1024 * 1024)
    with pytest.raises(InvalidInput, match="import limit is 2 KB"):
        imports.check_upload("world.md", 4096)
    with pytest.raises(InvalidInput, match="import limit is 1 KB"):
        imports.check_upload("lore.yaml", 2000)
    with pytest.raises(InvalidInput, match="empty"):
        imports.check_upload("world.md", 0)
    with pytest.raises(InvalidInput, match="`extract` reads prose"):
        imports.check_upload("lore.yaml", 10, extract=True)


def test_settings_are_parsed_for_set_source() -> None:
    assert setting_change("class", " Canon ") == {"knowledge_class": KnowledgeClass.CANON}
    assert setting_change("hidden", "yes") == {"hidden": True}
    assert setting_change("always-include", "off") == {"always_include": False}
    assert setting_change("tags", "Crown, setting ,crown") == {"tags": ["crown", "setting"]}
    assert setting_change("tags", "-") == {"tags": []}
    with pytest.raises(InvalidInput, match="canon, reference or inspiration"):
        setting_change("class", "gospel")
    with pytest.raises(InvalidInput, match="true or false"):
        setting_change("hidden", "maybe")
    with pytest.raises(InvalidInput, match="not a setting"):
        setting_change("colour", "red")
    assert parse_tags("  ") is None
