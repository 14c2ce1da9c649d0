"""Render retrieved knowledge for an LLM prompt: passages made inert, inside untrusted-data frames, one per class.

Imported text is data, never instructions (DESIGN rule 5): a source may say "Ignore all prior instructions",
carry a remote tracker image or a `<script>` tag, or be enormous. The narrator's context (`memory.context`)
and `render_knowledge` are built from the same two pieces, so what holds for one holds for the other:

- `passage_line` turns a retrieved passage into one line, its provenance (source title and heading path) then
  its text made inert by `sanitize`: markdown and HTML images become `[image: alt]` text (their URLs are
  dropped, nothing is fetched), marker-like bracket runs and invisible controls are defused
  (`memory.untrusted.defuse`), and the text is capped with a visible truncation note;
- each class's passages go into one section framed by `memory.untrusted.frame_untrusted` (through
  `AssembledSection.render`), whose markers carry a digest of the framed text, so a passage can neither close
  its frame early nor pose as another one. `UNTRUSTED_RULES` says what the frames mean.
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.counts import counted
from memory.chunking import inert_markdown
from memory.context import AssembledSection, ContextItem, SectionKind
from memory.knowledge.models import CanonFact, KnowledgeClass, LoreResult
from memory.untrusted import UNTRUSTED_RULES, defuse

__all__ = ["CLASS_SECTIONS", "FACTS_TITLE", "HIDDEN_MARK", "passage_line", "render_knowledge", "sanitize"]

#: Characters of one passage in a prompt.
PASSAGE_CHARS = 4000

#: The section of each class: what its passages are worth as story truth.
CLASS_SECTIONS: dict[KnowledgeClass, tuple[SectionKind, str]] = {
    KnowledgeClass.CANON: (
        SectionKind.CANON,
        "Canon passages: authoritative about the story world unless newer accepted story state supersedes them",
    ),
    KnowledgeClass.REFERENCE: (
        SectionKind.REFERENCE,
        "Reference passages: background for plausibility, detail and terminology; not story truth by themselves",
    ),
    KnowledgeClass.INSPIRATION: (
        SectionKind.INSPIRATION,
        "Inspiration passages: mood and ideas, NOT facts about the campaign world; they must not introduce "
        "characters, places, secrets or plot facts",
    ),
}
FACTS_TITLE = "Canon facts about the entities named (from the campaign's canon graph, authoritative)"
HIDDEN_MARK = "[GM-ONLY: hidden from players; never reveal, quote or hint at it to a player]"


def sanitize(text: str, *, max_chars: int) -> str:
    """Return passage text made inert for a prompt: images as text, markers and invisible controls defused."""
    clean = defuse(inert_markdown(text))
    if len(clean) > max_chars:
        clean = (
            clean[:max_chars].rstrip()
            + f"\n[… truncated: {len(clean) - max_chars:,} more characters not shown]"
        )
    return clean


def passage_line(result: LoreResult, *, max_chars: int = PASSAGE_CHARS) -> str:
    """Return a retrieved passage as one context line: where it is from, then its text made inert."""
    where = result.where
    return f"{where}: {sanitize(result.text, max_chars=max_chars)}"


def _fact_line(fact: CanonFact) -> str:
    described = f": {fact.description}" if fact.description else ""
    lines = [f"{fact.entity_name} ({fact.entity_type}){described}", *(f"  {f}" for f in fact.facts)]
    return sanitize("\n".join(lines), max_chars=PASSAGE_CHARS)


def render_knowledge(
    results: Sequence[LoreResult],
    canon_facts: Sequence[CanonFact] = (),
    *,
    max_chars_per_passage: int = PASSAGE_CHARS,
    max_total_chars: int = 40000,
) -> str:
    """Return retrieved passages (and canon facts) framed as untrusted data, one section per class.

    The sections are the narrator's (`memory.context`): canon facts first, then Canon, Reference and
    Inspiration passages, best first within each. Hidden material is marked GM-only. Passages that would take
    the rendering past `max_total_chars` are left out, and the rendering says how many.
    """
    total = len(UNTRUSTED_RULES)
    omitted = 0

    def fits(line: str) -> bool:
        nonlocal total, omitted
        if total + len(line) > max_total_chars:
            omitted += 1
            return False
        total += len(line)
        return True

    def marked(hidden: bool, line: str) -> str:
        return f"{HIDDEN_MARK} {line}" if hidden else line

    groups = [(SectionKind.STATE, FACTS_TITLE, [marked(f.hidden, _fact_line(f)) for f in canon_facts])]
    for cls, (kind, title) in CLASS_SECTIONS.items():
        lines = [
            marked(r.hidden, passage_line(r, max_chars=max_chars_per_passage))
            for r in results
            if r.knowledge_class == cls
        ]
        groups.append((kind, title, lines))
    sections = []
    for kind, title, lines in groups:
        kept = tuple(ContextItem.of(line) for line in lines if fits(line))
        if kept:
            sections.append(AssembledSection(kind=kind, title=title, items=kept))
    blocks = [UNTRUSTED_RULES, *(section.render() for section in sections)]
    if omitted:
        blocks.append(f"[{counted(omitted, 'more retrieved item')} left out: the knowledge budget is full]")
    return "\n\n".join(blocks)
