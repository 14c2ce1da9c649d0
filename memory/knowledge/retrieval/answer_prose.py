"""What only the world bible's prose says of an entity the graph holds: its sentence, where the card falls short.

The canon graph answers first (`answer_graph`), but a card holds what its files typed, and the world bible may
say more of the same entity in prose: a wedding's year, how many live in a city, how many ships a fleet keeps. So
a graph's answer that falls short of the question gives way to the prose sentence that answers it:
- a graph's "nothing the table knows says …" ("when did Tomas Reed and Ilse Marr marry"), by a sentence naming
  everyone the question names and saying every other word it asks (a word's forms and kin: "wed" for "marry");
- a "how many" the card answers without a number ("how many cutters does the Tideguard keep": its description
  says "a fleet of grey cutters"), and a "when" it answers without a year, by such a sentence holding one;
- a tie asked with a word doubting the one canon states ("who is Corin's real mother"), answered by the tie canon
  states, by a sentence saying it with such a word ("Corin Vale's true mother is Queen Ysolde, …"): a GM-only
  section's, for the GM alone (a player's passages hold none, so a player reads the tie canon states);
- how many people live in a place, when the graph counts only the residents it names, or nothing: the bible's
  sentence counting its people ("About forty thousand people live in Quillhaven, …"), then whom canon names.
Before those: the creatures of a place (`answer_creatures`), and what came of an event the graph says nothing of
(`answer_came_of`). The sentence is quoted as written (never a heading: a GM-only section's "(GM only)" is no part of it), from a
passage the asker may read that is fact (Canon or Reference; Inspiration is never quoted as fact).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording.word_forms import root
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_came_of import asks_came_of, came_of_answer
from memory.knowledge.retrieval.answer_creatures import creatures_answer
from memory.knowledge.retrieval.answer_happenings import is_event
from memory.knowledge.retrieval.answer_outcomes import outcome_answer
from memory.knowledge.retrieval.answer_qualified import SAYS_HIDDEN, doubts_a_tie, other_sex
from memory.knowledge.retrieval.answer_sizes import asks_size, counts_people
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, sections_of, sentences

__all__ = ["prose_beside"]

_NUMBER = re.compile(
    r"\b(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|hundred|thousand|dozen|score)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:year|years)\s+-?\d+|\b\d{2,}\b", re.IGNORECASE)
#: A resident count of the graph's (`answer_places`): "Three people live in Quillhaven: A, B and C. [1]".
_RESIDENTS = re.compile(r"^(?P<count>\w+) (?:people|person) lives? in .+?: (?P<names>.+?)\. \[(?P<n>\d+)\]$")
#: Words a question asks with, not about: never needed of the sentence.
#: A sentence saying a tie is not the one known ("Corin Vale's true mother is …", `answer_qualified`).
_HIDDEN = re.compile(rf"\b(?:{'|'.join(sorted(SAYS_HIDDEN))})\b", re.IGNORECASE)
_ASKING = frozenset(
    {"many", "much", "people", "folk", "ppl", "year", "day", "date", "time", "happen", "happened"}
)


def _named(question: str, facts: Sequence[CanonFact]) -> list[CanonFact]:
    """Return the cards the question names (every word that found them is in it), not those found beside."""
    asked = set(fold_words(question))
    return [f for f in facts if f.matched and set(fold_words(f.matched)) <= asked and not is_event(f)] or [
        f for f in facts if f.matched and set(fold_words(f.matched)) <= asked
    ]


def _names(sentence: str, fact: CanonFact) -> bool:
    """Tell whether a sentence names an entity: its whole name, or a word of it written with its capital."""
    if fact.entity_name.casefold() in sentence.casefold():
        return True
    words = [w for w in fact.entity_name.split() if len(w) > 3 and w[:1].isupper() and w != "The"]
    return any(re.search(rf"\b{re.escape(w)}\b", sentence) for w in words)


#: The table's words for a tie, as a bible writes them ("mum": "mother").
_TABLE_WORDS = {
    "mum": "mother",
    "mom": "mother",
    "mam": "mother",
    "dad": "father",
    "da": "father",
    "kid": "child",
}


def _holds(sentence: str, word: str, names: set[str]) -> bool:
    """Tell whether a sentence says a word asked, in any of its forms or by its kin ("wed" for "marry"), not
    as a word of a name ("Marr" is no "married")."""
    said = set(fold_words(sentence)) - names
    word = _TABLE_WORDS.get(word, word)
    return has_word(said, word) or root(word) in {root(w) for w in said}


def _prose(results: Sequence[LoreResult], offset: int) -> list[tuple[int, str]]:
    """Return the sentences of the fact passages, each with its passage's number, headings left out."""
    found: list[tuple[int, str]] = []
    for number, result in enumerate(results, offset):
        if not result.is_fact:
            continue
        for _, text in sections_of(result.text):
            found += [(number, s) for s in sentences(text)]
    return found


