"""The narrator's context for a scene: rules, hidden canon, who is here, the turns, lore and NPC memories.

The GM's view of canon feeds the hidden-canon section (the narrator may let it steer events); everything else
is what players may see. What the leak check guards (`secrets`) and what it lets through (`public`) come with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.voice.common import Material, VoiceDeps, cards, lore
from bot.voice.extraction import names_in
from bot.voice.material import (
    card_line,
    contradictions,
    gm_words,
    guarded_secrets,
    is_npc_type,
    memory_line,
    public_state_names,
    secret_lines,
    turn_line,
)
from canon.campaigns import Campaign
from canon.models import EntityCard, Viewer
from memory import digests as digest_repo
from memory.context import ContextItem, ContextSection, SectionKind, assemble
from memory.framing import passage_line
from memory.leaks import CARD_LABEL
from memory.scenes import Scene, scene_turns


@dataclass
class _Items:
    """The context's lines by section, and the hidden texts (label, text) the narration must not quote."""

    rules: list[ContextItem] = field(default_factory=list)
    state: list[ContextItem] = field(default_factory=list)
    turns: list[ContextItem] = field(default_factory=list)
    canon: list[ContextItem] = field(default_factory=list)
    reference: list[ContextItem] = field(default_factory=list)
    inspiration: list[ContextItem] = field(default_factory=list)
    memories: list[ContextItem] = field(default_factory=list)
    secrets: list[tuple[str, str]] = field(default_factory=list)


async def narration_material(deps: VoiceDeps, campaign: Campaign, scene: Scene) -> Material:
    """Assemble the narrator's context for a scene: state, turns, lore, memories, hidden canon."""
    async with deps.db.session() as session:
        turns = [t for t in await scene_turns(session, scene.id, include_deleted=False) if t.text.strip()]
        recent = turns[-deps.settings.recent_turns :]
        cast = await digest_repo.cast_of(session, scene.id)
        gm_reader = await deps.canon.reader(session, campaign, Viewer.GM)
        player_reader = await deps.canon.reader(session, campaign, Viewer.PLAYER)
        text = "\n".join([scene.title, scene.location or "", *(t.text for t in recent)])
        present = names_in(text, await gm_reader.names()) | set(cast)
        gm_cards, player_cards = await cards(gm_reader, player_reader, present)
    items = _Items()
    _add_cards(items, gm_cards, player_cards)
    items.turns = [ContextItem.of(turn_line(t), ref=f"turn:{t.number}") for t in recent]
    query = " ".join(t.text for t in recent[-3:]) or scene.title
    _add_lore(items, await lore(deps, campaign.id, query, viewer=Viewer.GM))
    ontology = deps.canon.ontology_for(campaign)
    states = public_state_names(player_cards.values())
    for entity_id, gm_card in sorted(gm_cards.items()):
        if not is_npc_type(ontology, gm_card.entity.type):
            continue
        recalled = await deps.memories.recall(campaign.id, entity_id, query, limit=2)
        for r in recalled:
            line = memory_line(r.memory, contradictions(r.memory, states, ontology))
            items.memories.append(ContextItem.of(line, ref=f"memory:{r.memory.id}"))
    played = (*items.rules, *items.state, *items.canon, *items.reference, *items.inspiration)
    return Material(
        context=assemble(_sections(items, deps.settings.context_tokens), deps.settings.context_tokens),
        secrets=guarded_secrets(gm_cards.values(), items.secrets),
        public=gm_words(turns) + [i.text for i in played],
    )


def _add_cards(items: _Items, gm_cards: dict[int, EntityCard], player_cards: dict[int, EntityCard]) -> None:
    """Put each present entity's player card under rules or state, and its GM-only lines under secrets."""
    for entity_id, gm_card in sorted(gm_cards.items()):
        player_card = player_cards.get(entity_id)
        if player_card is not None:
            item = ContextItem.of(card_line(player_card), ref=f"entity:{entity_id}")
            axiomatic = player_card.entity.kind == "axiomatic"
            (items.rules if axiomatic else items.state).append(item)
        for line in secret_lines(gm_card):
            items.secrets.append((CARD_LABEL + gm_card.entity.name, line))


def _add_lore(items: _Items, results: Sequence[Any]) -> None:
    """Sort imported passages by class; a narrator-only source's or GM-only section's text goes under secrets."""
    for result in results:
        item = ContextItem.of(passage_line(result), ref=f"chunk:{result.chunk_id}")
        if result.hidden:
            items.secrets.append((f"GM-only passage of “{result.source_title}”", result.text))
        elif result.always_include:
            items.rules.append(item)
        elif result.knowledge_class.value == "canon":
            items.canon.append(item)
        elif result.knowledge_class.value == "reference":
            items.reference.append(item)
        else:
            items.inspiration.append(item)


def _sections(items: _Items, budget: int) -> list[ContextSection]:
    secret_items = [ContextItem.of(text, ref=label) for label, text in items.secrets]
    return [
        ContextSection(
            kind=SectionKind.RULES,
            title="Hard canon rules (always true)",
            items=tuple(items.rules),
            reserve=budget // 4,
        ),
        ContextSection(
            kind=SectionKind.SECRETS,
            title="Hidden canon (GM only: let it steer events; never reveal, quote or hint at it)",
            items=tuple(secret_items),
        ),
        ContextSection(
            kind=SectionKind.STATE,
            title="Who and what is here, as canon has them now",
            items=tuple(items.state),
            reserve=budget * 3 // 10,
        ),
        ContextSection(
            kind=SectionKind.TURNS,
            title="The scene so far (most recent last)",
            items=tuple(items.turns),
            reserve=budget // 5,
            keep_newest=True,
        ),
        ContextSection(kind=SectionKind.CANON, title="Canon passages (facts)", items=tuple(items.canon)),
        ContextSection(
            kind=SectionKind.MEMORIES,
            title="What the NPCs here remember (their beliefs, not canon)",
            items=tuple(items.memories),
        ),
        ContextSection(
            kind=SectionKind.REFERENCE, title="Reference passages (background)", items=tuple(items.reference)
        ),
        ContextSection(
            kind=SectionKind.INSPIRATION,
            title="Inspiration passages (ideas, not facts)",
            items=tuple(items.inspiration),
        ),
    ]
