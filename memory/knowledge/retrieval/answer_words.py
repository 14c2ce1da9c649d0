"""The words of lore questions and passages, as the short answer reads them (their sentences:
`passage_sentences`)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Sequence

from canon.number_words import CARDINALS, ORDINALS, TENS
from memory import fulltext
from memory.knowledge.glossary import RELATED
from memory.knowledge.question import CHATTER, FILLER, GENERIC, without_how
from memory.knowledge.retrieval.passage_sentences import (
    EXAMPLE_OPENS,
    examples,
    kind_line,
    labelled_sentences,
    sections_of,
    sentences,
)

__all__ = [
    "AGE_ASKING",
    "EXAMPLE_OPENS",
    "RELATION_WORDS",
    "asked_words",
    "covers",
    "examples",
    "fold_words",
    "has_word",
    "is_number",
    "key_words",
    "kind_line",
    "labelled_sentences",
    "names_in",
    "naming_word",
    "related_said",
    "same_start",
    "same_word",
    "sections_of",
    "sentences",
    "table_word",
]


_WORD = re.compile(r"[^\W_]+")


def fold_words(text: str) -> list[str]:
    return list(_folded(text))


@functools.lru_cache(maxsize=2048)
def _folded(text: str) -> tuple[str, ...]:
    """Return a text's folded words (kept: the same passages and questions are read by many answer forms)."""
    return tuple(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


#: Verbs whose forms do not share a stem ("steal", "stole", "stolen"; "leave", "left"), as a question asks them and
#: a bible tells them: each form reads as its first.
_IRREGULAR = {
    form: forms[0]
    for forms in (
        ("steal", "stole", "stolen"),
        ("take", "took", "taken"),
        ("give", "gave", "given"),
        ("buy", "bought"),
        ("sell", "sold"),
        ("bring", "brought"),
        ("find", "found"),
        ("hide", "hid", "hidden"),
        ("break", "broke", "broken"),
        ("forge", "forged"),
        ("build", "built"),
        ("write", "wrote", "written"),
        ("fight", "fought"),
        ("seek", "sought"),
        ("lose", "lost"),
        ("owe", "owed"),
        ("know", "knew", "known"),
        ("slay", "slew", "slain"),
        ("die", "dies", "died", "dying"),
        ("leave", "left"),
        ("flee", "fled"),
        ("go", "went", "gone"),
        ("fall", "fell", "fallen"),
        ("keep", "kept"),
        ("tell", "told"),
        ("send", "sent"),
        ("make", "made"),
        ("come", "came"),
        ("ride", "rode", "ridden"),
        ("rise", "rose", "risen"),
        ("hold", "held"),
        ("wear", "wore", "worn"),
        ("win", "won"),
        ("choose", "chose", "chosen"),
        ("swear", "swore", "sworn"),
        ("begin", "began", "begun"),
        ("forsake", "forsook", "forsaken"),
        ("run", "ran"),
        ("say", "said"),
        ("pay", "paid"),
        ("lead", "led"),
        ("feel", "felt"),
        ("bear", "bore", "borne"),
        ("sink", "sank", "sunk"),
        ("strike", "struck"),
        ("meet", "met"),
        ("spend", "spent"),
        ("speak", "spoke", "spoken"),
        ("teach", "taught"),
        ("think", "thought"),
        ("catch", "caught"),
        ("throw", "threw", "thrown"),
        ("grow", "grew", "grown"),
        ("stand", "stood"),
        ("become", "became"),
        # Units as the books abbreviate them in stat lines ("30 ft.", "3 lb.").
        ("foot", "feet", "ft"),
        ("pound", "pounds", "lb", "lbs"),
    )
    for form in forms
}


#: Ordinals in words ("second" is left out: it is a time too), up to the twentieth and the tens after it.
_ORDINAL_WORDS = {w: str(n) for w, n in ORDINALS.items() if w != "second"}
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")


#: Numbers in words ("level four" is "level 4", "fifteen feet" "15 feet", "drops to zero" "drops to 0"; "one" is
#: left out: it is a pronoun too, "the one that ..."), up to twenty and the tens after it: players type in words
#: what the books print in figures.
_NUMBER_WORDS = {w: str(n) for w, n in {**CARDINALS, **TENS}.items() if n >= 2 or n == 0}


def _rank(word: str) -> str | None:
    """Return the number a word counts as when it is one, in words, or an ordinal ("1", "1st", "first": "1";
    "four": "4"), or None."""
    if word.isdigit():
        return word
    match = _ORDINAL.match(word)
    return match.group(1) if match else _ORDINAL_WORDS.get(word) or _NUMBER_WORDS.get(word)


def is_number(word: str) -> bool:
    """Return whether a folded word is a number, in figures or words, or an ordinal ("3", "three", "3rd")."""
    return _rank(word) is not None


def naming_word(word: str) -> bool:
    """Return whether a folded word may name a thing: no letter alone, little word, chatter, filler nor number."""
    return (
        len(word) > 1
        and word not in fulltext.STOPWORDS
        and word not in CHATTER
        and word not in FILLER
        and not is_number(word)
    )


_VOWELS = frozenset("aeiou")


def _y_forms(stem: str) -> tuple[str, str]:
    """Return the endings of a word ending in a consonant and "y", given without its "y" ("spies", "spied")."""
    return stem + "ies", stem + "ied"


@functools.lru_cache(maxsize=65536)
def same_word(a: str, b: str) -> bool:
    """Return whether two folded words are the same but for an ending ("aboleths" and "aboleth"), or forms of
    the same irregular verb ("steal" and "stolen"), or the same number as a figure or an ordinal ("round 1" is
    the "first" round, "level 2" the "2nd")."""
    if a == b or {a, b} == {"2nd", "second"}:
        return True  # "second" is left out of the ordinals (a time too), but "2nd" is never a time
    if a[:2] != b[:2] and (same_start(a) is not None or same_start(b) is not None):
        return False  # no ending makes them one (`same_start`)
    if _IRREGULAR.get(a, a) == _IRREGULAR.get(b, b):
        return True
    ranks = _rank(a), _rank(b)
    if None not in ranks:
        return ranks[0] == ranks[1]
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 3 and short[-1] == "y" and short[-2] not in _VOWELS and long_ in _y_forms(short[:-1]):
        return True  # a last "y" after a consonant made "i": "spy", "spies"; "carry", "carried"
    if len(short) >= 3 and long_ in (short + short[-1] + "ing", short + short[-1] + "ed"):
        return True  # the last letter doubled: "drag", "dragging"; "grab", "grabbed"
    if len(short) == 3:  # a short verb or noun and its endings only ("owe", "owes", "owed"; "run", "runs")
        return long_ in _inflected(short)
    if len(short) < 4 or len(long_) - len(short) > 3:
        return False
    stem = _stem(a)
    if len(stem) >= 4 and stem == _stem(b):
        return True  # two endings of one stem: "touches", "touching"; "marches", "marched"
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    return common >= len(short) - 1 and common >= 4


#: The endings `_stem` takes off, longest first.
_ENDINGS = ("ing", "es", "ed", "s", "e")


@functools.lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """Return a word without its regular ending ("touches", "touching": "touch")."""
    return next((word[: -len(e)] for e in _ENDINGS if word.endswith(e) and len(word) - len(e) >= 3), word)


def _inflected(word: str) -> set[str]:
    """Return a word's regular endings ("owe": "owes", "owed", "owing"; "run": "runs", "runed", "running")."""
    stem = word[:-1] if word.endswith("e") else word
    return {word + "s", word + "es", stem + "ed", stem + "ing", word + word[-1] + "ing"}


@functools.lru_cache(maxsize=16384)
def same_start(word: str) -> str | None:
    """Return the first two letters every word `same_word` pairs with this one starts with, or None when it may
    pair with any (an irregular verb's form, a number): `has_word` compares only the words that start so."""
    if word in _IRREGULAR or _rank(word) is not None:
        return None
    return word[:2]


def has_word(words: Collection[str], word: str) -> bool:
    if word in words:
        return True
    start = same_start(word)
    if start is None:
        return any(same_word(word, w) for w in words)
    return any(same_word(word, w) for w in words if w[:2] == start)


#: The table's abbreviations, read as the words a source writes out.
ABBREVIATIONS = {
    "ac": ("armor", "class"),
    "hp": ("hit", "points"),
    "cr": ("challenge",),
    "dc": ("difficulty", "class"),
    "xp": ("experience",),
}


#: "One" standing for a thing named before ("a spare one", "which one is it"): a pronoun, no number to find.
_PRONOUN_ONE = re.compile(
    r"(?i)\b(?:a|an|the|this|that|which|each|every|any|another)\s+(?:[^\W\d_]+\s+)?one\b(?=\s*(?:[?!.,;]|$|"
    r"(?:is|are|was|were|has|have|had|does|do|did|can|could|will|would|should|that|which|who)\b))"
)
_ONE = re.compile(r"(?i)\bone\b")


def key_words(question: str) -> list[str]:
    """Return the words a question is about: content words but the ones that only ask, abbreviations spelt out,
    and "one" where it only stands for a thing named before ("how many pages does a blank one hold")."""
    words: list[str] = []
    for word in fulltext.query_words(question.replace("’", "'")):
        words += ABBREVIATIONS.get(word, (word,))
    pronoun = len(_PRONOUN_ONE.findall(question)) == len(_ONE.findall(question)) > 0
    return [
        w
        for w in dict.fromkeys(words)
        if w not in GENERIC
        and w not in CHATTER
        and w not in fulltext.STOPWORDS
        and not (pronoun and w == "one")
    ]


def asked_words(question: str) -> list[str]:
    """Return the words a passage's sentence answering a question says: its key words but the word after "how"
    that asks an amount ("how long can I hold my breath" asks of holding a breath, the books never say "long")."""
    return key_words(without_how(question))


@functools.lru_cache(maxsize=4096)
def _related(word: str) -> tuple[str, ...]:
    """Return the books' words for a question's word (`glossary.RELATED`, an ending apart), none when it has none."""
    return tuple(p for k, phrases in RELATED.items() if same_word(word, k) for p in phrases)


def table_word(word: str) -> bool:
    """Return whether a folded word is the table's word for something the books say in their own words
    (`glossary.RELATED`: "formula", "money"): a way of asking, never a name."""
    return bool(_related(word))


def related_said(text: str | Sequence[str], asked: Sequence[str]) -> set[str]:
    """Return the question's words a text (or its folded words, in order) says in the books' words
    (`glossary.RELATED`: "at least 1 hour" says "minimum", "you succeed" says "pass")."""
    wanted = {w: p for w in asked if (p := _related(w))}
    if not wanted:
        return set()
    words = fold_words(text) if isinstance(text, str) else text
    joined = f" {' '.join(words)} "
    present = set(words)
    found = set()
    for word, phrases in wanted.items():
        for phrase in phrases:
            if (" " in phrase and f" {phrase} " in joined) or (
                " " not in phrase and present & _forms(phrase)
            ):
                found.add(word)
                break
    return found


@functools.lru_cache(maxsize=1024)
def _forms(word: str) -> frozenset[str]:
    """Return a word with its regular endings ("regain": "regains", "regained", "regaining")."""
    stem = word[:-1] if word.endswith("e") else word
    return frozenset({word, word + "s", word + "es", word + "d", stem + "ed", stem + "ing"})


def names_in(question: str) -> list[str]:
    """Return the folded capitalised words of a question that do not start it (its names, mostly)."""
    found = []
    for index, match in enumerate(_WORD.finditer(unicodedata.normalize("NFKC", question))):
        word = match.group(0)
        if index and word[:1].isupper() and len(word) >= 3:
            found.append(word.casefold())
    return found


#: The words that ask an age: a card found by them alone ("Old Salt" by "how old") is not the one asked of.
AGE_ASKING = frozenset({"how", "old", "older", "elder", "younger", "what", "age"})


#: Question words that ask for a relation, and the relation types that answer them.
RELATION_WORDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(["brother", "brothers", "sister", "sisters", "sibling", "siblings"], ("SIBLING_OF",)),
    **dict.fromkeys(
        [
            "father",
            "mother",
            "parent",
            "parents",
            "son",
            "sons",
            "daughter",
            "daughters",
            "child",
            "children",
            "kid",
            "kids",
        ],
        ("PARENT_OF",),
    ),
    **dict.fromkeys(["wife", "husband", "spouse", "married", "consort"], ("SPOUSE_OF",)),
    **dict.fromkeys(
        ["rules", "rule", "ruler", "ruled", "governs", "king", "queen", "lord", "lady"], ("RULES", "LEADS")
    ),
    **dict.fromkeys(["leads", "leader", "led", "commands", "heads", "runs"], ("LEADS",)),
    **dict.fromkeys(["ally", "allies", "allied"], ("ALLY_OF",)),
    **dict.fromkeys(["enemy", "enemies", "foe", "foes"], ("ENEMY_OF",)),
    **dict.fromkeys(["member", "members", "belongs", "belong", "faction"], ("MEMBER_OF",)),
    **dict.fromkeys(["worship", "worships", "worshipped"], ("WORSHIPS",)),
    **dict.fromkeys(["owns", "possesses", "holds", "wields"], ("POSSESSES",)),
    **dict.fromkeys(["killed", "slew", "murdered"], ("KILLED",)),
}


def covers(words: set[str], word: str) -> bool:
    """Return whether a passage's words hold a question word (a relation word: or one of the same relation)."""
    if has_word(words, word):
        return True
    relation = RELATION_WORDS.get(word)
    return relation is not None and any(RELATION_WORDS.get(w) == relation for w in words)
