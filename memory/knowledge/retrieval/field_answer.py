"""Answers that are a field of an entry: "owlbear hp", "longbow range?", "which classes can cast fireball?".

The question's analysis (`memory.knowledge.question`) says which fields are asked and about what; the passages'
fields (`memory.knowledge.fields`) say what each section's subject has. A field answers when its label is the
one asked and its subject is the one named: every word of the question's subject is in the subject's name
(typos forgiven), and the name is not mostly other words ("vampire" is not "Vampire Spawn" when "Vampire" is
there). The answer names its subject: "Owlbear's hit points are 59 (7d10 + 21). [1]".

A question that asks a field of something no passage has is answered by nothing rather than by a nearby line
(`subject_found` says whether the passages hold the subject at all).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rapidfuzz import fuzz

from canon.wording.relations import is_or_are
from memory.fulltext import STOPWORDS
from memory.knowledge.fields import KIND, Field, fields_of
from memory.knowledge.models import LoreResult
from memory.knowledge.question import CHATTER, FILLER, GENERIC, Question, ending_verb
from memory.knowledge.retrieval.answer_sentence import asks_amount, counted, text_words
from memory.knowledge.retrieval.answer_words import (
    fold_words,
    has_word,
    is_number,
    related_said,
    sections_of,
    sentences,
)

__all__ = ["FieldHit", "field_answers", "headed", "scene_words", "subject_found", "word_in"]

#: Passages whose fields may answer (the best few).
PASSAGES_READ = 5
#: The least share of a subject name's words the question must name.
MIN_PRECISION = 0.5
#: Words a definition's value may start with that join it to its term as a sentence ("A Lull is an hour").
_LINKS = frozenset({"is", "are", "means", "was", "were"})
#: How well a field fits that defines the term asked by its label (`_defines`), and the fewest words it says.
TERM_FIT = 0.9
TERM_WORDS = 3
#: Plural labels English spells without a final s (the rest are read by their ending: `is_or_are`).
_PLURAL_LABELS = frozenset({"hit dice", "dice"})


@dataclass(frozen=True, slots=True)
class FieldHit:
    """A field chosen to answer, with the number of the passage it is from and how well its subject fits."""

    field: Field
    number: int
    fit: float
    #: Words the answer's sentences should hold, besides the field's subject and label ("DC" of a trait).
    also: tuple[str, ...] = ()
    #: What says the count a "how many" question asks ("ten tentacles"): a sentence saying it is quoted first.
    counts: re.Pattern[str] | None = None
    #: The field defines the term asked, named by its label: it is said as "Term: what it says".
    term: bool = False
    #: The question's other words (not its subject's name nor the label's): of a value of several sentences, the
    #: ones saying most of them are quoted ("the DC" of a breath weapon's trait, "to zero" of a drain's attack).
    asked: tuple[str, ...] = ()

    def sentence(self) -> str:
        """Return the field as a sentence naming its subject."""
        subject = _short_name(self.field.subject.split(" › ")[-1])
        value = self.field.value.rstrip(".")
        if (
            self.term
            or len(value) > 80
            or ". " in value
            or (self.field.value.endswith(".") and len(value.split()) >= 5)
        ):
            said = sentences(value)
            chosen = [s for s in said if all(word_in(w, fold_words(s)) for w in self.also)]
            if self.counts is not None:
                chosen = [s for s in chosen or said if self.counts.search(s)][:1] or chosen
            elif self.asked:
                chosen = _saying_most(chosen or said, self.asked) or chosen
            chosen = chosen[:2] or said[:2]
            body = " ".join(s if s.endswith((".", "!", "?", "…")) else s + "." for s in chosen)
            if self.term:  # "A Mooring is a full night …" of "**A Mooring** is a full night …"
                joint = " " if body.split(" ", 1)[0] in _LINKS else ": "
                return f"{self.field.label}{joint}{body} [{self.number}]"
            owner = f"{subject}'" if subject.endswith("s") else f"{subject}'s"
            return f"{owner} {self.field.label}: {body} [{self.number}]"
        if self.field.label == KIND:
            article = "an" if value[:1].casefold() in "aeiou" else "a"
            return f"{subject} is {article} {value[:1].lower() + value[1:]}. [{self.number}]"
        label = self.field.label if self.field.label.isupper() else self.field.label.casefold()  # "HSK" stays
        verb = "are" if label in _PLURAL_LABELS else is_or_are(label)
        owner = f"{subject}'" if subject.endswith("s") else f"{subject}'s"
        return f"{owner} {label} {verb} {value}. [{self.number}]"


def _saying_most(said: Sequence[str], asked: Sequence[str]) -> list[str]:
    """Return the sentences holding the most of the words asked (an abbreviation read out: "DC"), in the book's
    order, when a later one holds more of them than the first two do; otherwise none (the first two answer)."""
    held = [sum(1 for w in asked if word_in(w, text_words(s, asked))) for s in said]
    most = max(held, default=0)
    if not most or max(held[:2]) == most:
        return []
    return [s for s, n in zip(said, held, strict=True) if n == most]


#: A row's name followed by this many words after a comma is described, not qualified ("Hermes, god of travel").
DESCRIBED = 3


def _short_name(name: str) -> str:
    """Return a row's name without the description after its comma ("Hermes" of "Hermes, god of travel and
    commerce"); a name qualified after its comma keeps it ("Rope, hempen (50 feet)")."""
    head, _, rest = name.partition(",")
    rest = re.sub(r"\([^)]*\)", " ", rest)
    return head.strip() if head.strip() and len(rest.split()) >= DESCRIBED else name


