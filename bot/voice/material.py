"""Pure helpers that turn canon, turns and memories into the lines a prompt shows (and the secrets to guard).

No I/O: the service fetches cards, turns and memories; these functions decide what each line says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from canon.graph import fold
from canon.models import EntityCard, StatementKind
from canon.ontology import Ontology
from canon.visibility import entity_hidden, view_hidden
from canon.wording.statements import status_over_life
from memory.leaks import CARD_LABEL, Secret, card_secrets
from memory.npc_memory import DocType, MemoryRecord, NewMemory, ScopeKind
from memory.scenes import Scene, SpeakerKind, Turn

NPC_TYPES = ("Person", "Creature", "Deity")
MAX_FACTS_PER_CARD = 12
EXTRACTIVE_MEMORIES = 4
QUOTE_CHARS = 300
#: Whose naming an NPC puts it in a scene: the GM and the narrator describe the scene, players only talk in it.
STAGING_SPEAKERS = frozenset({SpeakerKind.GM, SpeakerKind.NARRATOR})

_WORDS = re.compile(r"[^\W_]+")


def is_npc_type(ontology: Ontology, entity_type: str) -> bool:
    """Return whether entities of a type can be NPCs (people, creatures, gods; never player characters)."""
    return ontology.is_a(entity_type, NPC_TYPES) and not ontology.is_a(entity_type, ["PC"])


def card_line(card: EntityCard) -> str:
    """Return what canon says of an entity, on one line: type, state, facts and relations."""
    entity = card.entity
    bits = [f"{entity.name} ({entity.type})"]
    if entity.aliases:
        bits.append("also called " + ", ".join(entity.aliases))
    if entity.description:
        bits.append(entity.description)
    if card.state is not None:
        # A living person's status ("missing") over a birth's "alive": what the card says.
        bits.append(f"currently {status_over_life(card.state, card.facts) or card.state.statement.value}")
    sentences = [v.sentence() for v in (*card.facts, *card.relations)][:MAX_FACTS_PER_CARD]
    bits += sentences
    return "; ".join(bits)


def secret_lines(gm_card: EntityCard) -> list[str]:
    """Return what only the GM may know about an entity: GM-only facts, relations, state and hidden entities."""
    lines: list[str] = []
    entity = gm_card.entity
    if entity_hidden(entity):
        lines.append(card_line(gm_card))
        return lines
    views = [*gm_card.facts, *gm_card.relations]
    if gm_card.state is not None:
        views.append(gm_card.state)
    lines += [v.sentence() for v in views if view_hidden(v)]
    return lines


def guarded_secrets(gm_cards: Iterable[EntityCard], lines: Iterable[tuple[str, str]]) -> list[Secret]:
    """Return the secrets the guard checks a narration against: the cards' canon, and the other lines as text.

    `lines` are the (label, text) pairs the narrator's hidden section shows; those about a card (labelled
    "hidden canon about …") are matched by what they say, from the card, the rest (narrator-only passages)
    as free text.
    """
    secrets = [secret for card in gm_cards for secret in card_secrets(card)]
    secrets += [Secret(text=text, label=label) for label, text in lines if not label.startswith(CARD_LABEL)]
    return secrets


def scene_heading(scene: Scene) -> str:
    """Return how prompts name a scene: its order, title and place (data: prompts frame it)."""
    return f"Scene {scene.story_order}: “{scene.title}”" + (f" at {scene.location}" if scene.location else "")


def turn_line(turn: Turn) -> str:
    """Return one turn as a context line."""
    if turn.speaker == SpeakerKind.NARRATOR:
        who = "Narrator"
    elif turn.speaker == SpeakerKind.NPC:
        who = f"{turn.author_name} (NPC)"
    elif turn.speaker == SpeakerKind.GM:
        who = f"{turn.author_name} (GM)"
    elif turn.speaker == SpeakerKind.ROLL:
        who = f"{turn.author_name} (dice roll)"
    else:
        who = turn.author_name
    return f"[{turn.number}] {who}: {' '.join(turn.text.split())}"


def gm_words(turns: Iterable[Turn]) -> list[str]:
    """Return what the GM said in a scene's turns: public, and the only table talk that may reveal canon."""
    return [t.text for t in turns if t.speaker == SpeakerKind.GM and not t.is_deleted]


def mentions(text: str, names: Sequence[str]) -> bool:
    """Return whether any of `names` appears in `text` as whole words (case and accents ignored)."""
    folded = f" {' '.join(_WORDS.findall(fold(text)))} "
    for name in names:
        words = " ".join(_WORDS.findall(fold(name)))
        if len(words) >= 3 and f" {words} " in folded:
            return True
    return False


def first_mention(turns: Sequence[Turn], names: Sequence[str], *, speaker_name: str) -> int | None:
    """Return the number of the first turn naming an NPC (or spoken by it), or None when it never appears."""
    for turn in turns:
        if turn.is_deleted:
            continue
        if (turn.speaker == SpeakerKind.NPC and fold(turn.author_name) == fold(speaker_name)) or mentions(
            turn.text, names
        ):
            return turn.number
    return None


