"""Questions of kin and marriage, answered from a person's family as the asker may see it (`CanonFact.kin`).

- "Who are Tove's cousins?", "Who is Brann's mum?", "Name Arlen's grandchildren": the tie's people, in the
  tie's own words ("Tove Moss's grandparents are Arlen Moss and Hesta Moss"); a word that names a sex ("brother",
  "dad") keeps those canon says are of it, and says so when canon does not say one's sex;
- "Does Tove have a brother?", "How many kids does Bram have?": the same, or a count;
- "Is Cole Tove's uncle?": yes with the tie, or what canon does say of the two, never a "No" it does not say;

A question that asks something else of the relative ("Where was Tove's grandmother born?") is not answered here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.counts import in_words
from canon.wording.relations import possessive, relation_sentence
from memory.knowledge.answer_models import Kin
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_halves import died, listing, marked, undecided, which_sibling
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_related import related_between
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.kin import FAMILY, KIN_WORDS, TIES, kin_words
from memory.knowledge.retrieval.kin_doubted import doubted, doubting_word
from memory.knowledge.retrieval.kin_far_words import typed_kin
from memory.knowledge.retrieval.kin_in_laws import in_laws_answer
from memory.knowledge.retrieval.kin_nouns import NOUNS, either, tie_noun
from memory.knowledge.retrieval.kin_reputed import believed, believed_tie, plain_ties
from memory.knowledge.retrieval.kin_sides import asked_side, on_side, said_on_side
from memory.knowledge.retrieval.kin_told import described_tie
from memory.knowledge.retrieval.kin_unknown import far_unknown

__all__ = ["ASKING", "family_answer", "kin_answer", "people_named", "tie_noun", "tie_said"]

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


def people_named(question: str, facts: Sequence[CanonFact]) -> list[CanonFact]:
    """Return the people whose family was read that the question names, in the order it names them."""
    return sorted(
        (f for f in facts if f.kin is not None and _named(question, f) >= 0),
        key=lambda f: _named(question, f),
    )


def _owner(question: str, people: Sequence[CanonFact], word: str) -> CanonFact | None:
    """Return whose kin the question asks: the name before "'s <word>", after "<word> of", else the only one."""
    folded = question.casefold().replace("’", "'")
    word = typed_kin(word)  # "halfsister" typed "half-sister", "half sister"; "great grandmother"
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
    tie = KIN_WORDS.get(word, ("",))[0]  # "aunts and uncles": both words of one tie
    words = kin_words(question)
    doubt = doubting_word(words, word)  # "real father": the truth of the tie asked
    return all(
        w in ASKING or w in named or w in (word, doubt) or KIN_WORDS.get(w, ("?",))[0] == tie for w in words
    )


def _sorted(kin: Kin, tie: str, sex: str | None) -> tuple[list[str], list[str], list[str]]:
    """Return a tie's people of the sex asked, those canon says no sex of, and all of them."""
    every = list(kin.ties.get(tie, ()))
    if sex is None:
        return every, [], every
    return [n for n in every if kin.sexes.get(n) == sex], [n for n in every if n not in kin.sexes], every


