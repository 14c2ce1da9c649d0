"""A comparison of a field no line holds, answered part by part: "which does more damage, fireball or lightning
bolt" (each spell's damage is said in its text, not on a line of its own).

When the usual steps find nothing known, each part is asked on its own ("damage of fireball", "damage of lightning
bolt"), and both answers are said together, each led by the name of the entry it cites, with both citations; only
when each answer is known, of its own part (its words, or the title of the passage it cites, name every word of
the part) and not the other's. A part nothing answers ("glimmer hex") leaves the answer "nothing known".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from memory.knowledge.models import Answer
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_comparison import each_names_its_part, part_question, with_its_name
from memory.knowledge.retrieval.answer_parts import parts_answered

__all__ = ["each_compared"]


async def each_compared(answer: Answer, asked: Question, ask: Callable[[str], Awaitable[Answer]]) -> Answer:
    """Return a comparison's answer part by part (see the module docstring), else the answer as it was; `ask`
    answers one part's question on its own, unrecorded."""
    known = answer.reply is not None and answer.reply.known
    if known or len(asked.parts) != 2 or not asked.fields:
        return answer
    each = [await ask(part_question(asked, part)) for part in asked.parts]
    if not each_names_its_part(asked.parts, [a.reply for a in each]):
        return answer
    named = [a.model_copy(update={"reply": with_its_name(a.reply)}) for a in each if a.reply]
    return answer.model_copy(update=parts_answered(named[0], named[1]))
