"""What a lore question asks, and about what: read before it is searched and answered.

`analyse` reads a question through the glossary (`memory.knowledge.glossary`: "AC" is "armor class", "knocked
out" is "unconscious") and returns a `Question`:
- `fields`: the named fields it asks for, in its order ("owlbear hp" asks "hit points"; "cost and weight of a
  longsword" asks both; "what level is fireball" asks the entry's kind line, `KIND_LINE`);
- `subject`: the words naming what it asks about, once the asking words are gone ("owlbear", "longsword");
- `parts`: the subjects of a comparison or of a question about two things ("which has more hit points, an ogre
  or a troll?": "ogre" and "troll"), each answered on its own;
- `kind`: field, comparison, yes/no, definition, list, or general.
Nothing here searches: the answer steps (`memory.knowledge.retrieval.field_answer`) use what it finds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from memory import fulltext
from memory.knowledge.glossary import SHIPPED, expand

__all__ = [
    "CHATTER",
    "FIELD_UNITS",
    "FIELD_WORDS",
    "FILLER",
    "GENERIC",
    "HOW_UNITS",
    "KIND_LINE",
    "Question",
    "analyse",
    "describe",
    "ending_verb",
    "how_word",
    "without_how",
]

#: Words of a question that ask, rather than say what about.
GENERIC = frozenset(
    {
        *("tell", "about", "know", "describe", "explain", "lore", "story", "information", "info", "detail"),
        *(
            "details",
            "say",
            "says",
            "said",
            "mean",
            "means",
            "called",
            "name",
            "named",
            "kind",
            "sort",
            "type",
        ),
        *("happen", "happens", "happened", "give", "list", "does", "like", "much", "many", "overview"),
        *("summary", "rundown", "breakdown", "work", "works", "working"),
        # "how do i calculate carrying capacity": how a value is worked out is asked, not what of.
        *(
            "calculate",
            "calculated",
            "calculating",
            "compute",
            "computed",
            "figure",
            "determine",
            "determined",
        ),
    }
)

#: The table's words that say nothing about what is asked: no source need hold them, no answer need say them.
_CHATTER_TEXT = """
    guys dude dudes folks bruh haha hahaha lmao lmfao rofl pls plz please thanks thank thx okay yeah yep nope
    yall gonna wanna gotta kinda sorta dunno lemme gimme tbh imo imho btw idk omg whats hows wheres whos thats
    theres dont doesnt didnt cant wont isnt arent wasnt werent youre theyre shouldnt wouldnt couldnt ive youve
    hey hello actually basically literally quick question wondering curious anyone someone somebody anybody
    guy again still im lol ppl tho ya yo ok hmm um uh rn ngl fr iirc afaik lmk srsly rly asking
    usually typically normally generally commonly
