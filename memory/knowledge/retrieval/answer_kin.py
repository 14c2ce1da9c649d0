"""Questions of kin and marriage, answered from a person's family as the asker may see it (`CanonFact.kin`).

- "Who are Tove's cousins?", "Who is Brann's mum?", "Name Arlen's grandchildren": the tie's people, in the
  tie's own words ("Tove Moss's grandparents are Arlen Moss and Hesta Moss"); a word that names a sex ("brother",
  "dad") keeps those canon says are of it, and says so when canon does not say one's sex;
- "Does Tove have a brother?", "How many kids does Bram have?": the same, or a count;
- "Is Cole Tove's uncle?": yes with the tie, or what canon does say of the two, never a "No" it does not say;
- "When did Bram and Ilsa get married?", "When did Bram marry?": the marriage's start or the wedding both took
  part in, in the calendar's words, or that canon does not say when.

A question that asks something else of the relative ("Where was Tove's grandmother born?") is not answered here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.counts import in_words
from canon.wording.relations import possessive, relation_sentence
from memory.knowledge.answer_models import Kin
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.kin import FAMILY, KIN_WORDS, MARRIAGE, TIES, kin_words
from memory.knowledge.retrieval.kin_told import described_tie

__all__ = ["ASKING", "family_answer", "kin_answer", "marriage_answer", "tie_said"]

#: Each tie's nouns: (singular, plural) for either sex, then for male and female, then "either" in words.
_NOUNS: dict[str, tuple[tuple[str, str], tuple[str, str], tuple[str, str], str]] = {
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
}
#: Words a kin question may hold besides the names and the kin word: anything else asks something more.
ASKING = frozenset(
    {
        *("who", "whos", "whom", "is", "are", "was", "were", "the", "a", "an", "any", "of", "to", "s"),
        *("does", "do", "did", "has", "have", "had", "how", "many", "what", "name", "names", "list", "tell"),
        *("me", "about", "all", "there", "his", "her", "their", "and", "got", "called", "named", "one"),
        *("how", "related", "family", "relatives", "kin", "kinfolk", "kindred", "whole", "in", "members"),
    }
)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were)\b", re.I)
_HAS = re.compile(r"^\s*(?:does|do|did|has|have|had)\b", re.I)


def _noun(tie: str, sex: str | None, many: bool) -> str:
    nouns = _NOUNS[tie]
    pair = nouns[1] if sex == "male" else nouns[2] if sex == "female" else nouns[0]
    return pair[1] if many else pair[0]


def _either(tie: str) -> str:
    """Return a tie's nouns of both sexes ("father or mother"), or its one noun where it has no other."""
    return _NOUNS[tie][3] or _NOUNS[tie][0][0]


def _named(question: str, fact: CanonFact, *, by_name: bool = False) -> int:
    """Return where the question names a person (-1: it does not); one a step found ("Tove's mother") by a word
    of their own name ("is Ilsa Tove's mother"); `by_name`: by their own name's whole words only."""
    folded = question.casefold().replace("’", "'")
    if by_name:
        words = [w for w in fold_words(fact.entity_name) if len(w) > 2]
        at = [m.start() for w in words[:1] for m in re.finditer(rf"\b{re.escape(w)}", folded)]
        return min(at, default=-1)
    if not fact.step_span:
        return folded.find(fact.matched.casefold())
    at = [
        m.start() for w in fold_words(fact.entity_name) for m in re.finditer(rf"\b{re.escape(w)}\b", folded)
    ]
    return min(at, default=-1)


def _people_named(question: str, facts: Sequence[CanonFact]) -> list[CanonFact]:
    """Return the people whose family was read that the question names, in the order it names them."""
    return sorted(
        (f for f in facts if f.kin is not None and _named(question, f) >= 0),
        key=lambda f: _named(question, f),
    )


def _owner(question: str, people: Sequence[CanonFact], word: str) -> CanonFact | None:
    """Return whose kin the question asks: the name before "'s <word>", after "<word> of", else the only one."""
    folded = question.casefold().replace("’", "'")
    ending: list[tuple[int, int, CanonFact]] = []
    for fact in people:
        name = re.escape(fact.matched.casefold())
        if re.search(rf"\b{word}\s+(?:of|to)\s+{name}", folded):
            return fact
        # "Oswin's son", "Oswins son" (typed without its apostrophe), "the Tarrs' son", "Oswin's eldest son"; a
        # name found with that "s" already ("pells" of Pell Tarr) needs none more.
        last = (fold_words(fact.entity_name) or [""])[-1]
        owns = "(?:'s|s'|'|s)" + ("?" if fact.matched.endswith("s") and not last.endswith("s") else "")
        for found in re.finditer(rf"{name}{owns}\s+(?:\w+\s+)?{word}\b", folded):
            ending.append((found.start(), len(fact.matched), fact))
    if ending:  # the name nearest before the word, the longest of those ending there
        return max(ending, key=lambda e: (e[0] + e[1], e[1]))[2]
    return people[0] if len(people) == 1 else None


