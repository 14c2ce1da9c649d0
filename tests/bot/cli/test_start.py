"""The command line starts like a tool: help and mistakes answer without loading the bot, in plain words.

What a fresh process imports is the point of the first test, so it starts one (`python -c`); the rest run the
commands in this process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from typer.main import get_command
from typer.testing import CliRunner

from bot.cli.lore import PRESET_NAMES
from bot.cli.main import app, only_asked
from tests.helpers.paths import REPO

#: Loaded only by the commands that need them: the database, the models, Discord, the LLM client, the search.
HEAVY = (
    "pydantic",
    "sqlalchemy",
    "discord",
    "openai",
    "chromadb",
    "numpy",
    "aiohttp",
    "rich",
    "memory",
    "config",
)

PROBE = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["lorekeeper", *json.loads(sys.argv[1])]
from bot.cli.main import main
main()
"""


def modules_loaded_by(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_and_a_light_command_load_nothing_heavy() -> None:
    for args in (["--help"], ["canon", "entity", "--help"], ["campaign", "--help"]):
        loaded = modules_loaded_by(*args)
        heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
        ours = sorted(m for m in loaded if m.split(".")[0] in {"canon", "memory", "config", "cogs"})
        assert heavy == [], (args, heavy)
        assert ours == ["canon", "canon.errors"], (args, ours)


def test_help_names_values_in_words_never_python_types() -> None:
    runner = CliRunner()

    def walk(command: object, path: list[str]) -> list[list[str]]:
        found = [path]
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            found += walk(sub, [*path, name])
        return found

    paths = walk(get_command(app), [])
    assert len(paths) > 40, "every command, group and sub-command"
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        noise = re.findall(r"<[\w|\[\]., ]+>|list\[|\bNoneType\b", result.output)
        assert noise == [], (path, noise, result.output)


def test_the_preset_names_in_help_are_the_searchs() -> None:
    from memory.knowledge.retrieval import PRESETS

    assert tuple(PRESETS) == PRESET_NAMES


def test_the_readme_lists_every_command_and_links_every_doc() -> None:
    root = REPO
    readme = (root / "README.md").read_text(encoding="utf-8")

    def leaves(command: object, path: list[str]) -> list[str]:
        subs = getattr(command, "commands", {})
        if not subs:
            return [" ".join(path)]
        return [leaf for name, sub in sorted(subs.items()) for leaf in leaves(sub, [*path, name])]

    rows = [line for line in readme.splitlines() if line.startswith("| `lorekeeper ")]
    missing = [c for c in leaves(get_command(app), []) if not any(f"`lorekeeper {c}" in r for r in rows)]
    assert missing == [], f"the README's command table lacks {missing}"
    unlinked = [d.name for d in sorted((root / "docs").glob("*.md")) if f"](docs/{d.name})" not in readme]
    assert unlinked == [], f"the README links none of {unlinked}"


def test_the_app_of_the_command_asked_answers_as_the_whole_app() -> None:
    runner = CliRunner()
    for args in (
        ["lore", "--help"],
        ["lore"],
        ["lore", "q", "--campaign", "X", "--limit", "0"],
        ["canon", "entity", "--help"],
        ["campaign", "--help"],
        ["export", "--help"],
        ["doctor", "--help"],
        ["lorx"],
        ["--help"],
        [],
    ):
        asked, whole = runner.invoke(only_asked(args), args), runner.invoke(app, args)
        assert (asked.exit_code, asked.output) == (whole.exit_code, whole.output), args
    assert only_asked(["lorx"]) is app and only_asked(["--data-dir", "d", "lore"]) is app
    assert [c.name for c in only_asked(["lore", "q"]).registered_commands] == ["lore"]
    assert [g.name for g in only_asked(["canon", "entity"]).registered_groups] == ["canon"]
    assert len(app.registered_commands) > 5  # the whole app is left whole
