"""Context assembly under a token budget: what the narrator (or an NPC) is shown, in what order, and what is cut.

The seed's priorities, as an algorithm (`assemble`):

1. Every section states how many tokens it is guaranteed (`reserve`). Reserves are granted first, in priority
   order: hard canon rules first (up to their reserve), then the current state of the entities present, whose
   reserved room nothing else can take, so it is never crowded out by lore, memories or a long transcript.
2. What is left of the budget is then filled in priority order: hard canon rules first, then hidden canon (GM
   steering), the state beyond its reserve, recent turns, Canon passages, NPC memories, Reference passages,
   and Inspiration last, so Inspiration is the first thing dropped when the budget is short.
3. Items are whole (a fact, a turn, a passage, a memory). An item that does not fit is dropped and recorded
   as dropped (the GM's Context view shows it), except the first item of a section, which is cut to fit
   rather than leave the section empty. Turns are kept newest first and shown in story order.

Every section body is framed as untrusted data (`memory.untrusted`): canon values, turns, passages and memories
all began as someone's text. Section titles stand outside the frame, so they are fixed wording, never data.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from memory.tokens import count_tokens, truncate_to_tokens
from memory.untrusted import frame_untrusted

__all__ = [
    "PRIORITY",
    "AssembledContext",
    "AssembledSection",
    "ContextItem",
    "ContextSection",
    "SectionKind",
    "assemble",
]

# Tokens a section's heading and frame markers cost, charged before its items.
SECTION_OVERHEAD = 40
# A first item is cut to fit only when at least this many tokens are left for it.
MIN_CUT_TOKENS = 40


class SectionKind(enum.StrEnum):
    """What a section of the context holds; the order of `PRIORITY` is the order sections are filled in."""

    RULES = "rules"
    SECRETS = "secrets"
    STATE = "state"
    TURNS = "turns"
    CANON = "lore_canon"
    MEMORIES = "memories"
    REFERENCE = "lore_reference"
    INSPIRATION = "lore_inspiration"


PRIORITY: tuple[SectionKind, ...] = tuple(SectionKind)


class ContextItem(BaseModel):
    """One piece of context: its text, its size in tokens, and what it is (`ref`, e.g. `chunk:12`)."""

    model_config = ConfigDict(frozen=True)

    text: str
    tokens: int
    ref: str | None = None

    @classmethod
    def of(cls, text: str, ref: str | None = None) -> ContextItem:
        """Return an item with its tokens counted."""
        return cls(text=text, tokens=count_tokens(text), ref=ref)


class ContextSection(BaseModel):
    """A section to assemble: its items in order of relevance (turns: in story order) and its reserve."""

    model_config = ConfigDict(frozen=True)

    kind: SectionKind
    #: Prompt text outside the data frame: fixed wording from the code, never a name or anything else of data.
    title: str
    items: tuple[ContextItem, ...] = ()
    reserve: int = Field(default=0, ge=0)
    #: Keep the newest items when cutting (turns); items are then given oldest first.
    keep_newest: bool = False


class AssembledSection(BaseModel):
    """A section as it went into the prompt: the items kept and the items dropped for want of room."""

    model_config = ConfigDict(frozen=True)

    kind: SectionKind
    title: str
    items: tuple[ContextItem, ...]
    dropped: tuple[ContextItem, ...] = ()
    truncated: bool = False

    @property
    def tokens(self) -> int:
        """Return the tokens of the kept items."""
        return sum(item.tokens for item in self.items)

    def render(self) -> str:
        """Return the section as prompt text: a heading and its items inside one data frame."""
        body = "\n".join(f"- {item.text}" for item in self.items)
        return f"## {self.title}\n{frame_untrusted(self.kind.value, body)}"


class AssembledContext(BaseModel):
    """The context of one reply: kept and dropped items per section, the budget and what was used."""

    model_config = ConfigDict(frozen=True)

    budget: int
    used: int
    sections: tuple[AssembledSection, ...]

    def section(self, kind: SectionKind) -> AssembledSection | None:
        """Return one section, if it is there."""
        return next((s for s in self.sections if s.kind == kind), None)

    def render(self) -> str:
        """Return every non-empty section as prompt text, in priority order."""
        return "\n\n".join(s.render() for s in self.sections if s.items)


class _Fill:
    """The items being chosen for one section."""

    def __init__(self, section: ContextSection) -> None:
        self.section = section
        order = list(section.items)
        self.pending: list[tuple[int, ContextItem]] = list(enumerate(order))
        if section.keep_newest:
            self.pending.reverse()
        self.kept: list[tuple[int, ContextItem]] = []
        self.dropped: list[tuple[int, ContextItem]] = []
        self.truncated = False
        self.charged = False

    @property
    def used(self) -> int:
        return sum(item.tokens for _, item in self.kept) + (SECTION_OVERHEAD if self.charged else 0)

    def take(self, allowance: int) -> int:
        """Keep items in order while they fit in `allowance`; return the tokens spent."""
        spent = 0
        if not self.pending:
            return 0
        charging = not self.charged
        if charging:
            if allowance < SECTION_OVERHEAD + 1:
                return 0
            self.charged = True
            spent += SECTION_OVERHEAD
        rest: list[tuple[int, ContextItem]] = []
        blocked = False
        for index, item in self.pending:
            room = allowance - spent
            if blocked:
                rest.append((index, item))
            elif item.tokens <= room:
                self.kept.append((index, item))
                spent += item.tokens
            elif not self.kept and room >= MIN_CUT_TOKENS:
                cut = truncate_to_tokens(item.text, room - 1).rstrip() + "…"
                piece = ContextItem(text=cut, tokens=count_tokens(cut), ref=item.ref)
                if piece.tokens <= room:
                    self.kept.append((index, piece))
                    spent += piece.tokens
                    self.truncated = True
                else:
                    rest.append((index, item))
                    blocked = self.section.keep_newest
            else:
                rest.append((index, item))
                # Turns stay contiguous: an older turn never stands in for a newer one that did not fit.
                blocked = self.section.keep_newest
        self.pending = rest
        if charging and not self.kept:  # nothing fitted: the heading costs nothing after all
            self.charged = False
            spent -= SECTION_OVERHEAD
        return spent

    def result(self) -> AssembledSection:
        kept = [item for _, item in sorted(self.kept, key=lambda pair: pair[0])]
        dropped = [item for _, item in sorted(self.pending + self.dropped, key=lambda pair: pair[0])]
        return AssembledSection(
            kind=self.section.kind,
            title=self.section.title,
            items=tuple(kept),
            dropped=tuple(dropped),
            truncated=self.truncated,
        )


def assemble(sections: Sequence[ContextSection], budget: int) -> AssembledContext:
    """Choose the items of each section within `budget` tokens (see the module docstring for the rules)."""
    rank = {kind: position for position, kind in enumerate(PRIORITY)}
    ordered = sorted(sections, key=lambda s: rank[s.kind])
    fills = [_Fill(section) for section in ordered]
    remaining = max(0, budget)
    # 1. Reserves, in priority order: room nothing of lower priority can take.
    for fill in fills:
        if fill.section.reserve:
            remaining -= fill.take(min(fill.section.reserve, remaining))
    # 2. Whatever is left, in priority order.
    for fill in fills:
        remaining -= fill.take(remaining)
    assembled = tuple(fill.result() for fill in fills)
    used = sum(fill.used for fill in fills)
    return AssembledContext(budget=budget, used=used, sections=assembled)
