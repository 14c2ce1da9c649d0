"""Scripted scenes for `bench/extraction.py`, each with the proposals a careful GM would accept.

A scene lists the canon entities known before it (name, type, aliases), its turns (speaker kind, author, text)
and `gold`: the proposals in the extraction reply's own shape (so a stub can replay them as a harness check).
Several scenes hold traps a careful GM would not accept: plans, rumours, questions, out-of-character talk.
Matching rules live in the benchmark: names through canon aliases and fuzzy equality, facts by subject and
value (the attribute's wording is free), events by their participants or name.

The long scenes (`long-*`) run past one piece of the transcript (hours of table talk around a few moments that
matter), so extraction reads them in pieces and merges what overlapping pieces both found. A scene's `canon`
lists what canon already holds before it and the scene restates (in the same shape, citing the turns that
restate it): the benchmark writes it into canon first, so a proposal repeating it is merged into canon by the
production check, never proposed; it is never gold.
"""

from __future__ import annotations

from typing import Any

P, G, N = "player", "gm", "narrator"

Known = list[tuple[str, str, list[str]]]

# Table talk that establishes nothing a careful GM would make canon: dice, rules, snacks, idle plans, weather.
BANTER: list[tuple[str, str, str]] = [
    (
        P,
        "Pat",
        "I roll for perception. Fourteen, plus two. Do I notice anything in the room, or is it just people "
        "drinking and talking about the weather?",
    ),
    (
        G,
        "Gina",
        "Nothing out of the ordinary. People drink, talk about the weather and complain about the price of salt.",
    ),
    (
        P,
        "Quinn",
        "Quick rules question: does my advantage from inspiration stack with the bonus from the bard's song, or "
        "do I just take the better one?",
    ),
    (
        G,
        "Gina",
        "Take the better one, they don't stack. We can look it up properly after the session if you want.",
    ),
    (
        P,
        "Pat",
        "Can someone pass the crisps? And does anyone want more tea before we carry on with the scene?",
    ),
    (
        P,
        "Quinn",
        "I keep an eye on the door and nurse my drink. If anyone comes in I want to see them before they see me.",
    ),
    (
        G,
        "Gina",
        "Time drags on. A fire crackles somewhere, a dog snores, and the rain keeps drumming on the roof.",
    ),
    (
        P,
        "Pat",
        "Maybe we should look for work tomorrow and ask around? Or we could just rest. I don't know yet.",
    ),
    (
        P,
        "Quinn",
        "Let's decide tomorrow. I'd rather not make plans while my character is this tired and grumpy, honestly.",
    ),
    (
        P,
        "Pat",
        "How much money do we have left after today? I want to buy new boots at some point, mine are awful.",
    ),
    (
        G,
        "Gina",
        "About thirty silver between you. The boots will have to wait until somebody pays you for something.",
    ),
    (P, "Quinn", "I hum an old song under my breath and tap along on the table with my fingers, badly."),
    (
        P,
        "Pat",
        "Out of character: I need to leave by eleven tonight, so let's keep an eye on the time, please.",
    ),
    (
        G,
        "Gina",
        "Noted, we'll stop at a good point. Back in the scene: for a long while nothing much happens.",
    ),
    (P, "Pat", "I try to remember whether we locked the wagon. Can I make a memory check, or is that silly?"),
    (G, "Gina", "Roll it if you like. Eleven: you honestly can't remember, which is not very reassuring."),
]


def _talk(count: int, start: int = 0) -> list[tuple[str, str, str]]:
    """Return `count` turns of table talk (from `BANTER`, starting at `start`)."""
    return [BANTER[(start + n) % len(BANTER)] for n in range(count)]


SCENES: list[dict[str, Any]] = [
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
            *_talk(60),  # turns 3-62
            (
                G,
                "Gina",
                "Near midnight the door bangs open: a soaked courier, Edda Varn, a rider of the Harbour Post, "
                "staggers in with a sealed letter.",
            ),
            *_talk(60, 5),  # turns 64-123
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
            *_talk(70),  # turns 4-73
            (
                G,
                "Gina",
                "An arrow from the reeds takes Sir Aldric in the thigh. He keeps his saddle, but he bleeds badly.",
            ),
            *_talk(70, 3),  # turns 75-144
            (
                G,
                "Gina",
                "At the river crossing the drivers call Redwater Ford, red-sashed Saltfang riders burst from the "
                "reeds.",
            ),
            (P, "Pat", "I draw my bow and shoot at the nearest rider."),
            *_talk(70, 9),  # turns 147-216
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
            *_talk(47, 2),  # turns 3-49
            (
                G,
                "Gina",
                "A young woman takes the seat at Brannoc's right: Maelis, his daughter, the steward of his "
                "household.",
            ),
            *_talk(49, 11),  # turns 51-99
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
