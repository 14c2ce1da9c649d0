"""Relations and facts as sentences a table would say: "Corvan Marrow is Ysolde Marrow's father".

Each relation type of the base ontology (config/ontology.yaml) has its sentence; a type a campaign added reads
from its name ("MENTOR_OF" reads "is mentor of", "TRAINS" reads "trains"). A parent reads as father or mother
where the parent's sex is known (`Kin`), else as parent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from canon.wording.counts import in_words

# {s}: the subject's name, {o}: the object's; {parent}: the subject's kin word by sex (father, mother or parent;
# `_BY_SEX` for the other kin).
PHRASES: Mapping[str, str] = {
    "PARENT_OF": "{s} is {o}'s {parent}",
    "REPUTED_PARENT_OF": "{s} is known as {o}'s {parent}",
    "ADOPTIVE_PARENT_OF": "{s} is {o}'s adoptive {parent}",
    "FOSTER_PARENT_OF": "{s} is {o}'s foster {parent}",
    "STEP_PARENT_OF": "{s} is {o}'s {parent}",
    "GODPARENT_OF": "{s} is {o}'s {parent}",
    "PARENT_IN_LAW_OF": "{s} is {o}'s {parent}",
    "SIBLING_IN_LAW_OF": "{s} is {o}'s {parent}",
    "SPOUSE_OF": "{s} is married to {o}",
    "SIBLING_OF": "{s} is {o}'s sibling",
    "ALLY_OF": "{s} is an ally of {o}",
    "ENEMY_OF": "{s} is an enemy of {o}",
    "AUNT_OR_UNCLE_OF": "{s} is {o}'s {parent}",
    "GRANDPARENT_OF": "{s} is {o}'s {parent}",
    "COUSIN_OF": "{s} is {o}'s cousin",
    "MENTOR_OF": "{s} is {o}'s mentor",
    "RIVAL_OF": "{s} is a rival of {o}",
    "FRIEND_OF": "{s} is a friend of {o}",
    "MEMBER_OF": "{s} is a member of {o}",
    "LEADS": "{s} leads {o}",
    "RULES": "{s} rules {o}",
    "CLAIMS_TITLE": "{s} claims the title {o}",
    "LOCATED_IN": "{s} is in {o}",
    "PART_OF": "{s} is part of {o}",
    "INHABITS": "{s} lives in {o}",
    "LIVES_IN": "{s} lives in {o}",
    "BORN_IN": "{s} was born in {o}",
    "HELD_AT": "{s} is held at {o}",
    "DIED_AT": "{s} died at {o}",
    "DIED_IN": "{s} died in {o}",
    "SEAT_OF": "{s} is the seat of {o}",
    "HOMELAND_OF": "{s} is the homeland of {o}",
    "CULTURE_OF": "{s} is the culture of {o}",
    "LANGUAGE_OF": "{s} is the language of {o}",
    "SPEAKS": "{s} speaks {o}",
    "WORSHIPS": "{s} worships {o}",
    "PRACTICES": "{s} practises {o}",
    "BELONGS_TO": "{s} belongs to {o}",
    "SOURCE_OF": "{s} is a source of {o}",
    "POSSESSES": "{s} has {o}",
    "MADE_OF": "{s} is made of {o}",
    "MADE": "{s} made {o}",
    "FOUNDED": "{s} founded {o}",
    "OCCURRED_AT": "{s} took place at {o}",
    "OCCURRED_DURING": "{s} took place during {o}",
    "PARTICIPATED_IN": "{s} took part in {o}",
    "WITNESSED": "{s} witnessed {o}",
    "CAUSED": "{s} caused {o}",
    "PRECEDED": "{s} came before {o}",
    "DEFEATED": "{s} defeated {o}",
    "WON": "{s} won {o}",
    "KILLED": "{s} killed {o}",
    "SUB_ERA_OF": "{s} is part of {o}",
    "DERIVES_FROM": "{s} derives from {o}",
}

# Attributes that name what someone is: "Ysolde Marrow is Harbourmaster of Greyhaven".
BEING = frozenset({"title", "titles", "tenure", "role", "office", "rank", "position"})
MALE = frozenset({"male", "man", "m", "he", "he/him"})
FEMALE = frozenset({"female", "woman", "f", "she", "she/her"})
#: The facts that tell someone's sex ("father", "mother", "brother"), by their attribute's name.
SEX_ATTRIBUTES = ("sex", "gender")
#: Relations whose sentence says its subject by sex ("{parent}": father, mother or parent).
BY_SEX = frozenset(p for p, phrase in PHRASES.items() if "{parent}" in phrase)
#: The subject's kin word by sex (male, female, not said) of a relation other than a parent's.
_BY_SEX: Mapping[str, tuple[str, str, str]] = {
    "AUNT_OR_UNCLE_OF": ("uncle", "aunt", "uncle or aunt"),
    "GRANDPARENT_OF": ("grandfather", "grandmother", "grandparent"),
    "STEP_PARENT_OF": ("stepfather", "stepmother", "step-parent"),
    "GODPARENT_OF": ("godfather", "godmother", "godparent"),
    "PARENT_IN_LAW_OF": ("father-in-law", "mother-in-law", "parent-in-law"),
    "SIBLING_IN_LAW_OF": ("brother-in-law", "sister-in-law", "sibling-in-law"),
}


def kin_words(predicate: str) -> tuple[str, str, str]:
    """Return the words `{parent}` reads in a relation's sentence: for a man, a woman, and when the sex is unsaid."""
    return _BY_SEX.get(predicate.upper(), ("father", "mother", "parent"))


