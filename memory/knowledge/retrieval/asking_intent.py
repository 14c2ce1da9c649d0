"""What a player's character means to do, said before what they do: "my bard wants to pour the flask into the
well", "i'm trying to grapple the ogre", "our wizard plans to cast fly on the fighter".

The asker's own character and their wish ("my rogue wants to") name nothing the books hold: the rogue is the
asker's, not what is asked about, and the answer is what the deed does. Read as the
question's subject, they make a sentence about the deed look off the subject, or leave the search to the class's
pages. At the start of a sentence or a clause, the asker's character (`my`/`our` and a word or two, "I", "we",
the player) and a verb of wanting or trying ("wants to", "is trying to", "plans to", "needs to") are left out, the
deed kept: "pour the flask into the well"; a wish to know leaves what is asked ("i want to know
who rules Westhaven": "who rules Westhaven"). A wish asked inside a question ("what do I need to
cast X") is the question's own and stays.
"""

from __future__ import annotations

import re

__all__ = ["without_intent"]

_WHO = (
    r"(?:(?:one\s+of\s+)?(?:my|our)\s+(?:[\w'-]+\s+){1,2}?|(?:the\s+)?players?\s+|(?:the\s+)?pcs?\s+"
    r"|i\s+|we\s+|i'?m\s+|we'?re\s+)"
)
_WISH = (
    r"(?:wants?|wanted|wanna|needs?|needed|plans?|planned|tries|tried|is\s+trying|are\s+trying|am\s+trying"
    r"|trying|is\s+going|are\s+going|am\s+going|going|is\s+planning|planning)\s+to\s+"
)
#: A wish to know, before what is asked: "i want to know *who rules Westhaven*".
_TO_KNOW = r"(?:(?:know|find\s+out|learn|ask)\s+(?=(?:who|whom|whose|what|where|when|why|how|which)\b))?"
#: The asker's character and their wish, opening a sentence or a clause, before the deed (a verb) they mean to do.
_INTENT = re.compile(rf"(?:^|(?<=[.!?;,:]\s)|(?<=\s[-–—]\s)){_WHO}{_WISH}{_TO_KNOW}(?=[a-z])", re.IGNORECASE)


def without_intent(question: str) -> str:
    """Return a question without the asker's character's wish opening its sentences or clauses ("my bard wants
    to pour the flask into the well" -> "pour the flask into the well")."""
    return _INTENT.sub("", question)