def _kin_word(question: str, facts: Sequence[CanonFact]) -> str | None:
    """Return the kin word a question asks, one that is no word of a name found ("Ma" of "Ma Hollin")."""
    # A name's word found alone ("Brother" of Brother Halvard) is the kin word asked, not a name.
    named = {
        w for f in facts if not f.step_span and len(fold_words(f.matched)) > 1 for w in fold_words(f.matched)
    }
    asked = [w for w in kin_words(question) if w in KIN_WORDS and w not in named]
    return asked[0] if asked else None


def _only_kin(question: str, facts: Sequence[CanonFact], word: str) -> bool:
    """Return whether a question holds nothing but names, its kin word and the words of asking."""
    named = {w for f in facts for w in (*fold_words(f.matched), *fold_words(f.entity_name))}
    return all(w in ASKING or w in named or w == word for w in kin_words(question))


def _sorted(kin: Kin, tie: str, sex: str | None) -> tuple[list[str], list[str], list[str]]:
    """Return a tie's people of the sex asked, those canon says no sex of, and all of them."""
    every = list(kin.ties.get(tie, ()))
    if sex is None:
        return every, [], every
    return [n for n in every if kin.sexes.get(n) == sex], [n for n in every if n not in kin.sexes], every


def kin_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a kin question (see the module docstring), or None."""
    word = _kin_word(question, facts)
    people = [f for f in facts if f.kin is not None and fold_words(f.matched) != [word]]
    if word is None or not people or not _only_kin(question, facts, word):
        return None
    owner = _owner(question, people, word)
    named = sorted((f for f in people if _named(question, f) >= 0), key=lambda f: _named(question, f))
    if owner is None and _YES_NO.match(question) and len(named) > 1:
        owner = named[0]  # "are Tove and Brann siblings": of the first named, is the other one
    if owner is None or owner.kin is None:
        return None
    number = facts.index(owner) + 1
    tie, sex = KIN_WORDS[word]
    if _YES_NO.match(question):
        # The one asked of by name first ("is Pell Tarr Oswin's son": Pell, not another child the tie found).
        others = sorted(
            (f for f in named if f is not owner), key=lambda f: _named(question, f, by_name=True) < 0
        )
        if not others:
            return None
        said = _is_kin(owner, others[0], tie, sex)
        told = _told(word, owner, others[0]) if said.startswith("Nothing") and ";" not in said else None
        if told is not None:  # no tie, but a description tells one: "Osric Vennard: Brought up as …"
            number = facts.index(told[1]) + 1
            return f"{told[0]} [{number}]", number
        return f"{said}. [{number}]", number
    found, unsure, every = _sorted(owner.kin, tie, sex)
    name = owner.entity_name
    if not found and not unsure:
        # Of half-siblings none canon makes so, the siblings it names: it never says one is half.
        wider = "siblings" if tie == "half-siblings" else tie
        shown = list(owner.kin.ties.get(wider, ()))
        if not shown and not _HAS.match(question):
            return None  # the passages may say what canon does not
        text = f"Nothing the table knows names {'a ' if sex else ''}{_noun(tie, sex, not sex)} of {name}"
        if shown:
            text += (
                f"; {possessive(name)} {_noun(wider, None, len(shown) > 1)} {_be(shown)} {names_list(shown)}"
            )
        return f"{text}. [{number}]", number
    if tie == "spouses" and not re.search(r"\bhow\s+many\b", question, re.I):  # a marriage needs no sex said
        said = relation_sentence("SPOUSE_OF", name, names_list(every))
        if owner.state == "dead":  # "Oswin Tarr was married to Alda Tarr"
            said = said.replace(" is married to ", " was married to ", 1)
        return f"{said}. [{number}]", number
    if re.search(r"\bhow\s+many\b", question, re.I) and not unsure:
        noun = _NOUNS[tie][1 if sex == "male" else 2 if sex == "female" else 0]
        counted = f"{in_words(len(found))} {noun[0] if len(found) == 1 else noun[1]}"
        return f"{name} has {counted}: {names_list(found)}. [{number}]", number
    if found:  # a parent of the sex asked found, the other parent is not it
        yes = "Yes: " if _HAS.match(question) else ""
        parts = [
            f"{yes}{possessive(name)} {_noun(tie, sex, len(found) > 1)} {_be(found)} {names_list(found)}"
        ]
        if unsure and tie != "parents":
            parts.append(_unsaid(unsure, tie, sex))
    else:
        lead = f"{possessive(name)} {_noun(tie, None, len(every) > 1)} {_be(every)} {names_list(every)}"
        parts = [lead, _unsaid(unsure, tie, sex)]
    return f"{'; '.join(parts)}. [{number}]", number


def tie_said(name: str, kin: Kin, word: str) -> tuple[str, list[str]] | None:
    """Return a tie asked by a kin word in a sentence, and those it names: of the sex the word names where canon
    says one's, else all of the tie, saying canon does not say which ("Tove Moss' grandparents are Arlen Moss
    and Hesta Moss; canon does not say which are grandmothers", naming those whose sex canon does not say). None
    when canon holds none of the tie."""
    tie, sex = KIN_WORDS[word]
    found, unsure, every = _sorted(kin, tie, sex)
    if tie == "spouses" and every:
        return relation_sentence("SPOUSE_OF", name, names_list(every)), every
    if found:
        return f"{possessive(name)} {_noun(tie, sex, len(found) > 1)} {_be(found)} {names_list(found)}", found
    if not unsure:
        return None
    lead = f"{possessive(name)} {_noun(tie, None, len(every) > 1)} {_be(every)} {names_list(every)}"
    return f"{lead}; {_unsaid(unsure, tie, sex)}", unsure  # one canon says is of the other sex is not asked


def _told(word: str, owner: CanonFact, other: CanonFact) -> tuple[str, CanonFact] | None:
    """Return the sentence of the two's descriptions, as the asker's cards hold them, telling the tie asked
    (`kin_told`), and whose card told it; None when none does."""
    me, them = owner.entity_name, other.entity_name
    said = [(them, _description(other), me), (me, _description(owner), them)]
    found = described_tie(word, said)
    return (found[0], (other, owner)[found[1]]) if found else None


def _description(fact: CanonFact) -> str:
    head = f"{possessive(fact.entity_name)} description: "
    return fact.description or next((f[len(head) :] for f in fact.facts if f.startswith(head)), "")


def _be(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"


def _unsaid(unsure: Sequence[str], tie: str, sex: str | None) -> str:
    """Return that canon does not say the sex of those it names without one, as the tie asks it."""
    if len(unsure) == 1:
        return f"canon does not say whether {unsure[0]} is {_article(_noun(tie, sex, False))}"
    if tie == "parents":
        return f"canon does not say which is the {_noun(tie, sex, False)}"
    return f"canon does not say which are {_noun(tie, sex, True)}"


def _article(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _is_kin(owner: CanonFact, other: CanonFact, tie: str, sex: str | None) -> str:
    """Return whether `other` is `owner`'s kin of the tie asked: yes, unsure of the sex, or what canon says."""
    kin = owner.kin
    assert kin is not None
    name, them = owner.entity_name, other.entity_name
    if them in kin.ties.get(tie, ()):
        said = kin.sexes.get(them)
        if tie == "spouses":
            return f"Yes: {relation_sentence('SPOUSE_OF', them, name)}"
        if sex is None or said == sex:
            return f"Yes: {them} is {possessive(name)} {_noun(tie, said if sex else None, False)}"
        if said is None:
            return f"{them} is {possessive(name)} {_either(tie)}; canon does not say which"
    text = f"Nothing the table knows says {them} is {possessive(name)} {_noun(tie, sex, False)}"
    held = [t for t, names in kin.ties.items() if them in names]
    if held:
        said = kin.sexes.get(them)
        text += f"; canon says {them} is {possessive(name)} {_noun(held[0], said, False)}"
    return text