"""
CHATTER = frozenset(_CHATTER_TEXT.split())

#: The label of an entry's kind line (the italic line under its heading: "3rd-level evocation").
KIND_LINE = "kind"

#: How players ask for a field, and the field's label in the books. Read on the glossary-expanded question.
_FIELD_PHRASES: tuple[tuple[str, str], ...] = (
    # "What type of damage": the damage's kind is said in sentences ("deal psychic damage"), not a field.
    (r"(?:what |which )?(?:type|kind)s? of damage|damage types?", ""),
    (r"armor class|hard (?:is it )?to hit|tougher to hit", "armor class"),
    (r"temporary hit points", "temporary hit points"),
    (r"hit points|how tough|tougher", "hit points"),
    (r"hit die", "hit die"),
    (r"ability score increase", "ability score increase"),
    (r"spellcasting ability", "spellcasting ability"),
    (r"saving throws", "saving throws"),
    (r"casting time|how long (?:does it take to|to) cast", "casting time"),
    (
        # "How fast do you heal" asks a rate of healing, not how far one moves.
        r"how fast(?! (?:do|does|did|can|will|would) (?:[\w'-]+ ){0,3}?(?:heal|recover|regain|regenerate|restore|"
        r"age|grow|learn|earn|rest)\w*\b)|speed|faster|slower|quicker|"
        r"how far can (.{1,40}?) (?:move|walk|run|fly|swim)|move in a turn|"
        r"walk in a round",
        "speed",
    ),
    (r"challenge|how dangerous|more dangerous|less dangerous|deadlier", "challenge"),
    (r"typical speakers|who (?:typically )?speaks", "typical speakers"),
    (r"languages?|what does (.{1,40}?) speak|speaks?\b", "languages"),
    (r"components?|what do (?:i|you) need to cast", "components"),
    # "Concentration" asks a spell's duration, but a concentration check or save is a rule of its own.
    (r"duration|how long does (.{1,40}?) last|concentration(?! (?:check|save|saving|dc)\b)", "duration"),
    (
        r"range|how far (?:does (.{1,40}?) (?:reach|shoot|go)|can (?:i|you|we) cast|can (.{1,40}?) (?:shoot|fire|be thrown))"
        r"|reaches farther|reach(?:es)?",
        "range",
    ),
    (r"classes|which class|who (?:can cast|gets)|spell lists?", "classes"),
    (
        r"cost|how much (?:gold|money|coin)(?: for| is)?|(?:how much|what)(?: is| are| was| were|'s) (.{1,40}?) worth"
        r"|how much is|cheaper|pricier|(?:more|less) expensive",
        "cost",
    ),
    (r"weight|how heavy|heavier|lighter", "weight"),
    (r"damage|how hard does (.{1,40}?) hit|hits? harder", "damage"),
    (r"properties", "properties"),
    (r"strength (?:requirement|required)", "strength required"),
    (r"script", "script"),
    (r"senses", "senses"),
    (r"size|how big", "size"),
    (r"damage immunities|immune to", "damage immunities"),
    (r"condition immunities", "condition immunities"),
    (r"resistances?|resistant to|what (?:does|do) (.{1,40}?) resist\b", "damage resistances"),
    (r"vulnerabilit(?:y|ies)|vulnerable to", "damage vulnerabilities"),
    (r"(?:what |which )?alignment", "alignment"),
    (
        r"what level|spell level|level spell|which level|(?:higher|lower)[- ]level(?!s)|(?:a )?cantrip or (?:a )?levell?ed spell|levell?ed spell|"
        # "What kind of" asks the subject's kind when it opens the question ("what kind of creature is a
        # beholder"); later it asks a property ("sneak attack needs what kind of weapon").
        r"school(?: of magic)?|rarity|how rare|^\s*what kind of|"
        r"^\s*what type of|"
        r"(?:require|need)s? attunement|attunement",
        KIND_LINE,
    ),
)
_PHRASES = [(re.compile(r"(?<![\w'])(?:" + p + r")(?![\w'])"), label) for p, label in _FIELD_PHRASES]
#: The words of the fields a question may ask ("challenge", "armor", "class"): the books' own words for them, so a
#: misspelt one ("challange rating") is read as the label a source writes (`retrieval.words.TypoFixer`).
FIELD_WORDS = frozenset(w for _, label in _FIELD_PHRASES for w in label.split() if label != KIND_LINE)

#: Words that say what sort of thing the subject is, not which: dropped from the subject.
FILLER = frozenset(
    {
        *("spell", "spells", "creature", "creatures", "monster", "monsters", "item", "weapon", "base"),
        *("walking", "flying", "swimming", "fly", "swim", "burrow", "climb", "when", "get", "got", "has"),
        *("one", "its", "their", "the", "what", "whats", "which", "how", "much", "many", "need", "cast"),
        *("wise", "typically", "have", "use", "uses", "stat", "give", "gives", "on", "list", "lists"),
        *("more", "less", "higher", "lower", "better", "harder", "farther", "further", "bigger", "stronger"),
        *("faster", "cheaper", "heavier", "longer", "tougher", "i", "me", "my", "we", "know", "who", "turn"),
        *("slower", "lighter", "quicker", "pricier", "deadlier", "than"),
        *(
            "round",
            "each",
            "every",
            "per",
            "typical",
            "typically",
            "walk",
            "walks",
            "go",
            "goes",
            "move",
            "moves",
        ),
        *("deal", "deals", "do", "written", "take", "takes", "hard", "hit", "talk", "can", "proficient"),
        *("proficiency", "require", "requires", "need", "needs", "max", "maximum", "min", "minimum"),
        # Who asks, not what about: "if my guy gets grappled", "someone restrained", "give again".
        *("someone", "somebody", "anyone", "anybody", "guy", "friend", "buddy", "again", "still"),
        *("add", "adds", "grant", "grants", "provide", "provides"),
    }
)
_COMPARATIVE = re.compile(
    r"\b(?:more|less|higher|lower|better|harder|farther|further|bigger|stronger|faster|cheaper|heavier|longer|"
    r"tougher|most|least)\b"
)
_SPLIT = re.compile(r",|;|\bor\b|\bthan\b|\bvs\.?|\bversus\b|\bcompared (?:to|with)\b")
#: "Compare the AC of plate and chain mail", "the difference in cost between a rapier and a longsword", "how do
#: the hit points of an ogre and a troll compare": a field of two things set side by side, joined by "and"/"with".
_COMPARING = re.compile(r"\b(?:compar(?:e|es|ed|ing|ison)|differen(?:ce|t)|differ)\b")
#: "greataxe vs greatsword": two things and nothing else asked of them, each said at a glance.
_BARE_VERSUS = re.compile(
    r"^(?!.*\b(?:what|how|who|when|where|why|can|could|does|do|did|should|would|will|if|when|against)\b)"
    r"[^,;:]+?\s(?:vs\.?|versus)\s[^,;:]+$"
)
_SPLIT_COMPARED = re.compile(r",|;|\band\b|\bwith\b|\bto\b|\bbetween\b")
_YES_NO = re.compile(r"^(?:is|are|was|were|does|do|did|can|could|has|have|will|would|should)\b")
_DEFINITION = re.compile(
    r"^(?:what (?:is|are|does) (?:an? |the )?[\w' -]{1,40}? mean|define|what'?s? (?:an? )?\w+\??$)"
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
#: "How long", "how far", "how big": the word after "how" asks an amount, it names nothing asked about (the
#: books say "at least 1 hour", not "long"; "how long does a long rest take" keeps the second "long").
#: "The max number of X" asks how many X: "number" names nothing asked about, and the books say a limit in their
#: own words ("no more than three").
_COUNT_ASKED = re.compile(r"(?i)\b(?:the\s+)?(?:max|maximum|most)\s+number\s+of\b")
_HOW = re.compile(
    r"(?i)\b(how)\s+(?:much|many|long|far|big|large|small|heavy|fast|quick|deep|high|tall|old|wide|often|"
    r"close|near|strong|hard|tough)\b"
)


#: "How many hit points does cure wounds *restore*?": a question asking with "does" (or "can", "will") of a
#: subject ends in the verb it asks about, not in a word of the subject's name. A last word after a preposition
#: is a name's ("what does a cloak *of* protection" is no verb question).
_ENDING_VERB = re.compile(
    r"^(?:how|what|which|who|where|when|why)\b.*?\b(?:does|do|did|can|could|will|would|should)\s+"
    r"(?:\S+\s+)*?(?!(?:of|in|on|at|to|for|with|by|from|into|the|an?)\s)\S+\s+([^\W\d_]{3,})$"
)


def ending_verb(question: str) -> str | None:
    """Return the verb a question asking "how many X does Y do" ends with ("restore"), or None. It may be a
    name's last word ("how long does it take to cast arcane tether"): only a name the sources know may drop it
    (`answer_scope.narrowed`)."""
    folded = without_how(" ".join(question.casefold().split())).strip(" ?!.")
    match = _ENDING_VERB.match(folded)
    return match.group(1) if match else None


#: What says the amount a "how" word asks, besides an amount with the word itself ("1 hour long"): the units of
#: its kind, any game's ("how far": feet, miles, squares; "how long": rounds, minutes, days).
HOW_UNITS: dict[str, tuple[str, ...]] = {
    "long": (
        *(
            "round",
            "rounds",
            "turn",
            "turns",
            "second",
            "seconds",
            "minute",
            "minutes",
            "hour",
            "hours",
            "day",
        ),
        *(
            "days",
            "week",
            "weeks",
            "month",
            "months",
            "year",
            "years",
            "feet",
            "foot",
            "ft",
            "inches",
            "miles",
        ),
    ),
    "far": ("feet", "foot", "ft", "mile", "miles", "yards", "squares", "hexes", "range", "meters", "metres"),
    "big": (
        "feet",
        "foot",
        "ft",
        "size",
        "tiny",
        "small",
        "medium",
        "large",
        "huge",
        "gargantuan",
        "squares",
    ),
    "large": ("feet", "foot", "ft", "size", "squares"),
    "heavy": ("lb", "lbs", "pounds", "pound", "kg", "weight", "weighs"),
    "fast": ("feet", "foot", "ft", "speed", "miles", "squares"),
    "tall": ("feet", "foot", "ft", "inches", "size"),
    "high": ("feet", "foot", "ft", "inches"),
    "deep": ("feet", "foot", "ft", "miles", "fathoms"),
    "wide": ("feet", "foot", "ft", "inches", "miles"),
    "old": ("years", "age", "ages", "centuries"),
    "often": ("once", "twice", "times", "per", "each", "every", "until", "rest"),
}
#: The units a field's value is an amount of, any game's: a sentence saying an amount in them says the field
#: ("you gain a climbing speed ... for 1 hour" says a potion's duration; "the bag weighs 15 pounds" its weight).
#: Not distances: every attack's "reach 5 ft." would say a range, every "move 30 feet" a speed.
FIELD_UNITS: dict[str, tuple[str, ...]] = {
    "duration": tuple(u for u in HOW_UNITS["long"] if u not in HOW_UNITS["far"]),
    "weight": HOW_UNITS["heavy"],
    "cost": (
        "cp",
        "sp",
        "ep",
        "gp",
        "pp",
        "gold",
        "silver",
        "copper",
        "platinum",
        "coins",
        "credits",
        "crowns",
    ),
}
_HOW_WORD = re.compile(r"(?i)\bhow\s+(" + "|".join(HOW_UNITS) + r")\b")


def how_word(text: str) -> str | None:
    """Return the word after "how" that asks an amount of a kind ("long" of "how long can I hold my breath")."""
    match = _HOW_WORD.search(text)
    return match.group(1).casefold() if match else None


def without_how(text: str) -> str:
    """Return a question without the word that, after "how", asks an amount ("how long" is "how")."""
    return _HOW.sub(r"\1", text)


@dataclass(slots=True)
class Question:
    """A question as read: its words through the glossary, what it asks, and about what."""

    text: str
    expanded: str
    kind: str
    fields: list[str] = field(default_factory=list)
    subject: list[str] = field(default_factory=list)
    parts: list[list[str]] = field(default_factory=list)
    glossary_used: dict[str, str] = field(default_factory=dict)
    #: The words that asked for each field ("concentration" asks the duration): a yes/no question is answered
    #: yes when the field's value holds them.
    asked_by: dict[str, str] = field(default_factory=dict)
    #: Whether it asks something of an entry, a field or not ("what damage type is a ghost's withering touch"):
    #: the section titled with its subject is preferred when it is searched.
    of_entry: bool = False

    @property
    def yes_no(self) -> bool:
        """Return whether the question is answered yes or no ("does contagion need concentration?")."""
        return bool(_YES_NO.match(self.expanded.casefold()))

    @property
    def typed(self) -> str:
        """Return the question as typed in the glossary's words it was read with, without a search's correction
        ("toll" read as "troll" stays "toll"): the campaign's glossary as its calendar leaves it, never another."""
        return expand(self.text, self.glossary_used)[0]

    @property
    def search_text(self) -> str:
        """Return what to search for: the question in the books' words, without the table's chatter ("whats",
        "lol", "guys": no book says them, and they pull the question's meaning away from its subject)."""
        said = " ".join(w for w in self.expanded.split() if _bare(w) not in CHATTER)
        return said or self.expanded


