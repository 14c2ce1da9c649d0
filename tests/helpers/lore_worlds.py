"""A fixture world of YAML files imported through the command line, and questions asked of it as `lorekeeper lore
--queries` asks them: the test worlds under tests/fixtures that /lore is checked on."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal, Protocol

from typer.testing import CliRunner

from bot.cli.main import app
from canon import campaigns
from canon.calendar import parse_date
from canon.story_clock import date_and_key
from memory.scene_service import SceneService
from memory.scenes import Actor
from tests.conftest import DatabaseTarget
from tests.helpers.paths import REPO

#: Quillhaven: a harbour town with a world bible imported as Canon (tests/fixtures/quillhaven).
QUILLHAVEN = REPO / "tests" / "fixtures" / "quillhaven"


#: The Salt Coast's calendar (one era, four months, the story in 640 TR), shared by small worlds written inline.
SALT_CALENDAR = """
eras:
  - {name: The Tide Reckoning, abbreviation: TR, start: 1}
months: [Thaw, Bloom, Ember, Frost]
today: 2 Ember, 640 TR
"""

#: The Third Age's calendar (one era, four months, the story in 350 TA), shared by small worlds written inline.
THIRD_AGE_CALENDAR = """
eras:
  - {name: The Third Age, abbreviation: TA, start: 1}
months: [Frostmoot, Hearthmoon, Thawmoon, Reaping]
today: 1 Frostmoot, 350 TA
"""

#: A timeline of the Salt Coast's one era and no events.
SALT_ANNALS = """
kind: timeline
eras:
  - {name: The Tide Reckoning, abbreviation: TR, start: 1}
"""


def import_world(
    campaign: str, world: Path, files: Sequence[str], calendar: str, *, calendar_first: bool
) -> CliRunner:
    """Return a runner on the test's database with the campaign made, its world's files imported without a
    problem and its calendar set (before the import, or after it)."""
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", campaign]).exit_code == 0

    def set_calendar() -> None:
        result = runner.invoke(app, ["canon", "calendar", "-c", campaign, "--set", str(world / calendar)])
        assert result.exit_code == 0, result.output

    if calendar_first:
        set_calendar()
    ingested = runner.invoke(
        app, ["ingest", *[str(world / f"{name}.yaml") for name in files], "-c", campaign]
    )
    assert ingested.exit_code == 0 and "problem" not in ingested.output, ingested.output
    if not calendar_first:
        set_calendar()
    return runner


def import_written(campaign: str, world: Path, files: Mapping[str, str]) -> CliRunner:
    """Write a world a test spells out (`files`: each YAML file's name without ".yaml", then its text; one of them
    `calendar`) into the folder `world`, then import it, its calendar first and the rest in their order."""
    world.mkdir()
    for name, text in files.items():
        (world / f"{name}.yaml").write_text(text.lstrip(), encoding="utf-8")
    rest = [name for name in files if name != "calendar"]
    return import_world(campaign, world, rest, "calendar.yaml", calendar_first=True)


def import_texts(campaign: str, folder: Path, texts: Mapping[str, str]) -> CliRunner:
    """Return a runner with a world's files (`texts`: each YAML file's name without ".yaml", then its text; its
    calendar among them, whose eras are canon) written into `folder` and imported at once."""
    folder.mkdir()
    for name, text in texts.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["campaign", "create", campaign]).exit_code == 0
    done = runner.invoke(app, ["ingest", *[str(folder / f"{name}.yaml") for name in texts], "-c", campaign])
    assert done.exit_code == 0 and "problem" not in done.output, done.output
    return runner


def import_more(runner: CliRunner, campaign: str, folder: Path, name: str, text: str) -> None:
    """Import one more YAML file, written into `folder` from `text`, into a world imported before."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["ingest", str(path), "-c", campaign])
    assert result.exit_code == 0 and "problem" not in result.output, result.output


def import_with_bible(campaign: str, world: Path, files: Sequence[str]) -> CliRunner:
    """Import a world's YAML files (its calendar first), then its `bible.md` as Canon."""
    runner = import_world(campaign, world, files, "calendar.yaml", calendar_first=True)
    result = runner.invoke(app, ["ingest", str(world / "bible.md"), "-c", campaign, "--class", "canon"])
    assert result.exit_code == 0, result.output
    return runner


def public_written(files: Mapping[str, str]) -> dict[str, str]:
    """Return a world spelled out in a test without its lines the GM keeps (marked "# secret"): what a player's
    answers must read like (`import_written` imports it)."""
    return {name: _unmarked(text) for name, text in files.items()}


def _unmarked(text: str) -> str:
    """Return YAML text without its lines marked "# secret"."""
    return "\n".join(line for line in text.splitlines() if not line.rstrip().endswith("# secret")) + "\n"


