"""One voice for the table: names, relations, dates and evidence in words, for every card and text output.

Pure functions below `bot/` (no Discord): a relation as a sentence ("Corvan Marrow is Ysolde Marrow's
father"), a date in the campaign calendar's words ("year 327 of the Third Age"), evidence as "said in scene 1,
turns 12–15, by Pat", a continuity warning as one plain sentence, a proposal as the line of a review card.
Internal ids, relation constants and date keys never reach a player's text through here; the GM's detail
views add ids themselves.
"""

from canon.wording.context import PLAIN, Wording
from canon.wording.dates import CalendarWords
from canon.wording.evidence import SceneWords, TurnWords, evidence_words
from canon.wording.findings import warning_sentence
from canon.wording.proposals import describe, proposal_sentence, type_words
from canon.wording.relations import (
    fact_sentence,
    in_prose,
    names_in_prose,
    opening,
    relation_sentence,
    relation_words,
    state_sentence,
    title_phrase,
)
from canon.wording.statements import statement_sentence, statement_words

__all__ = [
    "PLAIN",
    "CalendarWords",
    "SceneWords",
    "TurnWords",
    "Wording",
    "describe",
    "evidence_words",
    "fact_sentence",
    "in_prose",
    "names_in_prose",
    "opening",
    "proposal_sentence",
    "relation_sentence",
    "relation_words",
    "state_sentence",
    "statement_sentence",
    "statement_words",
    "title_phrase",
    "type_words",
    "warning_sentence",
]
