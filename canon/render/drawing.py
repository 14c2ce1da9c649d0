"""What every picture is drawn with: fonts, text that fits a width, the colours, and the `Picture` returned."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import cache, lru_cache

from PIL import Image, ImageFont

from canon.render.layouts import TimelineLayout, TreeLayout

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

BACKGROUND = (252, 250, 245)
INK = (40, 36, 32)
MUTED = (110, 104, 96)
BOX_FILL = (236, 229, 214)
BOX_BORDER = (92, 72, 48)
FOCUS_FILL = (250, 224, 160)
# A GM-only person on the GM's family tree: a grey-violet box, tagged, and explained in a legend.
HIDDEN_FILL = (214, 206, 228)
HIDDEN_TAG = (96, 72, 128)
LINE = (92, 72, 48)
BAND_COLOURS = (
    (200, 222, 240),
    (214, 232, 206),
    (244, 220, 200),
    (228, 212, 238),
    (240, 236, 196),
    (206, 232, 230),
)
MARKER = (160, 48, 40)

#: The widest picture Discord shows at its own size in a message: every picture is drawn for this width, so
#: its smallest text (12 px) is read as drawn, never scaled down.
SHOWN_WIDTH = 550
#: The smallest text any picture draws, in pixels (names, dates, labels, ticks).
SMALLEST_TEXT = 12

MAX_TREE_PEOPLE = 150
MAX_TIMELINE_EVENTS = 120
MAX_WIDTH = 12_000

MARGIN, TITLE_H = 28, 54


@cache
def font(size: int, *, bold: bool = False) -> Font:
    """Return DejaVu Sans at a size (bold if asked), else Pillow's own scalable default font."""
    names = ("DejaVuSans-Bold.ttf",) if bold else ("DejaVuSans.ttf",)
    for name in (*names, "DejaVuSans.ttf"):
        for candidate in (name, f"/usr/share/fonts/truetype/dejavu/{name}"):
            try:
                return ImageFont.truetype(candidate, size)
            except OSError:
                continue
    return ImageFont.load_default(size)


@lru_cache(maxsize=65_536)
def text_width(text: str, typeface: Font) -> int:
    """Return the width of a text in pixels (remembered: a timeline measures its labels again and again)."""
    left, _, right, _ = typeface.getbbox(text)
    return math.ceil(right - left)


def wrap(text: str, typeface: Font, width: int, most: int = 3) -> list[str]:
    """Return `text` in lines of at most `width` pixels (at most `most`, the last shortened with an ellipsis)."""
    lines: list[str] = []
    current = ""
    words = text.split()
    for index, word in enumerate(words):
        trial = f"{current} {word}".strip()
        if current and text_width(trial, typeface) > width:
            if len(lines) == most - 1:
                return [*lines, fit(" ".join([current, *words[index:]]), typeface, width)]
            lines.append(current)
            current = word
        else:
            current = trial
    return [*lines, fit(current, typeface, width)] if current else lines


def fit(text: str, typeface: Font, width: int) -> str:
    """Return `text`, or as much of it as fits in `width` pixels followed by an ellipsis."""
    if text_width(text, typeface) <= width:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if text_width(text[:middle].rstrip() + "…", typeface) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


@dataclass(frozen=True)
class Picture:
    """A rendered picture: PNG bytes, the layout it was drawn from, and a title for the message."""

    png: bytes
    layout: TreeLayout | TimelineLayout
    title: str
    #: The name of the person or lineage a family tree is drawn for (its page's name; empty for a timeline).
    subject: str = ""
