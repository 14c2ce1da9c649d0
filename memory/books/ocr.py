"""OCR: the pictures on a PDF's pages without text read by Tesseract, as lines placed on the page.

A scanned page is a picture of text drawn on the page. Each picture large enough to hold text is decoded (pypdf,
Pillow), brought to about 300 dots an inch, and given to the Tesseract program, which answers in hOCR: every line
with its box, its baseline and its type size. The lines are placed back on the page through the picture's
placement, so the PDF reader lays them out as it lays out a text layer (two columns, running heads dropped,
headings by type size) and cites their page as it cites any other.

Tesseract runs as a program of its own, once a page, never inside this process: with no shell, its input on a
pipe, one thread, a memory ceiling, a lower priority and a deadline past which it is stopped. A picture is
measured before it is decoded, so a picture of billions of pixels is skipped, not unpacked. Nothing here fetches
anything; the language data is what the host installed.
"""

from __future__ import annotations

import functools
import io
import math
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from PIL import Image

from memory.books.models import OcrOptions

__all__ = ["OcrLine", "Placement", "read_page", "unavailable"]

#: The resolution Tesseract reads best at; pictures far from it are scaled to it.
_DPI = 300
_DPI_KEPT = (200, 450)
#: A picture covering less of the page than this is a figure or an ornament, not a scanned page.
_MIN_SHARE = 0.04
#: A word Tesseract is less sure of than this (0-100) is noise: a smudge, a picture's edge.
_MIN_CONFIDENCE = 20
_LINE_CLASSES = {"ocr_line", "ocr_header", "ocr_textfloat", "ocr_caption"}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class OcrLine:
    """A line read from a picture, in the page's coordinates: left edge, baseline, type size, words."""

    x: float
    y: float
    size: float
    text: str


#: A picture drawn on a page: its name in the page's resources and the matrix placing it.
Placement = tuple[str, Sequence[float]]


