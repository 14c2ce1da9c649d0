"""The composition check: a service built anywhere but the composition root is a finding."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _check() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_composition", ROOT / "scripts" / "check_composition.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


SERVICE = "class NoteDesk:\n    def __init__(self, db):\n        self.db = db\n"


def test_a_service_built_in_a_cog_is_a_finding(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "bot/services/notes.py": SERVICE,
            "bot/app.py": "from bot.services.notes import NoteDesk\nNoteDesk(1)\n",
            "cogs/notes.py": "from bot.services import notes\ndesk = notes.NoteDesk(db=None)\n",
        },
    )
    assert _check().findings(root) == [
        "cogs/notes.py:2: builds NoteDesk; only bot/app.py and bot/lore_reader.py build services"
    ]


def test_services_built_in_the_composition_root_only_pass(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "bot/services/notes.py": SERVICE + "class _Helper:\n    def __init__(self):\n        pass\n",
            "bot/app.py": "from bot.services.notes import NoteDesk\nNoteDesk(1)\n",
            "cogs/notes.py": "from bot.services.notes import _Helper\n_Helper()\n",
            "memory/scenes.py": "class SceneService:\n    pass\n",
        },
    )
    assert _check().findings(root) == []


def test_a_service_home_class_with_its_own_init_is_a_service_whatever_its_name(tmp_path: Path) -> None:
    """The product itself is checked by scripts/lint (the same `findings`); here its rules, on small trees."""
    root = _tree(
        tmp_path,
        {
            "bot/services/clock.py": "class Clock:\n    def __init__(self):\n        pass\nclass Plain:\n    pass\n",
            "bot/app.py": "from bot.services.clock import Clock\nClock()\n",
            "memory/tick.py": "from bot.services import clock\nclock.Plain()\nx = clock.Clock()\n",
            "canon/ledger.py": "class LedgerAnswers:\n    pass\n",
            "config/boot.py": "from canon.ledger import LedgerAnswers\n\nLedgerAnswers()\n",
            "tests/test_clock.py": "from bot.services.clock import Clock\nClock()\n",
        },
    )
    assert _check().findings(root) == [
        "memory/tick.py:3: builds Clock; only bot/app.py and bot/lore_reader.py build services",
        "config/boot.py:3: builds LedgerAnswers; only bot/app.py and bot/lore_reader.py build services",
    ]


def test_a_facade_may_build_its_own_parts_and_nothing_else(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "memory/knowledge/admin.py": "class SourceAdmin:\n    pass\nclass LoreDesk:\n    pass\n",
            "memory/knowledge/service.py": "from memory.knowledge.admin import SourceAdmin, LoreDesk\n"
            "SourceAdmin()\nLoreDesk()\n",
            "cogs/lore.py": "from memory.knowledge.admin import SourceAdmin\nSourceAdmin()\n",
        },
    )
    assert _check().findings(root) == [
        "cogs/lore.py:2: builds SourceAdmin; only bot/app.py and bot/lore_reader.py build services",
        "memory/knowledge/service.py:3: builds LoreDesk; only bot/app.py and bot/lore_reader.py build services",
    ]
