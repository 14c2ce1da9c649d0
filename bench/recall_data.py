"""NPC memories and the questions players would ask, each with the memories that answer it (`bench/recall.py`).

Memories are in the NPC's own voice, as the voice writes them; questions paraphrase rather than repeat them.
Every NPC has near-misses (memories about the same people or places that do not answer) and other NPCs hold
memories about the same topics, which an NPC must never recall (it did not live them).
"""

from __future__ import annotations

# npc -> list of (key, importance, memory text)
MEMORIES: dict[str, list[tuple[str, float, str]]] = {
    "Mira": [
        (
            "ledger",
            0.8,
            "Pat asked me where the stolen ledger went. I told them it is hidden in my cellar, under the wine barrels.",
        ),
        ("tobin", 0.9, "Three winters ago the sea took my Tobin. I still keep his portrait behind the bar."),
        ("father", 0.9, "I finally said it aloud: the Old Lion is my father, and he never once came for me."),
        ("rent", 0.3, "The harbour master raised the rent on the Drowned Rat again. Thieves, all of them."),
        (
            "corvin",
            0.6,
            "A hooded man who calls himself Corvin sat in the corner all night watching the door.",
        ),
        ("stew", 0.2, "Quinn ordered the fish stew twice and tipped well. Good customer."),
        ("fire", 0.8, "The night the Saltfang ships burned the harbour, I hid six children in my cellar."),
        ("brawl", 0.4, "Two sailors broke my best table in a brawl over a card game. I threw them both out."),
        (
            "letter",
            0.7,
            "A sealed letter came for me with a grey hand pressed into the wax. I burned it unread.",
        ),
        (
            "ale",
            0.2,
            "The new barrels of ale from Copperdeep are sour; I will not buy from that brewer again.",
        ),
        (
            "aldric",
            0.5,
            "Sir Aldric drank alone by the fire the night before his duel and did not say a word.",
        ),
        ("rook", 0.5, "Rook paid for his room with a coin stamped with a skull; I kept it in the till."),
    ],
    "Aldric": [
        ("password", 0.7, "I gave the travellers the password to the north gate: moonwater."),
        ("duel", 0.9, "I killed Osric at dawn in the courtyard. I take no joy in it; he gave me no choice."),
        (
            "arrow",
            0.6,
            "On the coast road a Saltfang arrow took me in the shoulder. Quinn dragged me behind the wagon.",
        ),
        (
            "dungeon",
            0.8,
            "The duke's men threw me into the dungeon of Blackmoor Keep. Water dripped on me for eleven nights.",
        ),
        ("dragon", 0.9, "At Ashby Ford I drove my spear into the red dragon. It fled north, bleeding black."),
        ("oath", 0.6, "I swore my sword to Lord Brannoc when I was sixteen and have never broken that oath."),
        ("horse", 0.3, "My grey mare threw a shoe outside Thornwall; the smith charged double."),
        ("mira", 0.4, "The innkeeper Mira poured me a drink the night before the duel and asked nothing."),
        (
            "veyra",
            0.5,
            "Captain Veyra and I trained together as squires; she was always faster with a blade.",
        ),
        ("edric", 0.7, "Young Edric asked me to teach him the sword a week before he vanished."),
    ],
    "Sister Hild": [
        (
            "rite",
            0.9,
            "I chanted over Ser Osric's body through the whole night, and at dawn Aelar gave him breath again.",
        ),
        ("veyra", 0.7, "Captain Veyra knelt before me and swore herself to the Patient One."),
        (
            "cough",
            0.8,
            "The physicians brought me the Old Lion's sputum. It is the grey cough; prayer may ease him, not cure him.",
        ),
        ("offering", 0.3, "Quinn left a silver offering at the altar and bowed badly, but sincerely."),
        ("roof", 0.4, "Rain comes through the temple roof again; the novices set out buckets."),
        (
            "orphans",
            0.6,
            "After the harbour fire, eleven orphans came to the temple. We feed them from the poor box.",
        ),
        (
            "nightfang",
            0.8,
            "Bram came to me with a black sword fused to his hand. I felt the curse in it like cold iron.",
        ),
        (
            "heretic",
            0.5,
            "A wandering preacher shouted in the square that Aelar is dead. The watch led him away.",
        ),
        ("herbs", 0.2, "The winter herbs are running low; we need more feverfew before the snows."),
        ("edric", 0.6, "Edric came to confession the night he disappeared and wept without saying why."),
    ],
    "Fizzwick Cogsworth": [
        (
            "copperdeep",
            0.7,
            "I left Copperdeep after my workshop exploded. Not my fault. Mostly not my fault.",
        ),
        ("wedding", 0.9, "I married Dalla under a rain of paper stars. Best day of my life, bar none."),
        (
            "clock",
            0.5,
            "I fixed the harbour clock for Lord Brannoc; it now runs four minutes fast, on purpose.",
        ),
        (
            "lock",
            0.6,
            "Rook asked me how to open a tumbler lock without a key. I told him. I probably should not have.",
        ),
        ("dragon", 0.7, "I am building a spring-loaded ballista in case the red dragon comes back."),
        ("debt", 0.4, "I owe the map seller's guild forty crowns for parts. Dalla does not know."),
        ("explosion", 0.3, "A small explosion in my new shop singed my eyebrows. Minor. Cosmetic."),
        (
            "aldric",
            0.4,
            "Sir Aldric's grey mare needed a new shoe and the smith was rude, so I made one myself.",
        ),
    ],
}