@functools.lru_cache(maxsize=8)
def unavailable(command: str, language: str) -> str | None:
    """Return why OCR cannot run here (a sentence's end), or None when Tesseract and the language are there."""
    path = shutil.which(command)
    if path is None:
        return "Tesseract, the OCR program, is not installed where this bot runs"
    try:
        listed = subprocess.run(  # noqa: S603 - the host's own program, no shell, fixed arguments
            [path, "--list-langs"], capture_output=True, timeout=30, text=True, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "Tesseract, the OCR program, does not start where this bot runs"
    installed = {line.strip() for line in (listed.stdout + listed.stderr).splitlines()}
    missing = [part for part in language.split("+") if part not in installed]
    if missing:
        return (
            f"Tesseract has no language data for {', '.join(missing)} installed "
            f"(the Debian package tesseract-ocr-{missing[0]})"
        )
    return None


def read_page(
    page: object, placements: Sequence[Placement], options: OcrOptions, seconds: float
) -> list[OcrLine]:
    """Return the lines Tesseract reads on a page's pictures, within `seconds` (`TimeoutError` past them)."""
    box = page.mediabox  # type: ignore[attr-defined]
    area = max(float(box.width) * float(box.height), 1.0)
    lines: list[OcrLine] = []
    # One deadline for the page's pictures together: a page may draw a picture any number of times.
    until = time.monotonic() + seconds
    for name, matrix in placements:
        a, b, c, d, e, f = (float(v) for v in matrix[:6])
        width, height = math.hypot(a, b), math.hypot(c, d)
        if width * height < area * _MIN_SHARE:
            continue
        picture = _picture(page, name, options.max_pixels)
        if picture is None:
            continue
        picture, dpi = _scaled(picture, width, options.max_pixels)
        left = until - time.monotonic()
        if left <= 0:
            raise TimeoutError
        hocr = _tesseract(_png(picture), dpi, options, left)
        w, h = picture.size
        for x, y, size, text in _HocrLines.read(hocr):
            u, v = x / w, 1 - y / h
            lines.append(OcrLine(a * u + c * v + e, b * u + d * v + f, round(size * height / h), text))
    return lines


def _picture(page: object, name: str, max_pixels: int) -> Image.Image | None:
    """Return a picture of the page as a greyscale Pillow image, or None (not a picture, too large, unreadable)."""
    try:
        resources = page["/Resources"].get_object()  # type: ignore[index]
        xobject = resources["/XObject"].get_object()[name].get_object()
        if xobject.get("/Subtype") != "/Image":
            return None
        if int(xobject.get("/Width", 0)) * int(xobject.get("/Height", 0)) > max_pixels:
            return None  # measured before decoding: never unpacked
        image: Image.Image | None = page.images[name].image  # type: ignore[attr-defined]
    except Exception:  # a picture that does not decode is skipped; the page may hold others
        return None
    if image is None:
        return None
    return image.convert("L")


def _scaled(picture: Image.Image, width_points: float, max_pixels: int) -> tuple[Image.Image, int]:
    """Return the picture at about 300 dots an inch (kept as it is between 200 and 450) and its resolution."""
    w, h = picture.size
    dpi = w / max(width_points / 72, 0.01)
    if _DPI_KEPT[0] <= dpi <= _DPI_KEPT[1]:
        return picture, round(dpi)
    factor = min(_DPI / dpi, math.sqrt(max_pixels / max(w * h, 1)))
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return picture.resize(size, Image.Resampling.LANCZOS), round(dpi * factor)


def _png(picture: Image.Image) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return buffer.getvalue()


def _bounded(options: OcrOptions, seconds: float) -> Callable[[], None]:
    """Return what the Tesseract process runs before it starts: its memory and CPU ceilings, a lower priority."""

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (options.memory_bytes, options.memory_bytes))
        cpu = math.ceil(seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        os.nice(10)

    return limit


def _tesseract(png: bytes, dpi: int, options: OcrOptions, seconds: float) -> str:
    """Return Tesseract's hOCR of one picture; `TimeoutError` past `seconds` (the program is stopped)."""
    path = shutil.which(options.command) or options.command
    environment = {"PATH": os.environ.get("PATH", ""), "OMP_THREAD_LIMIT": "1"}
    if "TESSDATA_PREFIX" in os.environ:
        environment["TESSDATA_PREFIX"] = os.environ["TESSDATA_PREFIX"]
    arguments = [path, "stdin", "stdout", "-l", options.language, "--dpi", str(dpi), "--psm", "3", "hocr"]
    try:
        done = subprocess.run(  # noqa: S603 - the host's own program, no shell, fixed arguments
            arguments,
            input=png,
            capture_output=True,
            timeout=max(seconds, 1.0),
            env=environment,
            preexec_fn=_bounded(options, seconds),  # the worker process runs no threads
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError from None
    except OSError:
        return ""
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


class _HocrLines(HTMLParser):
    """Tesseract's hOCR read into lines: (left, baseline, type size, words), in the picture's pixels.

    A line whose words stand far apart (a table's row, read by Tesseract as one line) gives a piece a cell, so the
    PDF reader finds the cells as it finds them in a text layer.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[float, float, float, str]] = []
        self.stack: list[str] = []
        self.line: tuple[float, float] | None = None
        self.size = 0.0
        self.words: list[tuple[float, float, str]] = []
        self.word: list[str] | None = None
        self.box: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def read(cls, hocr: str) -> list[tuple[float, float, float, str]]:
        parser = cls()
        parser.feed(hocr)
        parser.close()
        return parser.lines

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        kind = (found.get("class") or "").strip()
        title = _title(found.get("title") or "")
        self.stack.append(kind)
        box = title.get("bbox", [])
        if kind in _LINE_CLASSES and len(box) == 4:
            baseline = title.get("baseline", [0.0, 0.0])
            self.size = (title.get("x_size") or [box[3] - box[1]])[0]
            self.line = (box[0], box[3] + (baseline[1] if len(baseline) > 1 else 0.0))
            self.words = []
        elif kind == "ocrx_word" and self.line is not None and len(box) == 4:
            confidence = (title.get("x_wconf") or [100.0])[0]
            self.word = [] if confidence >= _MIN_CONFIDENCE else None
            self.box = (box[0], box[2])

    def handle_endtag(self, tag: str) -> None:
        if not self.stack:
            return
        kind = self.stack.pop()
        if kind == "ocrx_word" and self.word is not None:
            word = "".join(self.word).strip()
            if word:
                self.words.append((*self.box, word))
            self.word = None
        elif kind in _LINE_CLASSES and self.line is not None:
            self._cells()
            self.line = None

    def _cells(self) -> None:
        """Add the line's words as pieces: a new piece where the gap between two words is a cell's."""
        assert self.line is not None
        piece: list[tuple[float, float, str]] = []
        for word in [*self.words, None]:
            if piece and (word is None or word[0] - piece[-1][1] > self.size * 1.5):
                text = " ".join(w[2] for w in piece)
                if any(ch.isalnum() for ch in text):
                    self.lines.append((piece[0][0], self.line[1], self.size, text))
                piece = []
            if word is not None:
                piece.append(word)

    def handle_data(self, data: str) -> None:
        if self.word is not None:
            self.word.append(data)


def _title(title: str) -> dict[str, list[float]]:
    """Return an hOCR title's properties: `bbox 1 2 3 4; x_size 40` -> {"bbox": [1, 2, 3, 4], "x_size": [40]}."""
    found: dict[str, list[float]] = {}
    for part in title.split(";"):
        words = part.split()
        if words:
            found[words[0]] = [float(n) for n in _NUMBER.findall(" ".join(words[1:]))]
    return found