def kin_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a kin question (see the module docstring), or None; of one side of the family
    ("paternal grandmother", `kin_sides`), of those through a parent of that side, the side said."""
    in_laws = in_laws_answer(question, facts)  # "who are Brannoc's in-laws": of every tie by marriage
    if in_laws is not None:
        return in_laws
    side = asked_side(question)
    if side is None:
        return _kin_answer(question, facts)
    word = _kin_word(side.question, facts)
    sided = [f.model_copy(update={"kin": on_side(f.kin, side.sex)}) if f.kin else f for f in facts]
    found = _kin_answer(side.question, sided)
    people = [f for f in facts if f.kin is not None]
    if word is None or not people:
        return found
    owner = _owner(side.question, people, word) or people[0]
    tie, sex = KIN_WORDS[word]
    if found is None:
        noun = tie_noun(tie, sex, False)
        found = f"Nothing the table knows names {_article(noun)} of {owner.entity_name}. [1]", 1
    assert owner.kin is not None
    return said_on_side(found[0], owner.entity_name, owner.kin, tie, side.sex), found[1]


def _kin_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
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
    if len({KIN_WORDS[w][1] for w in kin_words(question) if KIN_WORDS.get(w, ("", None))[0] == tie}) > 1:
        both = {owner.kin.sexes.get(n) for n in owner.kin.ties.get(tie, ())}  # "aunts and uncles": both
        sex = both.pop() if len(both) == 1 else None
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
    # A parent the table believes is said as believed; the GM reads the truth and that story beside it.
    rumours = believed(owner.entity_name, owner.kin, tie, sex) if tie in ("parents", "children") else []
    kin = plain_ties(owner.kin, tie) if rumours else owner.kin
    listed = _listed(question, owner, kin, tie, sex) if kin.ties.get(tie) or not rumours else None
    doubt = doubting_word(kin_words(question), word)
    if doubt is not None and rumours:  # "real father": the truth first, then what is believed, not said true
        listed, rumours = doubted(owner.entity_name, listed, rumours, doubt)
    text = "; ".join([*([listed] if listed else []), *rumours]) or far_unknown(
        owner.entity_name, kin, tie, sex
    )
    if doubt is not None and (text or "").startswith("Nothing "):
        return None  # the truth of a tie canon does not hold may be the passages' to tell
    return (f"{text}. [{number}]", number) if text else None


def _listed(question: str, owner: CanonFact, kin: Kin, tie: str, sex: str | None) -> str | None:
    """Return the people of the tie asked in a sentence, a count, or what canon names instead; None when it names
    none and the question does not ask whether there is one."""
    found, unsure, every = _sorted(kin, tie, sex)
    name = owner.entity_name
    if not found and not unsure:
        # Of half-siblings none canon makes so, the siblings it names: it never says one is half.
        wider = "siblings" if tie in ("half-siblings", "full-siblings") else tie
        shown = list(kin.ties.get(wider, ()))
        if not shown and not _HAS.match(question):
            return None  # the passages may say what canon does not
        asked = tie_noun(tie, sex, not sex)
        text = f"Nothing the table knows names {_article(asked) if sex else asked} of {name}"
        if shown:
            sexes = {kin.sexes.get(n) for n in shown}
            text += f"; {listing(name, kin, wider, sexes.pop() if len(sexes) == 1 else None, shown)}"
        return text
    if tie == "spouses" and not re.search(r"\bhow\s+many\b", question, re.I):  # a marriage needs no sex said
        said = relation_sentence("SPOUSE_OF", name, names_list(every))
        if owner.state == "dead" or all(
            n in kin.deaths for n in every
        ):  # "Oswin Tarr was married to Alda Tarr"
            said = said.replace(" is married to ", " was married to ", 1)
        return said
    if re.search(r"\bhow\s+many\b", question, re.I) and not unsure:
        noun = NOUNS[tie][1 if sex == "male" else 2 if sex == "female" else 0]
        halves = set(kin.ties.get("half-siblings", ())) if tie == "siblings" else set()
        if halves and all(n in halves for n in found):
            noun = NOUNS["half-siblings"][1 if sex == "male" else 2 if sex == "female" else 0]
        counted = f"{in_words(len(found))} {noun[0] if len(found) == 1 else noun[1]}"
        had = "had" if owner.state == "dead" else "has"  # the dead's ties are said in the past
        return f"{name} {had} {counted}: {names_list(marked(kin, tie, found))}"
    if found:  # a parent of the sex asked found, the other parent is not it
        yes = "Yes: " if _HAS.match(question) else ""
        parts = [f"{yes}{listing(name, kin, tie, sex, found)}"]
        if unsure and tie != "parents":
            parts.append(_unsaid(unsure, tie, sex))
    else:
        parts = [listing(name, kin, tie, None, every), _unsaid(unsure, tie, sex)]
    return "; ".join([*parts, *undecided(kin, tie, sex)])


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
        return listing(name, kin, tie, sex, found), found
    if not unsure:
        return None
    return (
        f"{listing(name, kin, tie, None, every)}; {_unsaid(unsure, tie, sex)}",
        unsure,
    )  # one canon says is of the other sex is not asked


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
        return f"canon does not say whether {unsure[0]} is {_article(tie_noun(tie, sex, False))}"
    if tie == "parents":
        return f"canon does not say which is the {tie_noun(tie, sex, False)}"
    return f"canon does not say which are {tie_noun(tie, sex, True)}"


def _article(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _is_kin(owner: CanonFact, other: CanonFact, tie: str, sex: str | None) -> str:
    """Return whether `other` is `owner`'s kin of the tie asked: yes, unsure of the sex, or what canon says."""
    kin = owner.kin
    assert kin is not None
    name, them = owner.entity_name, other.entity_name
    story = believed_tie(name, them, kin, tie, sex)
    if story is not None:
        return story
    halves = kin.ties.get("half-siblings", ())
    sibling = them in kin.ties.get("siblings", ()) and (tie != "siblings" or them in halves)
    if (
        sibling
        and tie in ("siblings", "half-siblings", "full-siblings")
        and sex in (None, kin.sexes.get(them))
    ):
        return which_sibling(name, them, kin, tie)  # full or half, as far as canon names both parents
    if them in kin.ties.get(tie, ()):
        said = kin.sexes.get(them)
        if tie == "spouses":
            return f"Yes: {relation_sentence('SPOUSE_OF', them, name)}"
        if sex is None or said == sex:
            noun = tie_noun(tie, said if sex else None, False)
            return f"Yes: {died(kin, [them], [them])[0]} {'was' if them in kin.deaths else 'is'} {possessive(name)} {noun}"
        if said is None:
            return f"{them} is {possessive(name)} {either(tie)}; canon does not say which"
    text = f"Nothing the table knows says {them} is {possessive(name)} {tie_noun(tie, sex, False)}"
    held = [t for t, names in kin.ties.items() if them in names]
    if held:
        said = kin.sexes.get(them)
        story = believed_tie(name, them, kin, held[0], None)
        text += (
            f"; {story[0].lower()}{story[1:]}"
            if story
            else f"; canon says {them} is {possessive(name)} {tie_noun(held[0], said, False)}"
        )
    return text


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
    people = people_named(question, facts)
    if not people:
        return None
    if len(people) > 1:
        # "How is Wren related to Tove?": Wren in Tove's words, every tie, kin first; "are Wren and Tove related".
        other, owner = people[0], people[1]
        tied = related_between(owner, other, facts, yes_no=bool(_YES_NO.match(question)))
        if tied is not None:
            return tied
        number = facts.index(owner) + 1
        text = f"Nothing the table knows says how {other.entity_name} and {owner.entity_name} are related"
        return f"{text}. [{number}]", number
    owner = people[0]
    kin = owner.kin
    assert kin is not None
    number = facts.index(owner) + 1
    plain = plain_ties(plain_ties(kin, "parents"), "children")
    told = [
        f"{tie_noun(tie, None, len(plain.ties[tie]) > 1)} {names_list(marked(kin, tie, plain.ties[tie]))}"
        for tie in TIES
        if plain.ties.get(tie)
    ]
    told += [
        *believed(owner.entity_name, kin, "parents", None),
        *believed(owner.entity_name, kin, "children", None),
    ]
    if not told:
        return f"Nothing the table knows names kin of {owner.entity_name}. [{number}]", number
    return f"{possessive(owner.entity_name)} family, as canon knows it: {'; '.join(told)}. [{number}]", number
