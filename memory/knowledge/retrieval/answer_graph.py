"""Short answers from the canon graph: a relation question, an attribute asked, or the entity asked about.

Canon facts from play outrank imported prose, so these are tried before the passages:
- a relation question ("Who is Ysolde's brother?", "Who rules Greyhaven?") names an entity and a relation word;
  the entity's card answers it when it holds such a relation ("Ysolde Marrow is a sibling of Tomas Marrow.");
- a question asking an attribute ("What is the status of the North Gate?") is answered by the card's last value
  of an attribute whose line holds every word asked besides the entity's name;
- a question only about an entity ("Who is Abbot Vell?") is answered by its card's description.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.clauses import said_of_clauses
from canon.wording.counts import in_words
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_ages import age_answer
from memory.knowledge.retrieval.answer_ago import ago_answer
from memory.knowledge.retrieval.answer_canon import (
    asked_kind,
    asked_states,
    kind_answer,
    what_it_is,
    who_answer,
)
from memory.knowledge.retrieval.answer_culprits import culprit_answer
from memory.knowledge.retrieval.answer_deaths import deaths_answer
from memory.knowledge.retrieval.answer_deeds import deed_verb, done_to, says_deed, took_part_answer
from memory.knowledge.retrieval.answer_doers import doer_answer
from memory.knowledge.retrieval.answer_happenings import (
    event_names,
    goal_answer,
    happening_answer,
    is_event,
    names_list,
)
from memory.knowledge.retrieval.answer_holders import holder_answer
from memory.knowledge.retrieval.answer_house import house_answer
from memory.knowledge.retrieval.answer_kept_forms import kept_forms
from memory.knowledge.retrieval.answer_kin import family_answer, kin_answer
from memory.knowledge.retrieval.answer_kin_forms import kin_form_answer
from memory.knowledge.retrieval.answer_lives import asks_how_died, asks_where_died, life_answer
from memory.knowledge.retrieval.answer_marriage import marriage_answer
from memory.knowledge.retrieval.answer_members import group_said, members_answer
from memory.knowledge.retrieval.answer_office_since import office_since_answer
from memory.knowledge.retrieval.answer_origins import origin_answer
from memory.knowledge.retrieval.answer_outcomes import outcome_answer
from memory.knowledge.retrieval.answer_places import places_answer
from memory.knowledge.retrieval.answer_present import present_first
from memory.knowledge.retrieval.answer_qualified import qualified_answer
from memory.knowledge.retrieval.answer_relation import in_name, relation_answer, titled
from memory.knowledge.retrieval.answer_sizes import size_answer
from memory.knowledge.retrieval.answer_tenures import held_answer
from memory.knowledge.retrieval.answer_ties import ties_answer
from memory.knowledge.retrieval.answer_told import told_answer
from memory.knowledge.retrieval.answer_which import renumbered, which_answer, which_meant
from memory.knowledge.retrieval.answer_words import (
    RELATION_WORDS,
    fold_words,
    has_word,
    key_words,
    sentences,
)
from memory.knowledge.retrieval.answer_years import lived_answer, year_answer
from memory.knowledge.retrieval.event_said import told_of
from memory.knowledge.retrieval.heads import head_answer
from memory.knowledge.retrieval.heirs import heir_answer
from memory.knowledge.retrieval.rulers import ruler_answer
from memory.knowledge.retrieval.step_said import step_first

__all__ = ["graph_answer"]

#: The attributes whose sentences tell what someone did (`holders.mentioned` finds them by those).
_TOLD = ("description", "gm notes", "notes")
#: A day or a year in a card's line: its figures are no words asked ("what is X's first name").
_DATES = re.compile(r"\b(?:\d+\s+[A-Z]\w*,\s+)?year\s+-?\d+\b")
_BORN_WHEN = re.compile(r" was born (?:on|in) |'s date of birth |, born (?:on|in) ")


def _by_form(question: str, facts: Sequence[CanonFact]) -> list[int]:
    """Return the facts' numbers in the order the question's form asks them (a title's holder now first): a
    who-question a person or a group before an event named after one ("who is Tamsin": not the Investiture of
    Tamsin); a when- or what-happened question an event first."""
    folded, numbers = question.casefold(), present_first(question, facts)
    if re.match(r"^\s*(?:who|is|was|does|did|how old)\b", folded) or re.search(
        r"\b(?:born|die|died)\b", folded
    ):
        return sorted(numbers, key=lambda n: is_event(facts[n - 1]))
    if re.match(r"^\s*(?:when|what happened|what was)\b", folded):
        return sorted(numbers, key=lambda n: not is_event(facts[n - 1]))
    return numbers


_WHAT_DOES = re.compile(r"^\s*what\s+(?:does|did|do)\s+.+?\s+(?P<verb>[a-z]+)\s*\??\s*$")


def _about_entity_only(question: str, fact: CanonFact) -> bool:
    """Return whether a question asks only about an entity ("Who is X?", "Tell me about X")."""
    if deed_verb(question) is not None:
        return False  # "who crowned the Storm Crown" asks a deed, not what the Storm Crown is
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    verb = _WHAT_DOES.match(question.casefold())
    if verb and verb["verb"] not in ("do", "does", "did", "mean") and not has_word(named, verb["verb"]):
        return False  # "what does Gideon own": a thing asked of him, though "own" is a word of no weight
    return all(has_word(named, w) for w in key_words(question))


def _fact_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the canon fact that holds every word the question asks besides the entity's name, or None. A deed
    asked is held only by a sentence saying it was done to the entity (`answer_deeds.done_to`)."""
    where = bool(re.match(r"^\s*where\b", question.casefold()))
    deed = deed_verb(question)
    for number, fact in enumerate(facts, 1):
        named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
        # A deed's verb is asked even where a name holds its stem ("crowned", the Storm Crown).
        asked = [w for w in key_words(question) if w == deed or not has_word(named, w)]
        if not asked:
            continue
        # A card's facts are sentences already, an attribute's last value only (`entity_cards.card_facts`).
        for line in fact.facts:
            if where and _BORN_WHEN.search(line):
                continue  # a day of birth is no place of birth
            if deed in asked and not done_to(line, deed, fact):
                continue
            said = set(fold_words(_DATES.sub(" ", line)))  # "year 1" is no "first" name
            if all(has_word(said, w) for w in asked):
                yes = "Yes: " if _asks_yes_no(question, line) else ""
                return f"{yes}{_told_line(fact, line, asked).rstrip('.')}. [{number}]", number
    return None


#: A question asking yes or no, and words that turn a question or a line into its opposite.
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|does|do|did|has|have|had)\b", re.IGNORECASE)
_NOT = re.compile(r"\b(?:not|no|never|none|neither|nor|cannot|\w+n't|without)\b", re.IGNORECASE)


