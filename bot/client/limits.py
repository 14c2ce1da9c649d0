"""Discord's limits, in one place, and the pure functions that fit what the bot sends inside them.

The numbers are Discord's documented limits (its developer documentation: resources/message, components/
reference, interactions/receiving-and-responding, resources/webhook). Renderers cut long lists at whole lines
with "… and N more", split what cannot be cut into pages or files, and never count on Discord to refuse.
No Discord import here: the command line and the scheduler use these functions too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

#: Message content.
MESSAGE = 2000
#: Embeds: per field, per embed, and all the embeds of one message together.
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
EMBED_TOTAL = 6000
EMBEDS = 10
#: Components (legacy layout): rows, buttons a row, custom ids, labels, select menus.
ROWS = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
SELECT_OPTIONS = 25
SELECT_OPTION_TEXT = 100
PLACEHOLDER = 150
#: Modals: title, the Label around a field, text inputs.
MODAL_TITLE = 45
MODAL_LABEL = 45
MODAL_DESCRIPTION = 100
MODAL_PLACEHOLDER = 100
TEXT_INPUT = 4000
#: Autocomplete and option choices.
CHOICES = 25
CHOICE_NAME = 100
CHOICE_VALUE = 100
#: Files: how many a message carries, and the size of each unless the interaction says more.
FILES = 10
FILE_BYTES = 10 * 1024 * 1024
#: A webhook message's username.
WEBHOOK_NAME = 80
#: An interaction token's life: followups and edits of the answer after that fail.
TOKEN_SECONDS = 15 * 60

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """Return `text` cut to `limit` characters, ending with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + ELLIPSIS


def fit_lines(lines: Sequence[str], limit: int, *, more: str = "… and {n} more") -> str:
    """Join whole lines up to `limit` characters, ending with how many were left out (`more`, with `{n}`)."""
    joined = "\n".join(lines)
    if len(joined) <= limit:
        return joined
    shown: list[str] = []
    used = -1
    for line in lines:
        if used + 1 + len(line) > limit:
            break
        shown.append(line)
        used += 1 + len(line)
    while shown:
        text = "\n".join([*shown, more.format(n=len(lines) - len(shown))])
        if len(text) <= limit:
            return text
        shown.pop()
    # Not even the first line fits whole: cut it.
    tail = more.format(n=len(lines) - 1) if len(lines) > 1 else ""
    room = limit - (len(tail) + 1 if tail else 0)
    return "\n".join(part for part in (clip(lines[0], max(1, room)), tail) if part)[:limit]


def fit_inline(items: Sequence[str], limit: int, *, sep: str = ", ", more: str = " and {n} more") -> str:
    """Join items on one line up to `limit` characters, ending with how many were left out."""
    joined = sep.join(items)
    if len(joined) <= limit:
        return joined
    for count in range(len(items) - 1, 0, -1):
        text = sep.join(items[:count]) + more.format(n=len(items) - count)
        if len(text) <= limit:
            return text
    tail = more.format(n=len(items) - 1) if len(items) > 1 else ""
    return clip(items[0], max(1, limit - len(tail))) + tail if items else ""


def pages(lines: Iterable[str], limit: int = MESSAGE) -> list[str]:
    """Split lines into pages of at most `limit` characters each, never splitting a line that fits a page."""
    result: list[str] = []
    current: list[str] = []
    used = 0
    for line in lines:
        line = clip(line, limit)
        if current and used + 1 + len(line) > limit:
            result.append("\n".join(current))
            current, used = [], 0
        used += len(line) + (1 if current else 0)
        current.append(line)
    if current:
        result.append("\n".join(current))
    return result


def split_text_file(text: str, limit: int = FILE_BYTES) -> list[bytes]:
    """Split UTF-8 text into parts of at most `limit` bytes, at line ends where it can (a line longer than a
    part is cut at a character boundary)."""
    if limit < 4:
        raise ValueError("a part holds at least one character")
    data = text.encode("utf-8")
    if len(data) <= limit:
        return [data]
    parts: list[bytes] = []
    start = 0
    while start < len(data):
        end = min(start + limit, len(data))
        if end < len(data):
            newline = data.rfind(b"\n", start, end)
            if newline > start:
                end = newline + 1
            else:
                while end > start and (data[end] & 0xC0) == 0x80:  # not inside a UTF-8 sequence
                    end -= 1
        parts.append(data[start:end])
        start = end
    return parts


#: resources/webhook#create-webhook: a webhook's name cannot contain these (any case); resources/user: a
#: username cannot be "everyone" or "here".
_REFUSED_IN_NAMES = {"clyde": "clуde", "discord": "disсord"}
_REFUSED_NAMES = {"everyone": "еveryone", "here": "hеre"}


def webhook_username(name: str) -> str:
    """Return `name` as Discord accepts it for a webhook message's username, looking the same to readers.

    Discord refuses a name containing "clyde" or "discord" (in any case), one that is exactly "everyone" or
    "here", and one over 80 characters. One letter of such a word becomes its Cyrillic twin (у, с, е), which
    reads the same; a long name is cut with an ellipsis; an empty one becomes "Someone".
    """
    text = " ".join(name.split()) or "Someone"
    folded = text.casefold()
    for word, twin in _REFUSED_IN_NAMES.items():
        while (at := folded.find(word)) >= 0:
            original = text[at : at + len(word)]
            replaced = "".join(t.upper() if o.isupper() else t for o, t in zip(original, twin, strict=True))
            text = text[:at] + replaced + text[at + len(word) :]
            folded = text.casefold()
    if folded in _REFUSED_NAMES:
        twin = _REFUSED_NAMES[folded]
        text = "".join(t.upper() if o.isupper() else t for o, t in zip(text, twin, strict=True))
    return clip(text, WEBHOOK_NAME)
