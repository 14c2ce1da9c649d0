"""The long scripted scenes for `bench/extraction.py`: hours of table talk around a few moments that matter."""

from __future__ import annotations

from typing import Any

from bench.extraction_talk import G, P, table_talk

LONG_SCENES: list[dict[str, Any]] = [
    {
        "id": "long-vigil",
        "title": "The Long Vigil",
        "known": [("Mira", "NPC", ["the Innkeeper"]), ("Thornwall", "Location", [])],
        "turns": [
            (
                P,
                "Pat",
                "We settle in at the Innkeeper's place for the night and ask for a table by the fire.",
            ),
            (G, "Gina", "Mira, the innkeeper here in Thornwall, brings you bread and a jug of cider."),
            *table_talk(60),  # turns 3-62
            (
                G,
                "Gina",
                "Near midnight the door bangs open: a soaked courier, Edda Varn, a rider of the Harbour Post, "
                "staggers in with a sealed letter.",
            ),
            *table_talk(60, 5),  # turns 64-123
            (
                G,
                "Gina",
                "Edda slumps by the fire and does not wake. By dawn she is dead, the letter still in her hand.",
            ),
            (P, "Quinn", "I gently take the letter from her hand."),
        ],
        "gold": [
            {"kind": "entity", "name": "Edda Varn", "entity_type": "NPC", "turns": [63]},
            {"kind": "entity", "name": "Harbour Post", "entity_type": "Faction", "turns": [63]},
            {
                "kind": "relationship",
                "subject": "Edda Varn",
                "relation": "MEMBER_OF",
                "object": "Harbour Post",
                "turns": [63],
            },
            {"kind": "state_change", "subject": "Edda Varn", "state": "dead", "turns": [124]},
        ],
        "canon": [
            {
                "kind": "fact",
                "subject": "Mira",
                "attribute": "occupation",
                "value": "innkeeper",
                "turns": [2],
            },
            {
                "kind": "relationship",
                "subject": "Mira",
                "relation": "LOCATED_IN",
                "object": "Thornwall",
                "turns": [2],
            },
        ],
    },
    {
        "id": "long-caravan",
        "title": "The Salt Road Caravan",
        "known": [("Aldric", "NPC", ["Sir Aldric"]), ("Saltfang", "Faction", ["the Saltfang gang"])],
        "turns": [
            (G, "Gina", "The caravan rolls out at first light along the salt road, twelve wagons long."),
            (
                G,
                "Gina",
                "Sir Aldric rides at its head; everyone knows the Saltfang gang are his sworn enemies and would love "
                "to catch him on the road.",
            ),
            (
                G,
                "Gina",
                "The caravan master, a stout old man called Orrin Tallow, counts the wagons twice and grumbles.",
            ),
            *table_talk(70),  # turns 4-73
            (
                G,
                "Gina",
                "An arrow from the reeds takes Sir Aldric in the thigh. He keeps his saddle, but he bleeds badly.",
            ),
            *table_talk(70, 3),  # turns 75-144
            (
                G,
                "Gina",
                "At the river crossing the drivers call Redwater Ford, red-sashed Saltfang riders burst from the "
                "reeds.",
            ),
            (P, "Pat", "I draw my bow and shoot at the nearest rider."),
            *table_talk(70, 9),  # turns 147-216
            (
                G,
                "Gina",
                "Pale but upright, Aldric leads the charge that breaks the Saltfang riders; they flee across the "
                "ford, leaving their dead in the water.",
            ),
        ],
        "gold": [
            {"kind": "entity", "name": "Orrin Tallow", "entity_type": "NPC", "turns": [3]},
            {
                "kind": "fact",
                "subject": "Orrin Tallow",
                "attribute": "occupation",
                "value": "caravan master",
                "turns": [3],
            },
            {"kind": "state_change", "subject": "Aldric", "state": "wounded", "turns": [74]},
            {"kind": "entity", "name": "Redwater Ford", "entity_type": "Location", "turns": [145]},
            {
                "kind": "event",
                "name": "Battle of Redwater Ford",
                "location": "Redwater Ford",
                "participants": ["Aldric", "Saltfang"],
                "turns": [145, 217],
            },
            {
                "kind": "relationship",
                "subject": "Aldric",
                "relation": "DEFEATED",
                "object": "Saltfang",
                "turns": [217],
            },
        ],
        "canon": [
            {
                "kind": "relationship",
                "subject": "Aldric",
                "relation": "ENEMY_OF",
                "object": "Saltfang",
                "turns": [2],
            },
        ],
    },
    {
        "id": "long-council",
        "title": "Council by Candlelight",
        "known": [("Lord Brannoc", "NPC", ["the Old Lion", "Brannoc"]), ("Thornwall", "Location", [])],
        "turns": [
            (
                G,
                "Gina",
                "Lord Brannoc, who rules Thornwall, opens the council by candlelight; the old lords grumble.",
            ),
            (P, "Pat", "I find a seat at the back and listen."),
            *table_talk(47, 2),  # turns 3-49
            (
                G,
                "Gina",
                "A young woman takes the seat at Brannoc's right: Maelis, his daughter, the steward of his "
                "household.",
            ),
            *table_talk(49, 11),  # turns 51-99
            (
                G,
                "Gina",
                "Brannoc takes off his signet ring and gives it to Maelis: from tonight she rules Thornwall in "
                "his place.",
            ),
            (P, "Quinn", "I bow to the new lady of Thornwall."),
        ],
        "gold": [
            {"kind": "entity", "name": "Maelis", "entity_type": "NPC", "turns": [50]},
            {
                "kind": "relationship",
                "subject": "Lord Brannoc",
                "relation": "PARENT_OF",
                "object": "Maelis",
                "turns": [50],
            },
            {"kind": "fact", "subject": "Maelis", "attribute": "title", "value": "steward", "turns": [50]},
            {
                "kind": "relationship",
                "subject": "Maelis",
                "relation": "RULES",
                "object": "Thornwall",
                "turns": [100],
            },
        ],
        "canon": [
            {
                "kind": "relationship",
                "subject": "Lord Brannoc",
                "relation": "RULES",
                "object": "Thornwall",
                "turns": [1],
            },
        ],
    },
]
