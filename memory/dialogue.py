"""Dialogue files: who said what, when and where, read into lines for a scene. Pure: no I/O, no database.

Three formats, each read strictly (a problem names its line):

YAML (`.yaml`/`.yml` with a top-level `dialogue:`)::

    title: At the Drowsy Ferret        # optional
    date: 3rd_age.year_340             # optional, the in-fiction date (a calendar date or plain text)
    location: Mardsville               # optional
    dialogue:
      - speaker: Mira
        line: Welcome in, stranger.
      - speaker: Kestrel
        line: A room, and no questions.
        date: 3rd_age.year_340.month_3   # optional, per line
        location: the cellar             # optional, per line

Markdown script (`.md`/`.txt` whose first heading is followed by `Kind: dialogue`, or given as dialogue)::

    # At the Drowsy Ferret
    Kind: dialogue
    Date: 3rd_age.year_340
    Location: Mardsville

    **Mira:** Welcome in, stranger.
    Kestrel: A room, and no questions.
    *At the harbour, 3rd_age.year_341:*       (a stage line: where and when the next lines happen)

A scene transcript export (`# Scene 3: Title`, `Location: ...`, then `**12. Name (npc)** 20:15:02` and the text
below), as `/scene transcript` writes it: deleted turns are left out.

Lines are data, never instructions: they become turns exactly as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from canon.errors import InvalidInput
from canon.yaml_errors import syntax_problem

MAX_LINES = 20_000
MAX_LINE = 4000
SPEAKER_MAX = 100


@dataclass(frozen=True)
class DialogueLine:
    """One line: who said it, the text, and (when it changes) when and where."""

    speaker: str
    text: str
    line: int
    date: str | None = None
    location: str | None = None
    kind: str | None = None  # the transcript's speaker kind (npc, gm, narrator), when it says


@dataclass(frozen=True)
class DialogueScript:
    """A dialogue: its title, in-fiction date and place, and its lines in order."""

    title: str
    date: str | None
    location: str | None
    lines: tuple[DialogueLine, ...] = field(default_factory=tuple)


def is_dialogue(filename: str, data: bytes) -> bool:
    """Tell whether a file is a dialogue: a YAML file with `dialogue:`, a script with `Kind: dialogue`, or a
    scene transcript export."""
    head = data[:4096].decode("utf-8", errors="replace")
    if filename.lower().endswith((".yaml", ".yml")):
        return re.search(r"^dialogue:", head, re.M) is not None
    return (
        re.search(r"^kind:\s*dialogue\s*$", head, re.M | re.I) is not None
        or re.match(r"# Scene \d+: .+\n", head) is not None
    )


def parse_dialogue(filename: str, data: bytes) -> DialogueScript:
    """Read a dialogue file (see the module docstring); `InvalidInput` names the first problem's line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidInput(f"{filename} is not UTF-8 text (byte {error.start}).") from None
    if filename.lower().endswith((".yaml", ".yml")):
        script = _from_yaml(filename, text)
    elif re.match(r"# Scene \d+: .+\n", text):
        script = _from_transcript(filename, text)
    else:
        script = _from_markdown(filename, text)
    if not script.lines:
        raise InvalidInput(f"{filename} holds no line of dialogue: nothing to import.")
    if len(script.lines) > MAX_LINES:
        raise InvalidInput(
            f"{filename} has {len(script.lines):,} lines; a dialogue may have {MAX_LINES:,} at most."
        )
    return script


def _check(filename: str, number: int, speaker: str, text: str) -> tuple[str, str]:
    speaker, text = " ".join(speaker.split()), text.strip()
    if not speaker or len(speaker) > SPEAKER_MAX:
        raise InvalidInput(f"{filename}, line {number}: a speaker's name is 1 to {SPEAKER_MAX} characters.")
    if not text:
        raise InvalidInput(f"{filename}, line {number}: {speaker} says nothing.")
    if len(text) > MAX_LINE:
        raise InvalidInput(f"{filename}, line {number}: a line is at most {MAX_LINE:,} characters.")
    return speaker, text


