"""An answer must hold what the question asks: a number for "how many", a name for "what is … called".

The word step quotes the sentence holding most of a question's words; for a question the world holds no answer
to, that is a neighbour sharing its words: "The soldiers of the Iron Watch wear black cloaks." for "how many
soldiers does the Iron Watch have", "The king keeps a grey horse in the stables." for "what is the name of the
king's horse". So an answer is read for the value asked before it is given:
- a count ("how many N …"): a sentence saying a number or an amount ("three hundred", "40", "a dozen", "half",
  "none"; "a few" only before a number: "live a few years longer" says no number of years); the canon
  graph's line too, when it says none (a card's description for "how many steps …");
- a name ("what is the name of the N", "what is the N called", "what is X's name"): a name given to the N ("the
  king's hound is named Cinder", "The Bellwater, a cold river", "his horse, Thunder"), a word with its capital
  the question does not hold;
- a price ("how much does X cost", "what is X worth", "the price of X", "what does X sell for"): a sentence saying an amount, in figures
  or in words ("15 gp", "ten silver", "free"); a line that names X and no amount ("Components: a drop of oil") is
  about X but does not say what it costs;
- either (a count or a name): the noun asked about (the N) said in the sentence quoted or in the section it is
  quoted from.
A question describing what it asks the name of ("the name of the spell that raises a wall of fire", "the name of
the condition where you cannot see") is answered by the entry it describes: that entry's title, which the question
does not hold, is the name.
An answer that does not hold it is "nothing known", in the question's words, as of a world that never wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer_described import describes, subject_of
from memory.knowledge.retrieval.answer_words import ABBREVIATIONS, fold_words, has_word

__all__ = ["Asked", "asked_value", "holds_asked"]

#: A number or an amount, in figures or in words.
_AMOUNT = re.compile(
    r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|"
    r"thousands?|millions?|dozens?|score|half|twice|once|double|single|none|no|both|all|every|several|few|"
    r"many|sole|only|lone|pair|couple|a|an)\b",
    re.IGNORECASE,
)
#: A word that says some, not how many: it counts only before a number ("a few hundred"). ("Many" and "several"
#: answer "how many" in the books' own words: "as many as your level".)
_VAGUE = frozenset({"few"})
#: "a" and "an" count only before the noun counted ("a grey horse" is one horse; "a hall" is no count of steps),
#: and never opening the sentence ("A wickwright is …" says what one is).
_ARTICLE = frozenset({"a", "an"})
#: Words counting people, which a book says otherwise ("how many ppl": "nine creatures").
_PEOPLE = frozenset({"ppl", "people", "persons", "folk", "folks", "guys", "creatures", "men", "players"})
_COUNT = re.compile(r"^\s*how\s+many\s+(?P<noun>[a-z]+)", re.IGNORECASE)
_PRICE = re.compile(
    r"\bhow\s+much\b.*\b(?:costs?|worth|price)\b|\bwhat\s+(?:does|do|did|would|will)\b.*\bcosts?\b"
    r"|\b(?:price|cost)\s+of\b|\bprices?\b"
    # "what does wool sell for", "how much gold for a rope": a price asked in the table's words
    r"|\b(?:sells?|sold|selling|fetch|fetches)\s+for\b|\bhow\s+much\s+(?:gold|gp|silver|sp|copper|cp|coins?|money)\b",
    re.IGNORECASE,
)
#: A rule's number opening a line: "6.3", "12.1.4".
_NUMBERED = re.compile(r"^\s*\d+(?:\.\d+)+\.?\s")
#: A price: a figure or a number in words, or nothing to pay.
_PRICED = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"hundreds?|thousands?|half|double|twice|free|nothing|no\s+cost)\b",
    re.IGNORECASE,
)
_NAME_OF = re.compile(
    r"\bname\s+of\s+(?P<of>.+?)\s*(?:\bis\b|\bwas\b)?\s*[?.!]*\s*$"
    r"|^\s*what\s+(?:is|was|are|were)\s+(?P<called>.+?)\s+(?:called|named)\s*[?.!]*\s*$"
    r"|^\s*what\s+(?:is|was|'s|’s)\s+(?P<whose>.+?)(?:'s|’s)\s+name\s*[?.!]*\s*$",
    re.IGNORECASE,
)
#: The words that end the noun asked ("the river *under* the city", "the inn *that* stands …").
_AFTER_NOUN = r"\s+(?:of|under|in|at|on|beneath|below|near|by|from|with|that|who|whose|which|where|when|for|across|beyond)\s+"
_NAME = r"[A-Z][\w'’-]+(?:\s+(?:of\s+)?[A-Z][\w'’-]+)*"


class Asked(NamedTuple):
    """The value a question asks ("count", "price" or "name"), the noun it asks it of ("soldiers", "horse"), whether
    the question describes that noun ("the spell *that* raises a wall", "the river *under* the city")."""

    kind: str
    noun: str
    described: bool


def asked_value(question: str) -> Asked | None:
    """Return the value a question asks and its noun, or None when it asks no number, price nor name."""
    count = _COUNT.match(question)
    if count:
        return Asked("count", count["noun"].casefold(), False)
    if _PRICE.search(question):
        return Asked("price", "", False)
    named = _NAME_OF.search(question.replace("’", "'"))
    if named:
        phrase = named["of"] or named["called"] or named["whose"] or ""
        # "river" of "river under the city": the words after it describe it
        head, *described = re.split(_AFTER_NOUN, phrase, maxsplit=1, flags=re.IGNORECASE)
        words = [w for w in fold_words(head) if w not in ("the", "a", "an", "s")]
        return Asked("name", words[-1], bool(described) or describes(question)) if words else None
    return None


def _said(said: set[str], noun: str) -> bool:
    """Tell whether a text says the noun asked, in a form of it or whole where the table cuts it short ("temp"
    hit points are "temporary")."""
    return has_word(said, noun) or (len(noun) >= 4 and any(w.startswith(noun) for w in said))


def _says_count(sentence: str, noun: str) -> bool:
    for match in _AMOUNT.finditer(sentence):
        word = match.group(0).casefold()
        if word in _VAGUE:
            # "a few hundred" counts; "live a few years longer" says no number of years
            after = fold_words(sentence[match.end() :])[:1]
            if after and _AMOUNT.fullmatch(after[0]) and after[0] not in _ARTICLE | _VAGUE:
                return True
            continue
        if word not in _ARTICLE:
            return True
        if word in _ARTICLE and not sentence[: match.start()].strip():
            continue  # "A wickwright is a craftsman …": what one is, no count of them
        after = fold_words(sentence[match.end() :])[:3]  # "a dozen", "a grey horse"
        if after[:1] and after[0] in _VAGUE:
            continue  # "a few years": the vague word is read on its own
        if any(has_word({w}, noun) for w in after):
            return True
    return False


def _counted_in(section: str, nouns: Sequence[str]) -> bool:
    """Tell whether a line of the section quoted (a table's row, a short paragraph) counts the noun asked: the
    word step quoted the sentence about it, the count is beside it ("| 1st | 2 | …" of a class's table)."""
    for line in section.splitlines():
        said = set(fold_words(line))
        if nouns and all(_said(said, n) for n in nouns) and _says_count(line, "") and re.search(r"\d", line):
            return True
    return False


def _says_name(sentence: str, noun: str, typed: set[str]) -> bool:
    """Tell whether a sentence gives the noun asked a name the question does not hold."""

    def new(name: str) -> bool:
        return any(w not in typed for w in fold_words(name))

    for match in re.finditer(
        rf"\b(?:named|called|known\s+as|name\s+(?:is|was))\s+(?:the\s+)?({_NAME})", sentence
    ):
        if new(match.group(1)):
            return True
    noun_ = rf"(?i:{re.escape(noun)}\w{{0,2}})"
    close = [
        rf"\b({_NAME}),?\s+(?:(?:is|was)\s+)?(?:a|an|the)\s+(?:[\w-]+\s+){{0,2}}{noun_}\b",  # "Bellwater, a cold river"
        rf"\b{noun_},?\s+({_NAME})",  # "his horse, Thunder", "the river Bellwater"
    ]
    for pattern in close:
        for match in re.finditer(pattern, sentence):
            name = re.sub(r"^(?:The|A|An)\s+", "", match.group(1))
            if name and new(name):
                return True
    return False


def _quoted(
    answer: ShortAnswer, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> list[tuple[str, str]]:
    """Return each sentence the answer quotes with the section it is quoted from (a card's line: itself)."""
    first = len(facts) + 1
    sections = [
        results[c.number - first].text if c.number >= first and c.number - first < len(results) else ""
        for c in answer.citations
        if c.cited
    ]
    around = " ".join(sections)
    text = re.sub(r"\s*\[\d+\]", "", answer.text)
    return [(s, around) for s in re.split(r"(?<=[.!?])\s+", text) if s]


def _titled_new(
    answer: ShortAnswer, facts: Sequence[CanonFact], results: Sequence[LoreResult], typed: set[str]
) -> bool:
    """Tell whether a passage the answer quotes has a title (its last heading) the question does not hold."""
    first = len(facts) + 1
    for citation in answer.citations:
        if citation.cited and 0 <= citation.number - first < len(results):
            title = subject_of(results[citation.number - first])
            if title and any(w not in typed for w in fold_words(title)):
                return True
    return False


def holds_asked(
    question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> bool:
    """Tell whether an answer holds the value a question asks (see the module docstring); True for a question
    that asks none, and for an answer that is "nothing known" already."""
    asked = asked_value(question)
    if asked is None or not answer.known:
        return True
    quoted = _quoted(answer, facts, results)
    if answer.mode == AnswerMode.GRAPH:
        # Canon's own words: only a count it does not give is no answer (a card's description for "how many").
        return asked.kind != "count" or any(_says_count(s, asked.noun) for s, _ in quoted)
    if answer.mode != AnswerMode.EXTRACTIVE:
        return True
    if asked.kind == "price":
        # A rule's number opening the line ("6.3 FUSE CHARGE.") is no price.
        return any(_PRICED.search(_NUMBERED.sub("", sentence)) for sentence, _ in quoted)
    typed = set(fold_words(question))
    if asked.kind == "name" and asked.described and _titled_new(answer, facts, results, typed):
        return True  # "the name of the spell that …": the entry described, its title the name
    for sentence, section in quoted:
        said = set(fold_words(sentence)) | set(fold_words(section))
        nouns = () if asked.noun in _PEOPLE else ABBREVIATIONS.get(asked.noun, (asked.noun,))
        if not all(_said(said, w) for w in nouns):
            continue  # "horse" in neither the sentence nor its section: about something else
        if asked.kind == "count" and (_says_count(sentence, asked.noun) or _counted_in(section, nouns)):
            return True
        if asked.kind == "name" and _says_name(sentence, asked.noun, typed):
            return True
    return False