def word_in(word: str, words: Sequence[str] | set[str]) -> bool:
    """Return whether a question word is among a text's words: the same word, an ending apart, or a typo."""
    if has_word(words, word):  # the same word, an ending apart
        return True
    if len(word) >= 4 and any(_swapped(word, other) for other in words):
        return True  # two letters typed the wrong way round: "trun" for "turn"
    return len(word) >= 5 and any(len(other) >= 5 and fuzz.ratio(word, other) >= 80 for other in words)


def _swapped(word: str, other: str) -> bool:
    """Return whether a word is another with two letters side by side swapped, past its first ("trun", "turn")."""
    if len(word) != len(other) or word[0] != other[0] or word == other:
        return False
    apart = [i for i, (a, b) in enumerate(zip(word, other, strict=True)) if a != b]
    return (
        len(apart) == 2
        and apart[1] == apart[0] + 1
        and word[apart[0]] == other[apart[1]]
        and word[apart[1]] == other[apart[0]]
    )


def _fit(subject: Sequence[str], name: str) -> float:
    """Return how well a question's subject names a field's subject (0 when a subject word is missing)."""
    # A table row's subject is "Table › Row": the row names it, the table may be named too.
    whole = [w for w in fold_words(name) if w not in ("of", "the", "a", "an")]
    named = [w for w in fold_words(name.split(" › ")[-1]) if w not in ("of", "the", "a", "an")]
    if not subject or not named or not all(word_in(w, whole) for w in subject):
        return 0.0
    precision = sum(1 for w in named if word_in(w, subject)) / len(named)
    # A row named and described ("Hermes, god of travel and commerce"): the name before the comma names it.
    head = [w for w in fold_words(name.split(" › ")[-1].split(",")[0]) if w not in ("of", "the", "a", "an")]
    if head and head != named and all(word_in(w, subject) for w in head):
        precision = max(precision, sum(1 for w in subject if word_in(w, head)) / len(subject))
    return precision if precision >= MIN_PRECISION else 0.0


#: Labels books use for the same field.
_SAME_LABEL = {
    "cost": ("price", "value"),
    "speed": ("move", "movement"),
    "hit die": ("hit dice",),
    "weight": ("weighs",),
    "duration": ("lasts",),
    # Games name a creature's toughness and its armour their own way.
    "hit points": ("hp", "health", "wounds", "vitality"),
    "armor class": ("ac", "armour", "armor", "defence", "defense"),
}


#: A unit a table's header gives after its name: "Weight (kg)", "Top speed (km/h)", "Price [gl]".
_UNIT = re.compile(r"\s*[(\[][^()\[\]]{1,12}[)\]]\s*$")


#: A word after a field's name saying only how it is measured: "Range band", "Speed rating", "Threat score".
_MEASURES = frozenset({"band", "rating", "score", "rank"})


def _label_fits(asked: str, label: str) -> bool:
    folded = _UNIT.sub("", " ".join(label.casefold().split())) or label.casefold()
    head, _, measure = folded.rpartition(" ")
    if measure in _MEASURES and head:
        folded = head  # "Range band", "Plate value": the range, the plate
    if asked == KIND:
        return folded == KIND
    if asked == "alignment" and folded == KIND:
        return True  # a creature's alignment is in its kind line: "Large celestial, lawful good"
    return folded.rstrip("s") == asked.rstrip("s") or folded in _SAME_LABEL.get(asked, ())


def _abbreviates(short: str, word: str) -> bool:
    """Return whether a label in capitals is short for a word: its first letter, and its letters in order ("hsk"
    of "husk", "agi" of "agility")."""
    if len(word) <= len(short) or word[0] != short[0]:
        return False
    letters = iter(word)
    return all(letter in letters for letter in short)


