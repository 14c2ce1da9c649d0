"""`lorekeeper ingest | lore | reindex | sources`: imported knowledge and `/lore` from the command line.

`reindex` lives in `bot.cli.lore_index`.

Registered on the main app by `bot.cli.main`. Every command names its campaign (`--campaign NAME`) and calls the same
`KnowledgeService` methods as the Discord commands. `lore` reads as a player unless `--as gm` is given, so
hidden sources are only printed on request (and then marked).
"""

from __future__ import annotations

import enum
import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import (
    ViewerChoice,
    command_ends_process,
    emit,
    fail,
    run_async,
    settings_or_exit,
    take_paused_collector,
    with_services,
)
from bot.cli.dialogue import dialogue_paths, ingest_dialogue
from bot.cli.lore_index import reindex
from bot.cli.progress import Progress, describe_report
from canon.errors import GameError

if TYPE_CHECKING:
    from memory.knowledge.models import Answer
    from memory.knowledge.source_models import ImportReport, SourceInfo

#: The search presets' names (`memory.knowledge.retrieval.PRESETS`, which a test keeps in step), named here so
#: that the help screen does not load the search.
PRESET_NAMES = ("default", "lexical", "semantic", "rrf", "context")


class ClassChoice(enum.StrEnum):
    """A knowledge class on the command line."""

    CANON = "canon"
    REFERENCE = "reference"
    INSPIRATION = "inspiration"


