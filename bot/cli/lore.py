"""`lorekeeper ingest | lore | reindex | sources`: imported knowledge and `/lore` from the command line.

`ingest` lives in `bot.cli.lore_ingest`, `reindex` in `bot.cli.lore_index`.

Registered on the main app by `bot.cli.main`. Every command names its campaign (`--campaign NAME`) and calls the same
`KnowledgeService` methods as the Discord commands. `lore` reads as a player unless `--as gm` is given, so
hidden sources are only printed on request (and then marked).
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import (
    CampaignOption,
    JsonOption,
    ViewerChoice,
    command_ends_process,
    emit,
    fail,
    run_async,
    settings_or_exit,
    take_paused_collector,
    with_services,
)
from bot.cli.kept_patterns import kept_patterns
from bot.cli.lore_index import reindex
from bot.cli.lore_ingest import ingest
from canon.errors import GameError

if TYPE_CHECKING:
    from memory.knowledge.models import Answer
    from memory.knowledge.source_models import SourceInfo

#: The search presets' names (`memory.knowledge.retrieval.PRESETS`, which a test keeps in step), named here so
#: that the help screen does not load the search.
PRESET_NAMES = ("default", "lexical", "semantic", "rrf", "context")


def register(app: typer.Typer) -> None:
    """Add the knowledge commands to the main app."""
    app.command("ingest")(ingest)
    app.command("lore")(lore)
    app.command("reindex")(reindex)
    app.command("sources")(sources)


# ------------------------------------------------------------------------------------------------ lore


#: How a `--queries` file is written, as `lorekeeper lore --help` says it.
_QUERIES_HELP = (
    'A file of questions: one per line, or JSON lines like {"id": "q7", "q": "Who rules Saltmarsh?"} '
    '("question" for "q"; with --json each answer carries its question\'s "id")'
)


def lore(
    campaign: CampaignOption,
    question: Annotated[str | None, typer.Argument(help="The question (or use --queries)")] = None,
    viewer: Annotated[
        ViewerChoice, typer.Option("--as", help="Read as a player or as the GM")
    ] = ViewerChoice.PLAYER,
    limit: Annotated[int, typer.Option("--limit", "-k", min=1, max=25, help="How many passages")] = 5,
    queries: Annotated[
        Path | None,
        typer.Option("--queries", help=_QUERIES_HELP),
    ] = None,
    preset_name: Annotated[
        str, typer.Option("--preset", help=f"Search preset: {', '.join(PRESET_NAMES)}")
    ] = "default",
    record: Annotated[
        bool, typer.Option("--record", help="Store the answer and count the sources' uses")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Answer a lore question from the campaign's knowledge, as a player (or the GM) would read it.

    Text: "Q:" the question, "A:" the answer with the sources it cites, then the passages found.

    With --json, one JSON object per question: the answer's words are at "answer" -> "text" (beside "known",
    "mode" and "citations"); the passages are in "results", the canon facts read in "canon_facts".
    """
    collecting = take_paused_collector() or gc.isenabled()
    settings = settings_or_exit()
    if (question is None) == (queries is None):
        fail("Give a QUESTION or --queries FILE (not both).")
    from canon.models import Viewer

    if preset_name not in PRESET_NAMES:
        fail(f"Unknown preset {preset_name!r}; presets: {', '.join(PRESET_NAMES)}.")
    who = Viewer(viewer.value)
    lines: list[tuple[str, dict[str, Any]]] = []
    if queries is not None:
        try:
            raw = queries.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            fail(f"Cannot read {queries}: {error}")
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            extra: dict[str, Any] = {}
            text = line.strip()
            if text.startswith("{"):
                try:
                    item = json.loads(text)
                except json.JSONDecodeError as error:
                    fail(f"{queries}:{number}: not JSON ({error.msg})")
                text = str(item.get("q") or item.get("question") or "")
                if "id" in item:
                    extra["id"] = item["id"]
            lines.append((text, extra))
    else:
        assert question is not None
        lines.append((question, {}))

    async def work(services: Any) -> None:
        target = await services.campaigns.by_name(campaign)
        for text, extra in lines:
            try:
                answer = await services.answers.ask(
                    target.id, text, viewer=who, limit=limit, config=preset_name, record=record
                )
            except GameError as error:
                if queries is None:
                    raise
                _print_line({**extra, "question": text, "error": error.message, "results": []})
                continue
            if as_json:
                _print_line({**extra, **answer.to_json()})
            else:
                typer.echo(_answer_text(answer))

    _answer_all(settings, work, one_question=queries is None, collecting=collecting)


