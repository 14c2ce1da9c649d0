"""Continuity warnings as one plain sentence: dates in the calendar's words, relations as words, no jargon.

`canon.continuity` writes each finding's message with its dates as keys (they are stored, and compared by
tests); this says it for the table. Messages stored before the rules spoke plainly ("a change the ontology
does not allow; it would need via resurrection") read plainly too.
"""

from __future__ import annotations

import re

from canon.wording.context import PLAIN, Wording
from canon.wording.relations import constants_in_words

_OLD_PHRASES = (
    (re.compile(r", a change the ontology does not allow"), ", which this world's rules do not allow"),
    (re.compile(r" \(not even via (?P<via>[\w -]+)\)"), r" (not even through a \g<via>)"),
    (re.compile(r"; it would need via (?P<via>[\w -]+)"), r"; it would need a \g<via>"),
    (re.compile(r"\bthe ontology\b"), "this world's rules"),
    (re.compile(r"\bontology\b"), "world's rules"),
)


def warning_sentence(message: str, words: Wording = PLAIN) -> str:
    """Return a continuity finding's message for the table (the text is escaped for where it is shown)."""
    text = words.calendar.in_words(message)
    for pattern, plain in _OLD_PHRASES:
        text = pattern.sub(plain, text)
    return words.escape(constants_in_words(text))


#: Each kind of continuity problem, as a short heading for the GM's lists (`canon check`, `/canon conflicts`).
KIND_WORDS = {
    "dead_acting": "The dead acting",
    "two_places": "In two places at once",
    "exclusive_relations": "Relations that exclude each other",
    "cardinality": "Too many of one relation",
    "born_before_parent": "Born before a parent",
    "born_after_parents_death": "Born after a parent's death",
    "event_outside_era": "An event outside its era",
    "contradicts_higher_authority": "Contradicts a higher authority",
    "single_valued": "Two values where one is allowed",
    "relies_on_retconned": "Built on retconned canon",
    "forbidden_transition": "A change of state the world forbids",
    "cause_after_effect": "A cause after its effect",
    "participant_not_born": "A participant not yet born",
    "axiom_from_player": "A player changing the world's foundations",
    "life_dated_twice": "Born or died twice",
    "dead_before_born": "Dead before being born",
    "secret_told": "A secret said openly in another file",
    "office_outside_life": "An office held outside its holder's life",
    "office_two_holders": "Two holders of one office at once",
    "truth_shown": "A truth told otherwise, left public",
    "leader_spans_differ": "A leader's years said two ways",
}


def kind_words(kind: str) -> str:
    """Return a kind of continuity problem as a heading in words ("The dead acting")."""
    return KIND_WORDS.get(str(kind), str(kind).replace("_", " ").capitalize())
