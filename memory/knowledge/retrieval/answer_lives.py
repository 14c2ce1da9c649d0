"""Questions about a life, answered from its card: when someone was born or died, how they died, where they are
held.

A card's sentences say a life (`entity_cards.card_facts`): its state ("Osric Dray is dead; the date of death is not
known"), a dead person's birth ("Hild Dray's date of birth is not known"), the event of a death's day. So:
- "When was X born?" / "When did X die?": the sentence of that end of the life, never the other end's date;
- "How did X die?": how canon types it, else how the description says it ("Dunmore Pike drowned in the Weeping
  Sound …"), then the death's day in the same sentence, when canon has one; without a cause said, the death as
  canon dates it; "… and who did it" of one no killer is named of: that nothing names one;
- "Where is X held?": the state, with where the description says X is held, or that nothing says where.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_death_told import died_in_event
from memory.knowledge.retrieval.answer_words import fold_words, has_word, key_words
from memory.knowledge.retrieval.death_places import death_place
from memory.knowledge.retrieval.death_said import death_said
from memory.knowledge.retrieval.lives import (
    death_cause,
    held_at,
    last_placed,
    own_death,
    pronoun,
    told_death,
    typed_death,
    typed_held,
)
from memory.knowledge.retrieval.told_truths import killed_by, told_beside

__all__ = ["asks_how_died", "asks_where_died", "life_answer"]

_HOW_DIED = re.compile(
    r"^\s*(?:how\s+(?:did|does|was|were|had)\b.*\b(?:die|died|perish|perished|killed|slain|murdered|"
    r"pass\s+away|passed\s+away|meet\s+(?:his|her|their|its)\s+(?:end|death|fate))\b|what\s+(?:killed|"
    r"(?:was|is)\s+the\s+cause\s+of\b.*\bdeath|caused\b.*\bdeath)|(?:the\s+)?cause\s+of\s+(?:death|.+?\bdeath))"
    r"|\bcause\s+of\s+(?:(?:his|her|their)\s+)?death\b"
)
_WHEN = re.compile(r"^\s*(?:when|what\s+(?:year|date|day))\b")
_BORN = re.compile(r"\b(?:born|birth)\b")
_DIED = re.compile(r"\b(?:die|died|death|killed|slain|perish|perished|fall|fell)\b")
_WHERE_HELD = re.compile(
    r"^\s*where\s+(?:is|was|are|were)\b.*\b(?:held|imprisoned|kept|jailed|locked|chained|caged|confined|"
    r"prisoner)\b"
)
_WHERE_DIED = re.compile(r"^\s*where\s+(?:did|was|were)\b.*\b(?:die|died|killed|slain|fall|fell|perish)\b")
#: A cause that places the death ("drowned in the Weeping Sound").
_PLACED = re.compile(r"\b(?:in|at|on|off|near|beneath|under)\s+(?:the\s+)?[A-Z]")
_DEATH_LINE = re.compile(r"\b(?:died|is dead)\b")
_BIRTH_LINE = re.compile(r"\b(?:born|date of birth)\b")
#: The words a life question is put in, beside the name asked about.
_ASKING = frozenset(
    {
        *("born", "birth", "die", "died", "death", "killed", "slain", "perish", "perished", "fall", "fell"),
        *(
            "murdered",
            "pass",
            "passed",
            "away",
            "meet",
            "end",
            "fate",
            "cause",
            "caused",
            "his",
            "her",
            "their",
        ),
        *("held", "imprisoned", "kept", "jailed", "locked", "chained", "caged", "confined", "prisoner"),
        *("year", "date", "day", "how", "when", "where", "what"),
        # "how did X really die": the truth asked is what the asker may see, the GM's the true cause.
        *("really", "actually", "truly", "exactly"),
    }
)


def asks_how_died(question: str) -> bool:
    """Tell whether a question asks how someone died ("how was X killed", "what was the cause of X's death")."""
    return _HOW_DIED.search(question.casefold()) is not None


def asks_where_died(question: str) -> bool:
    """Tell whether a question asks where someone died ("where was X killed", "where did X fall")."""
    return _WHERE_DIED.search(question.casefold()) is not None


def _about(question: str, fact: CanonFact) -> bool:
    """Return whether the question's words, asking words aside, all name this entity."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    return all(has_word(named, w) for w in key_words(question) if w not in _ASKING)