def _named_field(
    question: Question, readable: Sequence[tuple[int, LoreResult]], first: int, need: Sequence[str] = ()
) -> list[FieldHit]:
    """Return the field whose label the question names in its own words ("stormcrow defense?", "medusa's
    petrifying gaze", "dragonborn breath weapon dc"), of the subject it names: any book's labels, not only the
    ones players' phrasings know. Words the question holds besides the label and the subject's name must be in
    the field's value, and so must `need` (the words of a field asked that the entry has no line for: "damage"
    of "red dragon fire breath damage")."""
    best: FieldHit | None = None
    asked = fold_words(question.expanded)
    amount = asks_amount(question.expanded)
    for rank, (index, result) in enumerate(readable):
        for found in fields_of(result):
            label = [
                w for w in fold_words(found.label) if w not in GENERIC and w not in STOPWORDS and len(w) > 1
            ]
            free = _besides(asked, fold_words(found.subject.split(" › ")[-1]))
            short = found.label.casefold()
            if found.label.isupper() and found.label.isalpha() and 2 <= len(short) <= 5:
                # A stat line's abbreviated label ("HSK 12") is the question's word it abbreviates ("husk")
                label = [next((w for w in free if _abbreviates(short, w)), short)]
            if found.label == KIND or not label or not all(word_in(w, free) for w in label):
                continue  # "cast time stop" names Time Stop, not its casting time: the name's words count once
            rest = [w for w in question.subject if not word_in(w, label)]
            named = fold_words(found.subject)
            # A label saying the field asked and more the question says ("Strain cost" of "strain cost") says it;
            # the field's own label ("Armor Class") is the normal reading's, whose subject did not fit.
            said = [w for w in need if word_in(w, label)] if len(label) > len(need) else []
            extra = tuple(w for w in rest if not word_in(w, named)) + tuple(w for w in need if w not in said)
            value = fold_words(found.value)
            if not all(word_in(w, value) for w in extra):
                continue
            left = [w for w in rest if w not in extra]
            # "how long can I hold my breath" asks an amount, not what the trait "Hold Breath" says.
            term = not left and not need and not amount and _defines(found, label, question.subject)
            fit = (TERM_FIT if term else _fit(left, found.subject)) - 0.01 * rank
            if fit > 0 and (best is None or fit > best.fit):
                others = tuple(
                    w
                    for w in _besides(free, label)
                    if w not in STOPWORDS and w not in CHATTER and w not in FILLER and not word_in(w, named)
                )
                best = FieldHit(found, first + index, fit, extra, counted(question.expanded), term, others)
    return [_counting(best, readable, first, asked)] if best is not None else []


def _defines(found: Field, label: Sequence[str], subject: Sequence[str]) -> bool:
    """Return whether a field defines the term the question names by its label alone ("what does pinned do":
    "**Pinned**: you cannot Move." in a list of conditions): the label is a name (capitalised) every word of which
    the question's subject holds, and its value says something in words (not a number: that is a stat's)."""
    return (
        bool(label)
        and found.label[:1].isupper()
        and all(any(word_in(w, [s]) for s in subject) for w in label)
        and len(found.value.split()) >= TERM_WORDS
    )


def _counting(
    hit: FieldHit, readable: Sequence[tuple[int, LoreResult]], first: int, asked: Sequence[str]
) -> FieldHit:
    """Return the hit, or, when the question asks how many of something its value does not count, a line of the
    same subject that counts it and whose label says a word of the question ("max number of tendrils": the
    roper's "Grasping Tendrils" saying "up to six tendrils", not its "Tendril" attack)."""
    if hit.counts is None or hit.counts.search(hit.field.value):
        return hit
    for index, result in readable:
        if first + index != hit.number:
            continue
        for found in fields_of(result):
            label = [w for w in fold_words(found.label) if w not in STOPWORDS]
            if (
                found.subject == hit.field.subject
                and any(word_in(w, asked) for w in label)
                and hit.counts.search(found.value)
            ):
                return replace(hit, field=found)
    return hit


def _besides(asked: Sequence[str], name: Sequence[str]) -> list[str]:
    """Return a question's words without one of each word of a name it says (an ending apart)."""
    left = list(asked)
    for word in name:
        at = next((i for i, w in enumerate(left) if has_word([w], word)), None)
        if at is not None:
            del left[at]
    return left


