"""The vault in an S3-compatible object store (MinIO, AWS S3, Ceph, Garage...), through the `minio` client.

Each original is one object, `<prefix><sha256>`, in one bucket; the bucket is made on the first write when it
does not exist (where the credentials allow). Objects are written whole by S3 itself (a reader never sees half
of one), so the port's promises hold as they do for a folder: see `memory.vault`.
"""

from __future__ import annotations

import datetime as dt
import io
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import urllib3
from minio import Minio
from minio.error import MinioException, S3Error

from memory.vault import (
    DIGEST,
    MissingOriginal,
    StoredOriginal,
    VaultUnavailable,
    check_content,
    check_digest,
)

__all__ = ["S3Vault"]

_MISSING = {"NoSuchKey", "NoSuchObject", "NotFound"}
#: Seconds to connect and to wait for an answer; a store that does not answer fails the action, not the bot.
_CONNECT_SECONDS = 5.0
_READ_SECONDS = 120.0


class S3Vault:
    """The originals as objects `<prefix><sha256>` of one bucket of an S3-compatible store."""

    def __init__(
        self,
        endpoint: str,
        bucket: str,
        *,
        access_key: str | None,
        secret_key: str | None,
        region: str | None = None,
        prefix: str = "sources/",
    ) -> None:
        parts = urlsplit(endpoint)
        self.endpoint = endpoint
        self.bucket = bucket
        self.prefix = prefix
        self._bucket_ready = False
        self._lock = threading.Lock()
        http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=_CONNECT_SECONDS, read=_READ_SECONDS),
            retries=urllib3.Retry(total=3, backoff_factor=0.2, status_forcelist=(500, 502, 503, 504)),
            maxsize=8,
        )
        self.client = Minio(
            parts.netloc,
            access_key=access_key,
            secret_key=secret_key,
            secure=parts.scheme == "https",
            region=region,
            http_client=http,
        )

    def key(self, digest: str) -> str:
        """Return the object name of an original."""
        return f"{self.prefix}{check_digest(digest)}"

    def _unavailable(self, error: Exception) -> VaultUnavailable:
        detail = getattr(error, "message", None) or str(error) or type(error).__name__
        return VaultUnavailable(
            f"The file store at {self.endpoint} (bucket “{self.bucket}”) did not answer as expected: {detail}. "
            "Check that it is running and that the bot's access keys may read and write that bucket."
        )

    def _ensure_bucket(self) -> None:
        if self._bucket_ready:
            return
        with self._lock:
            if self._bucket_ready:
                return
            try:
                if not self.client.bucket_exists(self.bucket):
                    self.client.make_bucket(self.bucket)
            except S3Error as error:
                if error.code not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                    raise self._unavailable(error) from None
            except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
                raise self._unavailable(error) from None
            self._bucket_ready = True

    def _size(self, digest: str) -> int | None:
        try:
            return self.client.stat_object(self.bucket, self.key(digest)).size
        except S3Error as error:
            if error.code in _MISSING or error.code == "NoSuchBucket":
                return None
            raise self._unavailable(error) from None
        except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
            raise self._unavailable(error) from None

    def put(self, digest: str, data: bytes) -> bool:
        """Upload the bytes as one object unless an object of that hash and size is already there."""
        check_content(digest, data)
        self._ensure_bucket()
        if self._size(digest) == len(data):
            return False
        try:
            self.client.put_object(self.bucket, self.key(digest), io.BytesIO(data), len(data))
        except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
            raise self._unavailable(error) from None
        return True

    def get(self, digest: str) -> bytes:
        """Download an original's bytes."""
        try:
            response = self.client.get_object(self.bucket, self.key(digest))
        except S3Error as error:
            if error.code in _MISSING or error.code == "NoSuchBucket":
                raise MissingOriginal(digest) from None
            raise self._unavailable(error) from None
        except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
            raise self._unavailable(error) from None
        try:
            return response.read()
        finally:
            response.close()
            response.release_conn()

    def has(self, digest: str) -> bool:
        """Return whether the bucket holds an object for this hash."""
        return self._size(digest) is not None

    def delete(self, digest: str) -> bool:
        """Remove an original's object (S3 answers a delete of a missing object as done: it is looked up first)."""
        if not self.has(digest):
            return False
        try:
            self.client.remove_object(self.bucket, self.key(digest))
        except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
            raise self._unavailable(error) from None
        return True

    def originals(self) -> Iterator[StoredOriginal]:
        """Yield every object under the prefix named by a hash."""
        try:
            for item in self.client.list_objects(self.bucket, prefix=self.prefix, recursive=True):
                name = (item.object_name or "").removeprefix(self.prefix)
                if DIGEST.fullmatch(name):
                    stored_at = item.last_modified or dt.datetime.now(dt.UTC)
                    yield StoredOriginal(name, item.size or 0, stored_at)
        except S3Error as error:
            if error.code == "NoSuchBucket":
                return
            raise self._unavailable(error) from None
        except (MinioException, OSError, urllib3.exceptions.HTTPError) as error:
            raise self._unavailable(error) from None

    def describe(self) -> str:
        """Return the store and bucket, as the host configured them (never the keys)."""
        return f"the bucket “{self.bucket}” of the file store at {self.endpoint}"
