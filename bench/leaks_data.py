"""Generated cases for `bench.leaks`: hidden facts said verbatim, paraphrased and obfuscated, and innocent texts.

Each world has public people and factions, GM-only states, facts and relations about them, and a GM-only
entity. A leak case is a narration that says one hidden fact (the secret it must be caught for is named); an
innocent case shares the secrets' words without saying any of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from memory.leaks import Secret

PEOPLE = [
    "Brann",
    "Mira",
    "Vell",
    "Aldric",
    "Corvin",
    "Isolde",
    "Hesk",
    "Tamsin",
    "Oswin",
    "Rhosyn",
    "Jorund",
    "Maelis",
    "Petra",
    "Quill",
    "Sabine",
    "Torvald",
    "Wren",
    "Yselde",
    "Dagny",
    "Fenwick",
]
FACTIONS = ("the Crimson Pact", "the Iron Circle", "the Grey Lanterns", "the Salt Guild", "the Ashen Court")
HIDDEN = ("Orsolya", "the Pale Duke", "Kethra", "Ombrecht", "the Lantern Queen")

# state: (verbatim, paraphrases, innocent texts sharing the words): {n} is the name.
STATES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "dead": (
        "{n} is dead.",
        (
            "Word came at dawn: {n} was slain on the road.",
            "They buried {n} beneath the old oak; {n} perished.",
            "{n} will not see another spring.",
        ),
        (
            "The fishermen sing for the dead at dusk; {n} hammers at the forge.",
            "{n} lights a candle. The bells toll for the dead.",
            "{n} says the dead do not walk in Thornwall.",
            "{n} mourns the miller, who died last spring.",
        ),
    ),
    "missing": (
        "{n} is missing.",
        ("No one has seen {n} in weeks: {n} vanished.", "{n} disappeared before the thaw."),
        ("A cart is missing a wheel. {n} curses the road.", "{n} counts the coins twice; none are gone."),
    ),
    "imprisoned": (
        "{n} is imprisoned.",
        (
            "{n} is held captive in the tower.",
            "The guards keep {n} in chains below the keep.",
            "{n} has not seen daylight since the guards took him.",
        ),
        ("{n} speaks of the prisoners freed last spring.", "The tower is empty. {n} climbs it for the view."),
    ),
    "cursed": (
        "{n} is cursed.",
        ("{n} lives under a curse.", "A witch hexed {n} long ago; {n} is bewitched."),
        ("{n} swears at the rain. Sailors say the harbour is cursed.", "{n} laughs at tales of curses."),
    ),
    "wounded": (
        "{n} is wounded.",
        ("{n} was hurt in the ambush.", "Blood seeps through the bandage: {n} is injured."),
        ("{n} tends the wounded at the shrine.", "{n} mends the torn sail; the wind is cold."),
    ),
}

# fact: (attribute, value, verbatim, paraphrases, innocent): {n} is the name, {v} the value.
FACTS = (
    (
        "true_allegiance",
        "{f}",
        "{n}'s true allegiance is to {v}.",
        ("{n} secretly serves {v}.", "{n} has always been loyal to {v}."),
        ("{n} pours ale. The banners of {v} hang over the square.", "{n} nods. {v} meet at the old mill."),
    ),
    (
        "hid",
        "the ledger in the cellar",
        "{n} hid the ledger in the cellar.",
        ("The ledger {n} took lies in the cellar.", "{n} keeps the ledger down in the cellar."),
        ("{n} sweeps the floor. The cellar is damp; rats nest there.", "{n} writes in a ledger at the bar."),
    ),
)

# relation: (predicate, verbatim, paraphrases, innocent): {n} subject, {o} object.
RELATIONS = (
    (
        "MEMBER_OF",
        "{n} is a member of {o}.",
        ("{n} is sworn to {o}.", "{n} joined {o} years ago."),
        (
            "{n} pours ale; {o} meet upstairs.",
            "{o} march past. {n} closes the shutters.",
            "{n} asks about {o}.",
        ),
    ),
    (
        "ENEMY_OF",
        "{n} is an enemy of {o}.",
        ("{n} hates {o}.", "{n} plots against {o}."),
        ("{n} waves at the crowd. {o} hold a feast.", "{o} sent a letter. {n} reads it aloud."),
    ),
    (
        "PARENT_OF",
        "{n} is the parent of {o}.",
        ("{n} is the father of {o}.", "{o} is the daughter of {n}."),
        ("{n} and {o} share a table.", "{o} greets {n} at the gate."),
    ),
)

OBFUSCATIONS = (
    "soft_hyphen",
    "zero_width",
    "cyrillic",
    "leetspeak",
    "line_hyphen",
    "fullwidth",
    "letter_spaced",
    "dotted",
    "dashed",
    "underscored",
)
#: Spelling a name out letter by letter: "C r i m s o n P a c t", "C.r.i.m.s.o.n", "C-r-i-m-s-o-n", "C_r_i...".
_SPELLED = {"letter_spaced": " ", "dotted": ".", "dashed": "-", "underscored": "_"}
_CYRILLIC = dict(zip("aeopcxyABCEHKMOPTX", "аеорсхуАВСЕНКМОРТХ", strict=True))
_LEET = dict(zip("aeiost", "431057", strict=True))
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")


def obfuscate(text: str, how: str, rng: random.Random) -> str:
    """Return `text` dressed one way (look-alike letters, invisible characters, leetspeak, broken words)."""
    words = text.split(" ")
    if how == "soft_hyphen":
        words = [w[: len(w) // 2] + "\u00ad" + w[len(w) // 2 :] if len(w) >= 4 else w for w in words]
    elif how == "zero_width":
        words = [
            "".join(c + (rng.choice(_INVISIBLE) if rng.random() < 0.4 else "") for c in w) for w in words
        ]
    elif how == "cyrillic":
        words = ["".join(_CYRILLIC.get(c, c) if rng.random() < 0.6 else c for c in w) for w in words]
    elif how == "leetspeak":
        words = ["".join(_LEET.get(c, c) if rng.random() < 0.6 else c for c in w) for w in words]
    elif how == "line_hyphen":
        words = [w[: len(w) // 2] + "-\n" + w[len(w) // 2 :] if len(w) >= 6 else w for w in words]
    elif how == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    elif how in _SPELLED:
        # The narrator's disguise: the names (capitalised words) spelled out, and with a separator that is not
        # a space the longer words too (spaced-out small words run together for a reader as well: "a m e m b e r").
        sep = _SPELLED[how]
        words = [
            sep.join(w) if w[:1].isupper() or (sep != " " and len(w.strip(".,;:'")) >= 6) else w
            for w in words
        ]
    return " ".join(words)


@dataclass(frozen=True)
class Case:
    """One text to check: its class, the label of the secret it says (None: innocent), and its world."""

    kind: str
    text: str
    expected: str | None
    secrets: tuple[Secret, ...]
    public: tuple[str, ...]


def _frame(sentence: str, rng: random.Random) -> str:
    before = rng.choice(("The rain drums on the shutters.", "Night falls over Thornwall.", ""))
    after = rng.choice(("The fire crackles.", "Somewhere a dog barks.", ""))
    return " ".join(p for p in (before, sentence, after) if p)


def _world_cases(rng: random.Random, index: int) -> list[Case]:
    people = rng.sample(PEOPLE, 4)
    faction = FACTIONS[index % len(FACTIONS)]
    hidden = HIDDEN[index % len(HIDDEN)]
    state = rng.choice(sorted(STATES))
    fact = FACTS[index % len(FACTS)]
    relation = RELATIONS[index % len(RELATIONS)]
    other = people[3] if relation[0] == "PARENT_OF" else faction
    secrets = (
        Secret.state((people[0],), state, label="state"),
        Secret.fact((people[1],), fact[0], fact[1].format(f=faction), label="fact"),
        Secret.relation((people[2],), relation[0], (other,), label="relation"),
        Secret.entity((hidden,), f"{hidden} (NPC); a spymaster", label="entity"),
    )
    # What players know: every public name, and the secrets' common words in public sentences.
    public = (
        " ".join(f"{p} lives in Thornwall." for p in people),
        f"{faction[0].upper()}{faction[1:]} is a guild of the city.",
        "The fishermen sing for the dead at dusk; the wounded rest at the shrine; a ledger lies in a cellar.",
        "Sailors say the harbour is cursed, and the tower held prisoners once; a cart went missing.",
    )
    cases: list[Case] = []

    def add(kind: str, text: str, expected: str | None) -> None:
        cases.append(Case(kind, _frame(text, rng), expected, secrets, public))

    verbatim = {
        "state": STATES[state][0].format(n=people[0]),
        "fact": fact[2].format(n=people[1], v=fact[1].format(f=faction)),
        "relation": relation[1].format(n=people[2], o=other),
        "entity": f"A woman called {hidden} watches from the stairs.",
    }
    paraphrases = {
        "state": [p.format(n=people[0]) for p in STATES[state][1]],
        "fact": [p.format(n=people[1], v=fact[1].format(f=faction)) for p in fact[3]],
        "relation": [p.format(n=people[2], o=other) for p in relation[2]],
        "entity": [f"They say {hidden} pulls the strings in Thornwall."],
    }
    innocent = (
        [t.format(n=people[0]) for t in STATES[state][2]]
        + [t.format(n=people[1], v=fact[1].format(f=faction)) for t in fact[4]]
        + [t.format(n=people[2], o=other) for t in relation[3]]
    )
    for label, sentence in verbatim.items():
        add("verbatim", sentence, label)
        for how in OBFUSCATIONS:
            add(how, obfuscate(sentence, how, rng), label)
        for sentence2 in paraphrases[label]:
            add("paraphrase", sentence2, label)
    for text in innocent:
        add("innocent", text, None)
    return cases


def cases(worlds: int = 12, seed: int = 13) -> list[Case]:
    """Return the generated cases of `worlds` worlds (deterministic for a seed)."""
    rng = random.Random(seed)
    generated = [case for i in range(worlds) for case in _world_cases(rng, i)]
    return generated + _everyday(rng)


EVERYDAY = (
    "The rain drums on the shutters while {a} and {b} argue over the price of salt.",
    "{a} buys bread and a wheel of cheese; {b} haggles for apples.",
    "A cold wind comes off the sea. {a} pulls her cloak tighter and walks on.",
    "{a} tells a story of old battles, and the children beg for another.",
    "{a} sharpens a knife by the fire; {b} sings a sailor's song.",
)


def _everyday(rng: random.Random) -> list[Case]:
    """Return innocent narrations of everyday life in a world with all kinds of secrets."""
    out: list[Case] = []
    for world in range(20):
        a, b, c = rng.sample(PEOPLE, 3)
        state = sorted(STATES)[world % len(STATES)]
        secrets = (
            Secret.state((a,), state, label="state"),
            Secret.relation((b,), "ENEMY_OF", (c,), label="relation"),
            Secret.fact((a,), "true_allegiance", FACTIONS[world % len(FACTIONS)], label="fact"),
            Secret.entity((HIDDEN[world % len(HIDDEN)],), "a spymaster", label="entity"),
        )
        public = (f"{a}, {b} and {c} live in Thornwall.", FACTIONS[world % len(FACTIONS)] + " trade salt.")
        text = rng.choice(EVERYDAY).format(a=a, b=b)
        out.append(Case("innocent", text, None, secrets, public))
    return out
