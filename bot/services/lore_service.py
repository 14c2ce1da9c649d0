"""`/lore import` as one use case: route an uploaded file to the right importer, optionally read its prose.

- `.md`/`.markdown`/`.txt` and books (`.pdf`, `.docx`, `.epub`, `.html`): the knowledge import (`KnowledgeService.import_bytes`, with progress);
- `.yaml`/`.yml`: the structured-lore import (`StructuredImportService.import_files`), all or nothing;
- `extract`: after a prose import, the game-master's voice reads the source into proposals of authority
  *source* (`VoiceService.extract_source`), stored as one batch that waits for the GM's review. Nothing becomes
  canon until the GM accepts and commits the batch (`CanonService.commit_batch`). An extraction that cannot run
  (no LLM configured, the model failing) leaves the import standing and says why.

`check_upload` is what a cog calls before downloading anything: it refuses a file the importers would refuse.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Literal

from bot.services.calendar_files import as_calendars, calendars_first, put_back, refused_report
from bot.services.review import Review, ReviewService
from bot.services.roster_players import ServerMembers
from bot.services.structured_import import StructuredImportService
from canon.campaigns import Campaign
from canon.errors import GameError, InvalidInput
from canon.structured.ingest import IngestReport
from memory.knowledge.files import ALLOWED_SUFFIXES, BOOK_MIMES, YAML_SUFFIXES, clean_tags
from memory.knowledge.models import KnowledgeClass
from memory.knowledge.service import KnowledgeService
from memory.knowledge.source_models import ImportOutcome, ImportReport, ProgressCallback
from memory.scenes import Actor

if TYPE_CHECKING:
    from bot.services.calendars import CalendarService
    from bot.voice.extraction import PiecesRead
    from bot.voice.service import VoiceService

log = logging.getLogger(__name__)

FileKind = Literal["prose", "structured"]


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MB" if count >= 1024 * 1024 else f"{count / 1024:.0f} KB"


def parse_tags(text: str | None) -> list[str] | None:
    """Return tags typed as `a, b, c` (None when nothing was typed), cleaned, or raise `InvalidInput`."""
    if text is None or not text.strip():
        return None
    return clean_tags([t for t in text.split(",") if t.strip()])


SETTINGS = ("class", "hidden", "tags", "always-include")
_TRUE = {"true", "yes", "on", "1", "y"}
_FALSE = {"false", "no", "off", "0", "n"}


def _flag(field: str, value: str) -> bool:
    word = value.strip().casefold()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise InvalidInput(f"{field} is true or false, not “{value}”.")


def setting_change(field: str, value: str) -> dict[str, object]:
    """Return the `KnowledgeService.set_source` arguments of `/lore set <id> <field> <value>`, or raise.

    Tags are a comma-separated list that replaces the source's tags; `-` (or `none`) clears them.
    """
    if field == "class":
        try:
            return {"knowledge_class": KnowledgeClass(value.strip().casefold())}
        except ValueError:
            raise InvalidInput(f"“{value}” is not a class: canon, reference or inspiration.") from None
    if field == "hidden":
        return {"hidden": _flag(field, value)}
    if field == "always-include":
        return {"always_include": _flag(field, value)}
    if field == "tags":
        if value.strip().casefold() in {"-", "none", ""}:
            return {"tags": []}
        return {"tags": parse_tags(value) or []}
    raise InvalidInput(f"“{field}” is not a setting: {', '.join(SETTINGS)}.")


@dataclass(frozen=True)
class LoreImport:
    """What `/lore import` did with one file."""

    kind: FileKind
    filename: str
    report: ImportReport | None = None
    structured: IngestReport | None = None
    #: Extraction: how many pieces of prose were read, how many proposals stored, in which batch.
    pieces: int = 0
    stored: int = 0
    batch: str | None = None
    extraction_error: str | None = None
    review: Review | None = None
    #: A YAML import that would replace earlier files waits for the GM under this token (`structured.confirm`).
    confirm_token: str | None = None
    #: Options that do not apply to this kind of file and were ignored.
    ignored: tuple[str, ...] = ()


class LoreImportService:
    """Import an uploaded world-bible file into a campaign: prose, structured lore, and proposals from prose."""

    def __init__(
        self,
        knowledge: KnowledgeService,
        structured: StructuredImportService,
        reviews: ReviewService,
        voice: VoiceService | None = None,
        *,
        calendars: CalendarService | None = None,
    ) -> None:
        self.knowledge = knowledge
        self.structured = structured
        self.reviews = reviews
        self.voice = voice
        # A calendar file among the YAML files is set first, its eras imported with them (`calendar_files`).
        self.calendars = calendars

    def check_upload(self, filename: str, size: int, *, extract: bool = False) -> FileKind:
        """Return what kind of file this is, or raise `InvalidInput` for one no importer takes."""
        suffix = PurePosixPath(filename).suffix.lower()
        if suffix in YAML_SUFFIXES:
            kind: FileKind = "structured"
            limit = self.structured.max_bytes
            if extract:
                raise InvalidInput(
                    "`extract` reads prose (a world-bible file) into proposals; a YAML file is already structured "
                    "lore and is imported as canon directly. Import it without `extract`."
                )
        elif suffix in ALLOWED_SUFFIXES:
            kind = "prose"
            settings = self.knowledge.settings
            limit = settings.max_book_bytes if suffix in BOOK_MIMES else settings.max_file_bytes
        else:
            raise InvalidInput(
                f"{filename} cannot be imported: attach a world-bible file (.md, .txt, .pdf, .docx, .epub or .html), or a .yaml/.yml "
                "structured lore file."
            )
        if size > limit:
            raise InvalidInput(f"{filename} is {_size(size)}; the import limit is {_size(limit)}.")
        if size == 0:
            raise InvalidInput(f"{filename} is empty: there is nothing to import.")
        return kind

    async def import_file(
        self,
        campaign: Campaign,
        filename: str,
        data: bytes,
        *,
        actor: Actor,
        knowledge_class: KnowledgeClass | None = None,
        hidden: bool | None = None,
        tags: Sequence[str] | None = None,
        always_include: bool | None = None,
        extract: bool = False,
        progress: ProgressCallback | None = None,
        more: Sequence[tuple[str, bytes]] = (),
        members: ServerMembers | None = None,
        ocr: bool = False,
    ) -> LoreImport:
        """Import one file, or several YAML files together (`more`), (see the module docstring); GameErrors of
        the import itself propagate. A YAML import that would retcon what an earlier file of the same name said
        is not written: it waits for the GM's confirmation (`confirm_token`)."""
        kind = self.check_upload(filename, len(data), extract=extract)
        for name, extra in more:
            if self.check_upload(name, len(extra)) != "structured" or kind != "structured":
                raise InvalidInput(
                    "Only YAML files are imported together (they may refer to each other); import a world-bible "
                    "file on its own."
                )
        if kind == "structured":
            ignored = tuple(
                name
                for name, value in (
                    ("class", knowledge_class),
                    ("tags", tags),
                    ("always_include", always_include),
                    ("ocr", ocr),
                )
                if value
            )
            files = [(PurePosixPath(name).name, content) for name, content in ((filename, data), *more)]
            report = await self.import_structured(
                campaign, files, actor, hidden=bool(hidden), replace=False, members=members
            )
            token = (
                self.structured.hold(campaign, files, hidden=bool(hidden), members=members)
                if report.status == "confirm"
                else None
            )
            shown = ", ".join(name for name, _ in files)
            return LoreImport(
                kind=kind, filename=shown, structured=report, ignored=ignored, confirm_token=token
            )
        imported = await self.knowledge.import_bytes(
            campaign.id,
            filename,
            data,
            knowledge_class=knowledge_class,
            hidden=hidden,
            tags=tags,
            always_include=always_include,
            progress=progress,
            ocr=ocr,
        )
        if imported.outcome != ImportOutcome.DUPLICATE or imported.changed:
            # The book glossaries now, so that the next question only reads them (`retrieval.book_terms`).
            await self.knowledge.settle_book_terms(campaign.id)
        outcome = LoreImport(kind=kind, filename=imported.filename, report=imported)
        if not extract:
            return outcome
        return await self.read_into_proposals(campaign, outcome)

    async def import_structured(
        self,
        campaign: Campaign,
        files: Sequence[tuple[str, bytes]],
        actor: Actor | None,
        *,
        hidden: bool,
        replace: bool,
        members: ServerMembers | None = None,
    ) -> IngestReport:
        """Import YAML files together, a calendar file among them set first and its eras imported with them
        (`bot.services.calendar_files`, as `lorekeeper ingest` does): a calendar refused at its line writes
        nothing, and an import not written puts the calendar back as it was."""
        if self.calendars is None:
            return await self.structured.import_files(
                campaign, files, actor, hidden=hidden, replace=replace, members=members
            )
        step = await calendars_first(self.calendars, self.structured, campaign, files)
        if step.problems:
            return refused_report(campaign, step, [name for name, _ in files])
        report = await self.structured.import_files(
            campaign, [*step.world, *step.eras], actor, hidden=hidden, replace=replace, members=members
        )
        report = as_calendars(report, step.eras)
        if step.done and (not report.ok or report.status == "confirm"):
            await put_back(self.calendars, campaign, step)
        return report

    async def confirm_structured(self, token: str, campaign: Campaign, actor: Actor | None) -> IngestReport:
        """Import what a replacing YAML import held (`structured.hold`), replacing the earlier files: its
        calendar file set again first."""
        pending = self.structured.take(token, campaign)
        return await self.import_structured(
            campaign, pending.files, actor, hidden=pending.hidden, replace=True, members=pending.members
        )

    async def read_into_proposals(
        self, campaign: Campaign, outcome: LoreImport, *, progress: PiecesRead | None = None
    ) -> LoreImport:
        """Read an imported prose file into proposals waiting for the GM (one model call a piece: long).

        `progress(read, total)` hears of each piece read. A failure of the reading leaves the import standing
        and says why (`extraction_error`).
        """
        if outcome.report is None:
            raise InvalidInput("Only world-bible files (not YAML) are read into proposals.")
        source_id = outcome.report.duplicate_of or outcome.report.source.id
        if self.voice is None:
            return _with(outcome, extraction_error="the game-master's voice is not available here.")
        try:
            report = await self.voice.extract_source(campaign, source_id, progress=progress)
        except GameError as error:
            return _with(outcome, extraction_error=error.message)
        review = None
        if report.stored and report.batch is not None:
            review = await self.reviews.review(None, campaign_id=campaign.id, batch=report.batch)
        return _with(
            outcome,
            pieces=report.pieces,
            stored=report.stored,
            batch=report.batch,
            review=review,
            extraction_error=report.skipped,
        )


def _with(outcome: LoreImport, **changes: object) -> LoreImport:
    return replace(outcome, **changes)  # type: ignore[arg-type]