def field_answers(question: Question, results: Sequence[LoreResult], first: int) -> list[FieldHit]:
    """Return one field per field asked (in the question's order), or none when one of them is not found."""
    if not question.subject:
        return []
    readable = [(i, r) for i, r in enumerate(results) if r.is_fact][:PASSAGES_READ]
    if not question.fields:
        return _named_field(question, readable, first)
    hits: list[FieldHit] = []
    for asked in question.fields:
        best: FieldHit | None = None
        # The player's own word for the field, before the glossary read it ("health" read as hit points) may be
        # the book's label.
        typed = [word for word, read in question.glossary_used.items() if read == asked]
        for rank, (index, result) in enumerate(readable):
            for found in fields_of(result):
                if not any(_label_fits(a, found.label) for a in (asked, *typed)):
                    continue
                if asked == KIND and not _kind_answers(question, found.value):
                    continue
                fit = _fit(question.subject, found.subject) - 0.01 * rank
                if fit > 0 and (best is None or fit > best.fit):
                    best = FieldHit(found, first + index, fit)
        if best is None:
            # No line of that label: a line the question names whose value says it ("fire breath damage").
            named = _named_field(question, readable, first, need=_label_words(asked))
            if not named:
                return []
            best = named[0]
        hits.append(best)
    return hits


def _label_words(label: str) -> tuple[str, ...]:
    """Return the words of a field asked that a line of another label must hold to answer it."""
    if label == KIND:
        return ("",)  # never found in a value: the kind is only its own line
    return tuple(w for w in fold_words(label) if w not in STOPWORDS)


def _kind_answers(question: Question, value: str) -> bool:
    """Return whether an entry's kind line answers what the question asks of it (a level needs a level)."""
    asked = question.expanded.casefold()
    words = set(fold_words(value))
    if "level" in asked:
        return "cantrip" in words or any(w.endswith("level") for w in words) or "level" in words
    if "attunement" in asked:
        return "item" in words or "potion" in words or "attunement" in words or "wondrous" in words
    return True


def subject_found(question: Question, results: Sequence[LoreResult]) -> bool:
    """Return whether some passage holds every word of the question's subject (in its headings or its text)."""
    if not question.subject:
        return True
    for result in results[:PASSAGES_READ]:
        words = set(fold_words(" ".join([result.source_title, *result.heading_path, result.text])))
        if all(word_in(w, words) for w in question.subject):
            return True
    return False


def headed(question: Question, common: Sequence[str] = ()) -> Callable[[LoreResult], bool]:
    """Return a test of whether a passage is about the question's subject: its headings (or the headings inside
    it) hold a word of the subject, and its headings and text all of them but the verb the question ends with,
    its numbers (the case asked: "the 2nd use") and the words that only set the scene (`scene_words`)."""

    verb = ending_verb(question.expanded)
    # The verb a question ends with is asked, in the player's words ("does cure wounds restore": the books say
    # "regains"): the passage need not hold it.
    named = [w for w in question.subject if w != verb] or question.subject

    def names_subject(result: LoreResult) -> bool:
        inner = " ".join(h for h, _ in sections_of(result.text) if h)
        headings = set(fold_words(" ".join([*result.heading_path, inner])))
        if not any(word_in(w, headings) for w in named):
            return False
        folded = fold_words(result.text)
        words = headings | set(folded)
        # A number sets the case asked ("the 2nd use", "after 10 hours"), never names the passage's subject.
        missing = [w for w in named if not word_in(w, words) and not is_number(w)]
        # A word the books say in their own words is held ("heal": the troll "regains" hit points).
        missing = [w for w in missing if w not in related_said(folded, missing)]
        return not missing or scene_words(question, named, missing, common)

    return names_subject


#: The fewest words of the subject a passage must hold for the others to be read as the scene.
SCENE_HELD = 2


def scene_words(
    question: Question, named: Sequence[str], missing: Sequence[str], common: Sequence[str]
) -> bool:
    """Return whether the subject's words a passage does not hold only set the question's scene ("whats the dc
    for a concentration check when i take dmg": the passage on concentration never says "check"): each is a
    common word of the campaign's (`Vocabulary.common`; a name is rarer: "flayer", "warding"), not said just
    before a word the passage holds ("*giant* owlbear") nor joined to one by "of" ("crossbow of *ice*"), and the
    passage holds at least `SCENE_HELD` of the subject's words and as many as it misses."""
    held = [w for w in named if w not in missing]
    if len(held) < max(SCENE_HELD, len(missing)) or not all(w in common for w in missing):
        return False
    words = fold_words(question.expanded)
    for i, word in enumerate(words):
        if word not in missing:
            continue
        if words[i + 1 : i + 2] and words[i + 1] in held:
            return False  # "giant owlbear": a word before the name qualifies it
        if i >= 2 and words[i - 1] in ("of", "s") and words[i - 2] in held:
            return False  # "crossbow of ice", "the orc's ice"
    return True
