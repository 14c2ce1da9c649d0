"""DOCX and EPUB files are zips: every entry is checked before one byte of it is unpacked.

An entry name that climbs out of the archive (`../`, an absolute path, a drive letter) refuses the file; so do
too many entries, an entry or a total that would unpack past the limits, and an entry that unpacks to hundreds
of times its packed size (a zip bomb). Entries are read into memory only, never written anywhere, and a read
stops at the size the archive declared.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from memory.books.models import BookLimits, BookRefused

__all__ = ["SafeZip"]


class SafeZip:
    """A zip whose entries were all checked against the limits; `read` returns an entry's bytes."""

    def __init__(self, data: bytes, filename: str, what: str, limits: BookLimits) -> None:
        self.filename = filename
        self.limits = limits
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as error:
            raise BookRefused(
                f"{filename} is damaged: it is not a readable {what} ({error}). Export it again and import the new file."
            ) from None
        if len(infos) > limits.max_entries:
            raise BookRefused(
                f"{filename} holds {len(infos):,} files inside it; a {what} of more than {limits.max_entries:,} "
                "is refused. Export it again, or split it."
            )
        total = 0
        self.names: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            path = PurePosixPath(name.replace("\\", "/"))
            if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
                raise BookRefused(
                    f"{filename} is refused: it holds a file named “{name[:80]}” that points outside the {what}, "
                    "as files built to attack an importer do. Nothing was unpacked."
                )
            if info.flag_bits & 0x1:
                raise BookRefused(
                    f"{filename} is protected by a password. Save it again without protection and import it again."
                )
            total += info.file_size
            ratio = info.file_size / max(1, info.compress_size)
            if (
                info.file_size > limits.max_entry_bytes
                or total > limits.max_unpacked_bytes
                or (info.file_size > 1024 * 1024 and ratio > limits.max_ratio)
            ):
                raise BookRefused(
                    f"{filename} is refused: it would unpack to far more than its size ({info.file_size:,} bytes "
                    f"from {info.compress_size:,} for “{name[:80]}”), as a zip bomb does. Nothing was unpacked."
                )
            self.names[name] = info

    def has(self, name: str) -> bool:
        return name in self.names

    def read(self, name: str) -> bytes:
        """Return an entry's bytes, never more than its declared size (`KeyError` when it is missing)."""
        info = self.names[name]
        try:
            with self.zip.open(info) as entry:
                data = entry.read(info.file_size + 1)
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as error:
            raise BookRefused(
                f"{self.filename} is damaged: “{name[:80]}” inside it cannot be unpacked ({error}). Export it again."
            ) from None
        if len(data) > info.file_size:
            raise BookRefused(
                f"{self.filename} is refused: “{name[:80]}” unpacks to more than it says, as a zip bomb does."
            )
        return data
