"""What only a description tells of someone, when canon has no typed fact for it.

A world-builder writes much in prose: that someone vanished on the moor road, the false name a pedlar gives on
the fen roads, the trade a ferryman plies, what a miller is known for. The questions asking these are answered
by the one sentence of the description (as the asker may see it: a player's card holds no GM-only field) that
carries the thing asked, said of its subject by name (`told_sentence`, the one place a description's sentence
is given a subject), never the whole description after a colon:

- "what happened to X" / "what became of X": X's state when it is not plain life, and the sentence saying what
  befell them ("Lise Thorne is missing. Lise Thorne went down into the Cutting …");
- "what is X's real name", "does X go by another name", "what alias does X use": the other names canon gives
  (`aliases`), and the sentence naming one ("… calls himself Tam Reddle");
- "what does X do": what X is (the description's first sentence), their trade;
- "what is X known for": the sentence saying so ("Ada Thorne is known for her apple brandy …"), else what X is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.wording import in_prose, names_in_prose
from canon.wording.relations import possessive, relation_sentence, state_sentence
from memory.knowledge.models import CanonFact
from memory.knowledge.retrieval.answer_words import fold_words, sentences
from memory.knowledge.retrieval.lives import death_cause, held_at, typed_death
from memory.knowledge.retrieval.named_in import FORMER_NAME
from memory.knowledge.retrieval.told_truths import kept_fate

__all__ = ["told_answer", "told_sentence"]

_PRONOUN = re.compile(r"^(?:she|he|they|it)\s+", re.I)
_INNER_PRONOUN = re.compile(r"(?<=[\s,;])(?:she|he|they)\b(?=\s+[a-z])")
_ARTICLE = re.compile(r"^(?:a|an|the)\s", re.I)
_POSSESSIVE_LEAD = re.compile(r"^[A-Z][\w-]*'s?\s")
#: A sentence opening on a noun without its article: a word (capitalised or not), then "of", "who", "from" … or a comma.
_BARE_NOUN = re.compile(r"^([A-Za-z][a-z-]+)\s+(?:of|who|from)\b")
#: Words that open such a sentence without being a noun ("Born of fire", "Fond of boats", "Once of the guard").
_NOT_NOUNS = frozenset(
    {
        *(
            "born",
            "known",
            "once",
            "here",
            "there",
            "long",
            "now",
            "then",
            "after",
            "before",
            "since",
            "last",
        ),
        *(
            "fond",
            "proud",
            "afraid",
            "full",
            "tired",
            "wary",
            "jealous",
            "capable",
            "fearful",
            "aware",
            "free",
        ),
        *("sick", "weary", "sure", "kind", "heir", "mother", "father", "lord", "lady", "master", "keeper"),
    }
)

_HAPPENED = re.compile(r"^\s*what\s+(?:happened|has\s+happened|became)\s+(?:to|of|with)\b", re.I)
_ALIAS = re.compile(
    r"\b(?:real|true|other|another|false|secret|assumed|fake|birth|given)\s+names?\b|\balias(?:es)?\b"
    r"|\bnick\s*(?:names?|named)\b|\b(?:do|does|did)\s+\w+\s+call\b|\bgo(?:es)?\s+by\b|\bcalls?\s+(?:him|her|them|it)sel(?:f|ves)\b|\bknown\s+as\b"
    r"|\bpass(?:es)?\s+(?:him|her|them)sel(?:f|ves)\s+off\b|\bunder\s+(?:what|which)\s+name\b"
    r"|\bwhat\s+(?:other\s+)?names?\s+(?:does|did|do)\b",
    re.I,
)

_DOES = re.compile(
    r"^\s*what\s+(?:does|did)\s+.+?\s+do(?:\s+for\s+(?:a\s+living|work))?\s*\??\s*$"
    r"|^\s*what\s+(?:is|was)\s+.+?(?:'s|s')\s+(?:job|trade|occupation|profession|work|calling|line\s+of\s+work)\s*\??\s*$"
    r"|^\s*what\s+(?:job|trade|occupation|profession|work)\s+(?:does|did)\s+.+?\s+(?:do|have|hold|follow)\s*\??\s*$",
    re.I,
)
_KNOWN = re.compile(
    r"\b(known|famous|renowned|noted|notorious|remembered|feared|loved|celebrated)\s+for\b", re.I
)
#: What a sentence says befell someone: vanishing, leaving, being taken, dying, coming back.
_FATE = re.compile(
    r"\b(?:vanish\w*|disappear\w*|missing|never|lost|last\s+seen|gone|fled|flee\w*|taken|captured|seized|"
    r"died|killed|drowned|slain|murdered|hanged|exiled|banished|imprisoned|jailed|cursed|went|left|ran\s+off|"
    r"returned|came\s+back|fell|buried|sank|sunk)\b",
    re.I,
)
#: A sentence giving someone another name.
_NAMING = re.compile(
    r"\b(?:calls?\s+(?:him|her|them|it)sel(?:f|ves)|called|named|known\s+as|goes\s+by|go\s+by|alias|"
    r"under\s+the\s+name|real\s+name|true\s+name|born\s+as|passes\s+(?:him|her|them)sel(?:f|ves)\s+off)\b",
    re.I,
)
_EVENTS = frozenset({"Event", "Battle", "Ceremony", "Disaster", "Era"})


def told_sentence(name: str, sentence: str) -> str:
    """Return a sentence of someone's description said of them by name, without its closing stop: a leading
    pronoun is their name ("She is known for …": "Ada Thorne is known for …"), a noun phrase says what they are
    ("A miller's widow …": "Ada Thorne is a miller's widow …"), a pronoun inside it stands for them ("On the fen
    roads he calls himself …": "On the fen roads Corin Vell calls himself …"); one naming them stays as written."""
    text = sentence.strip().rstrip(".")
    pronoun = _PRONOUN.match(text)
    if pronoun:
        return f"{name} {text[pronoun.end() :]}"
    if name.casefold() in text.casefold():
        return text
    if _ARTICLE.match(text):
        return f"{name} is {text[0].lower()}{text[1:]}"
    if _POSSESSIVE_LEAD.match(text) and "'" in text.split()[0]:  # "Ada's son, a mason …"
        return f"{name} is {text}"
    inner = _INNER_PRONOUN.search(text)
    if inner:
        return f"{text[: inner.start()]}{name}{text[inner.end() :]}"
    noun = _BARE_NOUN.match(text)
    word = noun[1].casefold() if noun else ""
    plural = word.endswith("s") and not word.endswith("ss")
    if noun and not plural and not word.endswith(("ed", "ly")) and word not in _NOT_NOUNS:
        # "Poacher of the fens, …": a noun without its article ("Tansy Reed is a poacher of the fens, …").
        article = "an" if text[:1].casefold() in "aeiou" else "a"
        return f"{name} is {article} {text[0].lower()}{text[1:]}"
    return f"{name}: {text}"


def _attribute(fact: CanonFact, attribute: str) -> str:
    """Return an attribute's value as the card says it ("Bram Hollis' description: …"), or ""."""
    head = f"{possessive(fact.entity_name)} {attribute}: "
    return next((f[len(head) :] for f in fact.facts if f.startswith(head)), "")


def _described(fact: CanonFact) -> list[str]:
    """Return the sentences of an entity's description as the asker may read it."""
    return sentences(fact.description or _attribute(fact, "description"))


def _aliases(fact: CanonFact) -> list[str]:
    """Return the other names the asker may read: the public ones, and to the GM those kept for the GM (a card
    shows a player no "secret aliases")."""
    said = (_attribute(fact, "aliases"), _attribute(fact, "secret aliases"))
    return [a for text in said for a in text.split(", ") if a]


def _bare(name: str) -> list[str]:
    words = fold_words(name)
    return words[1:] if len(words) > 1 and words[0] in ("the", "a", "an") else words


def _said(parts: Sequence[str], number: int) -> tuple[str, int]:
    return " ".join(
        p if p.endswith((".", "!", "?", "…")) else f"{p}." for p in parts
    ) + f" [{number}]", number


def _happened(fact: CanonFact, number: int) -> tuple[str, int] | None:
    """Return what became of someone: their state, unless it is plain life, and the sentence telling it (how
    they died, where they are held, as `lives` reads a description; else the sentence saying what befell them)."""
    name, said = fact.entity_name, _described(fact)
    description = " ".join(said)
    state = fact.state if fact.state and fact.state != "alive" else None
    parts: list[str] = []
    told = False
    if state == "dead":
        cause = death_cause(name, description) or typed_death(fact)  # how, where canon says it
        told = cause is not None
        parts += [cause] if cause else []
        parts += [line for line in fact.facts if line.startswith(f"{name} died ")][:1] or [f"{name} is dead"]
    elif (kept := kept_fate(fact)) is not None:  # the GM's card: the truth, then what players are told
        parts += kept
        told = True
    elif state == "imprisoned" and (held := held_at(description)):
        parts.append(f"{name} is imprisoned, {held}")
        told = True
    elif state:
        parts.append(state_sentence(name, state))
    if not told:
        fate = [s for s in said[1:] if _FATE.search(s)][:1] or [s for s in said[:1] if _FATE.search(s)]
        parts += [told_sentence(name, s) for s in fate]
    if not parts:  # nothing befell them that canon tells, but what they took part in
        events = [
            r.object for r in fact.relations if r.predicate.upper() == "PARTICIPATED_IN" and r.subject == name
        ]
        parts += [relation_sentence("PARTICIPATED_IN", name, names_in_prose(events))] if events else []
    return _said(parts, number) if parts else None


def _other_names(fact: CanonFact, number: int) -> tuple[str, int]:
    """Return the other names someone goes by: found by one, their name; else those canon gives and the
    sentence of their description naming one; else that nothing the asker may see gives them another."""
    name = fact.entity_name
    matched = _bare(fact.matched)
    alias = next((a for a in _aliases(fact) if _bare(a) == matched), None)
    if alias is not None and matched != _bare(name):  # "what is the Magpie's real name": Wren Ashby
        return _said([f"{alias[:1].upper()}{alias[1:]} is {name}"], number)
    parts: list[str] = []
    aliases = _aliases(fact)
    if aliases:
        parts.append(f"{name} is also called {' or '.join(in_prose(a) for a in aliases)}")
    folded = [a.casefold() for a in aliases]
    for sentence in _described(fact):
        if _NAMING.search(sentence) and not any(a in sentence.casefold() for a in folded):
            parts.append(told_sentence(name, sentence))
            break
    if not parts:
        return _said([f"Nothing the table knows gives {name} another name"], number)
    return _said(parts, number)


def _known_for(question: str, fact: CanonFact, number: int) -> tuple[str, int] | None:
    """Return the sentence saying what someone is known for, or what they are when none says it."""
    asked = _KNOWN.search(question)
    word = asked.group(1).casefold() if asked else "known"
    said = _described(fact)
    found = [s for s in said if re.search(rf"\b{word}\s+for\b", s, re.I)] or [
        s for s in said if _KNOWN.search(s)
    ]
    if not found:
        return _does(fact, number)  # nothing says "known for": what they are is what they are known as
    return _said([told_sentence(fact.entity_name, found[0])], number)


def _does(fact: CanonFact, number: int) -> tuple[str, int] | None:
    """Return what someone does: what their description says they are."""
    said = _described(fact)
    if not said:
        return None
    return _said([told_sentence(fact.entity_name, said[0])], number)


def told_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return what a description alone tells of the one asked about (see the module docstring), or None."""
    if not facts or facts[0].entity_type in _EVENTS:
        return None
    number, fact = 1, facts[0]
    what = bool(re.match(r"^\s*(?:what|why)\b", question, re.I))
    if _HAPPENED.search(question):
        return _happened(fact, number)
    if _ALIAS.search(question) or FORMER_NAME.search(question):  # "what was X called before" too
        return _other_names(fact, number)
    if what and _KNOWN.search(question):
        return _known_for(question, fact, number)
    if what and _DOES.search(question) and fact.entity_type not in ("Location", "Region", "Faction"):
        return _does(fact, number)
    return None