def _bare(word: str) -> str:
    """Return a word as typed, folded and without the punctuation around it ("Whats" of "Whats,")."""
    return word.casefold().strip(".,;:!?\"'()")


def _subject_words(text: str) -> list[str]:
    words = [w for w in _WORD.findall(text) if len(w) > 1 or w.isdigit()]
    words = [w.removesuffix("'s") for w in words]
    return [
        w
        for w in dict.fromkeys(words)
        if w not in fulltext.STOPWORDS
        and w not in GENERIC
        and w not in FILLER
        and w not in CHATTER
        and w.split("'")[0] not in fulltext.STOPWORDS  # "i'm", "can't"
    ]


#: A question word run into "is" as a table types it ("whos the grey wren", "who's", "wheres"): said out.
_RUN_TOGETHER = re.compile(r"(?i)\b(who|what|where|when|how)(?:'|’)?s\b")


#: What a table types before its question ("wait is Rowan dead??", "ok so who rules"): no part of what it asks.
_CHATTER_FIRST = re.compile(
    r"(?i)^\s*(?:(?:wait|so|ok|okay|hey|hi|um+|uh+|hmm+|lol|btw|oh|well|yo|quick question|question|guys)"
    r"\s*[,:;!.?-]*\s+)+(?=(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|did|does|do|has|have|can)\b)"
)
#: What a table types after its question, no question itself ("is Cael alive? my pc wants to find him"): a tail
#: without a question mark that opens with no asking word, after a question of two words or more.
_CHATTER_AFTER = re.compile(
    r"(?i)(?<=\w\?)\s+(?!(?:and|or|also|but|then|plus|who|whom|whose|what|when|where|which|why|how|is|are|was|"
    r"were|did|does|do|has|have|had|can|could|will|would|should)\b)[^?]+$"
)
#: The table's ways of asking what the answer step reads in other words, said in those.
_ASKING_PHRASES = (
    (re.compile(r"(?i)\bnext in line (?:for|to)\b"), "heir to"),
    (re.compile(r"(?i)\bstill around\b"), "still alive"),
    (re.compile(r"(?i)\b(get|got|getting) hitched\b"), r"\1 married"),
    (
        re.compile(
            r"(?i)\bwhere (?:are|is|do|does) (?:they|we|you|he|she|people) (?:keeping|holding|keep|hold) "
            r"(?P<who>.+?)(?P<end>[?!.]*)\s*$"
        ),
        r"where is \g<who> held\g<end>",
    ),
)