def _answer_all(settings: Any, work: Any, *, one_question: bool, collecting: bool) -> None:
    """Run `work` with the lore reader (`with_lore_reader`); `one_question`: one question, then the process ends.
    `collecting`: whether the cyclic garbage collector was on before this command."""
    if one_question:
        # The collector would only walk the modules being imported, again and again (about a tenth of a cold
        # start's CPU time).
        gc.disable()
    elif collecting:
        gc.enable()
    # The process ends with the question: its regular expressions are built from the instructions kept by the
    # last one (`bot.cli.kept_patterns`).
    keeping = one_question and command_ends_process()
    try:
        with kept_patterns(settings.data_dir) if keeping else contextlib.nullcontext():
            run_async(lambda: with_lore_reader(settings, work, one_shot=one_question))
    finally:
        if one_question and command_ends_process():
            # The interpreter's last collection at exit would walk every object the imports made (about 0.1 s
            # of a cold start); frozen, they are skipped. The collector stays off until then.
            gc.freeze()
        elif collecting:
            gc.enable()


async def with_lore_reader(settings: Any, work: Any, *, one_shot: bool = False) -> Any:
    """Run `work` with only the services a question uses (`bot.lore_reader.open_lore_reader`), or with every service
    when the database needs migrating first. `one_shot`: one question is asked (the model starts quick)."""
    from bot.lore_reader import open_lore_reader

    reader = await open_lore_reader(settings, one_shot=one_shot)
    if reader is None:
        return await with_services(settings, work)
    try:
        return await work(reader)
    finally:
        await reader.close()


def _print_line(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def _answer_text(answer: Answer) -> str:
    from memory.knowledge.models import result_json

    lines = [f"Q: {answer.question}"]
    if answer.reply is not None:
        lines.append(f"A: {answer.reply.text}")
        lines += [f"   [{c.number}] {c.label}" for c in answer.reply.citations if c.cited]
    for fact in answer.canon_facts:
        mark = " [hidden]" if fact.hidden else ""
        lines.append(f"  CANON {fact.entity_name} ({fact.entity_type}){mark}: " + "; ".join(fact.facts[:5]))
    if not answer.results and not answer.canon_facts:
        lines.append("  Nothing in this campaign's knowledge matches.")
    for rank, result in enumerate(answer.results, len(answer.canon_facts) + 1):
        data = result_json(result)
        where = (f"{result.place} · " if result.place else "") + (
            " › ".join(result.heading_path) or result.source_title
        )
        stale = f" OUT OF DATE (now {result.out_of_date})" if result.out_of_date else ""
        lines.append(
            f"  {rank}.{stale} [{result.label}] {result.filename} — {where}  (score {data['score']})"
        )
        snippet = " ".join(result.text.split())[:300]
        lines.append(f"     {snippet}")
    for warning in answer.trace.warnings:
        lines.append(f"  ! {warning}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ sources


def sources(
    campaign: CampaignOption,
    viewer: Annotated[
        ViewerChoice, typer.Option("--as", help="Read as a player or as the GM")
    ] = ViewerChoice.PLAYER,
    as_json: JsonOption = False,
) -> None:
    """List a campaign's knowledge sources: title and file, class, enabled, hidden, passages, how each is found,
    imported at, answers that used it (a player's list unless `--as gm`, as `lore` reads)."""
    settings = settings_or_exit()

    from canon.models import Viewer

    async def work(services: Any) -> list[SourceInfo]:
        target = await services.campaigns.by_name(campaign)
        found: list[SourceInfo] = await services.knowledge.list_sources(
            target.id, viewer=Viewer(viewer.value)
        )
        return found

    found = run_async(lambda: with_services(settings, work))

    def text() -> str:
        from bot.cli.progress import source_name
        from bot.ops.search_index import missed_words, search_state
        from canon.wording.counts import counted

        if not found:
            return "No knowledge sources yet. Import some with `lorekeeper ingest PATH --campaign NAME`."
        rows = []
        for s in found:
            flags = [s.knowledge_class.label, "enabled" if s.enabled else "DISABLED"]
            if s.hidden:
                flags.append("hidden")
            elif s.hidden_chunks and viewer is ViewerChoice.GM:
                # A public source with sections only the GM reads (`--json`: hidden_chunks).
                flags.append(
                    f"GM-only sections: {s.hidden_chunks} of its {counted(s.chunk_count, 'passage')}"
                )
            if s.always_include:
                flags.append("always")
            rows.append(
                f"#{s.id:<5} {source_name(s.title, s.filename)}  [{', '.join(flags)}]  version {s.version}, "
                f"{counted(s.chunk_count, 'passage')}, {search_state(s.vector_status.value)}, "
                f"imported {s.imported_at:%Y-%m-%d %H:%M}, used in {counted(s.times_used, 'answer')}"
            )
        states: dict[str, int] = {}
        for s in found:
            states[s.vector_status.value] = states.get(s.vector_status.value, 0) + 1
        missed = missed_words(states, campaign)
        return "\n".join([*rows, *([missed] if missed else [])])

    emit([s.model_dump(mode="json") for s in found], as_json=as_json, text=text)