def _asks_yes_no(question: str, line: str) -> bool:
    """Return whether a line holding every word a yes/no question asks says yes outright ("did Oren Vask die in
    the Siege of Harl?": "Yes: Oren Vask died in the Siege of Harl"): neither says "not"."""
    return bool(_YES_NO.match(question)) and not _NOT.search(question) and not _NOT.search(line)


def _told_line(fact: CanonFact, line: str, asked: Sequence[str]) -> str:
    """Return a card line as said: a description by its sentence holding the words asked, of its subject by name."""
    for attribute in _TOLD:
        head = f"{possessive(fact.entity_name)} {attribute}: "
        if line.startswith(head):
            told = sentences(line[len(head) :])
            held = [s for s in told if all(has_word(set(fold_words(s)), w) for w in asked)]
            return told_of(fact, (held or told or [line[len(head) :]])[0])
    return line


def graph_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return an answer from the canon graph (a relation, or the card of the entity asked about), or None; cards
    read in the order the question's form asks them (`_by_form`), cited by their own numbers. A name given in
    part that several share asks which one (`answer_which`); a question of kin or marriage is answered from the
    family of the one it asks about (`answer_kin`); an event named by a clause is said as one (`clauses`)."""
    found = _from_graph(question, facts)
    if found is None:
        return None
    return said_of_clauses(found[0], event_names(facts)), found[1]


def _from_graph(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    steps = [(n, f) for n, f in enumerate(facts, 1) if f.step and f.step_span]
    if steps and len(re.findall(r"(?:'s|s')\s", steps[0][1].step_span or "")) > 1:
        return _two_step(question, steps)  # a chain of kin ("Tove's brother's wife"), read tie by tie
    kin = (
        qualified_answer(question, facts)  # "who is Wren's real father": the sentence saying it, if any
        or origin_answer(question, facts)  # "what was Ilvara's maiden name", "where is she from originally"
        or which_answer(question, facts)
        or held_answer(question, facts)  # "who was Osmund's successor": in an office held for a span
        or heir_answer(question, facts)
        or house_answer(question, facts)  # "how is Wystan related to the royal family": a tie to a lineage
        or kin_form_answer(question, facts)  # "is Wystan an only child", "whose son is Wystan"
        or ties_answer(question, facts)  # a mentor, a rival, a friend: ties that are not kin
        or kin_answer(question, facts)
        or family_answer(question, facts)
    )
    if kin is not None:
        return step_first(kin, steps)  # "Mara Quell's mother is Ysolde Quell; Hob Greave killed Ysolde Quell"
    if steps:
        return _two_step(question, steps)
    return which_meant(question, facts, _in_form_order) or _in_form_order(question, facts)


def _in_form_order(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer from the cards read in the order the question's form asks them (`_by_form`)."""
    order = _by_form(question, facts)
    found = _graph_answer(question, [facts[n - 1] for n in order])
    return None if found is None else renumbered(found, order)


