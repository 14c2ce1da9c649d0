"""Evidence in words, as a person says it: "from the scene at the Lantern on 3 Frostmoot, said by Pat", "from the
lore files" (to the GM: "from characters.yaml, line 4"); the scene linked to its turns' messages where they are known.

What a scene's evidence can say depends on what the caller knows of the scene (`SceneWords`: its title, place
and date, who spoke each turn, a link to each turn's message); without it the evidence still reads in words
("from a scene"). Turn numbers, files and lines are the GM's, as small handles after the words. A player never
reads ids: not a proposal's, a source's or a chunk's, and not the GM's reason to accept a proposal despite
warnings (it may rest on GM-only canon).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from canon.models import Evidence, EvidenceKind, Viewer


@dataclass(frozen=True)
class TurnWords:
    """What a card may say of one turn: who spoke it, and a link to its message where one is known."""

    author: str | None = None
    url: str | None = None


#: The title a scene has when the GM gave none: no name to call it by.
UNTITLED = "Untitled scene"


@dataclass(frozen=True)
class SceneWords:
    """What a card may say of one scene: its number in the story, its title, its place, when it is set (in
    the calendar's words, after its preposition: "on 3 Frostmoot, year 363 of the Third Age") and its turns."""

    order: int
    title: str | None = None
    turns: Mapping[int, TurnWords] = field(default_factory=dict)
    place: str | None = None
    when: str | None = None

    def called(self, escape: Callable[[str], str]) -> str:
        """Return the scene as a person calls it: "the scene at the Lantern", "the scene “The march”"."""
        if self.place:
            return f"the scene at {escape(_short(self.place))}"
        if self.title and self.title != UNTITLED:
            return f"the scene “{escape(_short(self.title))}”"
        return f"scene {self.order}"


def _short(text: str, limit: int = 60) -> str:
    """Return a name cut to `limit` characters (evidence is one line among many)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# A decision's note as the gate writes it; the number may be another copy's after an archive is restored.
DECISION_NOTE = re.compile(r"Proposal #[0-9]+ by (?P<rest>.*)", re.S)
DESPITE = " despite warnings:"
# A GM command's note: "/canon add fact in #scene-1 by Gina" (players read who, not how).
COMMAND_NOTE = re.compile(r".+ by (?P<who>[^,]+)$", re.S)
# A promoted fact's note names the branch it came from, with ids only the GM reads.
BRANCH_NOTE = re.compile(r"branch “(?P<name>[^”]*)”")


#: Where imported structured lore comes from, as a player hears it: no file's name, which is the GM's (a name may
#: tell of a secret); the GM reads the file as imported ("from characters.yaml, line 4"). Prose of an imported
#: world bible is a source of its own (`EvidenceKind.CHUNK`).
LORE_FILES = "from the lore files"


def _identity(text: str) -> str:
    return text


def turns_words(
    evidence: Evidence,
    scenes: Mapping[int, SceneWords],
    *,
    escape: Callable[[str], str] = _identity,
    links: bool = False,
    viewer: Viewer = Viewer.PLAYER,
) -> str:
    """Return evidence from turns of a scene as a person says it: "from the scene at the Lantern on 3 Frostmoot,
    said by Pat" (the scene linked to its first cited message if asked); the GM also reads the turns' numbers,
    which `/propose` takes."""
    scene = scenes.get(evidence.scene_id) if evidence.scene_id is not None else None
    where = scene.called(escape) if scene is not None else "a scene"
    if scene is not None and scene.when:
        where += f" {scene.when}"
    if evidence.turn_from is None:
        return f"from {where}"
    first, last = evidence.turn_from, evidence.turn_to or evidence.turn_from
    known = scene.turns if scene is not None else {}
    url = next(
        (known[n].url for n in range(first, min(last, first + 50) + 1) if n in known and known[n].url), None
    )
    if links and url:
        where = f"[{where}]({url})"
    authors: list[str] = []
    for number in range(first, min(last, first + 50) + 1):
        author = known[number].author if number in known else None
        if author and author not in authors:
            authors.append(author)
    by = ""
    if authors:
        names = [escape(a) for a in authors]
        by = ", said by " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0])
    note = f" ({escape(evidence.note)})" if evidence.note else ""  # e.g. the roll that resolved it
    handle = ""
    if viewer == Viewer.GM:
        handle = f" (turn {first})" if first == last else f" (turns {first}–{last})"
    return f"from {where}{by}{note}{handle}"


def by_scene(evidence: Sequence[Evidence]) -> list[Evidence]:
    """Return evidence with the turns of each scene said once: one piece from its first to its last turn cited,
    the others (a roll that resolved it, with its note) as they are, in their order."""
    merged: dict[int, Evidence] = {}
    out: list[Evidence] = []
    for item in evidence:
        if item.kind != EvidenceKind.TURNS or item.scene_id is None or item.turn_from is None or item.note:
            out.append(item)
            continue
        seen = merged.get(item.scene_id)
        if seen is None:
            merged[item.scene_id] = item
            out.append(item)
            continue
        first = seen.turn_from if seen.turn_from is not None else item.turn_from
        span = seen.model_copy(
            update={
                "turn_from": min(first, item.turn_from),
                "turn_to": max(seen.turn_to or first, item.turn_to or item.turn_from),
            }
        )
        out[out.index(seen)] = span
        merged[item.scene_id] = span
    return out


def evidence_words(
    evidence: Evidence,
    viewer: Viewer,
    scenes: Mapping[int, SceneWords] | None = None,
    *,
    escape: Callable[[str], str] = _identity,
    links: bool = False,
) -> str:
    """Return one piece of evidence in words for a viewer; user text in it passes through `escape`."""
    match evidence.kind:
        case EvidenceKind.TURNS:
            return turns_words(evidence, scenes or {}, escape=escape, links=links, viewer=viewer)
        case EvidenceKind.YAML:
            if viewer != Viewer.GM or not evidence.file:  # the file and line help the one who fixes the file
                return LORE_FILES
            where = f"{evidence.file}, line {evidence.line}" if evidence.line else f"{evidence.file}"
            return f"from {escape(where)}"
        case EvidenceKind.CHUNK:
            if viewer != Viewer.GM:
                return "an imported source"
            if evidence.note:  # where in the book: "Basic Rules, p. 112 (Combat › Cover)"
                return escape(evidence.note)
            return f"an imported source (source {evidence.source_id})"
        case EvidenceKind.BRANCH:
            branch = BRANCH_NOTE.match(evidence.note or "")
            if viewer == Viewer.GM or branch is None:
                return escape(evidence.note or "another story of this world")
            return "carried over from the story “" + escape(branch["name"]) + "”"
    decision = DECISION_NOTE.match(evidence.note or "")
    if decision is not None:
        rest = decision["rest"]
        if viewer != Viewer.GM:
            rest = rest.split(DESPITE, 1)[0]
        return escape(f"proposed by {rest}")
    command = COMMAND_NOTE.match(evidence.note or "")
    if command is not None and viewer != Viewer.GM:
        return escape(f"added by {command['who']}")
    return escape(evidence.note or "written by the GM")