def _lives(fact: CanonFact) -> bool:
    return fact.state is not None or fact.life is not None


def _line(fact: CanonFact, pattern: re.Pattern[str]) -> str | None:
    name = fact.entity_name
    return next((f for f in fact.facts if f.startswith(name) and pattern.search(f)), None)


def _cause(fact: CanonFact, described: str | None, facts: Sequence[CanonFact]) -> str | None:
    """Return how someone died as canon tells it, after who killed them where the card ties it ("Hob Greave
    killed Sef Rook"), or None (none for one canon has living)."""
    if fact.state not in ("dead", None, ""):
        if fact.state == "alive" and fact.life is not None and fact.life.born and not fact.life.died:
            # Alive only as a birth makes one: a death the world tells of them in words is still theirs.
            return own_death(fact.entity_name, described) or told_death(
                fact.entity_name, [f for f in facts if f is not fact]
            )
        return None
    cause = (  # the cause canon types (as the asker may see it) before the description's telling
        typed_death(fact)
        or death_cause(fact.entity_name, described)
        or told_death(fact.entity_name, [f for f in facts if f is not fact])
    )
    killers = killed_by(fact)
    return f"{killers}; {cause}" if killers and cause else cause or killers


#: A death's doer asked beside how it came ("how did X die, and who did it").
_WHO_DID = re.compile(r"\bwho\s+(?:did|done|killed|was\s+behind|was\s+responsible)\b|\bby\s+whom\b")


def _one_sentence(fact: CanonFact, cause: str, death: str) -> str:
    """Return how and when someone died as one sentence, the name said once: "Bran Holt drowned …; he died on 9
    Bloom, year 300 …" (the card's sex, else the name); two when the death's sentence is not of that form."""
    head = f"{fact.entity_name} died "
    if not death.startswith(head):
        return f"{cause}. {death}"
    who = pronoun(fact)
    who = fact.entity_name if who == "they" else who
    return f"{cause}; {who} died {death[len(head) :]}"