def _two_step(question: str, steps: Sequence[tuple[int, CanonFact]]) -> tuple[str, int] | None:
    """Return the answer to a two-step question: its inner step in words, then the question asked of each one
    that step found ("Ilin Sarr is a member of The Lantern Guild; Quell Amberly leads The Lantern Guild"); a
    question that only asks who the inner part is ("who are Osric's children") is answered by the step. None
    when canon answers the question of none of them."""
    number, first = steps[0]
    if (first.step or "").endswith((".", "?")):  # a chain of kin broken where a tie names no one or several
        return f"{first.step} [{number}]", number
    rest = re.sub(re.escape(first.step_span or ""), " ", question.replace("’", "'"), flags=re.IGNORECASE)
    only_who = re.fullmatch(r"\s*(?:who|what)\s+(?:is|are|was|were)\s*\??\s*", rest, re.IGNORECASE)
    if only_who and len(steps) > 1:
        return f"{first.step}. [{number}]", number
    said: list[str] = []
    verdict = ""
    for _, fact in steps:
        span = re.compile(re.escape(fact.step_span or ""), re.IGNORECASE)
        name = fact.entity_name.replace("\\", "\\\\")  # a replacement text: backslashes written out
        asked = span.sub(name, question.replace("’", "'"), count=1)
        found = _graph_answer(asked, [fact])
        if found is None:
            continue
        text = re.sub(r"\s*\[\d+\]$", "", found[0])
        yes_no = re.match(r"^(Yes|No): ", text)
        if yes_no and len(steps) == 1:
            verdict, text = f"{yes_no[1]}: ", text[yes_no.end() :]
        if sorted(fold_words(text)) not in [sorted(fold_words(s)) for s in said]:
            said.append(text.rstrip("."))  # a tie said of both its ends once ("A married B", "B married A")
    if not said:
        return None
    if len(said) == 1:  # "…; nothing the table knows says …" inside the sentence
        inner = said[0][0].lower() + said[0][1:] if said[0].startswith("Nothing ") else said[0]
        return f"{verdict}{first.step}; {inner}. [{number}]", number
    return f"{first.step}. " + " ".join(f"{s[0].upper()}{s[1:]}." for s in said) + f" [{number}]", number