def spelled_out(question: str) -> str:
    """Return a question with a question word run into "is" written as two words: "whos the grey wren" is
    "who is the grey wren" ("what's", "wheres" alike), without the chatter typed before it ("wait is Rowan
    dead") or after it ("is Rowan dead? my pc wants to know"), and the table's ways of asking in the words the answers read ("next in line for" is "heir to",
    "still around" is "still alive"); anything else stays as typed."""
    question = _CHATTER_FIRST.sub("", _RUN_TOGETHER.sub(lambda m: f"{m[1]} is", question))
    if len(question.split("?", 1)[0].split()) > 1:
        question = _CHATTER_AFTER.sub("", question)
    for pattern, said in _ASKING_PHRASES:
        question = pattern.sub(said, question)
    return question


def _compared_parts(rest: str, field_named: bool) -> list[list[str]]:
    """Return the two things a field of which is set side by side ("compare the AC of plate and chain mail",
    "the difference in crew between the Heron and the Gull"), or none. A field the question names in a book's own
    words ("hull points") is said before "of"/"in"; without one, "compare the Gull and the Heron" asks no field."""
    after = rest.partition(" between ")[2]
    told = after or rest
    # "the difference between a longsword and a greatsword": two things set side by side, each said at a glance.
    if not field_named and not after and not re.search(r"\b(?:of|in)\b", rest):
        return []
    pieces = [_subject_words(_COMPARING.sub(" ", p)) for p in _SPLIT_COMPARED.split(told)]
    parts = [p for p in pieces if p]
    return parts if len(parts) == 2 else []


