"""The names a question gives: its word windows, matched whole, as a plural, in part or with a typo against the
entity names a viewer may see (`EntityFinder.names` builds the table; `best_matches` reads it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.graph import fold
from memory import fulltext
from memory.knowledge.retrieval.candidates import EntityMatch
from memory.knowledge.retrieval.config import SearchConfig
from memory.knowledge.retrieval.typed_names import closest, nearest_part

ARTICLES = frozenset({"the", "a", "an"})

#: Folded name -> (name as written, entity id); the folded names, for fuzzy matching; and each run of words of a
#: many-word name with the few entities it names ("ysolde" -> Ysolde Marrow; "tamsin" -> Tamsin Vaske and the
#: Investiture of Tamsin: the question's form chooses among them, `answer_graph`), for names given in part.
Names = tuple[dict[str, tuple[str, int]], list[str], dict[str, tuple[tuple[str, int], ...]]]
#: A run of words shared by more entities than this names none of them (of people, a family name: `shared_names`).
_SHARED_PART = 3
#: A name given in part, or with a typo in a part, scores below a whole name.
_PART_SCORE = 92.0
#: One letter wrong in a six-letter part ("Ysolda") is 83: a part is a capitalised word, so a lower bar holds.
_PART_CUTOFF = 80.0
#: The longest run of a name's words taken for it: longer runs of longer names are rare, and cost the table's build.
_LONGEST_PART = 3


def windows(question: str, longest: int = 6) -> list[str]:
    """Return the word windows of a question (1 to `longest` words) that do not start or end on a stopword."""
    words = [w.strip('.,;:!?"()[]') for w in question.replace("’", "'").split()]
    words = [w[:-2] if w.lower().endswith("'s") else w for w in words if w]
    found: list[str] = []
    for size in range(min(longest, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            window = words[start : start + size]
            if fold(window[0]) in fulltext.STOPWORDS or fold(window[-1]) in fulltext.STOPWORDS:
                continue
            found.append(" ".join(window))
    return list(dict.fromkeys(found))


def singulars(key: str) -> list[str]:
    """Return what a folded plural may be the plural of ("aboleths" -> "aboleth", "harpies" -> "harpy")."""
    found = []
    if key.endswith("ies") and len(key) > 4:
        found.append(key[:-3] + "y")
    if key.endswith("es") and len(key) > 4:
        found.append(key[:-2])
    if key.endswith("s") and not key.endswith("ss") and len(key) > 3:
        found.append(key[:-1])
    return found


def _match(window: str, key: str, names: Names, config: SearchConfig) -> tuple[list[str], float] | None:
    """Return the folded names a window names and how well: whole, plural, in part, or with a typo (a part
    several entities' names share names each of them)."""
    folded_names, choices, parts = names
    if key in folded_names:
        return [key], 100.0
    for singular in singulars(key):
        if singular in folded_names:
            return [singular], 99.0
    # A run of whole words of one name ("mirela" for Mirela Harrow), in any case, as names are typed
    # everywhere (`canon.graph.naming`).
    for candidate in (key, *singulars(key)):
        if candidate in parts and (candidate == key or len(parts[candidate]) == 1):
            # A part several names share, typed as a plural ("the Marrows"), names the house, not one of them.
            return [fold(name) for name, _ in parts[candidate]], _PART_SCORE
    if len(key) >= 4:
        slip = closest(key, choices, folded_names, config.fuzzy_cutoff)  # a slip; two equally near name none
        if slip is not None:
            return slip if slip[0] else None
    # A misspelt part counts only capitalised ("Ysolda"): a lower-case word near a name is mostly just a word.
    if " " in key or not window[:1].isupper() or len(key) < 5:
        return None
    words = [p for p in parts if " " not in p and len(parts[p]) == 1]  # a shared part is typed as it is
    found = nearest_part(key, words, parts, _PART_CUTOFF)  # two parts of two names equally near: neither
    if found is not None:
        return [fold(name) for name, _ in parts[found[0]]], _PART_SCORE * found[1] / 100
    return None


def best_matches(question: str, names: Names, config: SearchConfig) -> list[EntityMatch]:
    """Return the entities the question names, best first, at most `max_entities`."""
    folded_names = names[0]
    best: dict[int, EntityMatch] = {}
    covered: list[str] = []
    strays = _crossed_names(question, names, config)
    for window in windows(question):
        key = fold(window)
        if key in strays or any(key in longer for longer in covered):
            continue  # "Red Dragon" inside an already matched "Adult Red Dragon"
        match = _match(window, key, names, config)
        if match is None or not any(m in folded_names for m in match[0]):
            continue
        covered.append(key)
        score = match[1] + len(key) / 100  # longer matches first among equals
        owners = list({folded_names[f][1]: f for f in reversed(match[0]) if f in folded_names}.values())[::-1]
        first = _begun(key, owners) if len(owners) > 1 and match[1] <= _PART_SCORE else None
        for folded in owners:
            name, entity_id = folded_names[folded]
            shared = len(owners) > 1 and first is None
            # A part several names share is the one name it begins ("Tamsin" of Tamsin Vaske, beside the
            # Investiture of Tamsin) before the others; shared by names it begins none of, it names each alike.
            mine = score + (_BEGUN if folded == first else 0.0)
            if entity_id not in best or best[entity_id].score < mine:
                best[entity_id] = EntityMatch(
                    entity_id=entity_id, matched=name, window=window, score=mine, shared=shared
                )
    return sorted(best.values(), key=lambda m: -m.score)[: config.max_entities]


def _crossed_names(question: str, names: Names, config: SearchConfig) -> set[str]:
    """Return the folded words of each two-word name the question gives that nobody bears, whose first word begins
    the names of some and whose last ends the names of others, none of them the same ("Nell Callow" beside Nell
    Hatch and Tom Callow): a name nobody wrote, not either of them."""
    strays: set[str] = set()
    for window in windows(question, longest=2):
        words = window.split()
        if len(words) != 2 or not all(w[:1].isupper() for w in words):
            continue
        key = fold(window)
        if _match(window, key, names, config) is not None or _two_named(question, window):
            continue
        first, last = (fold(w) for w in words)
        given = _owners(first, names, config, 0)
        family = _owners(last, names, config, -1)
        if given and family and not given & family:
            strays |= {first, last}
    return strays


def _two_named(question: str, window: str) -> bool:
    """Return whether a yes/no question may name two people where the window stands, the second's possessive
    closing it ("is Corin Halloran's apprentice?": Corin, apprentice of Master Halloran)."""
    asks = re.match(r"^\s*(?:is|are|was|were)\b", question, re.IGNORECASE)
    return bool(asks and re.search(re.escape(window) + "['’]", question.replace("’", "'")))


def _owners(word: str, names: Names, config: SearchConfig, at: int) -> set[int]:
    """Return the entities a word of the question names as a part, when a person's name each bears holds it at
    word `at` (0 first, -1 last); empty when it names one otherwise, or none."""
    match = _match(word, word, names, config)
    if match is None:
        return set()
    ids = {names[0][f][1] for f in match[0] if f in names[0]}
    borne = {i for f, (_, i) in names[0].items() if i in ids and f.split()[at] == word and _personal(f)}
    return ids if ids and borne == ids else set()


def _personal(folded: str) -> bool:
    """Return whether a folded name reads as a person's, given and family name with no article or "of" ("nell
    hatch", not "sheriff of redgulch")."""
    words = folded.split()
    return len(words) > 1 and not any(w in fulltext.STOPWORDS or w in ARTICLES for w in words)


#: How much more the one name a shared part begins scores than the others it is part of.
_BEGUN = 0.5


def _begun(part: str, owners: Sequence[str]) -> str | None:
    """Return the one folded name among several that a part begins (an article aside; a possessive is no
    beginning: "corsairs" begins "The Corsairs Guild", not "The Corsairs' Rest"), or None."""
    begun = []
    for folded in owners:
        words = folded.split()
        words = words[1:] if len(words) > 1 and words[0] in ARTICLES else words
        if " ".join(words[: len(part.split())]) == part:
            begun.append(folded)
    return begun[0] if len(begun) == 1 else None


def _unpossessed(word: str) -> str:
    """Return a folded word without its possessive ending ("lamplighters" of "lamplighters'", "vell" of "vell's")."""
    if word.endswith("'s") and len(word) > 3:
        return word[:-2]
    return word[:-1] if word.endswith("'") and len(word) > 2 else word


def name_parts(folded_names: dict[str, tuple[str, int]]) -> dict[str, tuple[tuple[str, int], ...]]:
    """Return each run of whole words of a many-word name, shorter than the name, with the few entities whose
    names hold it ("mirela", "harrow" when one Harrow is known; "tamsin" of Tamsin Vaske and the Investiture of
    Tamsin; "orrow" of Maelis Orrow and House Orrow: `best_matches` tells them apart); runs starting or ending
    on a stopword, and one-word runs of fewer than three letters, are left out, and so is a run that is another
    entity's whole name, and a run more than a few names share. A possessive word is also a part without its
    ending ("lamplighters" of "The Lamplighters' Guild")."""
    owners: dict[str, dict[int, tuple[str, int]]] = {}
    skipped = fulltext.STOPWORDS | ARTICLES
    for folded, (name, entity_id) in folded_names.items():
        words = folded.split()
        for size in range(1, min(len(words), _LONGEST_PART + 1)):
            for start in range(len(words) - size + 1):
                run = words[start : start + size]
                if run[0] in skipped or run[-1] in skipped or (size == 1 and len(run[0]) < 3):
                    continue
                part = " ".join(run)
                owners.setdefault(part, {}).setdefault(entity_id, (name, entity_id))
                bare = " ".join(
                    _unpossessed(w) for w in run
                )  # "the lamplighters" of "The Lamplighters' Guild"
                if bare != part:
                    owners.setdefault(bare, {}).setdefault(entity_id, (name, entity_id))
    return {
        w: tuple(ids.values())
        for w, ids in owners.items()
        if w not in folded_names and len(ids) <= _SHARED_PART
    }
