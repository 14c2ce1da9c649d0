"""Who holds a title asked ("Who is the Ember Queen?", "Who is the lady of Saltmarch?", "Who rules X?"), from the
cards found by the title (`holders`): the living first, with the dead who held it before. A title held for a span
is answered by its spans first (`answer_offices.current_holder`: the one holding it today)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import title_phrase
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import what_it_is
from memory.knowledge.retrieval.answer_happenings import names_list
from memory.knowledge.retrieval.answer_offices import asks_title
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.heads import asks_head
from memory.knowledge.retrieval.rulers import asks_ruler

__all__ = ["holder_answer"]


def holder_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who holds the title asked ("Tamsin Vaske is Lady of Saltmarch"), the living first: the cards found
    by a title (`holders`) say it as "<name> is <title>"."""
    if not re.match(r"^\s*who\b", question.casefold()):
        return None
    # The title asked ends the question ("who is the Ember Queen"), or a ruler is asked ("who rules X"): "who is
    # the Ember Queen married to" asks a tie of hers, "who crowned the Ember Queen" a deed.
    typed = fold_words(question.replace("’", "'"))
    rules = asks_ruler(question) is not None or asks_head(question) is not None
    held = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if f"{f.entity_name} is {title_phrase(f.matched)}" in f.facts
        and (rules or asks_title(typed, fold_words(f.matched)))
    ]
    if not held:
        return None
    held.sort(key=lambda nf: nf[1].state == "dead")
    number, first = held[0]
    verb = "was" if first.state == "dead" else "is"
    title = title_phrase(first.matched)
    text = f"{first.entity_name} {verb} {title}"
    before = [
        f.entity_name
        for _, f in held[1:]
        if f.state == "dead" and f.matched.casefold() == first.matched.casefold()
    ]
    if before and verb == "is":
        text += f"; before, {names_list(before)} {'was' if len(before) == 1 else 'were'}"
    what = what_it_is(first) if len(held) == 1 else None
    if what and what.casefold().startswith(f"{first.entity_name} {verb} {title}".casefold()) and not before:
        text = what  # the description names the title: "Maren Dray is the Ember Queen, who rules …", once
    elif what and not before and what.startswith(f"{first.entity_name} is "):
        text += (
            f", {what[len(first.entity_name) + 4 :]}"  # "… is Master of Lanterns, the patient old master …"
        )
    elif what and what.startswith(first.entity_name + " "):
        text += f". {what}"
    return f"{text}. [{number}]", number
