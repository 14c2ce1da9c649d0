"""`lorekeeper ingest`: import world-bible files, YAML lore, calendars and dialogues into a campaign.

Prose files (.md/.txt/.pdf/...) go to the knowledge importer one by one (a failed one is reported, the others go
on); YAML files go together to the structured-lore importer, a calendar file first; a dialogue becomes a scene.
Registered with the other knowledge commands by `bot.cli.lore`.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bot.cli.common import CampaignOption, JsonOption, emit, fail, run_async, settings_or_exit, with_services
from bot.cli.dialogue import dialogue_paths, ingest_dialogue
from bot.cli.progress import Progress, describe_report
from canon.errors import GameError

if TYPE_CHECKING:
    from bot.services.calendar_files import CalendarsFirst
    from memory.knowledge.source_models import ImportReport


class ClassChoice(enum.StrEnum):
    """A knowledge class on the command line."""

    CANON = "canon"
    REFERENCE = "reference"
    INSPIRATION = "inspiration"


def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files or folders (every .md, .txt, .pdf, .docx, .epub and .html file under a folder)"
        ),
    ],
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
    """Import prose files (.md, .txt, .pdf, .docx, .epub, .html) into a campaign's knowledge, and YAML files (a
    calendar among them) into its canon, in one call."""
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
    from memory.knowledge.files import expand_paths
    from memory.knowledge.source_models import ImportFailure, ImportOutcome

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
        if any(r.outcome != ImportOutcome.DUPLICATE or r.changed for r in imported):
            # The book glossaries once the files are in: a question then reads them (`retrieval.book_terms`).
            await services.knowledge.settle_book_terms(target.id)
        # The calendar first (its eras imported with the world's files): the dates may be written in its words.
        calendar_results = await _yaml_with_calendars(
            services, target, yaml_files, yaml_results, hidden=options["hidden"], replace=replace
        )
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


#: What an import did with a prose file (`ImportOutcome`), in the order the summary says it.
_DONE = (("created", "imported"), ("updated", "updated"), ("duplicate", "unchanged"))


def ingest_text(outcome: dict[str, Any]) -> str:
    """Return what `lorekeeper ingest` did, for a person: prose files and YAML entries written, what failed."""
    from bot.ops.search_index import missed_words
    from canon.wording.counts import counted

    counts: dict[str, int] = {}
    for report in outcome["imported"]:
        counts[report["outcome"]] = counts.get(report["outcome"], 0) + 1
    parts: list[str] = []
    if counts or not (outcome["yaml"] or outcome.get("dialogue")):
        done = ", ".join(
            f"{counted(counts[what], 'prose file')} {said}" for what, said in _DONE if counts.get(what)
        )
        parts.append(done or "no prose file imported")
    calendars = outcome.get("calendar", ())
    parts += [f"calendar set from {c['file']}" for c in calendars if "text" in c]
    failed = {f.get("filename") or f.get("file") for f in outcome["failed"]}  # each file once: a calendar too
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
            failed |= bad or {y.get("file", "")}
            parts.append(f"nothing written, {counted(len(y.get('errors', ())) or 1, 'problem')}")
        details += [f"  {line}" for line in (y.get("error") or y.get("summary") or "").splitlines()]
        if y.get("error") and y.get("errors"):
            details += [
                f"  {e['file']}: line {e['line']}, column {e['column']}: {e['message']}" for e in y["errors"]
            ]
    parts += [f"dialogue: {d['file']} into a scene" for d in outcome.get("dialogue", ())]
    details += [f"  {d['text']}" for d in outcome.get("dialogue", ())]
    not_imported = f"; {counted(len(failed), 'file')} not imported" if failed else ""
    lines = [f"Campaign “{outcome['campaign']}”: {'; '.join(parts)}{not_imported}.", *details]
    lines += [f"  {e['filename']}: {e['text']}" for e in outcome["extracted"]]
    searched: dict[str, int] = {}
    for report in outcome["imported"]:
        searched[report["vector_status"]] = searched.get(report["vector_status"], 0) + 1
    missed = missed_words(searched, outcome["campaign"])
    if missed:
        lines.append(f"  {missed}")
    read_as = [
        r["filename"] for r in outcome["imported"] if r["outcome"] == "created" and not r.get("class_asked")
    ]
    if read_as and all(r["source"]["knowledge_class"] == "reference" for r in outcome["imported"]):
        lines.append(
            f"  {', '.join(read_as)}: imported as Reference (rules and background the table may look up). Your "
            "campaign's own world bible? Import it again with --class canon."
        )
    return "\n".join(lines)


async def _yaml_with_calendars(
    services: Any, target: Any, paths: list[Path], results: list[Any], *, hidden: bool | None, replace: bool
) -> list[dict[str, str]]:
    """Import the YAML files together, the calendar files among them set first (appending the import's report
    to `results`); return what each calendar file did."""
    from bot.services.calendar_files import put_back, refused_report
    from bot.services.structured_import import campaign_path

    world, step = await _calendars_first(services, target, paths)
    done = [{"file": name, "text": text} for name, text in step.done]
    if step.problems:  # a calendar refused at its line: nothing of the import is written
        names = [name for name, _ in step.eras] + [campaign_path(p) for p in world]
        results.append(_reported(refused_report(target, step, sorted({*names, *_named(step)}))))
    elif world or step.eras:  # imported together: structured lore files may refer to each other
        results.append(
            await _ingest_yaml(services, target, world, hidden=hidden, replace=replace, extra=step.eras)
        )
        if step.done and (results[-1].get("error") or results[-1].get("status") == "confirm"):
            await put_back(services.calendars, target, step)
            return [{"file": c["file"], "error": "not set: the world files were not imported"} for c in done]
    return done


async def _calendars_first(
    services: Any, target: Any, paths: list[Path]
) -> tuple[list[Path], CalendarsFirst]:
    """Set the calendar files among `paths` (`bot.services.calendar_files`, as `/lore import` does); return the
    world's other files and what setting the calendars did."""
    from bot.services.calendar_files import calendars_first
    from bot.services.structured_import import campaign_path

    named = {campaign_path(path): path for path in paths}
    files = [(name, path.read_bytes()) for name, path in named.items()]
    step = await calendars_first(services.calendars, services.structured, target, files)
    return [named[name] for name, _ in step.world], step


def _named(step: CalendarsFirst) -> list[str]:
    """Return the names of the calendar files an import gave (those set, refused, or defining eras)."""
    return [name for name, _ in step.done] + [p.file for p in step.problems]


def _reported(report: Any) -> dict[str, Any]:
    """Return an import's report as `lorekeeper ingest` prints it and its JSON holds it."""
    said = {"summary": report.summary(), "written": report.written(), "headline": report.headline()}
    return dict(report.model_dump(mode="json") | said)


async def _ingest_yaml(
    services: Any,
    campaign: Any,
    paths: list[Path],
    *,
    hidden: bool | None,
    replace: bool,
    extra: list[tuple[str, bytes]],
) -> dict[str, Any]:
    """Hand the YAML files, together, to the structured-lore importer (`bot.services.structured_import`), with
    the eras the calendar files define (`extra`: each as its file's name and text)."""
    from bot.services.calendar_files import as_calendars
    from bot.services.structured_import import ingest_yaml

    try:
        report = await ingest_yaml(
            services.structured, campaign, paths, hidden=hidden, replace=replace, extra=extra
        )
    except GameError as error:
        return {"file": ", ".join(p.name for p in paths), "error": error.message}
    return _reported(as_calendars(report, extra))
