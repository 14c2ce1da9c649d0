"""Write the short answer of a lore question without a language model: from the canon graph, or extractive.

Canon facts from play outrank imported prose, so the graph is asked first (`answer_graph`: a relation, an
attribute asked, the entity asked about). Otherwise the answer is extractive (`answer_extractive`): the one or two
sentences of the best passages that cover most of the question's words, weighed by what each says
(`answer_sentence`). When none does, nothing the asker may see answers it, and the answer says so plainly
(`answer_nothing`: "Nothing the table knows says who Ysolde's brother is."). Only what the asker may see reaches
this module (the retriever filtered it first), so an answer never hints at GM-only material. Inspiration is never
quoted as fact. The names the other answers use from these modules stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult
from memory.knowledge.retrieval.answer_extractive import extract
from memory.knowledge.retrieval.answer_graph import graph_answer
from memory.knowledge.retrieval.answer_nothing import nothing_known
from memory.knowledge.retrieval.answer_sentence import AMOUNT_FIELDS, asks_measure, says_field
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words, same_word, sentences

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


def _under_name(question: str, label: str | None, text: str) -> str:
    """Return a sentence of a bold-named block led by the block's name when the question names it and the
    sentence does not ("Dazed: Shake it off with a Grit roll." for "how do I get rid of dazed")."""
    if not label or label.casefold() in text.casefold():
        return text
    asked = set(fold_words(question))
    named = [w for w in fold_words(label) if w not in STOPWORDS]
    return f"{label}: {text}" if named and all(has_word(asked, w) for w in named) else text


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
        for sentence in extract(question, results, len(facts) + 1, only, kind_lines, needs, measure):
            text = sentence.text if sentence.text.endswith((".", "!", "?", "…")) else sentence.text + "."
            text = _under_name(question, sentence.label, text)
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
