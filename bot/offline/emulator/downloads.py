"""Serve attachments as Discord's file server does, and fail as it can: refusing a file or cutting a transfer."""

from __future__ import annotations

from aiohttp import web

from .messages import Attachment

__all__ = ["FAULTS", "serve_attachment"]

#: How a download can fail: the server answers with an error status, or it stops sending halfway.
FAULTS = ("refuse", "cut")


async def serve_attachment(request: web.Request, blob: Attachment | None) -> web.StreamResponse:
    """Answer a download of `blob`: its bytes, a 404 when it is unknown, or the fault set on it."""
    if blob is None:
        return web.Response(status=404)
    content_type = blob.content_type or "application/octet-stream"
    if blob.fault == "refuse":
        return web.Response(status=blob.fault_status, text="refused", content_type="text/plain")
    if blob.fault == "cut":
        response = web.StreamResponse(headers={"Content-Type": content_type})
        response.content_length = len(blob.data)
        await response.prepare(request)
        await response.write(blob.data[: len(blob.data) // 2])
        if request.transport is not None:
            request.transport.close()  # the client sees the body end before its announced length
        return response
    return web.Response(body=blob.data, content_type=content_type)
