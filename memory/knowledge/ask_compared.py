"""A comparison of a field no line holds, answered part by part: "which does more damage, fireball or lightning
bolt" (each spell's damage is said in its text, not on a line of its own).

When the usual steps find nothing known, each part is asked on its own ("damage of fireball", "damage of lightning
bolt"), and both answers are said together, each led by the name of the entry it cites, with both citations; only
when each answer is known, of its own part (its words, or the title of the passage it cites, name every word of
the part) and not the other's. A part nothing answers ("glimmer hex") leaves the answer "nothing known"; a part
made only of words no source the asker may read holds ("which has more hp, an owlbear or a glimmerdrake") makes
it "nothing known", the other part's line alone being no answer (a GM-only name reads as an unknown one).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.answer_models import AnswerMode, ShortAnswer
from memory.knowledge.models import Answer
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_comparison import each_names_its_part, part_question, with_its_name
from memory.knowledge.retrieval.answer_nothing import nothing_known
from memory.knowledge.retrieval.answer_parts import parts_answered

__all__ = ["each_compared"]


async def each_compared(answer: Answer, asked: Question, ask: Callable[[str], Awaitable[Answer]]) -> Answer:
    """Return a comparison's answer part by part (see the module docstring), else the answer as it was; `ask`
    answers one part's question on its own, unrecorded."""
    known = answer.reply is not None and answer.reply.known
    if known and answer.reply is not None and _made_up_part(asked, answer.trace.unknown_words):
        said = ShortAnswer(
            text=nothing_known(asked.text),
            mode=AnswerMode.NOTHING,
            known=False,
            citations=[c.model_copy(update={"cited": False}) for c in answer.reply.citations],
        )
        return answer.model_copy(update={"reply": said})
    if known or len(asked.parts) != 2 or not asked.fields:
        return answer
    each = [await ask(part_question(asked, part)) for part in asked.parts]
    if not each_names_its_part(asked.parts, [a.reply for a in each]):
        return answer
    named = [a.model_copy(update={"reply": with_its_name(a.reply)}) for a in each if a.reply]
    return answer.model_copy(update=parts_answered(named[0], named[1]))


def _made_up_part(asked: Question, unknown: Sequence[str]) -> bool:
    """Return whether a part of a comparison is only words no source the asker may read holds ("glimmerdrake"):
    the other part's line alone does not answer which is more."""
    strange = {w.casefold() for w in unknown}
    return len(asked.parts) >= 2 and any(
        named and all(w in strange for w in named)
        for named in ([w for w in part if w not in STOPWORDS] for part in asked.parts)
    )
