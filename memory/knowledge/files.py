"""Imported files: what may be imported (name, kind, size, encoding, tags, title) and the stored copies.

The text of a file is strict UTF-8 without NUL bytes, a leading byte-order mark dropped, NFC-normalised
(`normalized_text`): what is chunked, indexed and compared for duplicates. The raw bytes are kept as they are
in the vault under their SHA-256 (`FileStore` over `memory.vault`): what `/lore source`, a re-chunk and an
export read.
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from canon.errors import InvalidInput
from canon.storage import Database
from memory.knowledge.repository import file_in_use
from memory.vault import Vault

__all__ = [
    "ACCEPTED",
    "ALLOWED_SUFFIXES",
    "BOOK_MIMES",
    "OCR_MARK",
    "PARSER_VERSION",
    "TEXT_SUFFIXES",
    "YAML_SUFFIXES",
    "FileStore",
    "InvalidEncoding",
    "check_suffix",
    "clean_filename",
    "clean_tags",
    "decode_strict",
    "detect_title",
    "expand_paths",
    "normalized_text",
    "parser_is_current",
    "parser_version",
    "read_with_ocr",
    "size_text",
]

#: Bump when decoding or normalisation changes what an unchanged file turns into.
PARSER_VERSION = "utf8-nfc-1"
#: Ends the parser version of a book whose scanned pages the GM had read by OCR: a re-chunk reads them so again.
OCR_MARK = "+ocr"


def parser_version(*, ocr: bool) -> str:
    """Return the parser version a source is read with now (marked when its scanned pages were read by OCR)."""
    return PARSER_VERSION + (OCR_MARK if ocr else "")


def read_with_ocr(version: str) -> bool:
    """Return whether a source of this parser version had its scanned pages read by OCR."""
    return version.endswith(OCR_MARK)


def parser_is_current(version: str) -> bool:
    """Return whether a source of this parser version reads as it would now (OCR or not)."""
    return version.removesuffix(OCR_MARK) == PARSER_VERSION


TEXT_SUFFIXES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain"}
#: Books, read as Markdown by `memory.books` (with their pages or chapters).
BOOK_MIMES = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".epub": "application/epub+zip",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "text/html",
}
ALLOWED_SUFFIXES = {**TEXT_SUFFIXES, **BOOK_MIMES}
#: What the GM is told may be imported.
ACCEPTED = ".md, .txt, .pdf, .docx, .epub or .html"
YAML_SUFFIXES = (".yaml", ".yml")
MAX_TAGS = 20
_TAG = re.compile(r"^[\w][\w .:/+-]{0,39}$")
_H1 = re.compile(r"^ {0,3}# +(.+?)(?: +#+)? *$", re.MULTILINE)


class InvalidEncoding(InvalidInput):
    """A file is not valid UTF-8; `byte_offset` is where its first bad byte is."""

    def __init__(self, message: str, byte_offset: int) -> None:
        super().__init__(message)
        self.byte_offset = byte_offset


def size_text(count: int) -> str:
    """Return a byte count as people read it (bytes, KB or MB)."""
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    if count >= 1024:
        return f"{count / 1024:.0f} KB"
    return f"{count} bytes"


def decode_strict(data: bytes, filename: str) -> str:
    """Return the text of UTF-8 bytes, or raise `InvalidEncoding` naming the first bad byte's offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        raise InvalidEncoding(
            f"{filename} is not valid UTF-8: the first bad byte (0x{data[offset]:02X}) is at byte offset "
            f"{offset} (line {line}, byte {column} of that line). Save the file as UTF-8 and import it again.",
            offset,
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        offset = len(text[:nul].encode("utf-8"))
        raise InvalidEncoding(
            f"{filename} looks like a binary file, not text: it has a NUL byte at byte offset {offset}. "
            "Only .md and .txt text files (and .pdf, .docx, .epub and .html books) can be imported.",
            offset,
        )
    return text


def normalized_text(data: bytes, filename: str) -> str:
    """Return a file's text as it is chunked and indexed: decoded strictly, without a BOM, NFC-normalised."""
    return unicodedata.normalize("NFC", decode_strict(data, filename).removeprefix("\ufeff"))


