"""A question asking how much or how many, or a price, is answered by a sentence saying an amount, or by nothing.

"How much does the ferry charge?" found the sentence naming the ferry ("Its headman keeps the only ferry across
the river."): it says no amount, so it does not answer; nor does "It grants a gift and the kit the keeper
starts with." answer "how many marks does a keeper start with". Only the extractive answer is read (the graph
says its own counts), without its citation marks, whose numbers are no amount.
"""

from __future__ import annotations

import re

from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.retrieval.answer import nothing_known
from memory.knowledge.retrieval.answer_sentence import has_amount

__all__ = ["amount_unsaid"]

#: A question asking a count, a quantity or a price.
_ASKS = re.compile(
    r"\bhow (?:much|many)\b|\b(?:price|cost|fee|toll|fare) of\b"
    r"|^\s*what\b.*\b(?:cost|costs|charge|charges|sell for|sells for|worth)\s*[?!.]*\s*$"
)
_CITATION = re.compile(r"\[\d+\]")
#: Amounts said without a number.
_COUNTED = re.compile(r"\b(?:dozens?|pair|none|unlimited|any number|no more|no fewer|free)\b", re.IGNORECASE)


def amount_unsaid(question: str, answer: ShortAnswer) -> ShortAnswer | None:
    """Return "nothing known" for an extractive answer to a question asking an amount that says none, else None."""
    if not answer.known or answer.mode != AnswerMode.EXTRACTIVE or not _ASKS.search(question.casefold()):
        return None
    said = _CITATION.sub("", answer.text)
    if has_amount(said) or _COUNTED.search(said):
        return None
    cited = [c.model_copy(update={"cited": False}) for c in answer.citations]
    return ShortAnswer(text=nothing_known(question), mode=AnswerMode.NOTHING, known=False, citations=cited)
