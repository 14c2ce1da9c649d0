"""The short answer of an analysed question: canon first, then the field asked, then sentences, else nothing.

`reply` is the answer step `Answerer.ask` uses, on a question read by `memory.knowledge.question.analyse`:
1. the canon graph (`answer_graph`), as before: canon outranks imported prose;
2. the field asked, of the subject named (`field_answer`): "Owlbear's hit points are 59 (7d10 + 21). [1]"; a
   field a yes/no question names that is the best passage's title is the rule asked about ("do temp hp stack"); a
   field of an entry the question calls by a trait's name ("the demon with Horror Nimbus": `answer_trait_named`);
3. a question asking a field of something no passage names is answered "nothing known" (a nearby line about
   something else is not an answer), unless it describes that thing and both searches agree on the best passage:
   its field answers (`answer_described_field`);
4. otherwise the best passages' sentences (`answer.compose`, on the question in the books' words); a lesser
   passage the question names by its title and the headings it is under ("the teleport spell") answers first.
   Sentences quoted must be about the subject asked (`answer_scope.off_subject`; from lesser passages only, more
   of its words); a question naming two of the best passages' titles is answered by a sentence of one naming
   the other (`answer_linked`).
5. else, when the word search and the meaning search agree on the best passage, it answers a question that
   describes its subject in other words, the subject named (`answer_described`); an answer quoted for a question
   that describes its subject starts with the subject's name.
6. with `meaning` (the embedding model), a question asking a field that no sentence answers in its words is
   answered by the sentence closest in meaning that says the field (`answer_meaning.closest`).
7. a question that sets its scene before it asks ("fighting a rust monster ..., what happens to the sword") is
   answered by its asking clauses, of the passages the scene names, when its whole reading found nothing; a yes/no
   clause yes or no first (`answer_scene`).
8. the GM reads a GM-only section of the bible where it is the answer (`answer_hidden`).
9. a question every rule declined is answered from the first passage when retrieval is sure of it: both searches
   rank it near the top, it holds nearly all the question's words, none unknown (`answer_confident`), and it
   tells of no other kind of the thing asked (`answer_unknown.another_kind`).
10. whichever rule answered, the passages quoted must hold the words the question names its thing by: the owner
   and the kind of the field asked, a name joined by "of", a noun after the title in a bare phrase; otherwise
   nothing is known (`answer_supported`); and it must hold the number, price or name asked (`answer_holds`).
A question asking how much, how many or a price is answered by a sentence saying an amount, or by nothing
(`answer_amount`); one asking what happens on a condition is not answered by a field's bare value.
A question naming the title of the passage its answer quotes, asking about the thing as a whole, is answered led by
that title, by the next items too of the list of rules it quotes one of (`answer_about`).
A comparison or a two-part question of fields is `answer_comparison`'s. A question naming a row of a table or list
by its label ("very hard", "level 4") is answered by that row of the passage quoted (`answer_rows`). A question
giving a number of its own gets the rule quoted worked out with it, or the row of a table keyed by numbers that
holds it (`answer_worked`): "with Strength 15" and "Strength score multiplied by 15" say 225.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FIELD_UNITS, KIND_LINE, Question, analyse
from memory.knowledge.retrieval.answer import asks_measure, compose, nothing_known, numbered
from memory.knowledge.retrieval.answer_about import listed, titled
from memory.knowledge.retrieval.answer_amount import amount_unsaid
from memory.knowledge.retrieval.answer_change import change_answer
from memory.knowledge.retrieval.answer_comparison import from_fields
from memory.knowledge.retrieval.answer_confident import confident
from memory.knowledge.retrieval.answer_defined import said_as_asked
from memory.knowledge.retrieval.answer_described import described, named_subject
from memory.knowledge.retrieval.answer_described_field import described_field
from memory.knowledge.retrieval.answer_extractive import asks_what_happens, value_only
from memory.knowledge.retrieval.answer_first import akin, field_words, from_first, title_words
from memory.knowledge.retrieval.answer_graph import graph_answer
from memory.knowledge.retrieval.answer_hidden import gm_reading
from memory.knowledge.retrieval.answer_holds import holds_asked
from memory.knowledge.retrieval.answer_linked import linked, quoted_link
from memory.knowledge.retrieval.answer_meaning import Meaning, closest
from memory.knowledge.retrieval.answer_named_amount import amount_or_nothing
from memory.knowledge.retrieval.answer_parts import parts_reply, two_parts
from memory.knowledge.retrieval.answer_prose import prose_beside
from memory.knowledge.retrieval.answer_rows import named_row
from memory.knowledge.retrieval.answer_scene import by_clauses
from memory.knowledge.retrieval.answer_scope import (
    named_otherwise,
    narrowed,
    off_subject,
    strange_words,
    unheld_kind,
    unheld_words,
)
from memory.knowledge.retrieval.answer_supported import supported
from memory.knowledge.retrieval.answer_trait_named import by_trait
from memory.knowledge.retrieval.answer_unknown import another_kind, off_the_point
from memory.knowledge.retrieval.answer_verdict import verdict
from memory.knowledge.retrieval.answer_words import fold_words, has_word
from memory.knowledge.retrieval.answer_worked import worked
from memory.knowledge.retrieval.field_answer import PASSAGES_READ, FieldHit, field_answers, headed, word_in

__all__ = ["reply"]

#: The passages a question may name past the best one (the second and the third).
LOWER_READ = 3

#: The words of a yes/no question that the field's value must hold for a yes ("requires attunement").
_YES_WORDS = ("attunement", "concentration")


def _yes_no(question: Question, hits: Sequence[FieldHit]) -> str | None:
    """Return "Yes" or "No" for a yes/no question asking whether a field says something, or None."""
    if not question.yes_no or not question.fields or len(hits) != 1:
        return None
    asked = question.asked_by.get(question.fields[0], "")
    word = next((w for w in _YES_WORDS if w in asked), None)
    if word is None:
        return None
    return "Yes" if word in hits[0].field.value.casefold() else "No"


def _nothing(question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]) -> ShortAnswer:
    return ShortAnswer(
        text=nothing_known(question.text),
        mode=AnswerMode.NOTHING,
        known=False,
        citations=numbered(facts, results),
    )


def reply(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str] = (),
    common: Sequence[str] = (),
    meaning: Meaning | None = None,
) -> ShortAnswer:
    """Return the short answer to an analysed question from what the asker may see (see the module docstring).

    `unknown`: the question's words that no source the asker may read holds (the retriever's): a question about
    something no source names is answered "nothing known", not with a line about something else. `common`: its
    words many of those sources hold (a scene's words, `RetrievalTrace.common_words`). `meaning`: reads the
    sentences' meaning where no sentence holds enough of the question's words (`answer_meaning.closest`). A
    question of two parts is answered part by part (`answer_parts`)."""
    if (parts := two_parts(question.text, facts)) is not None:
        return parts_reply(
            parts, facts, results, lambda p: reply(analyse(p, {}), facts, results, unknown, common, meaning)
        )
    # An answer quoting passages that do not hold what the question names is none (`answer_supported`).
    answer = supported(
        question, facts, results, _answered(question, facts, results, unknown, common, meaning), common
    )
    if not answer.known:  # declined, while retrieval is sure of its first passage (`answer_confident`)
        sure = confident(question, facts, results, unknown)
        if sure is not None and another_kind(question, facts, results, sure):
            sure = None  # "a modest lifestyle" for a wealthy one: the word step declined it, so does this one
        answer = supported(question, facts, results, sure or answer, common)
    if not holds_asked(question.text, facts, results, answer) or (
        answer.known and unheld_kind(question, unknown, results)
    ):
        answer = _nothing(
            question, facts, results
        )  # whichever rule quoted it: no price for "what does X sell for", no field of a grey Bogwarden
    answer = gm_reading(question.text, facts, results, answer) or answer  # a GM-only section's, for the GM
    answer = worked(question, facts, results, answer)  # the rule worked out with the question's own number
    return amount_unsaid(question.text, answer) or answer  # an amount asked, none said (`answer_amount`)


def _answered(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
    common: Sequence[str],
    meaning: Meaning | None,
) -> ShortAnswer:
    read = question.text
    graph = graph_answer(read, facts)
    if graph is None and question.typed != read:  # "how r A and B related": the table's shorthand, read out
        read, graph = question.typed, graph_answer(question.typed, facts)
    told = prose_beside(question.text, graph[0] if graph else None, facts, results)
    if told is not None:
        return told  # the bible's sentence where the card falls short (`answer_prose`)
    answer = _reply(question, facts, results, unknown, common, meaning, graphed=read if graph else None)
    other_kind = (
        answer.known
        and answer.mode == AnswerMode.EXTRACTIVE
        and off_the_point(question, facts, results, answer)
    )
    if other_kind:
        answer = _nothing(question, facts, results)  # a passage about the entity asked, saying nothing asked
    said = said_as_asked(question.text, facts, results, answer, graphed=graph is not None)
    if said is not None:
        return said  # what X is, why, the number or name asked: said, or nothing known (`answer_defined`)
    if not answer.known:
        # The passages found not holding what the question names ("morale of a 3rd rank gunner" finding a
        # gunner's feature), or telling of another kind of it ("lair actions" of "Legendary Actions"), answer
        # only a question describing what it asks about, as with a word no source holds.
        strange = other_kind or (
            bool(results)
            and (bool(strange_words(question, unknown, results)) or _elsewhere(question, results, unknown))
        )
        answer = described(question, facts, results, unknown, strange) or answer
    # "fighting a rust monster …, what happens to the sword": the asking clauses, of the passages the scene names.
    answer = by_clauses(
        question,
        facts,
        results,
        answer,
        lambda q, at: _of_passage(q, facts, results, unknown, at),
        None
        if meaning is None
        else lambda texts: meaning.similarities(question.text, texts, corrected_words=True),
    )
    if not answer.known:
        return named_row(question.text, facts, results, answer)  # the cell of a row and a column named
    answer = listed(question, facts, results, named_subject(question, facts, results, answer), unknown)
    # Yes or no first, whichever step quoted the sentence that says it (`answer_verdict`).
    answer = named_row(question.text, facts, results, titled(question, facts, results, answer, unknown))
    return verdict(question, facts, results, answer)  # the row a question names by its label (`answer_rows`)


def _reply(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str] = (),
    common: Sequence[str] = (),
    meaning: Meaning | None = None,
    *,
    graphed: str | None,
) -> ShortAnswer:
    if graphed is not None:  # the graph answers this reading of the question (`reply` asked it)
        return compose(graphed, facts, results)
    if (declined := _declined(question, facts, results, unknown)) is not None:
        return declined
    asked = question
    question = _titled(_rule_asked(question, results), results, unknown)
    changed = change_answer(question, facts, results, unknown)
    if changed is not None:
        return changed  # "how much does its speed go up": the sentence saying the change (`answer_change`)
    hits = field_answers(question, results, len(facts) + 1)
    if not hits and question.subject:
        fewer = narrowed(question, results)
        if fewer is not None:
            # A term defined by its label answers the question that names it alone, all its words asked.
            hits = [h for h in field_answers(fewer, results, len(facts) + 1) if not h.term]
            if hits or question.fields:
                question = fewer  # a field asked: the passages about the subject named answer in sentences
    hits = _consequences(question, hits or by_trait(question, results, len(facts) + 1))
    if hits:
        namesake = _other_book(question, facts, results, hits, unknown)
        return namesake or from_fields(hits, numbered(facts, results), _yes_no(question, hits))
    only = needs = None
    if question.fields and question.subject:
        # A field asked of something: only a passage about it (its headings name it) may answer in sentences.
        only = headed(question, common)
        if not any(only(r) for r in results[:PASSAGES_READ]):
            said = _first(question, facts, results, unknown) or described_field(question, facts, results)
            return said or amount_or_nothing(question, facts, results)  # a thing described: its field
        if _unstated(question, unknown, results):
            return _nothing(question, facts, results)  # no source says the field at all ("weight")
        needs = _needs(question, results, unknown)
    if only is None:
        lower = _named_lower(question, results, unknown)
        if lower is not None:
            # "the teleport spell" names a lesser passage, the entry Teleport among the Spells: it answers.
            said = _first(question, facts, results, unknown, at=lower)
            if said is None:
                said = compose(question.expanded, facts, results, _one(results[lower]))
            if said.known:
                return said
    kinds = KIND_LINE in question.fields  # "fly spell level?": the kind line is the answer
    measure = asks_measure(question.fields)  # "lay on hands pool size": the sentence saying an amount
    answer = compose(question.expanded, facts, results, only, kind_lines=kinds, needs=needs, measure=measure)
    if not answer.known and question.glossary_used:
        # The books may use the table's word too ("a failed save"): the question as written gets its chance.
        answer = compose(question.text, facts, results, only, kind_lines=kinds, needs=needs, measure=measure)
    if not answer.known:
        said = _first(question, facts, results, unknown) or linked(question, facts, results)
        if said is None and meaning is not None:
            # A subject described in other words answers first, named (`described`); then the sentence of the
            # best passages closest in meaning, holding some of the question's words (`answer_meaning.closest`).
            said = described(asked, facts, results, unknown, False) or closest(
                question, facts, results, meaning
            )
        return said or answer.model_copy(update={"text": nothing_known(question.text)})
    if not any(c.cited and c.number == len(facts) + 1 for c in answer.citations):
        # Quoted from a lesser passage while the question names the best one's title: the best one answers,
        # unless the question names both and the sentence quoted, of one, names the other (`answer_linked`).
        if quoted_link(question, facts, results, answer.text):
            return verdict(question, facts, results, answer)
        said = _first(question, facts, results, unknown)
        return said or verdict(question, facts, results, _on_subject(question, facts, results, answer))
    # A yes/no question a sentence answers outright: yes or no first (not of a field's line, `_yes_no`'s).
    return verdict(
        question,
        facts,
        results,
        _named_block(question, facts, results, unknown, answer)
        or _on_subject(question, facts, results, answer, best=True),
    )


def _declined(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult], unknown: Sequence[str]
) -> ShortAnswer | None:
    """Return "nothing known" when a word naming what is asked is in no source (`strange_words`), or when the
    passages found are about something else (`_elsewhere`) and the question does not describe, with a field asked,
    the one both searches agree on (`described_field`); else None."""
    if strange_words(question, unknown, results):
        return _nothing(question, facts, results)
    if _elsewhere(question, results, unknown):
        return described_field(question, facts, results) or _nothing(question, facts, results)
    return None


def _consequences(question: Question, hits: list[FieldHit]) -> list[FieldHit]:
    """Return the fields that may answer: of a question asking what happens on a condition, none whose value is
    a bare amount ("Rust limit: 5" says no consequence)."""
    if not asks_what_happens(question.text):
        return hits
    return [h for h in hits if not value_only(h.field.value)]


def _unstated(question: Question, unknown: Sequence[str], results: Sequence[LoreResult]) -> bool:
    """Return whether no source the asker may read holds any word of the fields asked, nor do the best passages
    say an amount in the field's units ("300gp" says a cost): a book of creatures with no weights, asked one's
    weight, cannot answer it with the creature's other lines."""
    words = [w for f in question.fields if f != KIND_LINE for w in fold_words(f) if w not in STOPWORDS]
    if not words or not all(has_word(unknown, w) for w in words):  # an ending apart
        return False
    units = {u for f in question.fields for u in FIELD_UNITS.get(f, ())}
    held = set(fold_words(" ".join(r.text for r in results[:PASSAGES_READ])))
    return not any(h.lstrip("0123456789.,") in units for h in held)


def _named_block(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
    answer: ShortAnswer,
) -> ShortAnswer | None:
    """Return the answer of the block of the best passage the question names by its bold name or inner heading
    ("what stops a troll from regenerating": the troll's Regeneration), when the sentences quoted are none of
    that block's, or None."""
    found = from_first(question, results, len(facts) + 1, unknown)
    if found is None or found.block is None or any(s.rstrip(".") in answer.text for s in found.sentences):
        return None
    # A heading repeating the passage's own ("Barbarian: Rage" under "Barbarian: Rage") names no block of it.
    around = fold_words(" ".join(results[0].heading_path))
    if all(any(akin(w, h) for h in around) for w in fold_words(found.block) if w not in STOPWORDS):
        return None
    return _first(question, facts, results, unknown)


def _elsewhere(question: Question, results: Sequence[LoreResult], unknown: Sequence[str]) -> bool:
    """Return whether the passages found are about something else than what is asked: half the words naming it
    or more are in none of them (`answer_scope.unheld_words`; one of three is most often a verb or a particle the
    books say otherwise: "what stops a troll's regeneration", "how many hit dice do I get back") and the question
    does not name the best one's title ("whats the symbol of tiamat" finding the holy symbols; "can barbs rage"
    finding Rage answers from it)."""
    if question.parts or not results:
        return False
    unheld, naming = unheld_words(question, results)
    # A word no source holds at all is `strange_words`' to judge (a typo, a long description's word).
    unheld = [w for w in unheld if w not in unknown]
    return 2 * len(unheld) >= naming > 0 and not title_words(question, results[0], unknown)


def _on_subject(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    answer: ShortAnswer,
    best: bool = False,
) -> ShortAnswer:
    """Return the answer quoted, or "nothing known" when what it quotes is not about the question's subject
    (`answer_scope.off_subject`; `best`: the best passage is among those quoted)."""
    first = len(facts) + 1
    quoted = [results[c.number - first] for c in answer.citations if c.cited and c.number >= first]
    if len(quoted) < sum(c.cited for c in answer.citations):
        return answer
    if not off_subject(question, quoted, answer.text, best) and not any(
        named_otherwise(question, r) for r in quoted
    ):
        return answer
    return _nothing(question, facts, results)


def _rule_asked(question: Question, results: Sequence[LoreResult]) -> Question:
    """Return the question without the field it names when a yes/no question's best passage is the rule of that
    very name and holds the question's other words ("do temp hp stack": the section "Temporary Hit Points"
    says "added together"; not a creature's line): it asks about the rule. "What AC does a grellmoth have"
    asks a value, of a creature the rules section does not name."""
    if not question.yes_no or not question.fields or not results or not results[0].heading_path:
        return question
    title = {w for w in fold_words(results[0].heading_path[-1]) if w not in STOPWORDS}
    ruled = [
        f for f in question.fields if title and title == {w for w in fold_words(f) if w not in STOPWORDS}
    ]
    # "ashen revenant armor class" names a creature the rule does not: it asks that creature's field.
    said = set(fold_words(results[0].text))
    held = [w for w in question.subject if word_in(w, said)]
    if not ruled or not held or held[0] != question.subject[0] or 2 * len(held) < len(question.subject):
        return question
    fields = [f for f in question.fields if f not in ruled]
    return replace(question, fields=fields, kind=question.kind if fields else "general")


def _titled(question: Question, results: Sequence[LoreResult], unknown: Sequence[str]) -> Question:
    """Return the question with a field it seems to ask read as part of a name instead, when the best passage's
    title holds the field's words and another word of the question's subject, and the question names the whole
    title: "what do I need to cast Illusory Script" asks the components of the spell Illusory Script, not its
    script; "what AC does a treant have" names no title holding "armor class" but the rule's."""
    if not question.fields or not results:
        return question
    title = title_words(question, results[0], unknown)
    if not title:
        return question
    # The words that asked the field ("speak" of "Speak with Dead"), or its label's ("script").
    said = {
        f: [w for w in fold_words(question.asked_by.get(f, f)) if w not in STOPWORDS] for f in question.fields
    }
    inside = [
        f
        for f in question.fields
        if f != KIND_LINE and said[f] and all(any(akin(w, t) for t in title) for w in said[f])
    ]
    rest = [w for w in question.subject if any(akin(w, t) for t in title)]
    if not inside or not rest:
        return question
    fields = [f for f in question.fields if f not in inside]
    named = [w for f in inside for w in said[f] if w not in question.subject]
    return replace(
        question,
        fields=fields,
        subject=[*question.subject, *named],
        kind=question.kind if fields else "general",
    )


def _needs(
    question: Question, results: Sequence[LoreResult], unknown: Sequence[str]
) -> Callable[[LoreResult, str | None], Sequence[str]]:
    """Return the words a sentence must say to answer the field asked in prose: the field's words, but in the
    best passage, or under a heading inside a passage, whose title the question names (it is what is asked
    about)."""
    said = field_words(question)
    first = results[0].chunk_id if results and title_words(question, results[0], unknown) else None

    def needs(result: LoreResult, section: str | None) -> Sequence[str]:
        named = result.chunk_id == first or (section and title_words(question, result, unknown, section))
        return () if named else said

    return needs


def _one(chosen: LoreResult) -> Callable[[LoreResult], bool]:
    """Return a test accepting one passage only."""
    return lambda result: result is chosen


def _named_lower(question: Question, results: Sequence[LoreResult], unknown: Sequence[str]) -> int | None:
    """Return the place of a lesser passage (second or third) the question names by its entry's title and by a
    word of its book or the book's part ("the teleport spell": Teleport, in Spells), when it does not name the
    best passage's title, or None."""
    if not results or title_words(question, results[0], unknown):
        return None
    return next((at for at in range(1, LOWER_READ) if _named_in_book(question, results, at, unknown)), None)


def _named_in_book(
    question: Question, results: Sequence[LoreResult], at: int, unknown: Sequence[str]
) -> bool:
    """Return whether the question names the passage at `at` by its entry's title and a word of its book."""
    if at >= len(results) or not results[at].is_fact or len(results[at].heading_path) < 2:
        return False
    result = results[at]
    title = title_words(question, result, unknown)
    if not title:
        return False
    typed = fold_words(question.expanded)
    above = fold_words(" ".join([result.source_title, result.heading_path[0]]))  # the book, its part
    return any(akin(w, t) for w in above if w not in STOPWORDS and w not in title for t in typed)


def _other_book(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    hits: Sequence[FieldHit],
    unknown: Sequence[str],
) -> ShortAnswer | None:
    """Return the answer of the passage the question names by title and book when the fields found are of a
    namesake in another book ("the shield spell's AC": the spell Shield, not the armor Shield), or None."""
    first = len(facts) + 1
    if any(_named_in_book(question, results, h.number - first, unknown) for h in hits):
        return None
    for at in range(LOWER_READ):
        if at not in {h.number - first for h in hits} and _named_in_book(question, results, at, unknown):
            said = _first(question, facts, results, unknown, at=at)
            if said is not None:
                return said
    return None


def _first(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
    at: int = 0,
) -> ShortAnswer | None:
    """Return the answer of the best passage (or of the one at `at`) when the question names it
    (`answer_first`), or None."""
    found = from_first(question, results[at:], len(facts) + 1 + at, unknown)
    if found is None:
        return None
    citations = numbered(facts, results)
    if found.fields:
        return from_fields(found.fields, citations)
    said = [s if s.endswith((".", "!", "?", "…")) else s + "." for s in found.sentences]
    text = " ".join(f"{s} [{found.number}]" for s in said)
    marked = [c.model_copy(update={"cited": c.number == found.number}) for c in citations]
    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)


def _of_passage(
    question: Question,
    facts: Sequence[CanonFact],
    results: Sequence[LoreResult],
    unknown: Sequence[str],
    at: int,
) -> ShortAnswer | None:
    """Return the answer of the passage at `at` alone, as of a passage the question names (`_named_lower`)."""
    said = _first(question, facts, results, unknown, at=at)
    if said is None:
        said = compose(question.expanded, facts, results, _one(results[at]))
    return said if said.known else None
