"""The first short scripted scenes for `bench/extraction.py` (see `bench/extraction_scenes.py` for their shape)."""

from __future__ import annotations

from typing import Any

from bench.extraction_talk import G, P

FIRST_SCENES: list[dict[str, Any]] = [
    {
        "id": "drowned-rat",
        "title": "The Drowned Rat",
        "known": [("Mira", "NPC", ["the Innkeeper"])],
        "turns": [
            (P, "Pat", "I ask the Innkeeper for a room for the night."),
            (
                G,
                "Gina",
                "Mira hands over a brass key. Behind the bar hangs a portrait of her late husband, Tobin, a sailor the sea took three winters ago.",
            ),
            (P, "Quinn", "I raise my mug to the portrait."),
        ],
        "gold": [
            {"kind": "entity", "name": "Tobin", "entity_type": "NPC", "turns": [2]},
            {
                "kind": "relationship",
                "subject": "Mira",
                "relation": "SPOUSE_OF",
                "object": "Tobin",
                "turns": [2],
            },
            {"kind": "state_change", "subject": "Tobin", "state": "dead", "turns": [2]},
        ],
    },
    {
        "id": "coast-road",
        "title": "Ambush on the Coast Road",
        "known": [("Aldric", "NPC", ["Sir Aldric"])],
        "turns": [
            (
                G,
                "Gina",
                "Arrows hiss from the dunes. Bandits wearing the red sashes of the Saltfang gang charge the wagon.",
            ),
            (G, "Gina", "Sir Aldric takes an arrow in the shoulder and staggers, bleeding."),
            (P, "Pat", "Maybe they are working for the duke? We should ask around later."),
            (P, "Quinn", "I drag Aldric behind the wagon."),
        ],
        "gold": [
            {"kind": "entity", "name": "Saltfang", "entity_type": "Faction", "turns": [1]},
            {"kind": "state_change", "subject": "Aldric", "state": "wounded", "turns": [2]},
        ],
    },
    {
        "id": "temple",
        "title": "The Temple of Aelar",
        "known": [("Aelar", "Deity", ["the Patient One"])],
        "turns": [
            (P, "Pat", "We enter the temple and look for whoever is in charge."),
            (
                G,
                "Gina",
                "An old woman in grey robes greets you: Sister Hild, high priestess of the temple, who has served the Patient One all her life.",
            ),
            (P, "Quinn", "I bow and leave an offering."),
        ],
        "gold": [
            {"kind": "entity", "name": "Sister Hild", "entity_type": "NPC", "turns": [2]},
            {
                "kind": "relationship",
                "subject": "Sister Hild",
                "relation": "WORSHIPS",
                "object": "Aelar",
                "turns": [2],
            },
            {
                "kind": "fact",
                "subject": "Sister Hild",
                "attribute": "title",
                "value": "high priestess",
                "turns": [2],
            },
        ],
    },
    {
        "id": "council",
        "title": "Council of Thornwall",
        "known": [("Thornwall", "Location", []), ("Lord Brannoc", "NPC", ["the Old Lion", "Brannoc"])],
        "turns": [
            (
                G,
                "Gina",
                "In the great hall, Lord Brannoc rises and names Veyra, a scarred veteran, captain of the City Watch.",
            ),
            (P, "Pat", "I clap politely."),
            (G, "Gina", "Captain Veyra salutes and takes command of the watch at once."),
        ],
        "gold": [
            {"kind": "entity", "name": "Veyra", "entity_type": "NPC", "turns": [1]},
            {"kind": "entity", "name": "City Watch", "entity_type": "Faction", "turns": [1]},
            {
                "kind": "relationship",
                "subject": "Veyra",
                "relation": "LEADS",
                "object": "City Watch",
                "turns": [1, 3],
            },
        ],
    },
    {
        "id": "duel",
        "title": "The Duel at Dawn",
        "known": [("Aldric", "NPC", ["Sir Aldric"]), ("Osric", "NPC", ["Ser Osric"])],
        "turns": [
            (
                G,
                "Gina",
                "At dawn Aldric and Ser Osric cross blades in the courtyard while the court watches.",
            ),
            (P, "Pat", "I hold my breath."),
            (
                G,
                "Gina",
                "Aldric's blade finds Osric's heart. Ser Osric falls, dead before he touches the stones.",
            ),
        ],
        "gold": [
            {"kind": "state_change", "subject": "Osric", "state": "dead", "turns": [3]},
            {
                "kind": "relationship",
                "subject": "Aldric",
                "relation": "KILLED",
                "object": "Osric",
                "turns": [3],
            },
            {"kind": "event", "name": "Duel at dawn", "participants": ["Aldric", "Osric"], "turns": [1, 3]},
        ],
    },
    {
        "id": "ooc",
        "title": "Pizza Break",
        "known": [("Mira", "NPC", ["the Innkeeper"])],
        "turns": [
            (P, "Pat", "brb, pizza is here"),
            (P, "Quinn", "what's the DC for that lock again?"),
            (G, "Gina", "DC 15. Roll when you're back."),
            (P, "Quinn", "I roll 14. Ugh."),
        ],
        "gold": [],
    },
    {
        "id": "market",
        "title": "Rumours at the Market",
        "known": [],
        "turns": [
            (
                G,
                "Gina",
                "A stall of maps catches your eye; its owner, a sharp-eyed woman named Dalla, sells charts of the whole coast.",
            ),
            (P, "Pat", "I buy a chart of the northern shore."),
            (
                G,
                "Gina",
                "A fishwife swears that a dragon sleeps under the mountain, though nobody has ever seen it.",
            ),
        ],
        "gold": [
            {"kind": "entity", "name": "Dalla", "entity_type": "NPC", "turns": [1]},
            {
                "kind": "fact",
                "subject": "Dalla",
                "attribute": "occupation",
                "value": "sells maps",
                "turns": [1],
            },
        ],
    },
    {
        "id": "guild",
        "title": "The Grey Hand",
        "known": [("Rook", "PC", [])],
        "turns": [
            (
                G,
                "Gina",
                "In the cellar beneath the tannery, masked figures surround Rook. 'Swear, and you are one of the Grey Hand.'",
            ),
            (P, "Pat", "Rook swears the oath."),
            (G, "Gina", "They cut a grey mark into Rook's palm. He is one of them now."),
        ],
        "gold": [
            {"kind": "entity", "name": "Grey Hand", "entity_type": "Faction", "turns": [1]},
            {
                "kind": "relationship",
                "subject": "Rook",
                "relation": "MEMBER_OF",
                "object": "Grey Hand",
                "turns": [2, 3],
            },
        ],
    },
    {
        "id": "blade",
        "title": "The Black Sword",
        "known": [("Bram", "PC", [])],
        "turns": [
            (G, "Gina", "On the altar lies a black sword. Its name is carved on the blade: Nightfang."),
            (P, "Quinn", "Bram picks up the sword."),
            (G, "Gina", "Cold runs up Bram's arm; the sword is cursed, and it will not leave his hand."),
        ],
        "gold": [
            {"kind": "entity", "name": "Nightfang", "entity_type": "Item", "turns": [1]},
            {"kind": "state_change", "subject": "Nightfang", "state": "cursed", "turns": [3]},
            {
                "kind": "relationship",
                "subject": "Bram",
                "relation": "POSSESSES",
                "object": "Nightfang",
                "turns": [2, 3],
            },
        ],
    },
    {
        "id": "dungeon",
        "title": "Taken",
        "known": [("Aldric", "NPC", ["Sir Aldric"])],
        "turns": [
            (
                G,
                "Gina",
                "The duke's soldiers seize Sir Aldric and drag him to Blackmoor Keep, where he is thrown into the dungeon.",
            ),
            (P, "Pat", "We follow at a distance."),
        ],
        "gold": [
            {"kind": "entity", "name": "Blackmoor Keep", "entity_type": "Location", "turns": [1]},
            {"kind": "state_change", "subject": "Aldric", "state": "imprisoned", "turns": [1]},
            {
                "kind": "relationship",
                "subject": "Aldric",
                "relation": "LOCATED_IN",
                "object": "Blackmoor Keep",
                "turns": [1],
            },
        ],
    },
]