_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{3,}\b")


def relation_words(predicate: str) -> str:
    """Return a relation type as words for a list or a menu: "PARENT_OF" reads "parent of"."""
    return predicate.replace("_", " ").replace("-", " ").lower()


#: Kinds whose names are what happened ("Battle of Gull Rock"): such a name takes "the" in running prose.
HAPPENING_KINDS = frozenset({"Event"})
#: Relations whose object is something that happened.
_TO_HAPPENINGS = frozenset({"PARTICIPATED_IN", "WITNESSED", "CAUSED", "WON"})


def takes_the(name: str) -> bool:
    """Tell whether an event's name reads with "the" in running prose: a capitalised common noun followed by
    "of" ("Battle of Gull Rock", "Sinking of the Tallow Barge"), never a name led by a possessive ("Tamsin's
    Investiture") or an article of its own ("The Great Surge")."""
    words = name.split()
    if len(words) < 3 or words[1] != "of" or not words[0][:1].isupper():
        return False
    return words[0].casefold() not in ("the", "a", "an") and not re.search(r"['’]", words[0])


def in_prose(name: str, kind: str | None = None) -> str:
    """Return a name as it reads inside a sentence (not at its start): a leading "The" in lower case ("a member
    of the Lantern Guild"), and "the" before an event named by a common noun ("took part in the Battle of Gull
    Rock"). Every other name as written."""
    first, _, rest = name.partition(" ")
    if first == "The" and rest:
        return f"the {rest}"
    if kind in HAPPENING_KINDS and takes_the(name):
        return f"the {name}"
    return name


def opening(sentence: str, name: str, kind: str | None = None) -> str:
    """Return a sentence that opens with a name as it reads there: "The Battle of Gull Rock took place …" for
    an event named by a common noun (`takes_the`); any other sentence as it is."""
    if kind in HAPPENING_KINDS and takes_the(name) and sentence.startswith(name + " "):
        return f"The {sentence}"
    return sentence


def names_in_prose(
    names: Sequence[str], kind: str | None = None, *, opens: bool = False, either: bool = False
) -> str:
    """Return names as a list inside a sentence: "A", "A and B", "A, B and the Ash Brotherhood" (`in_prose`
    for each; `opens`: the list starts the sentence, so its first name keeps its capital "The"; `either`: one of
    them, "A, B or C")."""
    said = [name if opens and i == 0 else in_prose(name, kind) for i, name in enumerate(names)]
    if len(said) <= 1:
        return "".join(said)
    return ", ".join(said[:-1]) + f" {'or' if either else 'and'} {said[-1]}"


def title_phrase(title: str) -> str:
    """Return a title as it reads after "is": "the Ember Queen"; an office "of" somewhere reads bare ("Lady of
    Saltmarch"), as does a list of titles or a title with an article or a possessive of its own."""
    words = title.split()
    if not words or "of" in words or "," in title or re.search(r"['’]", words[0]):
        return title
    if words[0].casefold() in ("the", "a", "an"):
        return title
    return f"the {title}"


