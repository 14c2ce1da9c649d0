"""Where a picture is drawn: one set of drawing calls, written either as PNG pixels or as an SVG document.

The family tree and the timeline draw through a `Canvas`, so the picture Discord shows (a PNG drawn for its
width) and the wiki's full-size picture (an SVG: zoomable, crisp, its text selectable) are the same drawing.

The SVG is written by hand from a closed set of elements: every text and attribute value is escaped, there are
no scripts, no styles that fetch anything, no external references; fonts are named with a generic family last
(the layout is measured with DejaVu Sans, which the browser uses when it has it). A canvas may carry links (an
event's label, a person's box) to the wiki's pages; the PNG ignores them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol
from xml.sax.saxutils import escape, quoteattr

from PIL import Image, ImageDraw

from canon.render.drawing import font, png_bytes

Colour = tuple[int, int, int]
Point = tuple[int, int]
Rect = tuple[int, int, int, int]

#: The fonts the SVG names: the one the layout is measured with, then its look-alikes, then the generic family.
FONT_FAMILY = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif"

#: How Pillow's text anchors translate into SVG's (horizontal, vertical).
_ANCHORS = {
    "l": "start",
    "m": "middle",
    "r": "end",
}
_BASELINES = {"a": "text-before-edge", "m": "central", "b": "text-after-edge", "s": "alphabetic"}


class Canvas(Protocol):
    """The drawing calls a picture makes (coordinates in pixels, colours as RGB)."""

    def text(
        self, xy: Point, text: str, *, size: int, fill: Colour, bold: bool = False, anchor: str = "la"
    ) -> None: ...

    def line(self, points: Sequence[Point], *, fill: Colour, width: int = 1) -> None: ...

    def rectangle(
        self,
        rect: Rect,
        *,
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: int = 1,
        radius: int = 0,
    ) -> None: ...

    def ellipse(self, rect: Rect, *, fill: Colour, outline: Colour | None = None) -> None: ...

    def linked(self, href: str | None) -> AbstractContextManager[None]: ...


class PngCanvas:
    """A canvas of pixels (Pillow); links are not drawn."""

    def __init__(self, width: int, height: int, background: Colour) -> None:
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self, xy: Point, text: str, *, size: int, fill: Colour, bold: bool = False, anchor: str = "la"
    ) -> None:
        self.draw.text(xy, text, fill=fill, font=font(size, bold=bold), anchor=anchor)

    def line(self, points: Sequence[Point], *, fill: Colour, width: int = 1) -> None:
        self.draw.line(list(points), fill=fill, width=width)

    def rectangle(
        self,
        rect: Rect,
        *,
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: int = 1,
        radius: int = 0,
    ) -> None:
        if radius:
            self.draw.rounded_rectangle(rect, radius=radius, fill=fill, outline=outline, width=width)
        else:
            self.draw.rectangle(rect, fill=fill, outline=outline, width=width)

    def ellipse(self, rect: Rect, *, fill: Colour, outline: Colour | None = None) -> None:
        self.draw.ellipse(rect, fill=fill, outline=outline)

    @contextmanager
    def linked(self, href: str | None) -> Iterator[None]:
        yield

    def png(self) -> bytes:
        """Return the picture as PNG bytes."""
        return png_bytes(self.image)


def _colour(colour: Colour | None) -> str:
    return "none" if colour is None else "#{:02x}{:02x}{:02x}".format(*colour)


class SvgCanvas:
    """A canvas written as an SVG document (text escaped, nothing executable, nothing fetched)."""

    def __init__(self, width: int, height: int, background: Colour, title: str) -> None:
        self.width, self.height = width, height
        self.parts: list[str] = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT_FAMILY}">',
            f"<title>{escape(title)}</title>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="{_colour(background)}"/>',
        ]

    def text(
        self, xy: Point, text: str, *, size: int, fill: Colour, bold: bool = False, anchor: str = "la"
    ) -> None:
        horizontal, vertical = anchor[0], anchor[1]
        weight = ' font-weight="bold"' if bold else ""
        self.parts.append(
            f'<text x="{xy[0]}" y="{xy[1]}" font-size="{size}"{weight} fill="{_colour(fill)}" '
            f'text-anchor="{_ANCHORS[horizontal]}" dominant-baseline="{_BASELINES[vertical]}">'
            f"{escape(text)}</text>"
        )

    def line(self, points: Sequence[Point], *, fill: Colour, width: int = 1) -> None:
        path = " ".join(f"{x},{y}" for x, y in points)
        self.parts.append(
            f'<polyline points="{path}" fill="none" stroke="{_colour(fill)}" stroke-width="{width}"/>'
        )

    def rectangle(
        self,
        rect: Rect,
        *,
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: int = 1,
        radius: int = 0,
    ) -> None:
        x0, y0, x1, y1 = rect
        rounded = f' rx="{radius}"' if radius else ""
        stroke = f' stroke="{_colour(outline)}" stroke-width="{width}"' if outline is not None else ""
        self.parts.append(
            f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}"{rounded} '
            f'fill="{_colour(fill)}"{stroke}/>'
        )

    def ellipse(self, rect: Rect, *, fill: Colour, outline: Colour | None = None) -> None:
        x0, y0, x1, y1 = rect
        stroke = f' stroke="{_colour(outline)}"' if outline is not None else ""
        self.parts.append(
            f'<ellipse cx="{(x0 + x1) / 2:g}" cy="{(y0 + y1) / 2:g}" rx="{(x1 - x0) / 2:g}" '
            f'ry="{(y1 - y0) / 2:g}" fill="{_colour(fill)}"{stroke}/>'
        )

    @contextmanager
    def linked(self, href: str | None) -> Iterator[None]:
        """Make what is drawn inside a link to `href` (a page of the same site), when one is given."""
        if not href:
            yield
            return
        if not href.startswith("/") or href.startswith("//"):
            raise ValueError(f"a picture links only to pages of its own site, not {href!r}")
        self.parts.append(f"<a href={quoteattr(href)}>")
        try:
            yield
        finally:
            self.parts.append("</a>")

    def svg(self) -> str:
        """Return the SVG document."""
        return "\n".join([*self.parts, "</svg>"]) + "\n"