def _deed_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who did what the question asks, as the description or notes that found them say it, their name
    for a leading pronoun ("Nell Quarrow poisoned Lord Orrin's wine …")."""
    if not re.match(r"^\s*(?:who|what)\b", question.casefold()):
        return None
    for number, fact in enumerate(facts, 1):
        told = {f"{possessive(fact.entity_name)} {attribute}: {fact.matched}" for attribute in _TOLD}
        if not told & set(fact.facts):
            continue
        said = [s for s in sentences(fact.matched) or [fact.matched] if says_deed(s, question)][:1]
        if not said:
            continue  # the verb's stem in other words ("Pell's crown" for "who crowned Pell")
        # "Brother Halvard is the old priest …, who crowned Tamsin"; "Nell Quarrow poisoned …" for "She poisoned …"
        return f"{told_of(fact, said[0])}. [{number}]", number
    return None


def _count_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return how many entities of a type there are, as the cards a count found say ("House Vaske is one of 4
    factions"): "There are 4 factions: …", naming them all when there are few."""
    if not facts or not re.match(r"^\s*how many\b", question.casefold()):
        return None
    counted = [re.search(r" is one of (\d+) (.+)$", f.facts[0]) if f.facts else None for f in facts]
    if any(c is None for c in counted):
        return None
    total, word = int(counted[0][1]), counted[0][2]  # type: ignore[index]
    names = [f.entity_name for f in facts]
    listed = f": {names_list(names)}" if len(names) == total else f", among them {names_list(names)}"
    verb = "is" if total == 1 else "are"
    return f"There {verb} {in_words(total)} {word}{listed}. [1]", 1


def _graph_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    married = marriage_answer(question, facts)  # of each one a step found: "when did Tove's parents marry"
    if married is not None:
        return married
    counted = _count_answer(question, facts)
    if counted is not None:
        return counted
    found = (
        ago_answer(question, facts)  # how long ago an event, a death, a founding was
        or held_answer(question, facts)  # a leader, a holder, an office over time: before whom, in a year
        or office_since_answer(question, facts)  # when one took an office, how long they held it
        or kept_forms(question, facts)  # what a group keeps, who founded it, which of two is larger
        or year_answer(question, facts)
        or lived_answer(question, facts)
        or deaths_answer(question, facts)
        or culprit_answer(question, facts)
        or size_answer(question, facts)
        or outcome_answer(question, facts)
        or told_answer(question, facts)
        or places_answer(question, facts)
        or members_answer(question, facts)
        or age_answer(question, facts)
        or took_part_answer(question, facts)
        or doer_answer(question, facts)
        or _deed_answer(question, facts)
        or holder_answer(question, facts)
        or ruler_answer(question, facts)
        or head_answer(question, facts)
    )
    if found is not None:
        return found
    relation = relation_answer(question, facts)
    if relation is not None:
        return relation
    titles = titled(question, facts)
    if any(w in RELATION_WORDS and not in_name(w, facts) and w not in titles for w in fold_words(question)):
        # A relation the graph does not hold: the passages may still say it; but "Was X killed?" asks X's state.
        if asked_states(question):
            return kind_answer(question, facts)
        asks_death = asks_how_died(question) or asks_where_died(question)
        return life_answer(question, facts) if asks_death else None
    lived = life_answer(question, facts)
    if lived is not None:
        return lived
    happened = happening_answer(question, facts) or goal_answer(question, facts)
    if happened is not None:
        return happened
    kind = kind_answer(question, facts)
    if kind is not None:
        return kind
    attribute = _fact_answer(question, facts)
    if attribute is not None:
        return attribute
    where = asked_kind(question) == "where"
    for number, fact in enumerate(facts, 1):
        if where:
            placed = _placed(question, fact, number)
            if placed is not None:
                return placed
            continue
        if not _about_entity_only(question, fact):
            continue
        said = group_said(fact, number, who_answer(fact, number), question)
        if said is not None:
            return said, number
    return None


#: A description's words placing what it describes: "in the hills", "from the hill forts", "at Hythe".
_PLACED = re.compile(
    r"\b(?:in|at|from|near|beyond|under|above|below|across|outside)\s+(?:the\s+)?[A-Za-z]|\bof\s+(?:the\s+)?[A-Z]"
)
#: The words a where-question is put in beside the name ("where does Gerrit live", "where is Bran from").
_WHERE_WORDS = frozenset(
    {"live", "lives", "living", "located", "based", "stay", "stays", "reside", "resides"}
)


def _placed(question: str, fact: CanonFact, number: int) -> tuple[str, int] | None:
    """Return what an entity asked "where" of is, when its description places it ("Gerrit Vane is a grim old
    soldier who heads the Iron Host from the hill forts"); None when it does not ("a ferryman with one good eye":
    no answer to where he is from)."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    if not all(has_word(named, w) for w in key_words(question) if w not in _WHERE_WORDS):
        return None
    what = what_it_is(fact)
    if what is None or not _PLACED.search(what):
        return None
    return f"{what if what.endswith('.') else what + '.'} [{number}]", number
