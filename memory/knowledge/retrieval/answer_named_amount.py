"""An amount asked of a thing that has no passage of its own: the sentence naming it whole that says the amount.

"How much is the bridge toll?" asks a field of something; only a passage about it may answer in sentences
(`answer_step`). A world bible often names such a thing only inside another's section ("A cart pays a bridge
toll of two pennies at every arch."): that sentence answers, when it names the thing's words one after the other
and says an amount after them. A thing named by one word ("how much is a shell worth") is asked its price only:
the sentence must say an amount in money after it ("Money is the shell …; a hundred shells make one silver mark"),
one word alone being too common a find for any other amount. Only what the asker may read reaches here
(the retriever filtered it).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.question import FIELD_UNITS, Question
from memory.knowledge.retrieval.answer import nothing_known, numbered
from memory.knowledge.retrieval.answer_sentence import asks_measure, has_amount
from memory.knowledge.retrieval.answer_words import fold_words, sections_of, sentences

__all__ = ["amount_or_nothing"]

#: The words saying a price beside its amount: a coin, or the verb of a price.
_PRICED = frozenset({*FIELD_UNITS["cost"], "cost", "costs", "worth", "price", "priced"})


def _after(sentence: str, subject: Sequence[str]) -> str | None:
    """Return the words of a sentence after the subject's words said one after the other, or None."""
    words = fold_words(sentence)
    size = len(subject)
    at = next((i for i in range(len(words) - size + 1) if words[i : i + size] == list(subject)), None)
    return None if at is None else " ".join(words[at + size :])


def amount_or_nothing(
    question: Question, facts: Sequence[CanonFact], results: Sequence[LoreResult]
) -> ShortAnswer:
    """Return the first sentence of the fact passages naming the subject whole and an amount after it, when the
    question asks an amount; else that nothing is known."""
    citations = numbered(facts, results)
    subject = [w for w in question.subject if w]
    priced = "cost" in question.fields and len(subject) == 1
    if asks_measure(question.fields) and (len(subject) >= 2 or priced):
        for number, result in enumerate(results, len(facts) + 1):
            if not result.is_fact:
                continue
            for sentence in (s for _, text in sections_of(result.text) for s in sentences(text)):
                after = _after(sentence, subject)
                if after is None or (priced and not _PRICED & set(after.split())):
                    continue
                if has_amount(after):
                    marked = [c.model_copy(update={"cited": c.number == number}) for c in citations]
                    text = f"{sentence.rstrip('.')}. [{number}]"
                    return ShortAnswer(text=text, mode=AnswerMode.EXTRACTIVE, known=True, citations=marked)
    return ShortAnswer(
        text=nothing_known(question.text), mode=AnswerMode.NOTHING, known=False, citations=citations
    )
