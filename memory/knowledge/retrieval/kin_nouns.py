"""The nouns each tie of a family is said by: "brother", "grandmothers", "half-sister", "full brother"."""

from __future__ import annotations

from memory.knowledge.retrieval.kin_far_words import FAR_NOUNS

__all__ = ["NOUNS", "either", "tie_noun"]

#: Each tie's nouns: (singular, plural) for either sex, then for male and female, then "either" in words.
NOUNS: dict[str, tuple[tuple[str, str], tuple[str, str], tuple[str, str], str]] = {
    "parents": (("parent", "parents"), ("father", "fathers"), ("mother", "mothers"), "father or mother"),
    "children": (("child", "children"), ("son", "sons"), ("daughter", "daughters"), "son or daughter"),
    "siblings": (
        ("sibling", "siblings"),
        ("brother", "brothers"),
        ("sister", "sisters"),
        "brother or sister",
    ),
    "spouses": (("spouse", "spouses"), ("husband", "husbands"), ("wife", "wives"), "husband or wife"),
    "grandparents": (
        ("grandparent", "grandparents"),
        ("grandfather", "grandfathers"),
        ("grandmother", "grandmothers"),
        "grandfather or grandmother",
    ),
    "grandchildren": (
        ("grandchild", "grandchildren"),
        ("grandson", "grandsons"),
        ("granddaughter", "granddaughters"),
        "grandson or granddaughter",
    ),
    "uncles and aunts": (("uncle or aunt", "uncles and aunts"), ("uncle", "uncles"), ("aunt", "aunts"), ""),
    "nephews and nieces": (
        ("nephew or niece", "nephews and nieces"),
        ("nephew", "nephews"),
        ("niece", "nieces"),
        "",
    ),
    "cousins": (("cousin", "cousins"), ("cousin", "cousins"), ("cousin", "cousins"), ""),
    "half-siblings": (
        ("half-sibling", "half-siblings"),
        ("half-brother", "half-brothers"),
        ("half-sister", "half-sisters"),
        "half-brother or half-sister",
    ),
    "full-siblings": (
        ("full sibling", "full siblings"),
        ("full brother", "full brothers"),
        ("full sister", "full sisters"),
        "full brother or full sister",
    ),
    **FAR_NOUNS,  # "great-grandmother", "stepmother", "father-in-law" (`kin_far`)
}


def tie_noun(tie: str, sex: str | None, many: bool) -> str:
    nouns = NOUNS[tie]
    pair = nouns[1] if sex == "male" else nouns[2] if sex == "female" else nouns[0]
    return pair[1] if many else pair[0]


def either(tie: str) -> str:
    """Return a tie's nouns of both sexes ("father or mother"), or its one noun where it has no other."""
    return NOUNS[tie][3] or NOUNS[tie][0][0]