def marriage_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return when a marriage asked began ("When did Bram and Ilsa get married?"), or whom someone married ("who
    did Bettany marry", "who did Hesk wed": the spouse, never a wedding's guests), or None."""
    if _WHOM.match(question):
        return _whom(question, facts)
    if _IS_MARRIED.match(question) or _MARRIED_TO.match(question):
        return _spouse_answer(question, facts, yes_no=_IS_MARRIED.match(question) is not None)
    when = re.match(r"^\s*(?:when|what\s+(?:year|day|date))\b", question, re.I) or _AND_WHEN.search(question)
    if not when or not MARRIAGE.search(question):
        return None
    people = _people_named(question, facts)
    if not people:
        return None
    me = people[0]
    kin = me.kin
    assert kin is not None
    number = facts.index(me) + 1
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    if len(people) > 1:
        other = people[1].entity_name
        if other not in spouses:
            text = f"Nothing the table knows says {me.entity_name} and {other} married"
            if spouses:
                text += f"; {me.entity_name} is married to {names_list(spouses)}"
            return f"{text}. [{number}]", number
        spouses = [other]
    if not spouses:
        return None
    said = [_married(me.entity_name, spouse, kin) for spouse in spouses]
    return " ".join(f"{s}." for s in said) + f" [{number}]", number


#: "who did Aveline marry and when": whom and when, as "when did Aveline marry" says both.
_AND_WHEN = re.compile(r"\b(?:marry|wed|married|wedded)\b.*\band\s+when\b", re.I)
#: "Is X married?", "was X married to Y?", "is X wed": yes or no, by the spouses canon names.
_IS_MARRIED = re.compile(
    r"^\s*(?:is|was|are|were)\s+.+?\s+(?:married|wed|wedded)(?:\s+(?:to|with)\s+.+?)?\s*\??\s*$", re.I
)


def _spouse_answer(question: str, facts: Sequence[CanonFact], *, yes_no: bool) -> tuple[str, int] | None:
    """Return whom the one asked is married to ("was" for the dead), "Yes: …" first for a yes/no question, or
    that nothing the table knows says they are married (to the other one named): never a "no" canon does not
    say. None when the question names nobody whose family was read."""
    people = _people_named(question, facts)
    if not people or people[0].kin is None:
        return None
    me, kin = people[0], people[0].kin
    number = facts.index(me) + 1
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    said = f"{me.entity_name} {'was' if me.state == 'dead' else 'is'} married"
    if yes_no and len(people) > 1 and people[1].entity_name not in spouses:
        text = f"Nothing the table knows says {said} to {people[1].entity_name}"
        if spouses:
            text += f"; canon says {said} to {names_list(spouses)}"
        return f"{text}. [{number}]", number
    if not spouses:
        return f"Nothing the table knows says {said}. [{number}]", number
    return f"{'Yes: ' if yes_no else ''}{said} to {names_list(spouses)}. [{number}]", number


#: "Who is X married to?", "who was X wed to?": the spouse, "was" for the dead.
_MARRIED_TO = re.compile(r"^\s*who(?:m)?\s+(?:is|was)\s+.+?\s+(?:married|wed|wedded)\s+to\s*\??\s*$", re.I)


#: "Who did X marry?", "who did X wed?", "who has X married?": whom, not when.
_WHOM = re.compile(
    r"^\s*who(?:m)?\s+(?:did|does|has|had|will|would)\s+.+?\s+(?:marry|wed|married|wedded)\s*\??\s*$", re.I
)


def _whom(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return whom the one asked married: the spouses canon names, else the one other of a wedding."""
    people = _people_named(question, facts)
    kin = people[0].kin if people else None
    if kin is None:
        return None
    me = people[0]
    spouses = list(dict.fromkeys([*kin.ties.get("spouses", ()), *kin.weddings]))
    if not spouses:
        return None
    number = facts.index(me) + 1
    return f"{relation_sentence('SPOUSE_OF', me.entity_name, names_list(spouses))}. [{number}]", number


def _married(name: str, spouse: str, kin: Kin) -> str:
    when, wedding = kin.married.get(spouse), kin.weddings.get(spouse)
    at = f", at {wedding}" if wedding else ""
    if when:
        return f"{name} married {spouse} {when}{at}"
    if wedding:
        return f"{name} married {spouse} at {wedding}; nothing the table knows says when"
    return f"{name} is married to {spouse}; nothing the table knows says when they married"


def family_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return a family as canon knows it ("Tove's family", "Tove's relatives"), or how two people named are kin
    ("How is Wren related to Tove?", "Are Wren and Tove related?": the tie, or that canon says none two steps
    out), or None."""
    found = FAMILY.search(question)
    if found is None:
        return None
    word = found.group(0).casefold()
    if not _only_kin(question, facts, word):
        return None
    people = _people_named(question, facts)
    if not people:
        return None
    if len(people) > 1:
        # "How is Wren related to Tove?": Wren in Tove's words; "are Wren and Tove related": the same.
        other, owner = people[0], people[1]
        kin = owner.kin
        assert kin is not None
        number = facts.index(owner) + 1
        held = [t for t in TIES if other.entity_name in kin.ties.get(t, ())]
        if not held:
            text = f"Nothing the table knows says how {other.entity_name} and {owner.entity_name} are related"
            return f"{text}. [{number}]", number
        tie = held[0]
        if tie == "spouses":
            said = relation_sentence("SPOUSE_OF", other.entity_name, owner.entity_name)
        else:
            said = f"{other.entity_name} is {possessive(owner.entity_name)} {_noun(tie, kin.sexes.get(other.entity_name), False)}"
        yes = "Yes: " if _YES_NO.match(question) else ""
        return f"{yes}{said}. [{number}]", number
    owner = people[0]
    kin = owner.kin
    assert kin is not None
    number = facts.index(owner) + 1
    told = [
        f"{_noun(tie, None, len(kin.ties[tie]) > 1)} {names_list(list(kin.ties[tie]))}"
        for tie in TIES
        if kin.ties.get(tie)
    ]
    if not told:
        return f"Nothing the table knows names kin of {owner.entity_name}. [{number}]", number
    return f"{possessive(owner.entity_name)} family, as canon knows it: {'; '.join(told)}. [{number}]", number