def relation_sentence(
    predicate: str,
    subject: str,
    target: str,
    *,
    subject_sex: str | None = None,
    target_kind: str | None = None,
) -> str:
    """Return a relation as a sentence; `subject_sex` (an attribute's value) makes a parent father or mother;
    `target_kind` (the object's entity type) says how its name reads inside the sentence (`in_prose`)."""
    upper = predicate.upper()
    kind = target_kind or ("Event" if upper in _TO_HAPPENINGS else None)
    target = in_prose(target, kind)
    phrase = PHRASES.get(upper)
    if phrase is None:
        words = relation_words(predicate)
        joined = f"is {words}" if re.search(r" (of|to|with|from|for|by)$", words) else words
        return f"{subject} {joined} {target}"
    sex = (subject_sex or "").strip().lower()
    male, female, either = kin_words(upper)
    parent = male if sex in MALE else female if sex in FEMALE else either
    if names_many(subject):  # "The Bellwardens have the Tolling Bells", "The Tolling Bells are in Harl"
        phrase = re.sub(
            r"^\{s\} (has|is) ", lambda m: "{s} " + ("have " if m[1] == "has" else "are "), phrase
        )
        phrase = re.sub(r"^\{s\} ([a-z]+[^s])s ", r"{s} \1 ", phrase)  # "The Saltwrights worship Ombra"
    return phrase.replace("{o}'s", "{o_s}").format(s=subject, o=target, o_s=possessive(target), parent=parent)


def names_many(name: str) -> bool:
    """Tell whether a name reads as many things: "The Bellwardens", "The Tolling Bells" (a name led by "The"
    whose last word is a plural), never a person's surname ("Aldric Reeves") nor "The Abyss"."""
    return name.startswith("The ") and is_or_are(name) == "are"


def sex_of(value: object) -> str | None:
    """Return "male" or "female" as a sex attribute's value says it ("she/her", "M"), or None."""
    said = str(value or "").strip().lower()
    return "male" if said in MALE else "female" if said in FEMALE else None


def possessive(name: str) -> str:
    """Return a name's possessive: "Ysolde Marrow's", and "The Harrows'" for a name ending in s."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def attribute_words(attribute: str) -> str:
    """Return an attribute's name as words: "eye_colour" reads "eye colour"."""
    return attribute.replace("_", " ").strip()


_SINGULAR_ENDINGS = ("ss", "us", "is", "ics")


def is_or_are(noun: str) -> str:
    """Return the verb a noun phrase takes: "coordinates are", "title is", "status is" (English by its ending)."""
    last = noun.strip().split(" ")[-1].casefold() if noun.strip() else ""
    plural = last.endswith("s") and not last.endswith(_SINGULAR_ENDINGS)
    return "are" if plural else "is"


def fact_sentence(subject: str, attribute: str, value: str, *, told: bool = False) -> str:
    """Return a fact in words: "Ysolde Marrow is Harbourmaster of Greyhaven", "Mara's eye colour: grey" (a
    value may be any phrase, "owes Brannoc forty silver", so it follows a colon rather than "is"). `told`: as an
    answer tells it, a title with its article ("Maren Dray is the Ember Queen", `title_phrase`); a card or a
    list of facts says the title as the GM wrote it, the words a GM types to pick the fact again."""
    if attribute.strip().lower() in BEING:
        return f"{subject} is {title_phrase(value) if told else value}"
    words = attribute_words(attribute).lower()
    if words == "status public":  # what players read beside the truth the GM keeps
        return f"Players are told {subject} is {value}"
    if words.endswith(" public"):  # "Players are told Maud Fenn's cause of death: a winter fever"
        return f"Players are told {possessive(subject)} {words.removesuffix(' public')}: {value}"
    return f"{possessive(subject)} {attribute_words(attribute)}: {value}"


def state_sentence(subject: str, state: str, via: str | None = None) -> str:
    """Return a state as a sentence: "Aldric is dead", "Aldric is alive, through a resurrection"."""
    return f"{subject} {'are' if names_many(subject) else 'is'} {state}" + (
        f", through a {via}" if via else ""
    )


def constants_in_words(text: str) -> str:
    """Return a sentence written elsewhere with every relation constant in it as words ("ALLY_OF" → "ally of")."""
    return _CONSTANT.sub(
        lambda m: relation_words(m[0]) if m[0].upper() in PHRASES or "_" in m[0] else m[0], text
    )


def members_sentence(members: Sequence[str], group: str, *, counting: bool = False) -> str:
    """Return who is a member of a group as one sentence: "Ysra Dunmore and Kell Varrow are members of the Ashen
    Corsairs"; `counting`: with how many first ("House Orrow has two members: Maelis Orrow and Cassel Orrow")."""
    names = names_in_prose(members, opens=True)
    if counting:
        many = re.match(r"^The .+s$", group) is not None  # "The Bellwrights have"
        noun = "member" if len(members) == 1 else "members"
        return (
            f"{group} {'have' if many else 'has'} {in_words(len(members))} {noun}: {names_in_prose(members)}"
        )
    if len(members) == 1:
        return relation_sentence("MEMBER_OF", names, group)
    return f"{names} are members of {in_prose(group)}"
