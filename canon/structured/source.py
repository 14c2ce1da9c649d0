"""Stage 1 of loading a lore file: its bytes, refused unread when too large, decoded as UTF-8 (BOM dropped)."""

from __future__ import annotations

import pathlib

from canon.structured.problems import Problems, text_position

DEFAULT_MAX_BYTES = 2 * 1024 * 1024
MAX_ENCODING_REPORTS = 20


def read_source(source: pathlib.Path | str | bytes, max_bytes: int, problems: Problems) -> str | None:
    if isinstance(source, str):
        try:
            size = len(source.encode("utf-8"))
        except UnicodeEncodeError as exc:
            line, column = text_position(source, exc.start)
            problems.add(line, column, "the text contains a character that cannot be stored as UTF-8")
            return None
        if size > max_bytes:
            problems.add(1, 1, _too_large(size, max_bytes))
            return None
        text = source
    else:
        if isinstance(source, pathlib.Path):
            try:
                size = source.stat().st_size
                if size > max_bytes:
                    problems.add(1, 1, _too_large(size, max_bytes))
                    return None
                with source.open("rb") as handle:
                    data = handle.read(max_bytes + 1)
            except OSError as exc:
                problems.add(1, 1, f"the file cannot be read: {exc.strerror or exc}")
                return None
        else:
            data = source
        if len(data) > max_bytes:
            problems.add(1, 1, _too_large(len(data), max_bytes))
            return None
        decoded = _decode(data, problems)
        if decoded is None:
            return None
        text = decoded
    return text.removeprefix("\ufeff")


def _too_large(size: int, max_bytes: int) -> str:
    return (
        f"the file is {size:,} bytes; a lore file may be at most {max_bytes:,} bytes "
        "(split it into several files)"
    )


def _decode(data: bytes, problems: Problems) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    offset = 0
    reported = 0
    while reported < MAX_ENCODING_REPORTS:
        try:
            data[offset:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            bad = offset + exc.start
            line = data.count(b"\n", 0, bad) + 1
            column = bad - (data.rfind(b"\n", 0, bad) + 1) + 1
            problems.add(
                line,
                column,
                f"the file is not valid UTF-8: byte 0x{data[bad]:02X} at byte offset {bad} cannot be "
                "decoded (save the file as UTF-8)",
            )
            reported += 1
            offset = offset + exc.end
    return None
