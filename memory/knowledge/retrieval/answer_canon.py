"""Canon questions that ask where, when, whether alive, or who someone is: answered from a card's sentences.

A card's facts are sentences already, with when they hold in the calendar's words (`entity_cards.card_facts`:
"The Battle of Red Ford took place at Red Ford", "Aldric Vyr is dead (since year 352 of the Third Age)"). The
question's words rarely are the card's ("Where was the battle *fought*?"), so the kind of question picks the
sentence: a where-question a sentence placing the entity, a when-question one dated, an is-alive question one
saying its state (answered yes or no first, by whether the card's state is the state asked: "Is X dead?" of a
living X is "No: X is alive"); "Who is X?" gets what X is and two of the facts that matter most
(its state, what it is, where it is), never the whole card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, opening
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_told import told_sentence
from memory.knowledge.retrieval.answer_words import fold_words, has_word, sentences
from memory.knowledge.retrieval.death_said import death_said
from memory.knowledge.retrieval.lives import pronoun

__all__ = ["asked_kind", "asked_states", "kind_answer", "verdict", "what_it_is", "who_answer"]

_WHERE = re.compile(
    r"\b(?:took place at|took place in|(?:is|are) in|lives in|lived in|(?:is|are) at|(?:is|are) held at|(?:is|are) part of|"
    r"is the seat of|happened at|happened in)\b"  # "are": a name of many ("The Tolling Bells are in Harl")
)
_WHEN = re.compile(
    r"\((?:[^)]*\d[^)]*)\)|\btook place during\b|\bsince\b|\b(?:on|in) (?:\d+ \w+, )?year -?\d"
)
_STATE = re.compile(
    r"\b(?:is|are) (alive|dead|wounded|missing|destroyed|lost|imprisoned|cursed|undead|intact|damaged|dissolved)\b"
    r"|\b(died)\b"
)
#: The words a question asks a life by, as the state they ask about ("Did X die?" asks whether X is dead).
_LIFE_WORDS = {
    **dict.fromkeys(("alive", "living", "live", "lives", "survive", "survived", "breathing"), "alive"),
    **dict.fromkeys(
        ("dead", "die", "died", "killed", "deceased", "slain", "perished", "fall", "fell"), "dead"
    ),
}
#: The states the ontology has that a yes/no question may name as they are ("Is the North Gate damaged?").
_STATE_WORDS = frozenset(
    {"wounded", "missing", "imprisoned", "cursed", "undead", "intact", "damaged", "destroyed", "dissolved"}
)
#: The table's words for a prisoner: the state imprisoned asked ("is Cato a prisoner", "is Liss locked up").
_HELD = re.compile(
    r"\b(?:prisoner|captive|jailed|locked\s+(?:up|away)|in\s+(?:prison|jail|gaol|chains|a\s+cell)|behind\s+bars)\b"
)
#: The base ontology's terminal states (and "lost"), for a fact that does not say whether its state is one.
_FINAL = frozenset({"dead", "destroyed", "dissolved", "lost"})
#: States in which someone lives: "Is X alive?" of a wounded, imprisoned or cursed X is yes.
_LIVING = frozenset({"alive", "wounded", "imprisoned", "cursed"})
#: States in which where someone lives is not where they are: "Where is Pip?" says Pip is missing first.
_UNSURE = frozenset({"missing", "lost", "imprisoned"})
_DEATH = re.compile(r"\b(?:die|died|killed|fall|fell|slain|perish|perished)\b")
_YES_NO = re.compile(r"^\s*(?:is|was|are|were|did|does|do|has|have|had)\b")
#: Words that only say how a where/when/alive question is put ("where was it *fought*").
_EVENT_WORDS = frozenset(
    {
        *(
            "fought",
            "held",
            "happen",
            "happened",
            "take",
            "took",
            "place",
            "located",
            "live",
            "lives",
            "still",
            "yet",
            "been",
            "anymore",
        ),
        *("born", "founded", "built", "year", "date", "time", "signed", "sealed"),
        *_LIFE_WORDS,
        *_STATE_WORDS,
    }
)


def asked_kind(question: str) -> str | None:
    """Return what a canon question asks: "where", "when", "alive", or None."""
    folded = question.casefold()
    if re.match(r"^\s*where\b", folded):
        return "where"
    if re.match(r"^\s*when\b", folded) or re.search(r"\bwhat (?:year|date|age)\b", folded):
        return "when"
    if re.search(r"\b(?:alive|dead|living|died|still live)\b", folded) or asked_states(question):
        return "alive"
    return None


def asked_states(question: str) -> set[str]:
    """Return the states a yes/no question asks about ("Is X still alive?": alive; "Did X die?": dead)."""
    if not _YES_NO.match(question.casefold()):
        return set()
    words = fold_words(question)
    if _HELD.search(question.casefold()):
        return {"imprisoned"}  # "is Cato a prisoner", "is Liss locked up"
    return {_LIFE_WORDS.get(w, w) for w in words if w in _LIFE_WORDS or w in _STATE_WORDS}


def verdict(question: str, state: str | None, terminal: bool) -> str | None:
    """Return "Yes" when the card's state is the state the question asks about, "No" when it is another, or
    None when the question is no yes/no question, asks two states, or the state cannot tell (a missing X)."""
    asked = asked_states(question)
    if len(asked) != 1 or not state:
        return None
    wanted = next(iter(asked))
    if wanted == state:
        return "Yes"
    if state == "missing":
        return None  # whereabouts unknown: alive or dead, the card does not say
    if wanted == "alive":
        return "Yes" if state in _LIVING else "No" if terminal or state == "undead" else None
    if wanted == "dead":
        return "Yes" if terminal else "No"
    return "No"


def _named(fact: CanonFact, question: str) -> bool:
    """Return whether the question's remaining words (asking words aside) all name this entity."""
    named = set(fold_words(fact.matched)) | set(fold_words(fact.entity_name))
    # "When was Tamsin crowned?" of an Investiture of Tamsin "given the salt crown": its description says it.
    named |= set(fold_words(fact.description or attribute_value(fact, "description") or ""))
    # "is prince rowan dead": a title or another name of theirs names them too.
    named |= set(fold_words(" ".join(attribute_value(fact, a) or "" for a in ("titles", "aliases", "title"))))
    named |= {
        w for line in fact.facts if line.startswith(f"{fact.entity_name} is ") for w in _title_words(line)
    }
    asked = _HELD.sub(" ", question.casefold())  # "locked up", "a prisoner": the state asked, no name's words
    rest = [w for w in fold_words(asked) if w not in _EVENT_WORDS and len(w) > 2]
    from memory.knowledge.retrieval.answer_words import key_words

    keys = set(key_words(question))
    # "when did old Doge Aurel die", "the late Bertil": a word of age or of a life ended before a name names no one.
    kept = [
        w
        for w, after in zip(rest, [*rest[1:], ""], strict=True)
        if not (w in _EPITHETS and w not in named and after and has_word(named, after))
    ]
    return all(has_word(named, w) for w in kept if w in keys)