# (npc, question, keys of the memories that answer it)
QUESTIONS: list[tuple[str, str, list[str]]] = [
    ("Mira", "Where did you put the missing account book?", ["ledger"]),
    ("Mira", "Were you ever married?", ["tobin"]),
    ("Mira", "Who is your dad?", ["father"]),
    ("Mira", "What did you do when the pirates set the docks on fire?", ["fire"]),
    ("Mira", "Has anyone suspicious been hanging around your tavern?", ["corvin"]),
    ("Mira", "Did you get any strange mail lately?", ["letter"]),
    ("Mira", "How was the knight before his fight to the death?", ["aldric"]),
    ("Mira", "Any trouble with fights in here?", ["brawl"]),
    ("Mira", "Why don't you sell the Copperdeep beer anymore?", ["ale"]),
    ("Aldric", "How do we get through the northern gate?", ["password"]),
    ("Aldric", "Why did you kill Osric?", ["duel"]),
    ("Aldric", "Where were you imprisoned?", ["dungeon"]),
    ("Aldric", "Tell me about fighting the dragon.", ["dragon"]),
    ("Aldric", "Who do you serve?", ["oath"]),
    ("Aldric", "How did you get that scar on your shoulder?", ["arrow"]),
    ("Aldric", "Did the lord's missing son ever talk to you?", ["edric"]),
    ("Aldric", "Do you know the captain of the watch?", ["veyra"]),
    ("Sister Hild", "Is it true you brought a dead man back to life?", ["rite"]),
    ("Sister Hild", "What is wrong with Lord Brannoc's health?", ["cough"]),
    ("Sister Hild", "Can you help with a cursed weapon?", ["nightfang"]),
    ("Sister Hild", "What happened to the children after the fire?", ["orphans"]),
    ("Sister Hild", "Did the heir say anything before he vanished?", ["edric"]),
    ("Sister Hild", "Who joined your faith recently?", ["veyra"]),
    ("Fizzwick Cogsworth", "Why did you leave your home town?", ["copperdeep", "explosion"]),
    ("Fizzwick Cogsworth", "Who is your wife?", ["wedding"]),
    ("Fizzwick Cogsworth", "What are you doing to protect the town from the wyrm?", ["dragon"]),
    ("Fizzwick Cogsworth", "Has anyone asked you about picking locks?", ["lock"]),
    ("Fizzwick Cogsworth", "Do you owe anyone money?", ["debt"]),
    ("Fizzwick Cogsworth", "Why is the harbour clock wrong?", ["clock"]),
    ("Fizzwick Cogsworth", "Have you done any work for the knight?", ["aldric"]),
]