def life_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the answer to a question about a life (see the module docstring), or None."""
    folded = question.casefold()
    for number, fact in enumerate(facts, 1):
        described = fact.description or attribute_value(fact, "description")
        # A prison only the description or a typed fact tells, of one canon gives no life.
        held_only = _WHERE_HELD.search(folded) and (held_at(described) or typed_held(fact))
        # A death only the description tells, of one canon gives no life.
        died_only = not _lives(fact) and _HOW_DIED.search(folded) and own_death(fact.entity_name, described)
        if not (_lives(fact) or held_only or died_only) or not _about(question, fact):
            continue
        if _HOW_DIED.search(folded):
            how = _how_died(folded, fact, number, facts, described)
            if how is not None:
                return how
            continue
        if _WHERE_DIED.search(folded) and fact.state == "dead":
            cause = death_cause(fact.entity_name, described)
            death = _line(fact, _DEATH_LINE)
            placed = cause if cause and _PLACED.search(cause) else None
            where = death_place(fact)
            if where:  # the file says where (`died_at`) or in what (an event's `deaths`)
                return " ".join(f"{s}." for s in (where, death) if s) + f" [{number}]", number
            if death and (placed or ", in " in death):
                said = [s for s in (placed, death if " died " in death or not placed else None) if s]
                return " ".join(f"{s}." for s in said) + f" [{number}]", number
            if death:
                return f"{death}; nothing the table knows says where. [{number}]", number
            continue
        if _WHERE_DIED.search(folded) and (told := death_said(fact)) is not None:
            return f"{told}. [{number}]", number  # the description's words say where, if anything does
        if _WHERE_DIED.search(folded) and fact.state is not None:
            # "Where did X die?" of one canon has alive (or missing) says so, never where they live.
            state = _line(fact, re.compile(rf"\bis {re.escape(fact.state)}\b"))
            if state is not None:  # "Nothing … says Idris Fenn died; Idris Fenn is alive, …"
                return f"Nothing the table knows says {fact.entity_name} died; {state}. [{number}]", number
            continue
        if _WHERE_HELD.search(folded):
            held = held_at(described)
            state = fact.state or "alive"
            typed = None if held else typed_held(fact)
            if typed:  # "Cato Venn is imprisoned; Cato Venn is held at the Counting House"
                lead = f"{fact.entity_name} is {state}; {typed}" if state != "alive" else typed
                return f"{lead}. [{number}]", number
            if held:
                verb = (
                    "" if re.match(r"(?:has|have|had)\s|languish|rots?\b", held) else "is "
                )  # "… has been locked in …"
                lead = (
                    f"{fact.entity_name} is {state}{' and ' if not verb else ', '}{held}"
                    if state != "alive"
                    else f"{fact.entity_name} {verb}{held}"
                )
                return f"{lead}. [{number}]", number
            if state in ("imprisoned", "missing", "dead"):
                # Where canon last put them, if anywhere (the dead are where they died, asked otherwise).
                last = last_placed(fact) if state != "dead" else None
                unsure = f"{fact.entity_name} is {state}; nothing the table knows says where"
                return f"{unsure}{'; ' + last if last else ''}. [{number}]", number
            continue
        if _WHEN.search(folded):
            if not (_BORN.search(folded) or _DIED.search(folded)):
                return None
            dated = _when_answer(folded, fact, number)
            if dated is not None:
                return dated
    return None


def _how_died(
    folded: str, fact: CanonFact, number: int, facts: Sequence[CanonFact], described: str | None
) -> tuple[str, int] | None:
    """Return how someone died as canon or the world's words tell it, that nothing says they died of one canon
    has alive, or None (the next card may tell it)."""
    cause = _cause(fact, described, facts)
    if not cause and (evented := died_in_event(fact, number, facts)):
        return evented  # an event's `deaths:` tells it
    death = _line(fact, _DEATH_LINE)
    if cause and death and " died " not in death:
        death = None  # "… is dead" says nothing the cause does not
    if death and not cause and ", in " not in death:
        # A date is no manner: say that nothing tells how, then what canon does say.
        return (
            f"Nothing the table knows says how {fact.entity_name} died; {death}. [{number}]",
            number,
        )
    told = _one_sentence(fact, cause, death) if cause and death else cause or death
    if told:  # the GM is told what players are told beside the truth
        if _WHO_DID.search(folded) and not fact.tied("KILLED"):  # "… and who did it": nobody named
            told += f". Nothing the table knows names anyone who killed {fact.entity_name}"
        return told_beside((f"{told}. [{number}]", number), fact, "cause of death")
    living = _line(fact, re.compile(rf"\bis {re.escape(fact.state)}\b")) if fact.state else None
    if living and fact.state != "dead":  # "how did Wenna die" of one canon has alive
        return f"Nothing the table knows says {fact.entity_name} died; {living}. [{number}]", number
    return None


def _when_answer(folded: str, fact: CanonFact, number: int) -> tuple[str, int] | None:
    """Return when someone was born or died, as the card says it; of one canon has living, that nothing says
    they died, and their state ("when did Hale die": "Nothing … says Hale Brannock died; Hale Brannock is alive")."""
    pattern = _BORN if _BORN.search(folded) else _DIED if _DIED.search(folded) else None
    if pattern is None:
        return None
    line = _line(fact, _BIRTH_LINE if pattern is _BORN else _DEATH_LINE)
    if line is not None:
        return f"{line}. [{number}]", number
    told = death_said(fact) if pattern is _DIED else None
    if told is not None:  # alive to canon by a birth, dead by the description's words: its sentence says when
        return f"{told}. [{number}]", number
    living = _line(fact, re.compile(rf"\bis {re.escape(fact.state)}\b")) if fact.state else None
    if pattern is _DIED and living and fact.state != "dead":
        return f"Nothing the table knows says {fact.entity_name} died; {living}. [{number}]", number
    return None