def _answer(
    text: str, cited: Sequence[int], facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer:
    citations = [c.model_copy(update={"cited": c.number in cited}) for c in numbered(facts, results)]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def _population(
    question: str, graph: str | None, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the bible's count of a place's people, then whom canon names living there (see the docstring)."""
    if not asks_size(question) or (
        graph is not None and not graph.startswith("Nothing ") and not _RESIDENTS.match(graph)
    ):
        return None
    place = next((f for f in _named(question, facts) if f.entity_type in ("Location", "Region")), None)
    if place is None:
        return None
    counted = [(n, s) for n, s in _prose(results, len(facts) + 1) if _names(s, place) and counts_people(s)]
    if not counted:
        return None
    number, sentence = counted[0]
    text = f"{sentence.rstrip('.')}. [{number}]"
    residents = _RESIDENTS.match(graph or "")
    if residents is None:
        return _answer(text, [number], facts, results)
    count = residents["count"].lower()
    said = (
        f"Canon names {'one' if count == 'one' else count} of them: {residents['names']}. [{residents['n']}]"
    )
    return _answer(f"{text} {said}", [number, int(residents["n"])], facts, results)


def _short(question: str, graph: str) -> re.Pattern[str] | None:
    """Return what a graph's answer lacks for the question (a number, a year), or None when it does not fall
    short; a graph's "nothing known" lacks nothing in particular (an always-matching pattern)."""
    folded = question.casefold()
    graph = re.sub(r"\s*\[\d+\]", "", graph)  # its citation marks are no numbers
    if graph.startswith("Nothing the table knows"):
        # A plain "nothing known"; one saying what canon holds instead ("…; X is alive") stands: canon outranks.
        return None if ";" in graph else re.compile("")
    if doubts_a_tie(question) and not set(fold_words(graph)) & SAYS_HIDDEN:
        return _HIDDEN  # "who is Corin's real mother", answered with the tie canon states
    if re.match(r"^\s*how\s+many\b", folded) and not _NUMBER.search(graph):
        return _NUMBER
    if re.match(r"^\s*(?:when|what\s+year)\b", folded) and not _YEAR.search(graph):
        return _YEAR
    return None


def prose_beside(
    question: str, graph: str | None, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer | None:
    """Return the prose sentence answering what the graph's answer (None: no answer) falls short of, or None
    when the graph's answer stands (see the module docstring)."""
    beasts = creatures_answer(question, facts, results)  # the creatures of a place, by canon and prose
    if beasts is not None:
        return beasts
    # What came of an event, by canon or prose: after its winner or outcome (`answer_outcomes`), before a card's
    # line that merely holds a word asked ("came back").
    if (
        graph is None
        or graph.startswith("Nothing the table knows")
        or (asks_came_of(question) and outcome_answer(question, facts) is None)
    ):
        came = came_of_answer(question, facts, results)
        if came is not None:
            return came
    counted = _population(question, graph, facts, results)
    if counted is not None or (graph is None and not doubts_a_tie(question)):
        return counted
    lacking = _HIDDEN if graph is None else _short(question, graph)  # "real mum": no tie the graph reads
    named = _named(question, facts)
    if lacking is None or not named:
        return None
    names = {w for f in named for w in fold_words(f.matched) + fold_words(f.entity_name)}
    asked = [w for w in key_words(question) if w not in names and w not in _ASKING and w not in SAYS_HIDDEN]
    if not asked:
        return None
    for number, sentence in _prose(results, len(facts) + 1):
        if (
            all(_names(sentence, f) for f in named)
            and all(_holds(sentence, w, names) for w in asked)
            and not other_sex(asked, fold_words(sentence))
            and lacking.search(sentence)
        ):
            return _answer(f"{sentence.rstrip('.')}. [{number}]", [number], facts, results)
    return None