def public_copy(world: Path, files: Sequence[str], folder: Path) -> Path:
    """Return a copy of a world with nothing only the GM may read (its YAML lines marked "# secret" and its
    bible's "(GM only)" sections out): what a player's answers must read like."""
    folder.mkdir()
    for name in (*files, "calendar"):
        text = (world / f"{name}.yaml").read_text(encoding="utf-8")
        (folder / f"{name}.yaml").write_text(_unmarked(text), encoding="utf-8")
    bible = (world / "bible.md").read_text(encoding="utf-8")
    public = re.sub(r"(?ms)^## [^\n]*\(GM only\)\n.*?(?=^## |\Z)", "", bible)
    assert "(GM only)" in bible and "(GM only)" not in public
    (folder / "bible.md").write_text(public, encoding="utf-8")
    return folder


def ask_world(
    cli: CliRunner,
    tmp_path: Path,
    campaign: str,
    questions: list[str],
    *,
    gm: bool = False,
    citations: bool = True,
) -> dict[str, str]:
    """Return each question's answer (without its citation unless `citations`), asked as a player or the GM."""
    file = tmp_path / ("gm.txt" if gm else "player.txt")
    file.write_text("\n".join(questions) + "\n", encoding="utf-8")
    result = cli.invoke(
        app, ["lore", "-c", campaign, "--queries", str(file), *(["--as", "gm"] if gm else [])]
    )
    assert result.exit_code == 0, result.output
    answers: dict[str, str] = {}
    question = None
    for line in result.output.splitlines():
        if line.startswith("Q: "):
            question = line[3:]
        elif line.startswith("A: ") and question is not None:
            answer = line[3:]
            if not citations and answer.endswith("]"):
                answer = answer.rsplit(" [", 1)[0]
            answers[question] = answer
    assert list(answers) == questions, result.output
    return answers


class Ask(Protocol):
    """Asks a world's questions: each question's answer, as a player (or the GM) reads it."""

    def __call__(
        self, cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False, campaign: str = ""
    ) -> dict[str, str]: ...


def asker(campaign: str, *, marks: Literal["kept", "last", "none"] = "last") -> Ask:
    """Return how a test asks a world's campaign (or another it names) its questions: each answer with its
    citation marks `kept`, without its `last` (its citation), or with `none` of them (a two-part answer holds
    several)."""

    def ask(
        cli: CliRunner, tmp_path: Path, questions: list[str], *, gm: bool = False, campaign: str = campaign
    ) -> dict[str, str]:
        if marks == "none":
            return ask_unmarked(cli, tmp_path, campaign, questions, gm=gm)
        return ask_world(cli, tmp_path, campaign, questions, gm=gm, citations=marks == "kept")

    return ask


def import_with_twin(campaign: str, world: Path, files: Sequence[str], folder: Path) -> CliRunner:
    """Return a runner with a world and its bible (Canon) imported, and beside it, as campaign `TWIN`, the same world
    with nothing only the GM may read (`public_copy`, written into `folder`): what a player's answers must read
    like."""
    runner = import_with_bible(campaign, world, files)
    import_with_bible(TWIN, public_copy(world, files, folder), files)
    return runner


#: The campaign of a world's twin without what only the GM may read (`import_with_twin`).
TWIN = "absent"


def import_quillhaven(campaign: str = "quillhaven") -> CliRunner:
    """Return a runner on the test's database with the calendar set, the Quillhaven world and its bible (Canon)
    imported."""
    runner = import_world(
        campaign,
        QUILLHAVEN,
        ("places", "folk", "factions", "chronicle"),
        "calendar.yaml",
        calendar_first=True,
    )
    result = runner.invoke(app, ["ingest", str(QUILLHAVEN / "bible.md"), "-c", campaign, "--class", "canon"])
    assert result.exit_code == 0, result.output
    return runner


def ask_unmarked(
    cli: CliRunner, tmp_path: Path, campaign: str, questions: list[str], *, gm: bool = False
) -> dict[str, str]:
    """Return each question's answer without any of its citation marks (a two-part answer holds several)."""
    answers = ask_world(cli, tmp_path, campaign, questions, gm=gm)
    return {q: re.sub(r" \[\d+\]", "", a) for q, a in answers.items()}


def scene_on(
    target: DatabaseTarget, campaign: str, date: str, *, channel: int = 7, title: str = "A scene"
) -> None:
    """Start a scene of a campaign on an in-world date (stored form), as `/scene start` does."""

    async def start() -> None:
        db = target.open()
        try:
            async with db.session() as session:
                found = await campaigns.find_campaign_by_name(session, campaign)
            stored, key = date_and_key(parse_date(date))
            await SceneService(db).start_scene(
                campaign_id=found.id,
                guild_id=None,
                channel_id=channel,
                title=title,
                location=None,
                actor=Actor(id=1, name="Gina", is_gm=True),
                world_date=stored,
                world_key=key,
            )
        finally:
            await db.dispose()

    asyncio.run(start())