def analyse(question: str, glossary: Mapping[str, str] | None = None) -> Question:
    """Return what a question asks and about what (see the module docstring)."""
    text = " ".join(unicodedata.normalize("NFKC", question).split())
    expanded, used = expand(text, glossary)
    expanded = _COUNT_ASKED.sub("how many", expanded)
    folded = expanded.casefold().replace("’", "'")
    found: list[tuple[int, str]] = []
    asked_by: dict[str, str] = {}
    of_entry = False
    rest = folded
    for pattern, label in _PHRASES:
        for match in pattern.finditer(rest):
            of_entry = True
            if label:
                found.append((match.start(), label))
                asked_by.setdefault(label, match.group(0))
        # Only the asking words go: what a phrase holds in its middle ("how far can *a wolf* move") stays.
        rest = pattern.sub(lambda m: " " + " ".join(g for g in m.groups() if g) + " ", rest)
    # A field the question asks in the table's words is read in the books' own ("hits harder" asks the damage,
    # which a game defining "HARM. Damage." calls harm): the glossary's meaning, where the books or the GM gave one.
    own = glossary or {}
    fields = list(
        dict.fromkeys(
            own[label] if own.get(label, label) != SHIPPED.get(label, label) else label
            for _, label in sorted(found)
        )
    )
    rest = without_how(rest).strip(" ?!.")
    parts: list[list[str]] = []
    between = re.search(r"\bor\b|\bthan\b|\bvs\b|\bversus\b", folded)
    comparison = bool(
        _COMPARATIVE.search(folded)
        or re.search(r"\b(?!rather\b|other\b|under\b|after\b)\w+er than\b", folded)
    ) and bool(between)
    if comparison or (fields and between) or _BARE_VERSUS.match(rest):
        pieces = [_subject_words(p) for p in _SPLIT.split(rest)]
        parts = [p for p in pieces if p][-2:]
        if len(parts) < 2:
            parts = []
    if not parts and _COMPARING.search(rest):
        parts = _compared_parts(rest, bool(fields))
    subject = [w for part in parts for w in part] if parts else _subject_words(rest)
    if parts:
        kind = "comparison"
    elif fields:
        kind = "field"
    elif _YES_NO.match(folded):
        kind = "yes/no"
    elif _DEFINITION.match(folded) or folded.startswith("define "):
        kind = "definition"
    elif re.match(r"^(?:list|name|which|what are)\b", folded):
        kind = "list"
    else:
        kind = "general"
    return Question(text, expanded, kind, fields, subject, parts, used, asked_by, of_entry)


def describe(question: Question) -> str:
    """Return what a question asks, in a few plain lines (for a language model writing the answer)."""
    lines = [f"Kind of question: {question.kind}."]
    if question.fields:
        asked = [
            f if f != KIND_LINE else "what kind of thing it is (level, school, type)" for f in question.fields
        ]
        lines.append("It asks for: " + ", ".join(asked) + ".")
    if question.parts:
        lines.append("About each of: " + "; ".join(" ".join(p) for p in question.parts) + ".")
    elif question.subject:
        lines.append("About: " + " ".join(question.subject) + ".")
    if question.glossary_used:
        read = ", ".join(f"{term} as {meaning}" for term, meaning in question.glossary_used.items())
        lines.append(f"The table's words read as the books': {read}.")
    return "\n".join(lines)
