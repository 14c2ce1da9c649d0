"""Regular expressions compiled once and kept in the data folder, for one-question processes (`lorekeeper lore`).

Importing what answers a question compiles about 700 regular expressions: about a sixth of a cold question's
CPU time. Python compiles a pattern in two steps: it parses the pattern into the regex engine's instructions (in
Python: the slow step), then builds the matcher from them (`_sre.compile`, in C: quick). While a one-question
process runs, `kept_patterns` keeps the instructions of every pattern it compiles; the next such process builds
its matchers from them and skips the slow step. The patterns are the very ones Python builds: a pattern is kept
only when the matcher built from its kept instructions equals Python's own (a compiled pattern compares equal
to another by its text, flags and instructions), and the file holds only what this Python version made.

The file is `compiled-patterns.marshal` in the data folder; a folder that cannot take it goes without (every
pattern is compiled as usual), and so does a Python whose regex compiler does not work as this expects.
"""

from __future__ import annotations

import _sre
import contextlib
import marshal
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from re import _compiler, _parser  # type: ignore[attr-defined]
from typing import Any

#: The file, in the data folder.
FILE_NAME = "compiled-patterns.marshal"
#: What the instructions were made by: they are only read back by the same Python.
_MADE_BY = f"{sys.implementation.cache_tag} {sys.version}"
#: A process rewrites the file when what it compiled anew took this long: patterns made of a question's words
#: are few and quick, and a few are never the same twice (the standard library's `tokenize` joins a set's
#: words, in an order that changes with every process); they do not rewrite it on every question.
_REWRITE_AFTER_S = 0.02
#: The most patterns the file keeps; past it, it keeps only the last process's.
_MOST = 5000

#: (pattern, flags) -> what `_sre.compile` takes after the pattern: flags, instructions, groups, group names.
_Parts = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]


class _Keeper:
    """Stand in for `re._compiler.compile` while installed: build kept patterns from their instructions."""

    def __init__(self, compile_: Any, kept: dict[tuple[str | bytes, int], _Parts]) -> None:
        self.python_compile = compile_
        self.kept = kept
        self.used: dict[tuple[str | bytes, int], _Parts] = {}
        self.added = 0
        self.new_seconds = 0.0

    def __call__(self, pattern: Any, flags: int = 0) -> Any:
        if not isinstance(pattern, str | bytes) or flags & _compiler.SRE_FLAG_DEBUG:
            return self.python_compile(pattern, flags)
        key = (pattern, flags)
        kept = self.kept.get(key)
        if kept is not None:
            with contextlib.suppress(Exception):  # instructions the engine refuses: compiled as usual below
                built = _sre.compile(pattern, *kept)
                self.used[key] = kept
                return built
        start = time.process_time()
        compiled = self.python_compile(pattern, flags)
        try:
            parts = self._parts(pattern, flags)
            same = _sre.compile(pattern, *parts) == compiled and self._same_groups(compiled, parts)
        except Exception:  # Python's compiler made it and ours did not: it is simply not kept
            same = False
        if same:
            self.used[key] = parts
            self.added += 1
        self.new_seconds += time.process_time() - start
        return compiled

    def _parts(self, pattern: str | bytes, flags: int) -> _Parts:
        """Return the instructions of a pattern, as `re._compiler.compile` makes them."""
        parsed = _parser.parse(pattern, flags)
        # Plain numbers: the compiler's opcodes are named numbers, which `marshal` does not keep.
        code = [int(number) for number in _compiler._code(parsed, flags)]
        names: dict[str, int] = parsed.state.groupdict
        by_number: list[str | None] = [None] * parsed.state.groups
        for name, number in names.items():
            by_number[number] = name
        return int(flags | parsed.state.flags), code, parsed.state.groups - 1, names, tuple(by_number)

    @staticmethod
    def _same_groups(compiled: Any, parts: _Parts) -> bool:
        return bool(compiled.groups == parts[2] and dict(compiled.groupindex) == parts[3])


def _read(path: Path) -> dict[tuple[str | bytes, int], _Parts]:
    """Return the kept instructions, or none (no file, another Python's, unreadable)."""
    try:
        # The data folder is trusted as the database beside it is: whoever writes there can change the campaign.
        made_by, kept = marshal.loads(path.read_bytes())  # noqa: S302
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return kept if made_by == _MADE_BY and isinstance(kept, dict) else {}


def _write(path: Path, kept: dict[tuple[str | bytes, int], _Parts]) -> None:
    """Write the file whole or not at all; a folder that cannot take it is left without one."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(marshal.dumps((_MADE_BY, kept)))
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            temporary.unlink()


def _works(keeper: _Keeper) -> bool:
    """Tell whether this Python's regex compiler builds patterns the way `_Keeper` rebuilds them."""
    probe = r"(?P<word>\w+)[ -](\d{2,4})?(?i:x)$"
    try:
        compiled = keeper.python_compile(probe, 0)
        parts = keeper._parts(probe, 0)
        return bool(_sre.compile(probe, *parts) == compiled and keeper._same_groups(compiled, parts))
    except Exception:  # a Python whose private compiler differs: go without
        return False


@contextlib.contextmanager
def kept_patterns(data_dir: Path) -> Iterator[None]:
    """Build regular expressions from the instructions kept in `data_dir` while the block runs; keep the new ones.

    Meant for a process that answers a question and ends: patterns compiled in the block come from the file,
    those it lacked are added to it afterwards."""
    path = data_dir / FILE_NAME
    keeper = _Keeper(_compiler.compile, _read(path))
    if not _works(keeper):
        yield
        return
    _compiler.compile = keeper
    try:
        yield
    finally:
        _compiler.compile = keeper.python_compile
        if keeper.added and keeper.new_seconds >= _REWRITE_AFTER_S:
            kept = {**keeper.kept, **keeper.used}
            _write(path, kept if len(kept) <= _MOST else keeper.used)
