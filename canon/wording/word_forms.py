"""The forms of a word a table types for a fact's words: "death" and "died" for "dead", "debt" for "owes".

A GM picks a fact by what it says, in their own words: "Oswin's death" means the fact "Oswin Harrow is dead",
"Tobin's debt" the fact "Tobin's debt: owes Mirela 40 silver". Each word is read as its root here, from a small
table kept beside the ontology's state tags, attributes and relations (each of them with the forms a table says
them in), so that both the typed words and a fact's words meet at one root. Words like "that", "the" and "at"
carry nothing to match and are left aside.
"""

from __future__ import annotations

#: Each root with the forms of it a table types. A state tag of the ontology (`config/ontology.yaml`) is a root
#: here, and so are the words its attributes and relations are written in; a form belongs to one root only.
_FORMS: dict[str, tuple[str, ...]] = {
    # state tags
    "alive": ("living", "life", "survived", "survives", "survive"),
    "wounded": ("wound", "wounds", "injured", "injury", "injuries", "hurt"),
    "missing": ("vanished", "vanish", "disappeared", "disappearance", "lost"),
    "imprisoned": (
        "imprison",
        "prison",
        "prisoner",
        "imprisonment",
        "captive",
        "captured",
        "capture",
        "jailed",
    ),
    "cursed": ("curse", "curses", "cursing"),
    "undead": ("risen", "unlife"),
    "dead": ("death", "deaths", "died", "dies", "die", "dying", "deceased"),
    "intact": ("whole", "unharmed"),
    "damaged": ("damage", "damages", "broken"),
    "destroyed": ("destroy", "destroys", "destruction", "ruined"),
    "dissolved": ("dissolve", "dissolution", "disbanded", "disband"),
    # attributes
    "born": ("birth", "births", "birthday", "birthplace"),
    "owes": ("owe", "owed", "owing", "debt", "debts", "debtor", "loan", "lent"),
    "title": ("titles", "titled"),
    "occupation": ("job", "profession", "trade"),
    "founded": ("founding", "founder", "foundation"),
    # relations
    "killed": (
        "kill",
        "kills",
        "killing",
        "killer",
        "murdered",
        "murder",
        "murders",
        "slew",
        "slain",
        "slay",
    ),
    "spouse": ("married", "marry", "marries", "marriage", "wife", "husband", "wed", "wedded", "wedding"),
    "parent": ("father", "mother", "child", "children", "son", "daughter", "parents"),
    "sibling": ("brother", "sister", "siblings"),
    "ally": ("allies", "allied", "alliance"),
    "enemy": ("enemies", "foe", "foes", "rival", "rivals"),
    "member": ("members", "membership"),
    "leads": ("lead", "led", "leader", "leading"),
    "rules": ("rule", "ruled", "ruler", "ruling", "reign", "reigns", "reigned"),
    "worships": ("worship", "worshipped", "worshipper"),
    "possesses": ("possess", "possessed", "owns", "own", "owned", "owner", "has", "holds"),
    "defeated": ("defeat", "defeats", "beat", "beaten"),
    "witnessed": ("witness", "witnesses", "saw", "seen"),
}

_ROOT: dict[str, str] = {form: root for root, forms in _FORMS.items() for form in (root, *forms)}

#: Words that carry nothing to match a fact by (the possessive "s" of "Oswin's" among them).
FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "at",
        "in",
        "on",
        "by",
        "as",
        "for",
        "with",
        "from",
        "that",
        "this",
        "these",
        "those",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "s",
        "its",
        "it",
        "his",
        "her",
        "their",
        "they",
        "he",
        "she",
        "which",
        "who",
        "whom",
        "when",
    ]
)


def root(word: str) -> str:
    """Return the root of a folded word ("death" -> "dead"), or the word itself when the table has none."""
    return _ROOT.get(word, word)
