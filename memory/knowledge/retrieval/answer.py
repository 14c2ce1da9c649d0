"""Write the short answer of a lore question without a language model: from the canon graph, or extractive.

Canon facts from play outrank imported prose, so the graph is asked first (`answer_graph`: a relation, an
attribute asked, the entity asked about). Otherwise the answer is extractive: the one or two sentences of the best passages that cover most of the
question's words (a word in a passage's headings counts for each of its sentences, at half weight). The
question's names (its capitalised words) must all be in the passage, and at least half of its other words:
otherwise nothing the asker may see answers it, and the answer says so plainly ("Nothing the table knows says who
Ysolde's brother is."). Only what the asker may see reaches this module (the retriever filtered it first), so an
answer never hints at GM-only material. Inspiration is never quoted as fact.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.fields import fields_of
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FIELD_UNITS, HOW_UNITS, analyse, how_word
from memory.knowledge.retrieval.answer_graph import graph_answer
from memory.knowledge.retrieval.answer_words import (
    ABBREVIATIONS,
    EXAMPLE_OPENS,
    RELATION_WORDS,
    covers,
    examples,
    fold_words,
    has_word,
    key_words,
    kind_line,
    labelled_sentences,
    names_in,
    related_said,
    same_word,
    sections_of,
    sentences,
)

__all__ = [
    "AMOUNT_FIELDS",
    "asks_measure",
    "compose",
    "key_words",
    "nothing_known",
    "numbered",
    "same_word",
    "says_field",
    "sentences",
]

#: Passages whose sentences may answer (the best few).
PASSAGES_READ = 3
#: Share of the question's words a passage must hold to answer it.
MIN_COVERAGE = 0.5
#: Share of the question's weight a quoted sentence and its headings must hold.
SENTENCE_COVERAGE = 0.6
#: Share of the question's words a second quoted sentence must hold itself (not through its headings).
SECOND_OVERLAP = 0.5
#: Share of the best sentence's score a second quoted sentence must have.
SECOND_SCORE = 0.7

#: A question asking an amount ("how much damage", "how many berries", "what DC"), and what says one.
_ASKS_AMOUNT = re.compile(
    r"\bhow (?:much|many|long|far|big|heavy|fast|deep|high|tall|old|wide|often)\b|\bwhat (?:dc|difficulty)\b"
    r"|\bdc\b"
)
_AMOUNT = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|thousand|half|"
    r"twice|double|triple)\b",
    re.IGNORECASE,
)
#: How much less a sentence without an amount weighs when the question asks one.
NO_AMOUNT = 0.6
#: A question asking who: a relation it names ("who rules X", "who is Y's brother") must be in the sentence.
_ASKS_WHO = re.compile(r"(?i)^\s*(?:who|whom|whose)\b")
#: How much less a sentence weighs that speaks of its own entry's subject ("The plesiosaurus can hold its breath
#: for 1 hour") when the question names no word of it ("how long can I hold my breath").
ANOTHER = 0.75
#: How much more a sentence counting what "how many" asks weighs ("up to ten berries" for "how many berries").
COUNTED = 1.5
#: "How many willing creatures can ...": the words counted, up to the verb.
_HOW_MANY = re.compile(
    r"\bhow many\s+(?:[^\W\d_]+\s+){0,2}?([^\W\d_]+)"
    r"(?=\s+(?:do|does|did|can|could|will|would|should|may|might|must|is|are|was|were|has|have|had|in|on|at|per|"
    r"for|of)\b|\s*[?!.]*$)"
)
_COUNT = (
    r"(?:\d[\d,]*|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|"
    r"thousand|several|many)"
)
#: How much less an example weighs than the rule it illustrates ("For example, a creature with ...").
EXAMPLE = 0.5
#: How much more a sentence weighs under an inner heading or a bold name every word of which the question holds.
NAMED_BLOCK = 1.3
#: How much more a sentence weighs for each pair of the question's words it says side by side, in order ("a long
#: rest ... at least 8 hours" over "a short rest ... at least 1 hour long" for "how long is a long rest").
PAIRED = 0.2
#: A die or dice as the books write them: "1d6", "2d8 + 4", "d20".
_DICE_ROLL = re.compile(r"(?<![\w])\d*d\d+\b")
#: The fields whose value is an amount: a question asking one in prose ("lay on hands pool size", "bag of holding
#: capacity") asks an amount as "how much" does, and the sentence saying one answers it. Not damage: "what's
#: thunder damage" asks what a kind of damage is as often as how much of it.
AMOUNT_FIELDS = frozenset({*FIELD_UNITS, "size", "amount", "number", "total", "dc", "bonus", "capacity"})

#: "What does X do?" cannot be turned into "what X does" by moving a word: such questions are quoted.
_AUXILIARIES = frozenset(
    {
        *(
            "do",
            "does",
            "did",
            "can",
            "could",
            "will",
            "would",
            "should",
            "shall",
            "may",
            "might",
            "must",
            "has",
        )
    }
    | {"have", "had"}
)


def nothing_known(question: str) -> str:
    """Return the honest "nothing known" sentence for a question, in its own words where they allow."""
    q = " ".join(question.split()).rstrip("?!. ")
    match = re.match(r"(?i)^(how (?:old|many|much|long|far|big|tall))\s+(is|are|was|were)\s+(.+)$", q)
    if match and _noun_phrase(match.group(3)):
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(3)} {match.group(2).lower()}."
    match = re.match(r"(?i)^(who|what|where|when|which|how)\s+(is|are|was|were)\s+(.+)$", q)
    if match and match.group(1).casefold() in ("who", "what") and _PASSIVE.match(match.group(3)):
        # "who was born in 999", "what was built at the ford": the question is a clause as it stands.
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(2).lower()} {match.group(3)}."
    if match and not _noun_phrase(match.group(3)):
        return f"Nothing the table knows answers “{q}?”."
    if match:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(3)} {match.group(2).lower()}."
    match = re.match(r"(?i)^(who|what|where|when|which|how|why)\s+(\w+)\b(.*)$", q)
    # "what damage does a mace deal", "what faction is Sabine in": no word moved makes these a clause.
    asks = {w.casefold() for w in q.split()[1:4]} & (_AUXILIARIES | {"is", "are", "was", "were"})
    if match and not asks:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(2)}{match.group(3)}."
    if match:
        return f"Nothing the table knows answers “{q}?”."
    return f"Nothing the table knows answers “{q}”."


#: A passive verb opening what follows "who was": "born in 999", "killed at the ford", "crowned in 412".
_PASSIVE = re.compile(
    r"(?i)^(?:born|slain|built|made|found|held|given|taken|written|sent|lost|won|fought|\w+ed)\s+"
    r"(?:in|at|on|during|by|before|after|to|with|from|for|of)\b"
)
#: Words that end a clause rather than a noun phrase ("where was Orrin *born*", "who is Tamsin *married to*",
#: "where is Zorn *held*").
_CLAUSE_END = re.compile(
    r"(?i)(?:ed|born|held|kept|built|lost|found|made|hid|slain|left|sent|bound|to|in|at|of|by|with|for|from|on|"
    r"about|\w+en)$"
)


def _noun_phrase(rest: str) -> bool:
    """Return whether what follows "who is" is a noun phrase ("the lady of Saltmarch", "Tamsin's husband") that
    "Nothing the table knows says who … is" may hold, not a clause ("Tamsin married to", "older, A or B")."""
    if "," in rest or re.search(r"(?i)\b(?:or|than)\b", rest):
        return False
    words = rest.split()
    last = words[-1]
    if len(words) == 1 or last[:1].isupper() or words[-2].casefold() in {"the", "a", "an"}:
        return True  # "the Pact of the Sunken", "the pact of the drowned"
    return not _CLAUSE_END.search(last) and not re.match(r"(?i)^(?:older|younger|bigger|taller)\b", rest)


def numbered(facts: Sequence[CanonFact], results: Sequence[LoreResult]) -> list[Citation]:
    """Return the numbered sources of an answer: canon facts first, then the passages, in order."""
    citations = [
        Citation(number=n, kind="canon", label=f"{f.entity_name} (canon)", entity_id=f.entity_id)
        for n, f in enumerate(facts, 1)
    ]
    for n, r in enumerate(results, len(citations) + 1):
        label = r.where
        citations.append(
            Citation(
                number=n,
                kind="passage",
                label=label,
                chunk_id=r.chunk_id,
                source_id=r.source_id,
                out_of_date=r.out_of_date,
                disagrees=r.disagrees,
            )
        )
    return citations


@dataclass(slots=True)
class _Sentence:
    text: str
    number: int
    score: float
    words: set[str]
    #: The heading inside the passage the sentence is under (a passage may hold several small sections).
    section: str | None = None
    #: Its place among the passage's sentences, and the bold name of its block (None outside one).
    position: int = 0
    label: str | None = None
    #: The sentence before it under the same heading, when it opens with "He" or "She" (who they are).
    antecedent: str | None = None


def asks_amount(question: str) -> bool:
    """Return whether a question asks an amount ("how much damage", "how many berries", "what DC")."""
    return bool(_ASKS_AMOUNT.search(question.casefold()))


def asks_measure(fields: Sequence[str]) -> bool:
    """Return whether a field a question asks is an amount (`AMOUNT_FIELDS`: its last word, "pool size")."""
    return any(f.split() and f.casefold().split()[-1] in AMOUNT_FIELDS for f in fields)


def has_amount(text: str) -> bool:
    """Return whether a sentence says an amount (a number, "ten", "half", "twice")."""
    return bool(_AMOUNT.search(text))


def counted(question: str) -> re.Pattern[str] | None:
    """Return what says a count of the thing "how many" asks, in the form asked ("ten berries", "up to eight
    willing creatures" for "how many berries", "how many willing creatures"; not "one berry"), or None."""
    match = _HOW_MANY.search(question.casefold())
    if match is None:
        return None
    return re.compile(rf"\b{_COUNT}\s+(?:[\w-]+\s+){{0,2}}?{re.escape(match.group(1))}\b", re.IGNORECASE)


def word_pairs(question: str) -> list[tuple[str, str]]:
    """Return the pairs of content words a question says side by side ("long rest", "hit dice")."""
    return [(a, b) for a, b in pairwise(fold_words(question)) if a not in STOPWORDS and b not in STOPWORDS]


def paired(pairs: Sequence[tuple[str, str]], text: str) -> int:
    """Return how many of a question's word pairs a sentence says side by side (an ending apart)."""
    if not pairs:
        return 0
    words = fold_words(text)
    return sum(1 for a, b in pairs if any(same_word(a, x) and same_word(b, y) for x, y in pairwise(words)))


def is_example(text: str) -> bool:
    """Return whether a sentence is an example of a rule ("For example, ...")."""
    return bool(EXAMPLE_OPENS.match(text))


def text_words(text: str, asked: Sequence[str], how: str | None = None) -> set[str]:
    """Return a sentence's folded words, its abbreviations read out when the question asks every word of them
    ("+2 bonus to AC" holds "armor" and "class" for "armor class", not "class" for "which class"), and the
    question's words it says in the books' words ("at least 1 hour" says "minimum": `related_said`; "1d6" says
    "die" and "dice"). `how`, the
    word asking an amount ("long" of "how long"), is said by an amount of its kind ("3 rounds") or with one."""
    folded = fold_words(text)
    words = set(folded)
    for short in words & ABBREVIATIONS.keys():
        if all(w in asked for w in ABBREVIATIONS[short]):
            words |= set(ABBREVIATIONS[short])
    words |= related_said(folded, asked)
    if _DICE_ROLL.search(text):
        words |= {"die", "dice"} & set(asked)  # "an extra 1d6" says the die asked
    if how is not None:
        # "How long": said by an amount of time or length ("at least 1 hour long"), not by "a long rest".
        amount = has_amount(text)
        if not amount:
            words.discard(how)
        elif words & set(HOW_UNITS[how]):
            words.add(how)
    return words


def says_field(word: str, text: str, words: set[str]) -> bool:
    """Return whether a sentence (its folded `words`) says a field's word: the word itself, or, for a field that
    is an amount (`question.FIELD_UNITS`), an amount in its units ("for 1 hour" says the duration)."""
    if has_word(words, word):
        return True
    units = FIELD_UNITS.get(word)
    return units is not None and has_amount(text) and bool(words & set(units))


def _asked(question: str) -> tuple[list[str], str | None]:
    """Return the words a sentence answering the question says, and among them the word asking an amount of a
    kind ("long" of "how long"); when that word asks a field ("how far does X reach" asks the range: the
    field's line or sentence says it, not any distance), it is left out."""
    keys = key_words(question)
    how = how_word(question)
    if how is None or how not in keys:
        return keys, None
    if any(f"how {how}" in phrase for phrase in analyse(question, {}).asked_by.values()):
        return [w for w in keys if w != how], None
    return keys, how


def _entry_name(result: LoreResult) -> list[str]:
    """Return the words of a passage's entry name: its last heading's last part, without what is in brackets
    ("plesiosaurus" of "Bestiary › Plesiosaurus")."""
    if not result.heading_path:
        return []
    title = re.sub(r"\([^)]*\)", " ", result.heading_path[-1]).split(":")[-1]
    return [w for w in fold_words(title) if w not in STOPWORDS]


def _weights(
    keys: Sequence[str], names: Sequence[str], results: Sequence[LoreResult], how: str | None = None
) -> dict[str, float]:
    """Return each question word's weight: rarer among the passages found weighs more, a name double."""
    texts = [text_words(" ".join([r.source_title, *r.heading_path, r.text]), keys, how) for r in results]
    weight = {}
    for w in keys:
        found = sum(1 for words in texts if covers(words, w))
        # A word no passage holds cannot be quoted: it weighs nothing here (a passage must still hold it).
        rarity = 1.0 + math.log((1 + len(texts)) / (1 + found)) if found else 0.0
        weight[w] = rarity * (2.0 if w in names else 1.0)
    return weight


def _stat_line(label: str | None, text: str, result: LoreResult) -> bool:
    """Return whether a sentence is a stat line of a passage (a field's label and a short value): it is its
    entry's, so a question naming no word of the entry is not answered by it ("Carrying Capacity 540 lb." of a
    horse for "how do i calculate carrying capacity"); a rule's bold-named paragraph ("Long Jump. When you
    ...") is no stat line. The kind line answers its own field only (see `compose`)."""
    if label is None or len(text.split()) > len(label.split()) + 4:
        return False
    return label.casefold() in {f.label.casefold() for f in fields_of(result)}


def _scored(
    question: str,
    results: Sequence[LoreResult],
    first: int,
    only: Callable[[LoreResult], bool] | None = None,
    kind_lines: bool = False,
    needs: Callable[[LoreResult, str | None], Sequence[str]] | None = None,
    measure: bool = False,
) -> list[_Sentence]:
    """Return the sentences of the passages that answer the question, scored against it, best first.

    A passage answers when it holds every name of the question and at least half of its other words (a name
    alone is not an answer to "Who is Eliza Crane's brother?"); a sentence, when it and its headings hold most
    of the question's weight. Short sentences are preferred ("Range 60 feet" over a paragraph naming a range).
    """
    keys, how = _asked(question)
    names = [n for n in names_in(question) if n in keys]
    others = [w for w in keys if w not in names]
    weight = _weights(keys, names, results, how)
    total = sum(weight.values()) or 1.0
    amount = measure or asks_amount(question)
    count = counted(question)
    relation = [w for w in keys if w in RELATION_WORDS] if _ASKS_WHO.match(question) else []
    pairs = word_pairs(question)
    scored: list[_Sentence] = []
    readable = [(i, r) for i, r in enumerate(results) if r.is_fact and (only is None or only(r))]
    for rank, (index, result) in enumerate(readable[:PASSAGES_READ]):
        heading = set(fold_words(" ".join([result.source_title, *result.heading_path])))
        passage = heading | text_words(result.text, keys, how)
        own_name = _entry_name(result)
        shown = examples(result.text)
        other = bool(own_name) and not any(has_word(set(keys), w) for w in own_name)
        if not all(has_word(passage, n) for n in names):
            continue
        if others and sum(1 for w in others if covers(passage, w)) / len(others) < MIN_COVERAGE:
            continue
        damp = (1.0 - 0.12 * rank) * (0.5 if result.out_of_date or result.overruled else 1.0)
        placed = _placed(result, kind_lines=kind_lines, other=other)
        for position, (section, label, text) in enumerate(placed):
            words = text_words(text, keys, how)
            needed = needs(result, section) if needs is not None else ()
            if needed and not all(says_field(w, text, words | set(fold_words(label or ""))) for w in needed):
                continue  # a field asked: the sentence says it ("a +2 bonus to AC")
            # A sentence is under its section's heading and its block's bold name ("Engulf": every sentence); one
            # going on from the sentence before (`_GOES_ON`: "On a failure, …") is about what that one says.
            above = heading | set(fold_words(section or "")) | set(fold_words(label or ""))
            if position and placed[position - 1][:2] == (section, label) and _GOES_ON.match(text):
                above |= set(fold_words(placed[position - 1][2]))
            if relation and not all(covers(words, w) for w in relation):
                continue  # "who rules Waterdeep": a sentence naming Waterdeep but no ruler does not answer
            own = sum(weight[w] for w in keys if covers(words, w))
            by_heading = sum(
                weight[w] for w in keys if w != how and not covers(words, w) and has_word(above, w)
            )
            if not own or (own + by_heading) / total < SENTENCE_COVERAGE:
                continue
            density = 1.0 / (1.0 + len(words) / 30)
            if amount and not has_amount(text):
                density *= NO_AMOUNT  # "how much damage from falling": the sentence with the dice
            if other and all(has_word(words, w) for w in own_name):
                density *= ANOTHER  # about the entry's own subject, which the question does not name
            if count is not None and count.search(text):
                density *= COUNTED  # "how many berries": "up to ten berries", not "eat one berry"
            if is_example(text) or text in shown:
                density *= EXAMPLE
            # Pairs the headings say name the passage's own subject, which every sentence under them shares.
            density *= 1.0 + PAIRED * paired([p for p in pairs if not set(p) <= heading], text)
            inner = [w for w in fold_words(f"{section or ''} {label or ''}") if w not in STOPWORDS]
            if inner and all(has_word(set(keys), w) for w in inner):
                density *= NAMED_BLOCK  # under a heading or bold name the question names ("Short Rest")
            score = (own + 0.5 * by_heading) * damp * density - 0.01 * position
            matched = {w for w in keys if covers(words, w)}
            antecedent = _antecedent(placed, position)
            scored.append(
                _Sentence(text, first + index, score, matched, section, position, label, antecedent)
            )
    scored.sort(key=lambda s: -s.score)
    return scored


def _extractive(
    question: str,
    results: Sequence[LoreResult],
    first: int,
    only: Callable[[LoreResult], bool] | None = None,
    kind_lines: bool = False,
    needs: Callable[[LoreResult, str | None], Sequence[str]] | None = None,
    measure: bool = False,
) -> list[_Sentence]:
    """Return the one or two sentences that best answer the question (none when no passage does)."""
    scored = _scored(question, results, first, only, kind_lines, needs, measure)
    if not scored:
        return []
    chosen = [scored[0]]
    top = scored[0]
    if top.antecedent is not None:
        # "He is Maren Marrow's elder brother" says who only with the sentence before it: both, in order.
        said = _Sentence(
            top.antecedent, top.number, top.score, set(), top.section, top.position - 1, top.label
        )
        return [said, top]
    before = next((s for s in scored[1:] if _goes_on(s, scored[0])), None)
    if before is not None:
        # "Each time you use it again, the damage increases by 1d12" goes on from the sentence before it ("If you
        # use this feature again, you take 2d12 necrotic damage"): both, in the book's order.
        return [before, scored[0]]
    keys = _asked(question)[0]
    for other in scored[1:4]:
        # A second sentence must answer too: it holds most of the question's words, not only a new one.
        if len(other.words) < SECOND_OVERLAP * len(keys):
            continue
        if other.score >= SECOND_SCORE * scored[0].score and other.words - scored[0].words:
            chosen.append(other)
            break
    return chosen


#: A sentence about someone the sentence before names: "Brannoc Marrow keeps the bar. He is Maren's brother."
_PRONOUN = re.compile(r"^(?:he|she|his|her)\b", re.IGNORECASE)


def _placed(result: LoreResult, *, kind_lines: bool, other: bool) -> list[tuple[str | None, str | None, str]]:
    """Return a passage's sentences with the inner heading and bold name each is under: an entry's kind line only
    when asked (`kind_lines`), a stat line of an entry the question does not name (`other`) never."""
    return [
        (section, label, text)
        for section, body in sections_of(result.text)
        for label, text in labelled_sentences(body)
        if (kind_lines or text != kind_line(body)) and not (other and _stat_line(label, text, result))
    ]


def _antecedent(placed: Sequence[tuple[str | None, str | None, str]], position: int) -> str | None:
    """Return the sentence before the one at `position` under the same heading and bold name, when that one opens
    with "He" or "She" (the one before says who), else None."""
    if not position or not _PRONOUN.match(placed[position][2]):
        return None
    before = placed[position - 1]
    return before[2] if before[:2] == placed[position][:2] else None


#: The opening of a sentence that goes on from the one before it: "Each time …", "This damage …", "It …".
_GOES_ON = re.compile(
    r"^(?:each time|every time|this|that|these|those|it|its|they|their|such|otherwise|however|instead|"
    r"in addition|additionally|also|on a (?:failure|success|failed|successful)|if it (?:fails|succeeds))\b",
    re.IGNORECASE,
)


def _goes_on(before: _Sentence, sentence: _Sentence) -> bool:
    """Return whether a sentence goes on from `before`, the one just before it in its passage, under the same
    heading and bold name (`_GOES_ON`), and `before` answers well enough to be quoted with it."""
    return (
        bool(_GOES_ON.match(sentence.text))
        and before.number == sentence.number
        and before.position == sentence.position - 1
        and before.section == sentence.section
        and before.label == sentence.label
        and before.score >= SECOND_SCORE * sentence.score
    )


def compose(
    question: str,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    only: Callable[[LoreResult], bool] | None = None,
    *,
    kind_lines: bool = False,
    needs: Callable[[LoreResult, str | None], Sequence[str]] | None = None,
    measure: bool = False,
) -> ShortAnswer:
    """Return the short answer to a question from what the asker may see (see the module docstring).

    With `only`, sentences are quoted from the passages it accepts only (numbered among all the passages). An
    entry's kind line ("*3rd-level evocation*") is quoted only with `kind_lines` (the question asks the kind).
    A question asking an amount ("how much", "how many", "what DC") prefers the sentences that hold one; with
    `needs`, a sentence (with its bold name) must hold each of the words it gives for the sentence's passage
    and inner heading (the field asked: "bonus to AC"); `measure`: the field asked is an amount (`asks_measure`).
    A sentence of a paragraph opening an example weighs less than the rule it illustrates."""
    citations = numbered(facts, results)
    cited: set[int] = set()
    parts: list[str] = []
    mode = AnswerMode.EXTRACTIVE
    graph = graph_answer(question, facts)
    if graph is not None:
        parts.append(graph[0])
        cited.add(graph[1])
        mode = AnswerMode.GRAPH
    else:
        placed = {r.chunk_id for r in results if r.place and r.heading_path}
        for sentence in _extractive(question, results, len(facts) + 1, only, kind_lines, needs, measure):
            text = sentence.text if sentence.text.endswith((".", "!", "?", "…")) else sentence.text + "."
            if parts and parts[-1].endswith(
                f" [{sentence.number}]"
            ):  # two sentences of one passage: one mark
                parts[-1] = parts[-1].removesuffix(f" [{sentence.number}]")
            parts.append(f"{text} [{sentence.number}]")
            cited.add(sentence.number)
            citation = citations[sentence.number - 1]
            # A book's label ends in its heading path in brackets: "Basic Rules, p. 6 (Combat › Cover)".
            bracketed = citation.label.endswith(")") and citation.chunk_id in placed
            core = citation.label[:-1] if bracketed else citation.label
            if sentence.section and not core.endswith(sentence.section):
                # Name the section quoted, not only the passage that holds it.
                label = f"{core} › {sentence.section}" + (")" if bracketed else "")
                citations[sentence.number - 1] = citation.model_copy(update={"label": label})
    for number in sorted(cited):
        stale = citations[number - 1].out_of_date
        if stale:
            parts.append(f"[{number}] is out of date: {stale} now.")
        disagrees = citations[number - 1].disagrees
        if disagrees:
            parts.append(f"[{number}] {disagrees}")
    if not parts:
        return ShortAnswer(
            text=nothing_known(question), mode=AnswerMode.NOTHING, known=False, citations=citations
        )
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in citations]
    return ShortAnswer(text=" ".join(parts), mode=mode, known=True, citations=marked)
