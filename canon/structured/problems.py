"""Collect the problems of one lore file, each at a 1-based line and column, capped and sorted by position."""

from __future__ import annotations

from canon.structured.records import LoreProblem

MAX_PROBLEMS = 1000


class Problems:
    """Collect problems for one file, capped so a pathological file cannot exhaust memory."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.items: list[LoreProblem] = []
        self.dropped = 0

    def add(self, line: int, column: int, message: str) -> None:
        if len(self.items) >= MAX_PROBLEMS:
            self.dropped += 1
            return
        self.items.append(LoreProblem(file=self.file, line=line, column=column, message=message))

    def extend(self, other: Problems) -> None:
        for problem in other.items:
            self.add(problem.line, problem.column, problem.message)
        self.dropped += other.dropped

    def result(self) -> tuple[LoreProblem, ...]:
        ordered = sorted(self.items, key=lambda p: (p.line, p.column))
        if self.dropped:
            last = ordered[-1]
            ordered.append(
                LoreProblem(
                    file=self.file,
                    line=last.line,
                    column=last.column,
                    message=f"... and {self.dropped} more problems (only the first {MAX_PROBLEMS} are listed)",
                )
            )
        return tuple(ordered)


def text_position(text: str, index: int) -> tuple[int, int]:
    """Return the 1-based line and column of a character of `text`."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1
