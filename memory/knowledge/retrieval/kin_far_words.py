"""The words of kin farther out (`kin_far`): "great-grandmother", "great great grandsons", "stepmother",
"father-in-law", as a table types them (with a hyphen, a space or neither), the nouns an answer says them by, and
the names of a tie said with the chain each is through ("Bram Brannock and Maren Selwyn (through his mother Lark
Brannock and her father Corin Brannock)")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import names_in_prose
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.kin_far import MOST_GREATS, far_tie

__all__ = ["FAR_NOUNS", "FAR_TIES", "FAR_WORDS", "joined_kin", "typed_kin", "with_via"]

Nouns = tuple[tuple[str, str], tuple[str, str], tuple[str, str], str]


def _nouns(either: str, male: str, female: str, plural: str = "s") -> Nouns:
    return (
        (either, either + plural),
        (male, male + plural),
        (female, female + plural),
        f"{male} or {female}",
    )


def _in_law(either: str, male: str, female: str) -> Nouns:
    return (
        (f"{either}-in-law", f"{either}s-in-law" if either != "child" else "children-in-law"),
        (f"{male}-in-law", f"{male}s-in-law"),
        (f"{female}-in-law", f"{female}s-in-law"),
        f"{male}-in-law or {female}-in-law",
    )


def _greats() -> dict[str, Nouns]:
    found: dict[str, Nouns] = {}
    for count in range(1, MOST_GREATS + 1):
        great = "great-" * count
        found[far_tie(count + 2, True)] = _nouns(
            f"{great}grandparent", f"{great}grandfather", f"{great}grandmother"
        )
        found[far_tie(count + 2, False)] = (
            (f"{great}grandchild", f"{great}grandchildren"),
            (f"{great}grandson", f"{great}grandsons"),
            (f"{great}granddaughter", f"{great}granddaughters"),
            f"{great}grandson or {great}granddaughter",
        )
    return found


#: Each far tie's nouns, as `kin_nouns.NOUNS` holds the near ones'.
FAR_NOUNS: dict[str, Nouns] = {
    **_greats(),
    "great-uncles and great-aunts": (
        ("great-uncle or great-aunt", "great-uncles and great-aunts"),
        ("great-uncle", "great-uncles"),
        ("great-aunt", "great-aunts"),
        "",
    ),
    "great-nephews and great-nieces": (
        ("great-nephew or great-niece", "great-nephews and great-nieces"),
        ("great-nephew", "great-nephews"),
        ("great-niece", "great-nieces"),
        "",
    ),
    "second cousins": (
        ("second cousin", "second cousins"),
        ("second cousin", "second cousins"),
        ("second cousin", "second cousins"),
        "",
    ),
    "step-parents": _nouns("step-parent", "stepfather", "stepmother"),
    "step-children": (
        ("stepchild", "stepchildren"),
        ("stepson", "stepsons"),
        ("stepdaughter", "stepdaughters"),
        "stepson or stepdaughter",
    ),
    "step-siblings": (
        ("step-sibling", "step-siblings"),
        ("stepbrother", "stepbrothers"),
        ("stepsister", "stepsisters"),
        "stepbrother or stepsister",
    ),
    "parents-in-law": _in_law("parent", "father", "mother"),
    "children-in-law": _in_law("child", "son", "daughter"),
    "siblings-in-law": _in_law("sibling", "brother", "sister"),
}
#: The far ties, nearest first, for "how are X and Y related".
FAR_TIES = tuple(FAR_NOUNS)
#: Words a table types for them, besides the nouns: "great-grandma", "stepdad".
_MORE: dict[str, dict[str | None, tuple[str, ...]]] = {
    "step-parents": {
        "male": ("stepdad", "stepdads"),
        "female": ("stepmum", "stepmom", "stepmums", "stepmoms"),
    },
    "step-children": {None: ("stepkid", "stepkids")},
}


def _joined(noun: str) -> str:
    return noun.replace("-", "").replace(" ", "")


def _far_words() -> dict[str, tuple[str, str | None]]:
    found: dict[str, tuple[str, str | None]] = {}
    for tie, nouns in FAR_NOUNS.items():
        for pair, sex in zip(nouns[:3], (None, "male", "female"), strict=True):
            for noun in pair:
                found.setdefault(_joined(noun), (tie, sex))
        if tie.startswith("great-") and "grand" in tie:
            great = tie.split("grand")[0].replace("-", "")
            up = tie.endswith("parents")
            more = (
                {"male": ("grandpa", "granddad"), "female": ("grandma", "granny")}
                if up
                else {None: ("grandkid",)}
            )
            for sex, words in more.items():
                for word in words:
                    found.setdefault(f"{great}{word}", (tie, sex))
                    found.setdefault(f"{great}{word}s", (tie, sex))
    for tie, by_sex in _MORE.items():
        for sex, more_words in by_sex.items():
            for word in more_words:
                found.setdefault(word, (tie, sex))
    return found


#: A far kin word, joined as `joined_kin` joins it -> the tie it asks and the sex it names (None: either).
FAR_WORDS = _far_words()
_GREATS = re.compile(r"\b((?:great[\s-]*)+)(grand\w+|aunt\w*|uncle\w*|nephew\w*|niece\w*)")
_IN_LAW = re.compile(r"\b(\w+)[\s-]+in[\s-]+laws?\b")
_STEP = re.compile(r"\bstep[\s-]+(\w+)")
_SECOND = re.compile(r"\bsecond[\s-]+cousins?\b")


def joined_kin(folded: str) -> str:
    """Return a question with each far kin word written as one ("great-great-grandmother": "greatgreatgrandmother",
    "father in law": "fatherinlaw", "step-mother": "stepmother"), where the joined word is one."""

    def join(found: re.Match[str]) -> str:
        word = re.sub(r"[\s-]+", "", found.group(0))
        return word if word in FAR_WORDS else found.group(0)

    for pattern in (_GREATS, _IN_LAW, _STEP, _SECOND):
        folded = pattern.sub(join, folded)
    return folded


def typed_kin(word: str) -> str:
    """Return a pattern of a kin word as typed, with or without its hyphens or spaces ("half-sister", "great
    grandmother", "father-in-law")."""
    pattern = re.sub(r"great", r"great[\\s-]*", word)
    pattern = re.sub(r"inlaw$", r"[\\s-]*in[\\s-]*law", pattern)
    pattern = re.sub(r"^second(?=cousin)", r"second[\\s-]*", pattern)
    pattern = re.sub(r"^(half|full|old|step)(?=\w)", r"\1[\\s-]?", pattern)
    return pattern


def with_via(kin: Kin, tie: str, names: Sequence[str], shown: Sequence[str]) -> str:
    """Return names in words, each group the same chain runs through followed by it in brackets ("A and B (through
    his mother Lark Brannock)"); `shown`: the names as said (a half-sibling marked)."""
    via = kin.via.get(tie, {})
    if not any(n in via for n in names):
        return names_in_prose(list(shown))
    # What one is to the chain's end ("her husband Corin Brannock's father") said of several by the chain alone
    # ("through her husband Corin Brannock").
    keys = {n: _through(via.get(n, "")) for n in names}
    groups: dict[str, list[str]] = {}
    for name, said in zip(names, shown, strict=True):
        groups.setdefault(keys[name], []).append(said)
    alone = {keys[n]: via.get(n, "") for n in names}
    parts = [
        _bracketed(names_in_prose(g), how if len(g) > 1 else alone[how]) if how else names_in_prose(g)
        for how, g in groups.items()
    ]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f", and {parts[-1]}"


def _bracketed(said: str, how: str) -> str:
    """Return names followed by the chain they are through in brackets, one bracket of one's own ("Maren Selwyn
    (died in year 315)") taking the chain in: "Maren Selwyn (died in year 315; through her brother Bram …)"."""
    if said.endswith(")") and "(" in said and " and " not in said and ", " not in said:
        return f"{said[:-1]}; {how})"
    return f"{said} ({how})"


def _through(how: str) -> str:
    """Return a chain said as what one is to its end ("her husband Corin Brannock's father") as the chain alone
    ("through her husband Corin Brannock"); any other as it is."""
    if not how or how.startswith("through ") or "'s " not in how:
        return how
    chain = how.rpartition("'s ")[0]
    return f"through {chain}"
