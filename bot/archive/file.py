"""The archive file: a zip of a manifest, one JSON Lines member per table and the raw files, read and checked.

manifest.json               {"format": "lorekeeper-campaign", "version": 1, "exported_at", "campaign": {...},
                             "tables": {table: row count}, "files": [sha256, ...]}
tables/<table>.jsonl        one JSON object per row, column name -> value (datetimes as ISO 8601 UTC),
                            in id order
files/<sha256>              the raw bytes of every imported source version still stored
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.archive.tables import MODELS, Tables
from canon.errors import InvalidInput

ARCHIVE_FORMAT = "lorekeeper-campaign"
ARCHIVE_VERSION = 1
#: Versions this code reads (an older one would be converted here when version 2 exists).
READABLE_VERSIONS = frozenset({1})
#: A member of an archive larger than this is refused (a zip bomb, or not our archive).
MAX_MEMBER_BYTES = 2 * 1024**3


class ArchiveError(InvalidInput):
    """An archive that cannot be read or imported (the message says why, for people)."""


@dataclass(frozen=True)
class ArchiveContents:
    """An archive read into memory."""

    manifest: dict[str, Any]
    tables: Tables
    files: dict[str, bytes]


def write_archive(path: Path, manifest: dict[str, Any], tables: Tables, files: dict[str, bytes]) -> int:
    """Write an archive atomically (a temporary file renamed into place); return its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".export-", suffix=".zip")
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(
                "manifest.json", json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True)
            )
            for name, rows in tables.items():
                text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
                archive.writestr(f"tables/{name}.jsonl", text)
            for digest, data in sorted(files.items()):
                archive.writestr(f"files/{digest}", data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise ArchiveError(f"The archive's {name} is {info.file_size:,} bytes: too large to be ours.")
    return archive.read(info)


def read_archive(path: Path) -> ArchiveContents:
    """Read and check an archive: its format and version, every table it names and every file's hash."""
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArchiveError(f"{path} does not exist.") from None
    except (zipfile.BadZipFile, OSError):
        raise ArchiveError(
            f"{path} is not a Lorekeeper campaign archive (not a zip file made by `lorekeeper export`)."
        ) from None
    with archive:
        names = set(archive.namelist())
        if "manifest.json" not in names:
            raise ArchiveError(f"{path} is not a Lorekeeper campaign archive: it has no manifest.json.")
        try:
            manifest = json.loads(_member(archive, "manifest.json"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ArchiveError(f"{path}: its manifest.json is not JSON.") from None
        check_manifest(manifest)
        tables: Tables = {}
        for name in manifest.get("tables", {}):
            if name not in MODELS:
                raise ArchiveError(f"The archive holds a table this Lorekeeper does not know: {name}.")
            member = f"tables/{name}.jsonl"
            if member not in names:
                raise ArchiveError(f"The archive is incomplete: {member} is missing.")
            try:
                lines = _member(archive, member).decode("utf-8").splitlines()
                tables[name] = [json.loads(line) for line in lines if line.strip()]
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise ArchiveError(f"The archive's {member} is damaged: {error}.") from None
        files: dict[str, bytes] = {}
        for digest in manifest.get("files", []):
            member = f"files/{digest}"
            if member not in names:
                raise ArchiveError(f"The archive is incomplete: {member} is missing.")
            data = _member(archive, member)
            if hashlib.sha256(data).hexdigest() != digest:
                raise ArchiveError(f"The archive's copy of {member} is damaged (its hash does not match).")
            files[digest] = data
    return ArchiveContents(manifest=manifest, tables=tables, files=files)


def check_manifest(manifest: Any) -> None:
    """Refuse a manifest of another format or of a version this code does not read, saying why."""
    if not isinstance(manifest, dict) or manifest.get("format") != ARCHIVE_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise ArchiveError(
            f"This is not a Lorekeeper campaign archive (format {found!r}, expected {ARCHIVE_FORMAT!r})."
        )
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version not in READABLE_VERSIONS:
        readable = ", ".join(str(v) for v in sorted(READABLE_VERSIONS))
        newer = isinstance(version, int) and version > max(READABLE_VERSIONS)
        hint = " It was made by a newer Lorekeeper: update this one to import it." if newer else ""
        raise ArchiveError(
            f"This campaign archive is version {version!r}; this Lorekeeper reads version {readable} only.{hint}"
        )
    if not isinstance(manifest.get("campaign"), dict) or not isinstance(manifest.get("tables", {}), dict):
        raise ArchiveError("The archive's manifest.json is damaged: it has no campaign or table list.")


def archive_bytes(contents: ArchiveContents) -> bytes:
    """Return an archive's contents as zip bytes (tests build altered archives with it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(contents.manifest))
        for name, rows in contents.tables.items():
            archive.writestr(f"tables/{name}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
        for digest, data in contents.files.items():
            archive.writestr(f"files/{digest}", data)
    return buffer.getvalue()
