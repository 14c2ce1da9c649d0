"""Who did a deed canon tells as an event: who set a fire, started a riot, was behind a poisoning, caused a flood.

Taking part is no guilt: the miller whose granary burned took part in the fire. So a question asking who did it
("who set the fire", "who started the riot", "who was behind X", "who caused X", "who burned X") of an event
canon holds is answered, in this order, by
- those canon says caused it (the relation CAUSED): "Ysel Marr caused the Mill Row Fire";
- a sentence saying the deed, by its verb or one of its kind ("fired" for "burned", "stirred" for "started"),
  in the description or notes of one found by it (`holders.mentioned`), or in the event's own description with
  a doer before the verb or after "by" ("The corsairs fired the lamp-towers …": said of the event by name);
- else that nothing known says who did it, and who canon names as taking part.
Only what the asker may read is read: a culprit the GM's notes alone name is no culprit of a player's, who reads
the same words as of an event whose culprit nobody wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, relation_sentence
from canon.wording.relations import possessive
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_canon import attribute_value
from memory.knowledge.retrieval.answer_happenings import is_event, names_list
from memory.knowledge.retrieval.answer_outcomes import said_of
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences
from memory.knowledge.retrieval.happenings import EVENT_NOUNS, asks_culprit, deed_of, does_deed

__all__ = ["asks_culprit", "culprit_answer", "deed_said", "says_a_deed"]

#: Deeds of one kind: a sentence saying any of them says the deed asked by another ("fired" for "burned").
_KINDS: tuple[frozenset[str], ...] = (
    frozenset({"set", "lit", "light", "burn", "fire", "torch", "kindl", "start", "spark", "ignit"}),
    frozenset(
        {"start", "began", "begun", "begin", "stir", "incit", "instigat", "provok", "spark", "rais", "led"}
    ),
    frozenset({"poison", "taint", "foul"}),
    frozenset({"drown", "sink", "sank", "sunk", "scuttl", "wreck"}),
    frozenset({"destroy", "raz", "wreck", "sack", "ruin", "topple", "broke", "break", "smash"}),
    frozenset({"stole", "steal", "stolen", "loot", "rob", "plunder"}),
    frozenset({"murder", "kill", "slew", "assassinat"}),
    frozenset({"betray", "sold"}),
    frozenset({"flood", "breach", "broke", "open"}),
)
_PASSIVE_BY = re.compile(r"\b(?:was|were|had\s+been)\s+\w+(?:\s+\w+)?\s+by\s+(?=[A-Z]|the\s)", re.IGNORECASE)
_ANY_KIND = frozenset(stem for kind in _KINDS for stem in kind)


#: Events both sides do alike: who battled says nothing of who started it.
_MUTUAL = frozenset({"battle", "fight", "war", "skirmish", "clash", "duel", "fray", "feud", "brawl", "melee"})


def _stems(asked: re.Match[str], event: CanonFact) -> frozenset[str]:
    """Return the deeds' stems a sentence may say for the deed asked: the kind of the verb asked; for "who was
    behind", "who started" or "who caused" also the deed the event's name is led by ("besieged" of a siege,
    "poisoned" of a poisoning: its doer started it), never a word of a place ("Mill Row Fire") nor a deed both
    sides do ("battled")."""
    verb = asked["verb"]
    head = next((w for w in fold_words(event.entity_name) if w not in ("the", "a", "an")), "")
    stem = deed_of(head)
    led = stem != head.rstrip("s") or head.endswith("ing")
    own = {stem} if led and head not in _MUTUAL else set()
    if verb is None or verb.casefold() in ("did", "ordered", "plotted", "planned"):
        kinds = [k for k in _KINDS if any(stem.startswith(s) or s.startswith(stem) for s in k)] if own else []
        return frozenset({"caus", "start", "order", "plot", "plan", *own, *(s for k in kinds for s in k)})
    stems = _stems_of(verb)
    return stems | own if stems & {"start", "caus"} else stems


def _stems_of(verb: str) -> frozenset[str]:
    """Return the stems of a verb asked and of the deeds of its kind ("set": "burn", "fire", "lit", …)."""
    stem = deed_of(verb.split()[0].casefold())
    kinds = [k for k in _KINDS if any(stem.startswith(s) or s.startswith(stem) for s in k)]
    return frozenset({stem, *(s for k in kinds for s in k)})


def _says(sentence: str, stems: frozenset[str]) -> re.Match[str] | None:
    """Return the first word of a sentence saying one of the deeds (a verb of their stems), or None."""
    for word in re.finditer(r"[A-Za-z]+", sentence):
        folded = word.group().casefold()
        if any(folded.startswith(s) and len(folded) - len(s) <= 4 for s in stems) and not folded.endswith(
            "ing"
        ):
            return word
    return None


def says_a_deed(sentence: str) -> bool:
    """Tell whether a sentence says a deed of any kind a culprit is asked of (set, started, poisoned, …)."""
    return _says(sentence, _ANY_KIND | {"caus", "order", "plot", "plan", "paid"}) is not None


def deed_said(sentence: str, word: str) -> bool:
    """Tell whether a sentence says the deed a question's word asks by another of its kind ("set" for "started"
    a fire, "sold" for "betrayed"); a word of no deed's kind says nothing here."""
    stems = _stems_of(word)
    return len(stems) > 1 and _says(sentence, stems) is not None


