"""What an NPC knows for a reply: public canon and what all who hear know, its own memories, the scene it is in.

`NpcCases` (`bot.voice.npcs`) asks `npc_material` for it; the guard's secrets and the public words come with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.voice.common import Material, VoiceDeps, cards, lore
from bot.voice.extraction import names_in
from bot.voice.material import card_line, contradictions, gm_words, memory_line, public_state_names, turn_line
from canon.campaigns import Campaign
from canon.models import EntityCard, StatementView, Viewer
from canon.visibility import Knowing
from memory.context import ContextItem, ContextSection, SectionKind, assemble
from memory.framing import passage_line
from memory.leaks import card_secrets
from memory.scenes import Scene, scene_turns

NPC_SCENE_TURNS = 8


async def npc_material(
    deps: VoiceDeps,
    campaign: Campaign,
    npc_id: int,
    npc: str,
    message: str,
    scene: Scene | None,
    *,
    knowing: Knowing | None = None,
    told: StatementView | None = None,
) -> tuple[NpcMaterial, list[Any]]:
    """Assemble what an NPC knows for a reply: public canon and what all who hear know (`knowing`, the fact
    the GM lets it tell included), its own memories, the scene it is in."""
    async with deps.db.session() as session:
        gm_reader = await deps.canon.reader(session, campaign, Viewer.GM)
        player_reader = await deps.canon.reader(session, campaign, Viewer.PLAYER, knowing)
        turns = (
            [t for t in await scene_turns(session, scene.id, include_deleted=False) if t.text.strip()]
            if scene is not None
            else []
        )
        recent = turns[-NPC_SCENE_TURNS:]
        named = names_in(message + "\n" + "\n".join(t.text for t in recent), await player_reader.names())
        ids = {npc_id} | set(sorted(named)[:6])
        if told is not None:
            ids.add(told.subject.id)
        gm_cards, player_cards = await cards(gm_reader, player_reader, ids)
    recalled = await deps.memories.recall(campaign.id, npc_id, message, limit=deps.settings.npc_recall)
    memory_items = await _memory_items(deps, campaign, npc_id, recalled, player_cards)
    state_items = [
        ContextItem.of(card_line(card), ref=f"entity:{entity_id}")
        for entity_id, card in sorted(player_cards.items(), key=lambda kv: kv[0] != npc_id)
    ]
    found = [
        r for r in await lore(deps, campaign.id, f"{npc} {message}", viewer=Viewer.PLAYER) if not r.hidden
    ]
    canon_items = _passages(found, "canon")
    reference = _passages(found, "reference")
    budget = deps.settings.context_tokens
    turn_items = tuple(ContextItem.of(turn_line(t), ref=f"turn:{t.number}") for t in recent)
    sections = [
        ContextSection(
            kind=SectionKind.STATE,
            title="Canon (true, public; it overrides memories) about you and whoever is mentioned",
            items=tuple(state_items),
            reserve=budget * 3 // 10,
        ),
        ContextSection(
            kind=SectionKind.TURNS,
            title="What was just said where you are",
            items=turn_items,
            keep_newest=True,
        ),
        ContextSection(kind=SectionKind.CANON, title="Public lore (facts)", items=tuple(canon_items)),
        ContextSection(
            kind=SectionKind.MEMORIES,
            title="Your own memories (beliefs; canon wins where they disagree)",
            items=tuple(memory_items),
            reserve=budget // 5,
        ),
        ContextSection(kind=SectionKind.REFERENCE, title="Public background", items=tuple(reference)),
    ]
    if told is not None:
        sections.insert(0, _told_section(told))
    public = gm_words(turns) + [i.text for i in (*state_items, *canon_items, *reference)]
    secrets = [secret for card in gm_cards.values() for secret in card_secrets(card, knowing)]
    material = NpcMaterial(
        context=assemble(sections, budget),
        secrets=secrets,
        public=public,
        told_cards=[_only(gm_cards[told.subject.id], told.statement.id)]
        if told is not None and told.subject.id in gm_cards
        else [],
        # Whether the reply told the fact is asked against what was public before (the cards read
        # through the lens hold the fact itself).
        public_before=gm_words(turns) + [i.text for i in (*canon_items, *reference)],
    )
    return material, recalled


async def _memory_items(
    deps: VoiceDeps, campaign: Campaign, npc_id: int, recalled: list[Any], player_cards: dict[int, EntityCard]
) -> list[ContextItem]:
    """Return the recalled memories (marked where canon now disagrees) and the NPC's links between them."""
    links = await deps.memories.relationships(campaign.id, [r.memory.id for r in recalled])
    ontology = deps.canon.ontology_for(campaign)
    states = public_state_names(player_cards.values())
    items = [
        ContextItem.of(
            memory_line(r.memory, contradictions(r.memory, states, ontology)), ref=f"memory:{r.memory.id}"
        )
        for r in recalled
    ]
    recalled_ids = {r.memory.id for r in recalled}
    items += [
        ContextItem.of(memory_line(link), ref=f"memory:{link.id}")
        for link in links
        if link.id not in recalled_ids and link.npc_id == npc_id
    ]
    return items


@dataclass
class NpcMaterial(Material):
    """An NPC reply's material, and the GM's card of what the GM lets it tell, holding that fact alone."""

    told_cards: list[EntityCard] = field(default_factory=list)
    public_before: list[str] = field(default_factory=list)


def _told_section(told: StatementView) -> ContextSection:
    """Return the context's section of the hidden fact the GM lets the NPC tell."""
    return ContextSection(
        kind=SectionKind.STATE,
        title="What the GM lets you tell them now (a secret you know)",
        items=(ContextItem.of(told.sentence(), ref=f"statement:{told.statement.id}"),),
    )


def _only(card: EntityCard, statement_id: int) -> EntityCard:
    """Return a card holding one of its statements alone (what the guard asks whether a reply told)."""
    state = card.state if card.state is not None and card.state.statement.id == statement_id else None
    return card.model_copy(
        update={
            "state": state,
            "facts": tuple(v for v in card.facts if v.statement.id == statement_id),
            "relations": tuple(v for v in card.relations if v.statement.id == statement_id),
        }
    )


def _passages(results: list[Any], knowledge_class: str) -> list[ContextItem]:
    """Return the passages of one knowledge class as context lines."""
    return [
        ContextItem.of(passage_line(r), ref=f"chunk:{r.chunk_id}")
        for r in results
        if r.knowledge_class.value == knowledge_class
    ]
