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
    assert _check().findings(root) == ["cogs/notes.py:2: builds NoteDesk; only bot/app.py builds services"]


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


def test_the_product_builds_its_services_in_one_place() -> None:
    assert _check().findings() == []