def _by_doer(sentence: str, stems: frozenset[str], event: CanonFact) -> bool:
    """Tell whether an event's sentence says a doer of the deed: a subject before its verb that is not the
    event's own kind or what was done to ("Fire took …", "The chapel burned"), or "… was set by X"."""
    verb = _says(sentence, stems)
    if verb is None:
        return False
    if _PASSIVE_BY.search(sentence):
        return True
    before = sentence[: verb.start()].strip()
    if not before or re.search(r"\b(?:was|were|had\s+been|has\s+been|is|are)$", before, re.IGNORECASE):
        return False  # "The pilot was drowned": done, by no one said
    subject = [w for w in fold_words(before) if w not in ("the", "a", "an")]
    own = (
        set(fold_words(event.entity_name)) | EVENT_NOUNS | {"fire", "flames", "flame", "it", "water", "flood"}
    )
    return bool(subject) and not set(subject) <= own and _doer(before, event)


def _doer(before: str, event: CanonFact) -> bool:
    """Tell whether the words before a verb name a doer: one canon names as taking part (by a word of their name),
    a name inside the sentence, a pronoun of people or a noun of people ("the corsairs", "soldiers of the watch");
    never a thing ("Half the city burned"): a capital opening the sentence names no one."""
    said = set(fold_words(before))
    took_part = {w for who in event.tied("PARTICIPATED_IN") for w in fold_words(who) if len(w) > 3}
    inside = before.split(maxsplit=1)[1] if len(before.split()) > 1 else ""
    return bool(
        said & took_part
        or re.search(r"\b[A-Z][a-z]+", inside)
        or re.search(
            r"\b(?:he|she|they|someone|men|folk|raiders|corsairs|rebels|thieves|agents|soldiers|assassins|"
            r"arsonists|mob|crowd|\w+(?:ers|ors|men|hands|ists))\b",
            before,
            re.IGNORECASE,
        )
    )


_LINKS = frozenset({"the", "a", "an", "of", "at", "in", "on", "by", "upon"})


def _own_words(event: CanonFact) -> list[str]:
    """Return the words of an event's name that tell it apart: not its links, nor the deed it is led by
    ("chapel", "saint", "orr" of "The Burning of the Chapel of Saint Orr"; "mill", "row", "fire" of the fire)."""
    own = [w for w in fold_words(event.entity_name) if w not in _LINKS]
    if len(own) > 1 and (own[0].endswith("ing") or deed_of(own[0]) != own[0].rstrip("s")):
        own = own[1:]
    return own


def _names_event(sentence: str, event: CanonFact) -> bool:
    """Tell whether a sentence names the event by every word telling it apart ("the Mill Row fire")."""
    said = set(fold_words(sentence))
    own = _own_words(event)
    return bool(own) and all(has_word(said, w) for w in own)


def _told_by_one(
    facts: Sequence[CanonFact], event: CanonFact, stems: frozenset[str]
) -> tuple[str, int] | None:
    """Return the sentence of someone's description or notes saying the deed of this event, of them by name."""
    for number, fact in enumerate(facts, 1):
        if is_event(fact):
            continue
        for attribute in ("description", "gm notes", "notes"):
            head = f"{possessive(fact.entity_name)} {attribute}: "
            told = next((line[len(head) :] for line in fact.facts if line.startswith(head)), None)
            for sentence in sentences(told or ""):
                if _says(sentence, stems) and _names_event(sentence, event):
                    return f"{told_sentence(fact.entity_name, sentence)}. [{number}]", number
    return None


