"""The shared library sources a campaign reads, in its archive: named always, their originals on request.

A campaign's export names the library sources it attaches (`libraries` in the manifest: title, file name, class,
the fingerprints of the text and of the file, whether the original is included). Importing it attaches again each
one whose text a library the new campaign may read holds; one that no library holds becomes the campaign's own
Reference source when the archive carries its original, and is otherwise named in a warning saying what to do.
"""

from __future__ import annotations

import asyncio
from typing import Any

from canon.errors import GameError
from memory.knowledge.service import KnowledgeService

__all__ = ["library_entries", "reattach"]


async def library_entries(
    knowledge: KnowledgeService, campaign_id: int, *, include: bool
) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    """Return the manifest's entries for the library sources a campaign attaches, and their originals if asked."""
    entries: list[dict[str, Any]] = []
    files: dict[str, bytes] = {}
    for item in await knowledge.library.attached(campaign_id):
        source = item.source
        data = await asyncio.to_thread(knowledge.files.read_if_kept, source.file_hash) if include else None
        if data is not None:
            files[source.file_hash] = data
        entries.append(
            {
                "title": source.title,
                "filename": source.filename,
                "knowledge_class": source.knowledge_class.value,
                "content_hash": source.content_hash,
                "file_hash": source.file_hash,
                "included": data is not None,
            }
        )
    return entries, files


async def reattach(
    knowledge: KnowledgeService, campaign_id: int, entries: Any, files: dict[str, bytes]
) -> list[str]:
    """Attach again the library sources an archive names; return the warnings for those no library holds."""
    if not isinstance(entries, list) or not entries:
        return []
    available = {item.source.content_hash: item for item in await knowledge.library.available(campaign_id)}
    warnings: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        title, filename = str(entry.get("title") or "?"), str(entry.get("filename") or "?")
        found = available.get(str(entry.get("content_hash")))
        if found is not None:
            if not found.attached:
                await knowledge.library.attach(campaign_id, found.source.filename, by="campaign import")
            continue
        data = files.get(str(entry.get("file_hash")))
        if data is not None:
            try:
                await knowledge.import_bytes(campaign_id, filename, data, title=title)
            except GameError as error:
                warnings.append(f"The shared library source {title} ({filename}) could not be kept: {error}")
                continue
            warnings.append(
                f"The shared library source {title} ({filename}) is in no library this campaign may read: its "
                "copy from the archive is now the campaign's own source."
            )
            continue
        warnings.append(
            f"The campaign read {title} ({filename}) from a shared library this installation does not have for "
            "it: import the file with `lorekeeper library import`, then `lorekeeper library attach`."
        )
    return warnings
