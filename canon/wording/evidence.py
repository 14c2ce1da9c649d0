"""Evidence in words: "said in scene 1, turns 12-15, by Pat", linked to the turns where their messages are known.

What a scene's evidence can say depends on what the caller knows of the scene (`SceneWords`: its place in the
story, who spoke each turn, a link to each turn's message); without it the evidence still reads in words
("said in a scene, turn 4"). A player never reads ids: not a proposal's, a source's or a chunk's, and not the
GM's reason to accept a proposal despite warnings (it may rest on GM-only canon).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from canon.models import Evidence, EvidenceKind, Viewer


@dataclass(frozen=True)
class TurnWords:
    """What a card may say of one turn: who spoke it, and a link to its message where one is known."""

    author: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class SceneWords:
    """What a card may say of one scene: its number in the story, its title and its turns by number."""

    order: int
    title: str | None = None
    turns: Mapping[int, TurnWords] = field(default_factory=dict)


# A decision's note as the gate writes it; the number may be another copy's after an archive is restored.
DECISION_NOTE = re.compile(r"Proposal #[0-9]+ by (?P<rest>.*)", re.S)
DESPITE = " despite warnings:"
# A GM command's note: "/canon add fact in #scene-1 by Gina" (players read who, not how).
COMMAND_NOTE = re.compile(r".+ by (?P<who>[^,]+)$", re.S)
# A promoted fact's note names the branch it came from, with ids only the GM reads.
BRANCH_NOTE = re.compile(r"branch “(?P<name>[^”]*)”")


def _identity(text: str) -> str:
    return text


def turns_words(
    evidence: Evidence,
    scenes: Mapping[int, SceneWords],
    *,
    escape: Callable[[str], str] = _identity,
    links: bool = False,
) -> str:
    """Return evidence from turns of a scene: "said in scene 1, turns 12–15, by Pat" (with links if asked)."""
    scene = scenes.get(evidence.scene_id) if evidence.scene_id is not None else None
    where = f"scene {scene.order}" if scene is not None else "a scene"
    if evidence.turn_from is None:
        return f"said in {where}"
    first, last = evidence.turn_from, evidence.turn_to or evidence.turn_from
    known = scene.turns if scene is not None else {}

    def turn(number: int, label: str) -> str:
        url = known[number].url if number in known else None
        return f"[{label}]({url})" if links and url else label

    said = (
        turn(first, f"turn {first}")
        if first == last
        else f"turns {turn(first, str(first))}–{turn(last, str(last))}"
    )
    authors: list[str] = []
    for number in range(first, min(last, first + 50) + 1):
        author = known[number].author if number in known else None
        if author and author not in authors:
            authors.append(author)
    by = ""
    if authors:
        names = [escape(a) for a in authors]
        by = " by " + (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0])
    note = f" ({escape(evidence.note)})" if evidence.note else ""  # e.g. the roll that resolved it
    return f"said in {where}, {said}{by}{note}"


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
            return turns_words(evidence, scenes or {}, escape=escape, links=links)
        case EvidenceKind.YAML:
            return escape(f"{evidence.file}, line {evidence.line}" if evidence.line else f"{evidence.file}")
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