def memory_line(memory: MemoryRecord, contradictions: Sequence[str] = ()) -> str:
    """Return a recalled memory as the NPC's belief, noting where canon says otherwise."""
    if memory.doc_type == DocType.RELATIONSHIP:
        line = (
            f"{memory.npc_name} connects memories ({memory.relationship_type or 'related'}): {memory.content}"
        )
    else:
        line = f"{memory.npc_name} remembers: {memory.content}"
    if contradictions:
        line += " [this is their belief; canon says: " + "; ".join(contradictions) + "]"
    return line


def contradictions(memory: MemoryRecord, states: dict[str, str], ontology: Ontology) -> list[str]:
    """Return the canon states a memory contradicts: it names an entity and a state tag that canon denies.

    `states` maps entity names (and aliases) to their current canon state. The check is deliberately plain:
    a memory saying "Aldric is dead" while canon has Aldric alive is recalled with that correction.
    """
    memory_words = set(_WORDS.findall(fold(memory.content)))
    tags = {tag for tag in ontology.states.tags if tag in memory_words}
    found: list[str] = []
    for name, state in states.items():
        if not tags or state in tags or not mentions(memory.content, [name]):
            continue
        found.append(f"{name} is {state}")
    return list(dict.fromkeys(found))


def extractive_memories(
    *, npc_id: int, npc_name: str, names: Sequence[str], scene: Scene, turns: Sequence[Turn], since: int
) -> list[NewMemory]:
    """Return an NPC's memories of a scene without an LLM: the turns it witnessed that concern it most.

    The turns naming the NPC (or spoken by it) from its first appearance on are kept, longest first, up to a
    few (topped up with the fullest GM and narrator descriptions when the NPC was hardly named); each becomes
    a memory quoting who said what, with an importance from how much it concerned the NPC.
    """
    witnessed = [t for t in turns if t.number >= since and not t.is_deleted and t.text.strip()]
    concerning = [
        t
        for t in witnessed
        if mentions(t.text, names) or (t.speaker == SpeakerKind.NPC and fold(t.author_name) == fold(npc_name))
    ]
    chosen = sorted(concerning, key=lambda t: (-len(t.text), t.number))[:EXTRACTIVE_MEMORIES]
    if len(chosen) < EXTRACTIVE_MEMORIES - 1:
        # An NPC nobody named still saw the scene: the fullest descriptions of what happened, GM's first.
        others = [t for t in witnessed if t not in chosen]
        others.sort(
            key=lambda t: (t.speaker not in (SpeakerKind.GM, SpeakerKind.NARRATOR), -len(t.text), t.number)
        )
        chosen += others[: EXTRACTIVE_MEMORIES - 1 - len(chosen)]
    place = f"“{scene.title}”" + (f" at {scene.location}" if scene.location else "")
    memories: list[NewMemory] = []
    for turn in sorted(chosen, key=lambda t: t.number):
        who = "I" if turn.speaker == SpeakerKind.NPC and fold(turn.author_name) == fold(npc_name) else None
        speaker = who or ("the narrator" if turn.speaker == SpeakerKind.NARRATOR else turn.author_name)
        quote = " ".join(turn.text.split())
        if len(quote) > QUOTE_CHARS:
            quote = quote[: QUOTE_CHARS - 1] + "…"
        text = f"During {place} (scene {scene.story_order}), {speaker} said: “{quote}”"
        importance = min(0.9, 0.35 + 0.1 * len(quote) / 60 + (0.15 if mentions(turn.text, names) else 0.0))
        memories.append(
            NewMemory(
                npc_id=npc_id,
                npc_name=npc_name,
                scope_kind=ScopeKind.SCENE,
                scene_id=scene.id,
                content=text,
                importance=round(importance, 2),
                turn_from=turn.number,
                turn_to=turn.number,
                method="extractive",
            )
        )
    if not memories and witnessed:
        memories.append(
            NewMemory(
                npc_id=npc_id,
                npc_name=npc_name,
                scope_kind=ScopeKind.SCENE,
                scene_id=scene.id,
                content=f"I was there during {place} (scene {scene.story_order}).",
                importance=0.2,
                turn_from=witnessed[0].number,
                turn_to=witnessed[-1].number,
                method="extractive",
            )
        )
    return memories


def public_state_names(cards: Iterable[EntityCard]) -> dict[str, str]:
    """Return name (and alias) -> current state for the cards that have one."""
    states: dict[str, str] = {}
    for card in cards:
        if card.state is not None and card.state.statement.kind == StatementKind.STATE:
            value = status_over_life(card.state, card.facts) or card.state.statement.value or ""
            for name in (card.entity.name, *card.entity.aliases):
                states[name] = value
    return states