def _from_yaml(filename: str, text: str) -> DialogueScript:
    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        found = syntax_problem(error, text)
        raise InvalidInput(f"{filename}, line {found.line}: {found.message}.") from None
    if not isinstance(root, yaml.MappingNode):
        raise InvalidInput(f"{filename}: a dialogue file is a mapping with `dialogue:` (a list of lines).")
    top: dict[str, yaml.Node] = {}
    for key, value in root.value:
        name = str(key.value)
        if name not in ("title", "date", "location", "dialogue", "kind"):
            raise InvalidInput(
                f"{filename}, line {key.start_mark.line + 1}: unknown field “{name}”; a dialogue file has "
                "title, date, location and dialogue"
            )
        top[name] = value
    items = top.get("dialogue")
    if not isinstance(items, yaml.SequenceNode):
        raise InvalidInput(f"{filename}: `dialogue:` must be a list of lines (speaker and line).")
    lines: list[DialogueLine] = []
    for item in items.value:
        number = item.start_mark.line + 1
        if not isinstance(item, yaml.MappingNode):
            raise InvalidInput(f"{filename}, line {number}: a line is a mapping with speaker and line.")
        fields = {str(k.value): v for k, v in item.value}
        unknown = set(fields) - {"speaker", "line", "date", "location"}
        if unknown:
            raise InvalidInput(
                f"{filename}, line {number}: unknown field “{sorted(unknown)[0]}”; a line has speaker, line, "
                "date and location"
            )
        values = {k: _scalar(filename, v) for k, v in fields.items()}
        speaker, said = _check(filename, number, values.get("speaker") or "", values.get("line") or "")
        lines.append(DialogueLine(speaker, said, number, values.get("date"), values.get("location")))
    title = _scalar(filename, top["title"]) if "title" in top else None
    date = _scalar(filename, top["date"]) if "date" in top else None
    location = _scalar(filename, top["location"]) if "location" in top else None
    return DialogueScript(title or _stem(filename), date, location, tuple(lines))


def _scalar(filename: str, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise InvalidInput(
            f"{filename}, line {node.start_mark.line + 1}: expected text, not a list or mapping."
        )
    return str(node.value)


_SPOKEN = re.compile(
    r"^\s*(?:\*\*(?P<bold>[^*:\n]{1,100}):\*\*|(?P<plain>[^\s*:#>\-][^:\n]{0,99}):)\s+(?P<text>.+)$"
)
_STAGE = re.compile(r"^\s*\*(?P<stage>[^*\n]+):?\*\s*$")
_HEADER = re.compile(r"^(?P<key>kind|date|location|title):\s*(?P<value>.+?)\s*$", re.I)


def _from_markdown(filename: str, text: str) -> DialogueScript:
    title, date, location = None, None, None
    lines: list[DialogueLine] = []
    here_date, here_place = None, None
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        if raw.startswith("# ") and title is None and not lines:
            title = raw[2:].strip()
            continue
        header = _HEADER.match(raw)
        if header is not None and not lines:
            key, value = header["key"].lower(), header["value"]
            if key == "date":
                date = value
            elif key == "location":
                location = value
            elif key == "title":
                title = value
            continue
        stage = _STAGE.match(raw)
        if stage is not None:
            here_place, here_date = _stage(stage["stage"])
            continue
        spoken = _SPOKEN.match(raw)
        if spoken is None:
            raise InvalidInput(
                f"{filename}, line {number}: expected a line like `Mira: Welcome in.` or `**Mira:** Welcome in.`"
            )
        speaker, said = _check(filename, number, spoken["bold"] or spoken["plain"], spoken["text"])
        lines.append(DialogueLine(speaker, said, number, here_date, here_place))
        here_date, here_place = None, None
    return DialogueScript(title or _stem(filename), date, location, tuple(lines))


def _stage(text: str) -> tuple[str | None, str | None]:
    """Return (place, date) of a stage line like `At the harbour, 3rd_age.year_341`."""
    where, _, date = text.strip().rstrip(":").partition(",")
    place = re.sub(r"^(?:at|in|on)\s+", "", where.strip(), flags=re.I)
    return place or None, date.strip() or None


_TURN = re.compile(
    r"^\*\*\d+\. (?P<name>.+?)(?: \((?P<kind>gm|npc|narrator)\))?\*\* \d\d:\d\d:\d\d(?P<marks> \[.*\])?$"
)


def _from_transcript(filename: str, text: str) -> DialogueScript:
    rows = text.splitlines()
    title = re.sub(r"^# Scene \d+: ", "", rows[0]).strip()
    location = None
    lines: list[DialogueLine] = []
    current: tuple[str, str | None, int, bool] | None = None
    body: list[str] = []

    def flush() -> None:
        if current is not None and not current[3] and "\n".join(body).strip():
            name, kind, number, _ = current
            speaker, said = _check(filename, number, name, "\n".join(body))
            lines.append(DialogueLine(speaker, said, number, kind=kind))

    for number, raw in enumerate(rows[1:], 2):
        if raw.startswith("Location: ") and current is None:
            location = raw[len("Location: ") :].strip()
            continue
        turn = _TURN.match(raw)
        if turn is not None:
            flush()
            deleted = "deleted" in (turn["marks"] or "")
            current, body = (turn["name"], turn["kind"], number, deleted), []
            continue
        if current is not None and not raw.startswith(("[attachment: ", "[embed: ", "*(message deleted)*")):
            body.append(raw)
    flush()
    return DialogueScript(title or _stem(filename), None, location, tuple(lines))


def _stem(filename: str) -> str:
    name = filename.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0].replace("_", " ").replace("-", " ").strip() or "Imported dialogue"