#: Words said before a name of its bearer's age or end, naming no one ("old Aurel", "the late Bertil").
_EPITHETS = frozenset({"old", "late", "young", "elder", "dead", "poor"})


def _title_words(line: str) -> list[str]:
    """Return the words of a title a card's line gives ("Rowan Maravel is Prince of the Vellmark"), or none."""
    found = re.search(r" is ((?:[A-Z][\w'-]*\s?)+)(?: of | to |$)", line)
    return fold_words(found.group(1)) if found else []


def kind_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return the card sentence answering a where/when/is-alive question about the entity named, or None."""
    kind = asked_kind(question)
    if kind is None:
        return None
    for number, fact in enumerate(facts, 1):
        if not _named(fact, question):
            continue
        # Its own sentences first ("Tidehall is part of Harrowport", not "The Investiture took place at
        # Tidehall"), where and when it took place before the age it took place during.
        own = sorted(
            fact.facts,
            key=lambda line: (
                not line.startswith(fact.entity_name + " "),
                "during" in line,
                "seat of" in line,
            ),
        )
        if kind == "where" and (fact.state in _UNSURE or (fact.state == "dead" and _DEATH.search(question))):
            placed = [line for line in own if _WHERE.search(line)][:1] if fact.state != "dead" else []
            told = [line for line in own if _state_in(fact, line)][:1] + placed
            if told:
                return " ".join(f"{line}." for line in told) + f" [{number}]", number
        for line in own:
            if kind in ("when", "where") and not _dates_it(line, fact, question, kind):
                continue  # "when was Thistlewick founded": never the day of a fire there; "where was X born": not
                # where X lives
            if (kind == "where" and _WHERE.search(line)) or (kind == "when" and _WHEN.search(line)):
                return f"{opening(line, fact.entity_name, fact.entity_type)}. [{number}]", number
        for line in fact.facts:
            state = _state_in(fact, line) if kind == "alive" else None
            death = death_said(fact) if state == "alive" else None
            if death is not None:  # alive by a birth, dead by the description's words: "No: Eli was shot …"
                yes = verdict(question, "dead", True)
                return f"{yes + ': ' if yes else ''}{death}. [{number}]", number
            if state is not None:
                terminal = fact.state_terminal if fact.state else state in _FINAL
                yes = verdict(question, state, terminal)
                said = f"{yes}: {line}" if yes else _unsure(question, fact, state) or line
                return f"{said}. [{number}]", number
    return None


def _unsure(question: str, fact: CanonFact, state: str) -> str | None:
    """Return the answer to "is X alive?" (or dead) of a missing X: no verdict, and why ("Nothing the table knows
    says whether Haskel Sarrane is alive; he is missing", by the sex canon gives, else "they are"), or None."""
    if state != "missing" or not asked_states(question) & {"alive", "dead"}:
        return None
    who = pronoun(fact)
    missing = f"{who} are missing" if who == "they" else f"{who} is missing"
    return f"Nothing the table knows says whether {fact.entity_name} is alive; {missing}"


#: Deeds a when- or where-question asks the day or the place of ("when was X founded", "where was X born"): a
#: card's sentence says one only by its word.
_DATED_DEEDS = frozenset(
    [
        "founded",
        "built",
        "established",
        "created",
        "made",
        "raised",
        "settled",
        "abandoned",
        "destroyed",
        "razed",
        "sacked",
        "forged",
        "written",
        "signed",
        "crowned",
        "married",
        "wed",
        "discovered",
        "named",
        "born",
        "buried",
        "trained",
        "educated",
        "grew",
        "hidden",
        "lost",
        "found",
        "seen",
        "last",
    ]
)


def _dates_it(line: str, fact: CanonFact, question: str, kind: str = "when") -> bool:
    """Tell whether a card's sentence may answer a when- or where-question of its entity: saying the deed asked
    when one is ("founded" in "… was founded in year 3"; never "lives in" for "where was X born"), and of a when-
    question its own sentence (never an event's at it). An event's day and place are those of what it is,
    whatever the deed asked ("when was the treaty signed")."""
    if kind == "when" and not line.startswith(fact.entity_name + " "):
        return False
    if fact.entity_type == "Event" or " took place " in line:
        return True
    deeds = [w for w in fold_words(question) if w in _DATED_DEEDS]
    said = set(fold_words(line))
    return all(has_word(said, w) for w in deeds)


def _state_in(fact: CanonFact, line: str) -> str | None:
    """Return the state a card sentence says the entity is in ("Oswin Harrow is alive (since ...)"), or None;
    a fact that does not carry its state has it read from the sentence."""
    said = (
        rf"\b(?:is|are) {re.escape(fact.state)}\b" + (r"|\bdied\b" if fact.state == "dead" else "")
        if fact.state
        else ""
    )
    if fact.state:
        return fact.state if re.search(said, line, re.IGNORECASE) else None
    found = _STATE.search(line)
    return ("dead" if found.group(2) else found.group(1)) if found else None


def _rest(fact: CanonFact, line: str) -> str:
    """Return a card sentence without its subject's name: "lives in Harrowport"."""
    name = fact.entity_name
    return line[len(name) + 1 :] if line.startswith(name + " ") else line


def attribute_value(fact: CanonFact, attribute: str) -> str | None:
    """Return the value of an attribute as its card says it ("Gull Rock's type: island" is "island"), or None."""
    name = fact.entity_name
    for head in (f"{name}'s {attribute}: ", f"{name}' {attribute}: "):
        for line in fact.facts:
            if line.startswith(head):
                return line[len(head) :]
    return None


def _what(fact: CanonFact) -> str | None:
    """Return the sentence saying what an entity is, from its description ("Idris Fenn is a tall, patient
    captain …"; "Blackwater Compact: smugglers who …" when the description is no noun phrase of its own)."""
    described = fact.description or attribute_value(fact, "description")
    first = sentences(described or "")[:1]
    if not first:
        return None
    said = told_sentence(fact.entity_name, first[0])
    called = _called(fact)
    if called is None:
        return said
    # Found by another name: "Wren Ashby, called the Magpie, is a thief …" (never "…, called the Magpie,:").
    name = fact.entity_name
    if said.startswith(f"{name} "):
        return f"{name}{called},{said[len(name) :]}"
    if said.startswith(f"{name}: "):
        return f"{name}{called}: {said[len(name) + 2 :]}"
    return said


def _called(fact: CanonFact) -> str | None:
    """Return ", called the Magpie" of an entity found by another name its card shows the asker, or None when
    found by its own name (or by a secret name: the GM's answer says that one is secret before it)."""
    aliases = attribute_value(fact, "aliases")
    names = aliases.split(", ") if aliases else []
    if any(_unled(a) == _unled(fact.matched) for a in names):
        return f", called {' or '.join(in_prose(a) for a in names)}"
    born = attribute_value(fact, "birth name")  # found by the name one was born with: "Maggie Doyle, born …"
    if born and _unled(born) == _unled(fact.matched):
        return f", born {born}"
    return None


def _unled(name: str) -> str:
    """Return a name folded without its leading article ("The Grey Fox" is "grey fox")."""
    return re.sub(r"^(?:the|a|an)\s+", "", name.casefold().strip())


def what_it_is(fact: CanonFact) -> str | None:
    """Return the sentence saying what an entity is, from its description, or None."""
    return _what(fact)


#: A card's sentence of a birth or a death ("Josiah Crane was born in year 52 of …").
_LIFE_ENDS = re.compile(r" (?:was|were) born\b| died (?:on|in)\b")


def who_answer(fact: CanonFact, number: int) -> str | None:
    """Return who or what an entity is in two or three sentences: what it is (its description), its role (a
    title, what it leads), and its state with its place ("… is alive, born in year 830 of …, and lives in
    Harrowport"), or None when its card says none of these."""
    labelled = re.compile(rf"^{re.escape(fact.entity_name)}'s? [\w ]+: ")
    plain = [f for f in fact.facts if not labelled.match(f) and f.startswith(fact.entity_name + " ")]
    state = [f for f in plain if _STATE.search(f)][:1]
    place = [f for f in plain if _WHERE.search(f) and f not in state][:1]
    roles = [  # a life's ends are no role: its state says them
        f
        for f in plain
        if f not in state and f not in place and " took part in " not in f and not _LIFE_ENDS.search(f)
    ]
    # A title first ("Idris Fenn is Captain of the Tidewardens"), then what it leads, then the rest; without
    # the span a membership holds ("a member of The Vaske Line", not "(since year 850 …)").
    roles.sort(
        key=lambda f: (" is a member of " in f or " is an " in f, " leads " not in f and " is " not in f)
    )
    role = [re.sub(r" \((?:since|from) [^)]*\)$", "", f) for f in roles[:1]]
    told = death_said(fact)  # a death the description tells, of one alive to canon only by a birth
    if told is not None:
        state, place = [told], []
    if fact.state == "dead" or told is not None:  # "Wenna Vaske was Lady of Saltmarch"
        role = [re.sub(rf"^{re.escape(fact.entity_name)} is ", f"{fact.entity_name} was ", f) for f in role]
    if any(line.startswith(fact.entity_name + " took place ") for line in plain):
        return _event_told(fact, plain, number)
    what = _what(fact)
    said = [what] if what else []
    said += role
    if state and place:
        joined = " and" if state[0].endswith(")") else ", and"
        said.append(f"{state[0]}{joined} {_rest(fact, place[0])}")
    else:
        said += state + place
    if not said:
        return None
    called, name = _called(fact), fact.entity_name
    if (
        called and called not in said[0] and said[0].startswith(f"{name} ")
    ):  # "Ilse Marr, called the Heron, leads …"
        said[0] = f"{name}{called},{said[0][len(name) :]}"
    parts = [s if s.endswith((".", "!", "?", "…")) else s + "." for s in said[:3]]
    return " ".join(parts) + f" [{number}]"


def _event_told(fact: CanonFact, plain: Sequence[str], number: int) -> str:
    """Return what an event was: where and when it took place, then its description as told."""
    placed = sorted(
        (line for line in plain if line.startswith(fact.entity_name + " took place ")),
        key=lambda line: "during" in line,
    )[:1]
    described = fact.description or attribute_value(fact, "description")
    said = [*(opening(line, fact.entity_name, "Event") for line in placed), *sentences(described or "")[:2]]
    return " ".join(s if s.endswith((".", "!", "?", "…")) else s + "." for s in said) + f" [{number}]"