def _told_of_words(asked: re.Match[str], facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the sentence of a card found by its description or notes that says the deed asked and every word
    the question names it by ("She set the Mill Row fire …" for "who started the fire on mill row"), or None."""
    verb = asked["verb"]
    stems = _ANY_KIND if verb is None else _stems_of(verb)
    words = [w for w in fold_words(asked["rest"]) if w not in _LINKS]
    if not words:
        return None
    for number, fact in enumerate(facts, 1):
        told = {
            f"{possessive(fact.entity_name)} {a}: {fact.matched}"
            for a in ("description", "gm notes", "notes")
        }
        if is_event(fact) or not told & set(fact.facts):
            continue  # found by a name, not by what it says
        for sentence in sentences(fact.matched):
            said = set(fold_words(sentence))
            if _says(sentence, stems) and all(has_word(said, w) for w in words):
                return f"{told_sentence(fact.entity_name, sentence)}. [{number}]", number
    return None


def _event(question: str, facts: Sequence[CanonFact]) -> tuple[int, CanonFact] | None:
    """Return the event the deed is asked of: one found by its own words, not by another's ("who poisoned
    Orrin": the battle he died in was found by his name, and is not what was poisoned)."""
    others = {f.matched.casefold() for f in facts if not is_event(f) and (f.life is not None or f.state)}
    asked = set(fold_words(question))
    events = [
        (n, f)
        for n, f in enumerate(facts, 1)
        if is_event(f) and f.matched.casefold() not in others and set(fold_words(f.matched)) <= asked
    ]
    named = [(n, f) for n, f in events if not set(fold_words(f.matched)) <= EVENT_NOUNS]
    named.sort(key=lambda nf: -sum(w in asked for w in _own_words(nf[1])))  # "saint orr", not "saint bede"
    chosen = named or events
    return chosen[0] if chosen else None


def culprit_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return who did the deed an event is, as canon says it, or that nothing known says (see the module
    docstring); None when the question asks no deed of an event canon holds."""
    asked = asks_culprit(question)
    if asked is None:
        return None
    found = _event(question, facts)
    if found is None:  # the event not found for sure ("the fire on Mill Row"): one's own words saying it
        return _told_of_words(asked, facts)
    number, event = found
    # Found by a place it took place at ("who burned Greyfen"): each event there, the nothing known in the
    # question's words (no one event's name).
    at_place = any(not is_event(f) and f.matched == event.matched and not f.life for f in facts)
    events = [(n, f) for n, f in enumerate(facts, 1) if is_event(f) and f.matched == event.matched]
    for number, event in events if at_place else [found]:
        said = _done_by(asked, facts, event, number)
        if said is not None:
            return said
    number, event = found
    if at_place:
        return f"Nothing the table knows says who {_deed_words(asked)} {asked['rest']}. [{number}]", number
    named = in_prose(event.entity_name, "Event")
    deed = _deed_words(asked)
    own_words = asked["verb"] is not None and does_deed(
        asked["verb"].split()[0].casefold(), event.entity_name
    )
    what = asked["rest"] if own_words and asked["rest"] else named  # "who drowned the pilot": its own words
    took_part = event.tied("PARTICIPATED_IN")
    where = "" if what == named else f" in {named}"
    who = f"; canon names {names_list(took_part)} as taking part{where}" if took_part else ""
    return f"Nothing the table knows says who {deed} {what}{who}. [{number}]", number


def _deed_words(asked: re.Match[str]) -> str:
    """Return the deed asked as "nothing known says who …" says it: "set", "was behind", "caused"."""
    verb = asked["verb"] or asked["behind"]
    deed = " ".join(verb.split()).casefold()
    return f"was {deed}" if asked["behind"] and not deed.startswith("cause") else deed


def _done_by(
    asked: re.Match[str], facts: Sequence[CanonFact], event: CanonFact, number: int
) -> tuple[str, int] | None:
    """Return who canon says did the deed an event is: a cause, one's own words, the event's doer; or None."""
    causes = event.tied("CAUSED")
    if causes:
        return (
            f"{relation_sentence('CAUSED', names_list(causes, opens=True), event.entity_name)}. [{number}]",
            number,
        )
    stems = _stems(asked, event) if asked["verb"] or asked["behind"] else _ANY_KIND
    # One's own words naming the event: any deed of the kinds asked of a "who was behind" ("she set …").
    told = _told_by_one(facts, event, stems | (_ANY_KIND if asked["behind"] else frozenset()))
    if told is not None:
        return told
    for sentence in sentences(event.description or attribute_value(event, "description") or ""):
        if _by_doer(sentence, stems, event):
            return f"{said_of(event.entity_name, sentence, 'At')}. [{number}]", number
    return None