def clean_filename(filename: str) -> str:
    """Return a file name as stored: a relative POSIX path without `.`/`..`/empty parts, at most 500 chars."""
    parts = [p for p in PurePosixPath(filename.replace("\\", "/")).parts if p not in ("", ".", "..", "/")]
    name = "/".join(" ".join(part.split()) for part in parts)
    if not name:
        raise InvalidInput(f"A file to import needs a name ending in {ACCEPTED}.")
    if len(name) > 500:
        raise InvalidInput("That file name is too long (500 characters at most).")
    return name


def check_suffix(filename: str) -> str:
    """Return the MIME type of an importable file name, or raise `InvalidInput` saying what is accepted.

    (A book's own MIME type is the one its content is read as: see `memory.books`.)"""
    suffix = PurePosixPath(filename).suffix.lower()
    if suffix in ALLOWED_SUFFIXES:
        return ALLOWED_SUFFIXES[suffix]
    if suffix in YAML_SUFFIXES:
        raise InvalidInput(
            f"{filename} is YAML: structured lore (timelines, bestiaries...) has its own importer. "
            f"Only {ACCEPTED} files are imported as knowledge sources."
        )
    raise InvalidInput(f"{filename} cannot be imported: only {ACCEPTED} files are knowledge sources.")


def clean_tags(tags: Sequence[str] | None) -> list[str] | None:
    """Return tags trimmed, lower-cased and de-duplicated, or raise `InvalidInput` for a malformed one."""
    if tags is None:
        return None
    cleaned: list[str] = []
    for tag in tags:
        value = " ".join(tag.split()).lower()
        if not value:
            continue
        if not _TAG.fullmatch(value):
            raise InvalidInput(
                f"“{tag}” is not a tag: 1 to 40 letters, digits, spaces or . : / + - characters."
            )
        if value not in cleaned:
            cleaned.append(value)
    if len(cleaned) > MAX_TAGS:
        raise InvalidInput(f"A source has at most {MAX_TAGS} tags.")
    return cleaned


def detect_title(text: str, filename: str) -> str:
    """Return a source's title: its first `# ` heading near the top, else the file name without suffix."""
    match = _H1.search(text[:4000])
    title = match.group(1) if match else PurePosixPath(filename).stem
    title = " ".join(title.replace("*", "").replace("_", " ").split()) or PurePosixPath(filename).name
    return title[:200]


def expand_paths(paths: Sequence[Path]) -> list[tuple[Path, str]]:
    """Return (file, name to import it under) for each path; a folder means every file of a kind that imports
    (`ALLOWED_SUFFIXES`: text and books) under it, sorted.

    A file given directly keeps its own name; a file found in a folder is named by its path relative to that
    folder (so `Monsters/Orc.md` and `Spells/Orc.md` stay two sources).
    """
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            files = sorted(
                (p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in ALLOWED_SUFFIXES),
                key=lambda p: p.relative_to(path).as_posix(),
            )
            found += [(p, p.relative_to(path).as_posix()) for p in files]
        else:
            found.append((path, path.name))
    return found


class FileStore:
    """The originals of imported files in the vault (`memory.vault`), each kept once under its bytes' SHA-256.

    A thin layer over the vault port that knows the database: an original is removed only when no source or
    version of any campaign names it any more.
    """

    def __init__(self, db: Database, vault: Vault) -> None:
        self.db = db
        self.vault = vault

    def read(self, file_hash: str) -> bytes:
        """Return the stored bytes of a file (`FileNotFoundError` when the original is gone)."""
        return self.vault.get(file_hash)

    def read_if_kept(self, file_hash: str) -> bytes | None:
        """Return the stored bytes of a file, or None when the original is gone."""
        try:
            return self.vault.get(file_hash)
        except FileNotFoundError:
            return None

    def store(self, data: bytes, file_hash: str) -> tuple[str, bool]:
        """Keep raw bytes in the vault; return the name the sources record (sources/<sha256>) and whether they
        were new there."""
        created = self.vault.put(file_hash, data)
        return f"sources/{file_hash}", created

    async def remove_if_unused(self, file_hash: str) -> bool:
        """Delete the original of a file when no source or version of any campaign refers to it."""
        async with self.db.session() as session:
            if await file_in_use(session, file_hash):
                return False
        return await asyncio.to_thread(self.vault.delete, file_hash)
