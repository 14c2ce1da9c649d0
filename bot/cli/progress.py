"""The console's account of an import as it runs: a progress bar per file on stderr, then its line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from memory.knowledge.source_models import ImportProgress, ImportReport


def source_name(title: str, filename: str) -> str:
    """Return a source as the GM knows it: its title, then the file it came from ("Core Rules (core.md)"); the
    file name alone when the title is only the file's name (a file with no `# ` heading)."""
    if title.strip() in {filename, filename.rsplit("/", 1)[-1].rsplit(".", 1)[0], ""}:
        return filename
    return f"{title} ({filename})"


def describe_report(report: ImportReport) -> str:
    """Return one imported file's line for the console: what became of it, its passages and how they are found."""
    from rich.markup import escape

    from bot.ops.search_index import search_state
    from canon.wording.counts import counted

    if report.duplicate_of is not None:
        line = (
            f"[yellow]=[/yellow] {escape(report.filename)}: the same text as source #{report.duplicate_of}, "
            "nothing new to import"
        )
        return line + (f"; {', '.join(report.changed)}" if report.changed else "")
    verb = "updated to version " + str(report.source.version) if report.previous_version else "imported"
    line = (
        f"[green]✓[/green] {escape(report.filename)}: {verb} as “{escape(report.source.title)}”, "
        f"source #{report.source.id} "
        f"({report.source.knowledge_class.label}{', hidden' if report.source.hidden else ''}), "
        f"{counted(report.chunk_count, 'passage')}, {search_state(report.vector_status.value)}"
    )
    if report.vector_error:
        line += f": {escape(report.vector_error)}"
    return "\n".join([line, *(f"  [yellow]![/yellow] {w}" for w in report.warnings)])


class Progress:
    """A rich progress bar per file (chunks embedded / total) on stderr, and each file's line on stdout.

    The bar is drawn only on a terminal and leaves no trace; the lines are the command's output, so they go where
    its summary goes (a file, a pipe), in order and each ending its line. On a terminal, they are printed above
    the bar through its console, which keeps the bar below them.
    """

    def __init__(self, console: Console | None = None, out: Console | None = None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console if console is not None else Console(stderr=True)
        self.out = out if out is not None else Console(highlight=False)
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            disable=not self.console.is_terminal,
        )
        self.progress.start()
        self.tasks: dict[str, Any] = {}

    def callback(self, name: str) -> Any:
        task = self.progress.add_task(name, total=None)
        self.tasks[name] = task

        from memory.knowledge.source_models import ImportStage

        def update(event: ImportProgress) -> None:
            if event.stage == ImportStage.EMBEDDING:
                self.progress.update(
                    task, total=event.total, completed=event.done, description=f"{name} (embedding)"
                )
            elif event.stage == ImportStage.STORING:
                self.progress.update(task, total=event.total, completed=0, description=f"{name} (storing)")
            else:
                self.progress.update(task, description=f"{name} ({event.stage.value})")

        return update

    def finish(self, name: str, line: str) -> None:
        """Take a file's bar away and print its line."""
        task = self.tasks.pop(name, None)
        if task is not None:
            self.progress.remove_task(task)
        self.line(line)

    def line(self, text: str) -> None:
        """Print a line of the command's output (rich markup), whole: the screen or the file wraps it."""
        shown = self.console if self.console.is_terminal and self.out.is_terminal else self.out
        shown.print(text, highlight=False, soft_wrap=True)

    def stop(self) -> None:
        self.progress.stop()
