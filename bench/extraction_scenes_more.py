"""More short scripted scenes for `bench/extraction.py` (see `bench/extraction_scenes.py` for their shape)."""

from __future__ import annotations

from typing import Any

from bench.extraction_talk import G, N, P

MORE_SCENES: list[dict[str, Any]] = [
    {
        "id": "family",
        "title": "Family Secrets",
        "known": [("Mira", "NPC", ["the Innkeeper"]), ("Lord Brannoc", "NPC", ["the Old Lion", "Brannoc"])],
        "turns": [
            (P, "Pat", "Why do you hate the lord so much?"),
            (
                G,
                "Gina",
                "Mira's voice drops: 'Because the Old Lion is my father, and he never once came for me.'",
            ),
        ],
        "gold": [
            {
                "kind": "relationship",
                "subject": "Lord Brannoc",
                "relation": "PARENT_OF",
                "object": "Mira",
                "turns": [2],
            },
        ],
    },
    {
        "id": "siege",
        "title": "Fire in the Harbour",
        "known": [("Saltfang", "Faction", []), ("Thornwall", "Location", [])],
        "turns": [
            (G, "Gina", "Saltfang longships slip into Thornwall's harbour at night and set it ablaze."),
            (G, "Gina", "The old Harbour Tower of Thornwall collapses into the sea, utterly destroyed."),
            (P, "Quinn", "We grab buckets!"),
        ],
        "gold": [
            {"kind": "entity", "name": "Harbour Tower", "entity_type": "Location", "turns": [2]},
            {"kind": "state_change", "subject": "Harbour Tower", "state": "destroyed", "turns": [2]},
            {
                "kind": "relationship",
                "subject": "Harbour Tower",
                "relation": "PART_OF",
                "object": "Thornwall",
                "turns": [2],
            },
            {
                "kind": "event",
                "name": "Raid on Thornwall harbour",
                "participants": ["Saltfang"],
                "location": "Thornwall",
                "turns": [1, 2],
            },
        ],
    },
    {
        "id": "truce",
        "title": "An Uneasy Truce",
        "known": [("Grey Hand", "Faction", []), ("City Watch", "Faction", ["the Watch"])],
        "turns": [
            (
                G,
                "Gina",
                "Against the Saltfang threat, the Grey Hand and the Watch shake hands: from tonight they fight side by side.",
            ),
            (P, "Pat", "I never thought I'd see this."),
        ],
        "gold": [
            {
                "kind": "relationship",
                "subject": "Grey Hand",
                "relation": "ALLY_OF",
                "object": "City Watch",
                "turns": [1],
            },
        ],
    },
    {
        "id": "gnome",
        "title": "A New Arrival",
        "known": [],
        "turns": [
            (
                G,
                "Gina",
                "A gnome with soot on his nose bows deeply: Fizzwick Cogsworth, tinkerer, late of Copperdeep.",
            ),
            (P, "Pat", "What brings you here, little man?"),
            (G, "Gina", "'Work, friend! Clocks, locks and the odd explosion.'"),
        ],
        "gold": [
            {"kind": "entity", "name": "Fizzwick Cogsworth", "entity_type": "NPC", "turns": [1]},
            {"kind": "entity", "name": "Copperdeep", "entity_type": "Location", "turns": [1]},
            {
                "kind": "fact",
                "subject": "Fizzwick Cogsworth",
                "attribute": "occupation",
                "value": "tinkerer",
                "turns": [1],
            },
        ],
    },
    {
        "id": "rite",
        "title": "The Rite of Return",
        "known": [("Osric", "NPC", ["Ser Osric"]), ("Sister Hild", "NPC", [])],
        "turns": [
            (G, "Gina", "Sister Hild chants over the body of Ser Osric through the night."),
            (
                G,
                "Gina",
                "At dawn Osric gasps and opens his eyes: the resurrection has worked, and he lives again.",
            ),
        ],
        "gold": [
            {
                "kind": "state_change",
                "subject": "Osric",
                "state": "alive",
                "via": "resurrection",
                "turns": [2],
            },
        ],
    },
    {
        "id": "plans",
        "title": "Plans by the Fire",
        "known": [("Copperdeep", "Location", [])],
        "turns": [
            (P, "Pat", "We should go to Copperdeep tomorrow and find a guide."),
            (P, "Quinn", "Or maybe we rest a week. Who knows."),
            (G, "Gina", "The night passes quietly."),
        ],
        "gold": [],
    },
    {
        "id": "heir",
        "title": "The Missing Heir",
        "known": [("Lord Brannoc", "NPC", ["the Old Lion", "Brannoc"])],
        "turns": [
            (
                G,
                "Gina",
                "A messenger kneels: 'My lord Brannoc, your son Edric has vanished from his chambers. No one knows where he is.'",
            ),
            (P, "Pat", "We offer to search for him."),
        ],
        "gold": [
            {"kind": "entity", "name": "Edric", "entity_type": "NPC", "turns": [1]},
            {
                "kind": "relationship",
                "subject": "Lord Brannoc",
                "relation": "PARENT_OF",
                "object": "Edric",
                "turns": [1],
            },
            {"kind": "state_change", "subject": "Edric", "state": "missing", "turns": [1]},
        ],
    },
    {
        "id": "dragon",
        "title": "Dragon!",
        "known": [],
        "turns": [
            (
                G,
                "Gina",
                "The mountain splits. Vermathrax, a red dragon, bursts out and burns the village of Ashby to ash; nothing is left standing.",
            ),
            (P, "Quinn", "RUN."),
        ],
        "gold": [
            {"kind": "entity", "name": "Vermathrax", "entity_type": "Creature", "turns": [1]},
            {"kind": "entity", "name": "Ashby", "entity_type": "Location", "turns": [1]},
            {"kind": "state_change", "subject": "Ashby", "state": "destroyed", "turns": [1]},
        ],
    },
    {
        "id": "ford",
        "title": "Battle of Ashby Ford",
        "known": [("Vermathrax", "Creature", ["the red dragon"]), ("Aldric", "NPC", ["Sir Aldric"])],
        "turns": [
            (G, "Gina", "At Ashby Ford, Sir Aldric braces a spear as the red dragon dives."),
            (G, "Gina", "The spear bites deep; Vermathrax screams and flees north, bleeding black blood."),
            (P, "Pat", "Is it dead?"),
            (G, "Gina", "No. Wounded, and very angry."),
        ],
        "gold": [
            {"kind": "state_change", "subject": "Vermathrax", "state": "wounded", "turns": [2, 4]},
            {
                "kind": "event",
                "name": "Battle of Ashby Ford",
                "participants": ["Aldric", "Vermathrax"],
                "turns": [1, 2],
            },
        ],
    },
    {
        "id": "oath",
        "title": "The Captain's Oath",
        "known": [("Veyra", "NPC", ["Captain Veyra"]), ("Aelar", "Deity", ["the Patient One"])],
        "turns": [
            (
                G,
                "Gina",
                "In the temple, Captain Veyra kneels and swears herself to Aelar, the Patient One, for the rest of her days.",
            ),
        ],
        "gold": [
            {
                "kind": "relationship",
                "subject": "Veyra",
                "relation": "WORSHIPS",
                "object": "Aelar",
                "turns": [1],
            },
        ],
    },
    {
        "id": "cough",
        "title": "The Grey Cough",
        "known": [("Lord Brannoc", "NPC", ["the Old Lion", "Brannoc"])],
        "turns": [
            (
                G,
                "Gina",
                "The physicians whisper: the Old Lion has the grey cough and will not see the spring.",
            ),
            (P, "Pat", "Can anyone cure it?"),
            (G, "Gina", "'Perhaps the priests,' one says, without much hope."),
        ],
        "gold": [
            {
                "kind": "fact",
                "subject": "Lord Brannoc",
                "attribute": "illness",
                "value": "the grey cough",
                "turns": [1],
            },
        ],
    },
    {
        "id": "wedding",
        "title": "A Wedding",
        "known": [("Fizzwick Cogsworth", "NPC", ["Fizzwick"]), ("Dalla", "NPC", [])],
        "turns": [
            (G, "Gina", "Under a rain of paper stars, Fizzwick and Dalla the mapmaker are married."),
            (P, "Quinn", "I cry a little."),
        ],
        "gold": [
            {
                "kind": "relationship",
                "subject": "Fizzwick Cogsworth",
                "relation": "SPOUSE_OF",
                "object": "Dalla",
                "turns": [1],
            },
        ],
    },
    {
        "id": "narrated",
        "title": "The Lighthouse",
        "known": [],
        "turns": [
            (P, "Pat", "We climb the lighthouse stairs."),
            (
                N,
                "Narrator",
                "At the top waits the keeper, an ancient man called Ossian, who tends a flame that never dies.",
            ),
            (P, "Quinn", "Hello, Ossian!"),
        ],
        "gold": [
            {"kind": "entity", "name": "Ossian", "entity_type": "NPC", "turns": [2]},
            {
                "kind": "fact",
                "subject": "Ossian",
                "attribute": "occupation",
                "value": "keeper of the lighthouse",
                "turns": [2],
            },
        ],
    },
]
