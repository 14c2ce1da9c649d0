"""The vault: the original bytes of every imported file, kept once each under the SHA-256 of those bytes.

`Vault` is the port; two adapters implement it: `FolderVault` (a folder of the data directory, the default) and
`memory.vault_s3.S3Vault` (an S3-compatible object store: MinIO, AWS S3 and others), chosen by the settings in the
composition root. The port is synchronous (files and the S3 client block): callers run it in a thread.

Content addressing makes the order of a write safe: the bytes are stored under their hash first, then the
database rows that name that hash are written in one transaction. A crash in between leaves an original no row
names (an orphan: harmless, never shown, found and removed by `lorekeeper vault prune`), never a row whose
bytes are missing. An original is removed only when no source or version of any campaign names its hash any
more (`memory.knowledge.files.FileStore.remove_if_unused`), so one campaign's delete never takes another's bytes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

from canon.errors import InvalidInput, Unavailable

__all__ = [
    "DIGEST",
    "FolderVault",
    "MissingOriginal",
    "StoredOriginal",
    "Vault",
    "VaultUnavailable",
    "check_content",
    "check_digest",
    "digest_of",
]

#: A vault key: the lower-case hex SHA-256 of the bytes.
DIGEST = re.compile(r"[0-9a-f]{64}")
_TEMPORARY = ".import-"


class StoredOriginal(NamedTuple):
    """One original in the vault."""

    digest: str
    size: int
    stored_at: dt.datetime


class MissingOriginal(FileNotFoundError):
    """The vault has no original under this hash."""


class VaultUnavailable(Unavailable):
    """The vault cannot be reached or written (a full disk, an object store that does not answer)."""


def digest_of(data: bytes) -> str:
    """Return the vault key of some bytes: their SHA-256, in hex."""
    return hashlib.sha256(data).hexdigest()


def check_digest(digest: str) -> str:
    """Return a well-formed vault key, or raise `InvalidInput` (a key never names a path or an object freely)."""
    if not DIGEST.fullmatch(digest):
        raise InvalidInput("That is not the fingerprint of a stored file (64 hexadecimal digits).")
    return digest


class Vault(Protocol):
    """Where the originals are kept, each under the SHA-256 of its bytes (synchronous: run it in a thread)."""

    def put(self, digest: str, data: bytes) -> bool:
        """Store bytes under their hash; return whether they were new (a second put of them is a no-op)."""
        ...

    def get(self, digest: str) -> bytes:
        """Return the bytes stored under a hash (`MissingOriginal` when there are none)."""
        ...

    def has(self, digest: str) -> bool:
        """Return whether bytes are stored under a hash."""
        ...

    def delete(self, digest: str) -> bool:
        """Remove the bytes stored under a hash; return whether there were any."""
        ...

    def originals(self) -> Iterator[StoredOriginal]:
        """Yield every original stored: hash, size and when it was stored (in no particular order)."""
        ...

    def describe(self) -> str:
        """Return where the originals are kept, in words for the host (no secrets)."""
        ...


def check_content(digest: str, data: bytes) -> None:
    """Refuse to store bytes under a hash that is not theirs: a key always names its content."""
    check_digest(digest)
    if digest_of(data) != digest:
        raise ValueError("the bytes given to the vault do not have the hash they are stored under")


class FolderVault:
    """The originals as files of one folder, named by their hash (`data_dir/sources` by default)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, digest: str) -> Path:
        """Return the file an original is (or would be) kept in."""
        return self.folder / check_digest(digest)

    def put(self, digest: str, data: bytes) -> bool:
        """Write the bytes to a temporary file and rename it into place: a reader never sees half a file."""
        check_content(digest, data)
        target = self.path(digest)
        if target.is_file() and target.stat().st_size == len(data):
            return False
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=_TEMPORARY)
        except OSError as error:
            raise VaultUnavailable(_folder_problem(self.folder, error)) from None
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException as error:
            Path(temporary).unlink(missing_ok=True)
            if isinstance(error, OSError):
                raise VaultUnavailable(_folder_problem(self.folder, error)) from None
            raise
        return True

    def get(self, digest: str) -> bytes:
        """Return an original's bytes."""
        try:
            return self.path(digest).read_bytes()
        except FileNotFoundError:
            raise MissingOriginal(digest) from None

    def has(self, digest: str) -> bool:
        """Return whether the folder holds an original under this hash."""
        return self.path(digest).is_file()

    def delete(self, digest: str) -> bool:
        """Remove an original's file."""
        try:
            self.path(digest).unlink()
        except FileNotFoundError:
            return False
        return True

    def originals(self) -> Iterator[StoredOriginal]:
        """Yield the files of the folder named by a hash (a write in progress is not one)."""
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return
        for entry in entries:
            if DIGEST.fullmatch(entry.name):
                try:
                    info = entry.stat()
                except FileNotFoundError:  # removed meanwhile
                    continue
                stored_at = dt.datetime.fromtimestamp(info.st_mtime, dt.UTC)
                yield StoredOriginal(entry.name, info.st_size, stored_at)

    def describe(self) -> str:
        """Return the folder, as the host knows it."""
        return f"the folder {self.folder} on the bot's machine"


def _folder_problem(folder: Path, error: OSError) -> str:
    return (
        f"The original could not be kept in {folder}: {error.strerror or error}. "
        "Free space on that disk, or give the bot write access to it, and import again."
    )