CampaignOption = Annotated[str, typer.Option("--campaign", "-c", help="The campaign's name")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON")]


def register(app: typer.Typer) -> None:
    """Add the knowledge commands to the main app."""
    app.command("ingest")(ingest)
    app.command("lore")(lore)
    app.command("reindex")(reindex)
    app.command("sources")(sources)


# ------------------------------------------------------------------------------------------------ ingest


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (every .md/.txt under a folder)")],
    campaign: CampaignOption,
    knowledge_class: Annotated[
        ClassChoice | None,
        typer.Option("--class", help="canon, reference or inspiration (new sources: reference)"),
    ] = None,
    hidden: Annotated[
        bool | None, typer.Option("--hidden/--visible", help="Only the GM may see it (new sources: visible)")
    ] = None,
    tags: Annotated[list[str] | None, typer.Option("--tag", help="A tag; repeat for several")] = None,
    always_include: Annotated[
        bool | None,
        typer.Option("--always-include/--not-always-include", help="Always include (Canon only)"),
    ] = None,
    extract: Annotated[
        bool,
        typer.Option("--extract", help="Also read the prose into canon proposals for the GM (needs an LLM)"),
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Replace YAML files imported before under the same name (retcons what they said)",
        ),
    ] = False,
    ocr: Annotated[
        bool,
        typer.Option("--ocr", help="Read a scanned PDF's pages by OCR (needs Tesseract; slow, may misread)"),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Import world-bible files (.md/.txt) into a campaign's knowledge; YAML goes to the structured importer."""
    from memory.knowledge.files import YAML_SUFFIXES
    from memory.knowledge.models import KnowledgeClass

    settings = settings_or_exit()
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        fail(f"Not found: {', '.join(missing)}")
    dialogues = dialogue_paths(paths)
    yaml_files = [
        p for p in paths if p.is_file() and p.suffix.lower() in YAML_SUFFIXES and p not in dialogues
    ]
    text_paths = [p for p in paths if p not in yaml_files and p not in dialogues]
    options: dict[str, Any] = {
        "knowledge_class": KnowledgeClass(knowledge_class.value) if knowledge_class else None,
        "hidden": hidden,
        "tags": tags or None,
        "always_include": always_include,
        "ocr": ocr,
    }

    async def work(services: Any) -> dict[str, Any]:
        target = await services.campaigns.by_name(campaign)
        return await _ingest_all(
            services,
            target,
            text_paths,
            yaml_files,
            options,
            tags=tags,
            extract=extract,
            quiet=as_json,
            replace=replace,
            dialogues=dialogues,
        )

    outcome = run_async(lambda: with_services(settings, work))
    emit(outcome, as_json=as_json, text=lambda: ingest_text(outcome))
    if outcome["failed"] or any(y.get("error") for y in outcome["yaml"]):
        raise typer.Exit(1)


async def _ingest_all(
    services: Any,
    target: Any,
    text_paths: list[Path],
    yaml_files: list[Path],
    options: dict[str, Any],
    *,
    tags: list[str] | None,
    extract: bool,
    quiet: bool,
    replace: bool,
    dialogues: list[Path],
) -> dict[str, Any]:
    """Import each dialogue into a scene and each prose file (a failed one is reported, the others go on),
    then the YAML files together."""
    from bot.cli.calendar_files import is_calendar_file, restore_calendar, set_calendars
    from memory.knowledge.files import expand_paths
    from memory.knowledge.source_models import ImportFailure

    files = expand_paths(text_paths) if text_paths else []
    if not files and not yaml_files and not dialogues:
        raise GameError("No .md, .txt, .pdf, .docx, .epub or .html file to import there.")
    imported: list[ImportReport] = []
    failed: list[ImportFailure] = []
    scenes = [await ingest_dialogue(services, target, path, failed) for path in dialogues]
    extracted: list[dict[str, Any]] = []
    yaml_results: list[Any] = []
    progress = None if quiet else Progress()
    try:
        for path, name in files:
            callback = progress.callback(name) if progress else None
            try:
                report = await services.knowledge.import_path(
                    target.id, path, filename=name, progress=callback, **options
                )
            except GameError as error:
                failed.append(ImportFailure(filename=name, error=error.message))
                if progress:
                    progress.line(f"[red]✗[/red] {name}: {error.message}")
                continue
            imported.append(report)
            if progress:
                progress.finish(name, describe_report(report))
            if extract:  # the game-master's voice: proposals wait for the GM (bot.cli.voice)
                from bot.cli.voice import extract_imported

                extracted.append(await extract_imported(services, target, report, failed))
        # The calendar first: the world's dates may be written in its words.
        calendars = [p for p in yaml_files if is_calendar_file(p)]
        yaml_files = [p for p in yaml_files if p not in calendars]
        calendar_results, before, calendar_set = await set_calendars(services, target, calendars)
        if yaml_files:  # imported together: structured lore files may refer to each other
            yaml_results.append(
                await _ingest_yaml(
                    services, target, yaml_files, hidden=options["hidden"], tags=tags, replace=replace
                )
            )
            if calendar_set and (
                yaml_results[-1].get("error") or yaml_results[-1].get("status") == "confirm"
            ):
                calendar_results = await restore_calendar(services, target, before, calendar_results)
        failed += [
            ImportFailure(filename=c["file"], error=c["error"]) for c in calendar_results if "error" in c
        ]
    finally:
        if progress:
            progress.stop()
    return {
        "campaign": target.name,
        "campaign_id": target.id,
        "imported": [
            r.model_dump(mode="json") | {"class_asked": options["knowledge_class"] is not None}
            for r in imported
        ],
        "failed": [f.model_dump(mode="json") for f in failed],
        "yaml": yaml_results,
        "calendar": calendar_results,
        "dialogue": [d for d in scenes if d],
        "extracted": [e for e in extracted if e],
    }


def ingest_text(outcome: dict[str, Any]) -> str:
    """Return what `lorekeeper ingest` did, for a person: prose files and YAML entries written, what failed."""
    from canon.wording.counts import counted

    counts: dict[str, int] = {}
    for report in outcome["imported"]:
        counts[report["outcome"]] = counts.get(report["outcome"], 0) + 1
    parts: list[str] = []
    if counts or not (outcome["yaml"] or outcome.get("dialogue")):
        done = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
        parts.append(f"prose: {done}" if done else "no prose file imported")
    calendars = outcome.get("calendar", ())
    parts += [f"calendar set from {c['file']}" for c in calendars if "text" in c]
    failed = len(outcome["failed"])
    details: list[str] = [f"  {c['file']}: {c['error']}" for c in calendars if "error" in c]
    for y in outcome["yaml"]:
        status = y.get("status")
        if status == "ingested":
            parts.append(y.get("headline") or f"wrote {y['written']}")
        elif status == "unchanged":
            parts.append(f"{y['written']} unchanged, nothing written")
        elif status == "confirm":
            parts.append("nothing written (it would replace files imported before)")
        else:
            # An import is all or nothing: every file given with it is left out, not only those with problems.
            bad = {f["file"] for f in y.get("files", ())} | {e["file"] for e in y.get("errors", ())}
            failed += len(bad or {y.get("file", "")})
            parts.append(f"nothing written, {counted(len(y.get('errors', ())) or 1, 'problem')}")
        details += [f"  {line}" for line in (y.get("error") or y.get("summary") or "").splitlines()]
        if y.get("error") and y.get("errors"):
            details += [
                f"  {e['file']}: line {e['line']}, column {e['column']}: {e['message']}" for e in y["errors"]
            ]
    parts += [f"dialogue: {d['file']} into a scene" for d in outcome.get("dialogue", ())]
    details += [f"  {d['text']}" for d in outcome.get("dialogue", ())]
    not_imported = f"; {counted(failed, 'file')} not imported" if failed else ""
    lines = [f"Campaign “{outcome['campaign']}”: {'; '.join(parts)}{not_imported}.", *details]
    lines += [f"  {e['filename']}: {e['text']}" for e in outcome["extracted"]]
    read_as = [
        r["filename"] for r in outcome["imported"] if r["outcome"] == "created" and not r.get("class_asked")
    ]
    if read_as and all(r["source"]["knowledge_class"] == "reference" for r in outcome["imported"]):
        lines.append(
            f"  {', '.join(read_as)}: imported as Reference (rules and background the table may look up). Your "
            "campaign's own world bible? Import it again with --class canon."
        )
    return "\n".join(lines)


async def _ingest_yaml(
    services: Any,
    campaign: Any,
    paths: list[Path],
    *,
    hidden: bool | None,
    tags: list[str] | None,
    replace: bool,
) -> dict[str, Any]:
    """Hand the YAML files, together, to the structured-lore importer (`bot.services.structured_import`)."""
    from bot.services.structured_import import ingest_yaml

    try:
        report = await ingest_yaml(
            services.structured, campaign, paths, hidden=hidden, tags=tags, replace=replace
        )
    except GameError as error:
        return {"file": ", ".join(p.name for p in paths), "error": error.message}
    said = {"summary": report.summary(), "written": report.written(), "headline": report.headline()}
    return report.model_dump(mode="json") | said


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
    try:
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
    """List a campaign's knowledge sources: class, enabled, hidden, hash, chunks, imported at, times used (a
    player's list unless `--as gm`, as `lore` reads)."""
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
                flags.append(f"GM-only sections: {s.hidden_chunks} of its {counted(s.chunk_count, 'chunk')}")
            if s.always_include:
                flags.append("always")
            rows.append(
                f"#{s.id:<5} {s.filename}  [{', '.join(flags)}]  v{s.version}  {s.chunk_count} chunks  "
                f"vectors {s.vector_status.value}  sha256 {s.content_hash[:12]}  "
                f"imported {s.imported_at:%Y-%m-%d %H:%M}  used {s.times_used}×"
            )
        return "\n".join(rows)

    emit([s.model_dump(mode="json") for s in found], as_json=as_json, text=text)
