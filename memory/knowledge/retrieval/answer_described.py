"""A subject described in other words: the best passage answers, its subject named, when the searches agree.

Players often ask for a thing by describing it ("which sea-dwelling humanoids can telepathically command
sharks?", "spell that makes a floating platform of force", "is there a monster that ...") or ask a rule in their
own words ("when do I roll two d20s and keep the higher one?"). The sentence reading (`answer`, `answer_first`)
wants the question's words in the sentence it quotes, and a description seldom has them, so it finds nothing.
Then the best passage answers, its subject named, with its sentence holding most of the question's words
("Sahuagin: ... can magically command any shark within 120 feet, using a limited telepathy. [1]"), when the
search's own evidence says the passage is the one asked about:
1. the two searches agree (`agreed`): the passage is first, the meaning search ranks it first or second and the
   word search near the top too (the two ranks summing to at most `AGREED_RANKS`): two readings of the question
   that share no scoring found the same section; for a question that describes, the word search ranking it
   first and the meaning search finding it lower, no other passage agreed on by both that holds as much of the
   description (`word_led`), or both searches finding it in their first few (`near`: "5 + 1", "2 + 4"), is enough
   when the passage holds half the question's content words or more (`LED_SHARE`);
2. a question that does not describe a subject by its form (`describes`) must also have most of its content words
   (an ending apart, or in the books' words) in that passage (`MIN_SHARE`), and not ask who, where, why or when
   something was (a person, a place, a cause, a date: no section's name answers those); one that describes, some
   of them;
3. a question asking a field or a comparison is never answered here ("hex spell range"): the steps for those say
   what they find, or nothing; one asking an amount ("how much protection ...") only by a sentence saying one;
4. a word no source holds still means "nothing known", unless it is a word of a description (a lowercase word of
   a question that describes: "a floating *platform* of force"); a capitalised name no source holds never is,
   nor a word right after an auxiliary, where what is asked about stands ("what bonus do *tortles* get");
5. the kind a description names ("which *feat* lets me ignore cover", "black *sphere* that ...") must be in the
   passage, in its headings or its text (`kind_words`): a section of another kind is not what is described.

`named_subject`: an answer to a question that describes its subject, quoted from a passage whose subject's name
neither the question nor the answer says as it is written, starts with that subject ("Purple Worm: Hit: 19 (3d6
+ 9) piercing damage ...", "Robe of Eyes: The robe lets you see in all directions, ..." for "robe covered in eye
patterns that lets you see in all directions"). An answer to a description quoted from a lesser passage gives
way to the best passage's, when `described` accepts that one ("spell that opens a passage through a stone wall":
Passwall, not a sentence of Wall of Stone).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import CHATTER, FILLER, Question
from memory.knowledge.retrieval.answer import numbered
from memory.knowledge.retrieval.answer_first import akin
from memory.knowledge.retrieval.answer_sentence import EXAMPLE, asks_amount, has_amount, is_example
from memory.knowledge.retrieval.answer_words import (
    asked_words,
    examples,
    fold_words,
    kind_line,
    labelled_sentences,
    related_said,
    sections_of,
)

__all__ = [
    "agreed",
    "content_share",
    "content_words",
    "described",
    "describes",
    "held_words",
    "holds_kind",
    "kind_words",
    "named_subject",
    "near",
    "search_rank",
    "subject_of",
    "with_subject",
    "word_led",
]

#: The most the word search's and the meaning search's ranks of the best passage may sum to (1 + 1, 1 + 2, 2 + 1,
#: 3 + 1, 2 + 2): both found it at or near the top.
AGREED_RANKS = 4
#: The meaning search's rank the best passage must have at most.
SEMANTIC_RANK = 2
#: The meaning search's rank a passage the word search ranks first must have at most, for a question that
#: describes (`word_led`), and the share of its content words that passage must then hold.
SEMANTIC_FOUND = 20
LED_SHARE = 0.5
#: The rank both searches must give the best passage at most for a question that describes (`near`).
NEAR_RANK = 5
#: The share of a question's content words the best passage must hold when the question does not describe.
MIN_SHARE = 0.75
#: ... and when it describes (a description's words are mostly the player's own, some of them the book's).
MIN_DESCRIBED_SHARE = 0.3

_ASKING = r"(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|happens|about)"
#: "which spider can ...", "what little flying pest ...": the word after "which" or "what" is a kind, not a verb.
_WHICH_KIND = re.compile(rf"^(?:which|what)\s+(?!{_ASKING}\b)[^\W\d_]")
#: "what script do the kenku use", "what damage does a pistol deal": an auxiliary, then the question's own
#: subject: it asks something of a thing it names, not which thing fits a description ("which spider can blink").
#: "Has" is the verb of a description ("which giant has an immunity to cold"), not an auxiliary asking.
_ASKS_OF = re.compile(
    r"^(?:which|what)\s+(?:[\w'-]+\s+){1,3}?(?:do|does|did|can|could|will|would|should)\s+"
    r"(?:the|a|an|my|our|your|their|his|her|its|i|we|you|they|he|she|it)\b"
)
_AUXILIARIES = frozenset(
    {"do", "does", "did", "can", "could", "will", "would", "should", "has", "have", "had", "is", "are", "was"}
)
#: A question asking who, where, why or when something was asks a person, a place, a cause or a date, not which
#: section ("when do I roll two d20s" asks a rule's condition: it may be a section).
_ASKS_ELSE = re.compile(r"^(?:who|whom|whose|where|why)\b|^when\s+(?:was|were|did|is|will)\b")
#: "is there a spell that ...".
_IS_THERE = re.compile(r"^(?:is|are)\s+there\s+(?:a|an|any|some)\b")
#: "what's the flying lion thing that shoots spikes": a relative clause says what is asked.
_WHAT_IS_THE = re.compile(r"^(?:what'?s|whats|what\s+is|what\s+are)\s+(?:the|a|an)\b.*\b(?:that|who|whose)\b")
#: A question that starts by asking, not by naming what it describes.
_QUESTION_START = re.compile(
    r"^(?:how|who|whom|whose|where|when|why|what|which|do|does|did|can|could|is|are|was|were|should|would|will"
    r"|tell|explain)\b"
)
#: "spell that conjures a ghostly horse", "cursed deck of cards where each draw ...", "spell to write ...".
_RELATIVE = re.compile(
    r"^(?:[\w'-]+\s+){1,6}?(?:that|which|whose|where|who)\b|^(?:[\w'-]+\s+){1,3}to\s+[a-z]"
    r"|^(?:[\w'-]+\s+){1,2}with\s+(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s"
)


#: Where the words naming the kind described end: an auxiliary, a relative word, "is there a ... that".
_KIND_END = re.compile(
    r"\b(?:that|which|whose|where|who|with|to|do|does|did|can|could|will|would|should|has|have|had|is|are|was"
    r"|were)\b"
)
#: The most words a description's kind is named in ("which gigantic burrowing worm").
KIND_WORDS = 3
#: Words that name no kind ("the flying lion thing that ...").
_NO_KIND = frozenset({"thing", "things", "stuff", "one", "ones", "something", "kind", "sort", "type"})


def kind_words(text: str) -> list[str]:
    """Return the words naming the kind of thing a question describes: after "which" or "what" ("which
    gigantic burrowing worm swallows ..." names a worm) or before its relative clause ("black sphere that ..."),
    up to `KIND_WORDS`; none when the question does not describe."""
    if not describes(text):
        return []
    said = " ".join(text.casefold().replace("’", "'").split())
    said = re.sub(r"^(?:which|what'?s|whats|what\s+is|what\s+are|what|(?:is|are)\s+there)\s+", "", said)
    said = re.sub(r"^(?:the|a|an|some|any)\s+", "", said)  # "the garbage pit aberration": its kind's words
    end = _KIND_END.search(said, 1)
    words = fold_words(said[: end.start()] if end else said)[:KIND_WORDS]
    return [w for w in words if w not in STOPWORDS and w not in CHATTER and w not in _NO_KIND]


def holds_kind(text: str, result: LoreResult) -> bool:
    """Return whether a passage holds the kind a description names (`kind_words`), in its headings or its text
    (any, when it names none)."""
    kind = kind_words(text)
    seen = fold_words(" ".join([result.source_title, *result.heading_path, result.text]))
    return not kind or bool(held_words(kind, seen))


def describes(text: str) -> bool:
    """Return whether a question describes what it asks for instead of naming it ("which spider can blink ...",
    "spell that conjures a ghostly horse", "is there a spell that ...")."""
    said = " ".join(text.casefold().replace("’", "'").split())
    if _ASKS_OF.match(said):
        return False
    if _WHICH_KIND.match(said) or _IS_THERE.match(said) or _WHAT_IS_THE.match(said):
        return True
    return not _QUESTION_START.match(said) and bool(_RELATIVE.match(said))


def search_rank(result: LoreResult, kind: str) -> int | None:
    """Return the rank one search (`lexical`, `semantic`) gave a passage, or None (it did not find it)."""
    return next((r.rank for r in result.reasons if r.kind == kind and r.rank is not None), None)


def agreed(result: LoreResult) -> bool:
    """Return whether the word search and the meaning search both rank a passage at or near the top."""
    lexical, semantic = search_rank(result, "lexical"), search_rank(result, "semantic")
    if lexical is None or semantic is None:
        return False
    return semantic <= SEMANTIC_RANK and lexical + semantic <= AGREED_RANKS


def word_led(results: Sequence[LoreResult], question: Question | None = None) -> bool:
    """Return whether the word search ranks the best passage first, the meaning search found it too, lower
    (`SEMANTIC_FOUND`), and no other passage is one both searches agree on (`agreed`) holding as much of the
    `question`'s words (any agreed one, without a question): a description's words are the player's own, which
    the meaning search reads less well than the word search its rarer words ("lobster-like aberration whose
    tentacles paralyze you": the otyugh, an aberration with tentacles too, is no rival to the chuul)."""
    if not results:
        return False
    lexical, semantic = search_rank(results[0], "lexical"), search_rank(results[0], "semantic")
    if lexical != 1 or semantic is None or semantic > SEMANTIC_FOUND:
        return False
    rivals = [r for r in results[1:] if agreed(r)]
    if question is None or not rivals:
        return not rivals
    share = content_share(question, results[0])
    return all(content_share(question, r) < share for r in rivals)


def near(result: LoreResult) -> bool:
    """Return whether both searches rank a passage in their first few (`NEAR_RANK`): two readings of a
    description that share no scoring found it, neither far down."""
    lexical, semantic = search_rank(result, "lexical"), search_rank(result, "semantic")
    return lexical is not None and semantic is not None and max(lexical, semantic) <= NEAR_RANK


def content_words(question: Question) -> list[str]:
    """Return the question's content words, through the glossary (as `content_share` counts them)."""
    return [
        w
        for w in asked_words(question.expanded)
        if w not in STOPWORDS and w not in CHATTER and w not in FILLER and not w.isdigit()
    ]


def held_words(words: Sequence[str], seen: Sequence[str]) -> list[str]:
    """Return the words a text's folded words hold: the word, an ending apart, or in the books' words."""
    said = related_said(list(seen), list(words))
    distinct = set(seen)
    return [w for w in words if w in said or w in distinct or any(akin(w, s) for s in distinct)]


def content_share(question: Question, result: LoreResult) -> float:
    """Return the share of the question's content words (through the glossary; an ending apart, or in the
    books' words) that a passage holds, in its headings or its text."""
    words = content_words(question)
    if not words:
        return 0.0
    seen = fold_words(" ".join([result.source_title, *result.heading_path, result.text]))
    return len(held_words(words, seen)) / len(words)


def subject_of(result: LoreResult) -> str | None:
    """Return the subject of a passage: its last heading's last part ("Uncanny Dodge" of "Rogue: Uncanny
    Dodge"), or None for a passage without headings."""
    if not result.heading_path:
        return None
    subject = result.heading_path[-1].split(":")[-1].strip()
    return subject or None


def _named_unknown(question: Question, unknown: Sequence[str]) -> bool:
    """Return whether a word no source holds names something rather than describes it: capitalised in the
    question, or right after an auxiliary, where the thing asked about stands ("what bonus do tortles get")."""
    typed = re.findall(r"[^\W\d_][\w'-]*", question.text)
    if any(w[:1].isupper() and w.casefold() in unknown for w in typed[1:]):
        return True
    folded = [w.casefold() for w in typed]
    return any(w in unknown and folded[i - 1] in _AUXILIARIES for i, w in enumerate(folded) if i)


@dataclass(slots=True)
class _Unit:
    position: int
    text: str
    prose: bool
    words: list[str]
    example: bool = False


def _units(result: LoreResult) -> list[_Unit]:
    units: list[_Unit] = []
    shown = examples(result.text)
    for section, body in sections_of(result.text):
        kind = kind_line(body)
        for label, text in labelled_sentences(body):
            if text == kind:
                continue
            words = fold_words(" ".join([section or "", label or "", text]))
            units.append(_Unit(len(units), text, label is None, words, text in shown or is_example(text)))
    return units


def best_sentence(question: Question, result: LoreResult) -> str | None:
    """Return the passage's sentence holding most of the question's content words (a rule before its example,
    the earlier first), or its first sentence of prose when none holds any. A question asking an amount ("how
    much protection ...") gets a sentence saying one (the best of those, the first when none holds a word), or
    None when none does."""
    units = _units(result)
    amount = asks_amount(question.expanded)
    if amount:
        units = [u for u in units if has_amount(u.text)]
    if not units:
        return None
    words = content_words(question)

    def score(unit: _Unit) -> float:
        held = float(len(held_words(words, unit.words)))
        if unit.example:
            held *= EXAMPLE
        return held - 0.001 * unit.position

    best = max(units, key=score)
    if score(best) > 0:
        return best.text
    return next((u.text for u in units if u.prose), units[0].text)


def _answerable(question: Question) -> bool:
    return not question.fields and not question.parts


def described(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
    strange: bool,
) -> ShortAnswer | None:
    """Return the best passage's answer, its subject named, when the searches agree that it is the one asked
    about (see the module docstring), or None. `strange`: a word naming what is asked is in no source."""
    if not results or not _answerable(question):
        return None
    first = results[0]
    if not first.is_fact or first.out_of_date or first.overruled:
        return None
    describing = describes(question.text)
    both = agreed(first)
    if not both and not (describing and (word_led(results, question) or near(first))):
        return None
    if strange and (not describing or _named_unknown(question, unknown)):
        return None
    if not describing and _ASKS_ELSE.match(question.text.casefold().lstrip()):
        return None
    least = (MIN_DESCRIBED_SHARE if both else LED_SHARE) if describing else MIN_SHARE
    if content_share(question, first) < least:
        return None
    if not holds_kind(question.text, first):
        return None  # "which feat lets me ignore cover": the section found is no feat
    sentence = best_sentence(question, first)
    subject = subject_of(first)
    if sentence is None or subject is None:
        return None
    number = len(facts) + 1
    said = sentence if sentence.endswith((".", "!", "?", "…")) else sentence + "."
    text = with_subject(subject, f"{said} [{number}]")
    citations = [c.model_copy(update={"cited": c.number == number}) for c in numbered(facts, results)]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=citations)


def with_subject(subject: str, text: str) -> str:
    """Return the text led by its subject ("Sahuagin: ..."), unless it already starts with it."""
    if text.casefold().startswith(subject.casefold()):
        return text
    return f"{subject}: {text}"


def named_subject(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], answer: ShortAnswer
) -> ShortAnswer:
    """Return the answer led by the subject of the passage it quotes first, when the question describes that
    subject without naming its title, or the best passage's answer (`described`) instead of a lesser one's
    (see the module docstring)."""
    if not answer.known or answer.mode != AnswerMode.EXTRACTIVE or not describes(question.text):
        return answer
    first = len(facts) + 1
    cited = [c.number for c in answer.citations if c.cited and c.number >= first]
    if not cited:
        return answer
    if min(cited) > first and results[0].is_fact:
        # Quoted from a lesser passage while the searches agree on the first, which holds the description.
        best = described(question, facts, results, [], False)
        if best is not None:
            return best
    result = results[min(cited) - first]
    subject = subject_of(result)
    if subject is None or any(subject.casefold() in t.casefold() for t in (question.text, answer.text)):
        return answer
    return answer.model_copy(update={"text": with_subject(subject, answer.text)})
