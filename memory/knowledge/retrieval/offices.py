"""Offices held over time: the titles a person held for a span (`tenure`, a `titles` item with `from`/`to`), read
from their card, and the holders a question about an office needs.

"Who was High Steward before Wynna Brack?", "who succeeded Aldous Brack", "who held High Steward in 702", "who was
High Steward when the Siege of Carrow began": the finder (`office_holders`) brings the cards of everyone who held
the office asked (by its title, or the offices of the one named), as the asker may see them; the cards carry each
span (`card_offices`) and an event's day (`event_key`), and `answer_offices` answers from them. A span or a holder
kept for the GM is on no player's card: a player's answer reads as if canon never said it. Today is the story's
date (`lives.story_date`); a span with no end is held until its holder's death.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from canon.calendar import DateError, parse_date
from canon.graph.reader import CanonReader, facts_holding
from canon.models import EntityCard, Validity
from canon.wording import PLAIN, Wording, title_phrase
from memory.knowledge.answer_models import Office
from memory.knowledge.retrieval.answer_words import fold_words
from memory.knowledge.retrieval.candidates import EntityMatch

__all__ = [
    "HELD_TITLE",
    "HOLDS_OFFICE",
    "asked_office",
    "bare_title",
    "card_offices",
    "event_key",
    "last_key",
    "office_holders",
    "office_stem",
    "possessed_title",
    "singular_title",
    "title_meant",
    "titles_meant",
    "today_key",
]

#: The attribute a title held for a span is stated as (`canon.structured.title_spans`).
HELD_TITLE = "tenure"
_ARTICLES = frozenset({"the", "a", "an"})
#: The most holders of one office brought: a long line of holders is asked of a few.
_MOST = 12
_SCORE = 88.0

_WHO = r"^\s*who\s+"
_NEIGHBOUR = r"(?P<dir>before|after|preceded|succeeded|came\s+before|came\s+after)"
#: The office a neighbour is asked in: "who preceded Aldous Brack *as High Steward*".
_AS_TITLE = r"(?:\s+as\s+(?:the\s+)?(?P<title>.+))?$"
#: The forms an office is asked in: (pattern, the form's name). `title` the office's words, `who` a holder named,
#: `year` a year, `event` an event named.
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(_WHO + r"(?:succeeded|came\s+after|followed)\s+(?P<who>.+?)" + _AS_TITLE), "after"),
    (re.compile(_WHO + r"(?:preceded|came\s+before)\s+(?P<who>.+?)" + _AS_TITLE), "before"),
    (
        re.compile(
            _WHO + r"(?:is|was)\s+(?P<who>.+?)(?:'s|s'|')\s+(?P<dir>successor|predecessor)" + _AS_TITLE
        ),
        "whose",
    ),
    (
        re.compile(_WHO + r"(?:is|was)\s+the\s+(?P<order>first|earliest|last|latest)\s+(?P<title>.+)$"),
        "order",
    ),
    (
        re.compile(
            _WHO + r"(?:has|have)\s+(?:ever\s+)?(?:held|been|served\s+as)\s+(?:the\s+)?"
            r"(?:(?:office|title|post|seat)\s+of\s+(?:the\s+)?)?(?P<title>.+)$"
        ),
        "all",
    ),
    (
        re.compile(
            _WHO
            + r"(?:was|were|is|held|served\s+as|ruled|reigned|led)\s+(?:as\s+)?(?:the\s+)?(?P<title>.*?)\s*"
            r"\b(?P<dir>before|after)\s+(?P<who>.+)$"
        ),
        "neighbour",
    ),
    (
        re.compile(
            _WHO + r"(?:was|were|held|served\s+as|ruled|reigned)\s+(?:as\s+)?(?:the\s+)?(?P<title>.*?)\s*"
            r"\bin\s+(?:the\s+)?(?:year\s+)?(?P<year>-?\d+)\b.*$"
        ),
        "year",
    ),
    (
        re.compile(
            _WHO + r"(?:was|were|held|served\s+as|ruled|reigned)\s+(?:as\s+)?(?:the\s+)?(?P<title>.*?)\s*"
            r"\b(?:(?:back|just|right)\s+)?(?:when|as|while|during|throughout|at\s+the\s+time\s+of|in\s+the\s+time\s+of|"
            r"in\s+the\s+days\s+of)\s+"
            r"(?P<event>.+?)(?:\s+(?:began|begun|started|happened|broke\s+out|took\s+place|"
            r"was\s+fought|ended|was\s+signed))?$"
        ),
        "event",
    ),
)
_HELD = re.compile(
    r"^\s*what\s+(?:titles|offices|positions|ranks)\s+(?:has|have|had|did|does)\s+(?P<who>.+?)\s+"
    r"(?:held|hold|had|have|borne|bore|bear)(?:\s+over\s+time|\s+ever)?$"
)


def _folded(question: str) -> str:
    return " ".join(question.casefold().replace("’", "'").replace("?", " ").split())


#: Every holder asked by the office's plural: "who were the Provosts of Ostmere", "list the High Stewards".
_PLURAL = re.compile(
    r"^\s*(?:who\s+(?:were|are|have\s+been)|(?:list|name)|what\s+(?:were|are)\s+the\s+names\s+of)\s+"
    r"(?:all\s+)?(?:of\s+)?(?:the\s+)?(?P<title>[a-z][\w' -]*?)$"
)
#: Who holds an office, asked by the office's name: "who holds the office of Provost" is "who is the Provost".
HOLDS_OFFICE = re.compile(
    r"^\s*who\s+(?:now\s+|currently\s+)?(?:holds|occupies|fills|has)\s+(?:the\s+)?"
    r"(?:office|title|post|position|seat|rank)\s+of\s+",
    re.IGNORECASE,
)

#: Who holds an office today, asked so: "who is the current Provost", "who is the Provost now".
_NOW = re.compile(
    r"^\s*who\s+is\s+the\s+(?:(?P<mark>current|present|reigning|sitting)\s+)?(?P<title>[a-z][\w' -]*?)"
    r"(?P<late>\s+(?:now|today|at\s+present|these\s+days))?$"
)


def singular_title(title: str) -> str | None:
    """Return an office's plural as its title ("provosts of ostmere" is "provost of ostmere", "high stewards" is
    "high steward"), or None when it is no plural."""
    words = title.split()
    at = words.index("of") - 1 if "of" in words[1:] else len(words) - 1
    head = words[at]
    if not head.endswith("s") or head.endswith("ss") or len(head) < 4:
        return None
    one = head[:-2] if re.search(r"(?:ch|sh|x|ss)es$", head) else head[:-1]
    return " ".join([*words[:at], one, *words[at + 1 :]])


def asked_office(question: str) -> tuple[str, dict[str, str]] | None:
    """Return the form an office question asks in ("after", "before", "whose", "order", "all", "neighbour",
    "year", "event", "held") and its parts, or None."""
    folded = _folded(question)
    held = _HELD.match(folded)
    if held:
        return "held", {"who": held["who"]}
    plural = _PLURAL.match(folded)
    one = singular_title(plural["title"]) if plural else None
    if one is not None:
        return "all", {"title": one}
    holds = HOLDS_OFFICE.match(folded)
    now = _NOW.match("who is the " + folded[holds.end() :] if holds else folded)
    if now is not None and (holds or now["mark"] or now["late"]):
        return "now", {"title": now["title"]}
    for pattern, form in _FORMS:
        found = pattern.match(folded)
        if found:
            parts = {k: v for k, v in found.groupdict().items() if v is not None}
            if "title" in parts:  # "who held the office of Mayor when …" asks the Mayor
                parts["title"] = _OFFICE_OF.sub("", parts["title"])
            return form, parts
    return None


#: An office said as its place's: "redgulch's mayor" is the Mayor of Redgulch.
_POSSESSED = re.compile(r"^([a-z][\w -]*?)(?:'s|s')\s+([a-z][\w -]*)$")


def possessed_title(title: str) -> str | None:
    """Return an office said as its place's, as its title says it ("redgulch's mayor": "mayor of redgulch"), or
    None when the words are of no such form (a title may hold a possessive of its own: "King's Steward")."""
    found = _POSSESSED.match(title)
    return f"{found[2]} of {found[1]}" if found else None


#: Words naming an office before its title: "the office of", "the post of".
_OFFICE_OF = re.compile(r"^(?:the\s+)?(?:office|title|post|position|seat|rank)\s+of\s+(?:the\s+)?")


def bare_title(text: str) -> str:
    """Return a title's folded words without articles ("the High Steward" is "high steward")."""
    return " ".join(w for w in fold_words(text) if w not in _ARTICLES)


#: An office's noun made of a title's word: "the wardenship" (a Warden's office), "the priesthood" (a Priest's).
_OFFICE_NOUN = re.compile(r"(?P<stem>[a-z][a-z-]+?)(?:ship|hood)")


def office_stem(bare: str) -> str | None:
    """Return the title word an office's noun is made of ("warden" of "wardenship", "knight" of "knighthood"), or
    None when the words typed are no such noun."""
    noun = _OFFICE_NOUN.fullmatch(bare)
    return noun["stem"] if noun is not None else None


def titles_meant(bare: str, titles: Sequence[str]) -> list[str]:
    """Return the folded titles a typed one means among those canon holds: itself; else every title that starts
    with its words ("warden" of "Warden of the Ember Gate"; "high warden" of both the High Warden of the North and
    the High Warden of the South, for the answer to name each); else, for an office's noun ("wardenship"), the
    titles its title word means so, else those holding that word ("High Warden of the North"). None: [] ."""
    held = sorted({bare_title(t) for t in titles})
    if bare in held:
        return [bare]
    longer = [t for t in held if t.startswith(f"{bare} ")]
    stem = office_stem(bare)
    if longer or stem is None:
        return longer
    return titles_meant(stem, held) or [t for t in held if stem in t.split()]


def title_meant(bare: str, titles: Sequence[str]) -> str | None:
    """Return the one folded title a typed one means among those canon holds (`titles_meant`), or None (none, or
    several: the answer names each)."""
    meant = titles_meant(bare, titles)
    return meant[0] if len(meant) == 1 else None


def today_key(now: str | None) -> int | None:
    """Return the story's date as a world key (`year*10000 + month*100 + day`, as canon keys dates; counted here,
    a lore question loads no continuity rules), or None."""
    if not now:
        return None
    try:
        date = parse_date(now)
    except DateError:
        return None
    return None if date.year is None else date.year * 10000 + (date.month or 0) * 100 + (date.day or 0)


def last_key(key: int) -> int:
    """Return the last world key a key stands for: a year's covers the whole year, a month's the month."""
    rest = key % 10000
    return key + 9999 if rest == 0 else key + 99 if rest % 100 == 0 else key


def _key(words: Wording, text: str | None, key: int | None) -> int | None:
    return key if text and words.dated(text) else None


def card_offices(card: EntityCard, words: Wording = PLAIN, now: int | None = None) -> tuple[Office, ...]:
    """Return the titles a card says its entity held for a span, in the order they began: each with its dates as
    the asker may read them, over when it ended before today or its holder is dead (then, with no end written, at
    the death, when the asker may read its date), and held today otherwise."""
    dead = card.state is not None and str(card.state.statement.value).casefold() == "dead"
    death = card.state.statement.validity if dead and card.state is not None else None
    found: list[Office] = []
    for view in card.facts:
        s = view.statement
        if s.predicate != HELD_TITLE or not s.value:
            continue
        v = s.validity
        start = _key(words, v.world_from, v.world_from_key)
        end = _key(words, v.world_until, v.world_until_key)
        until = v.world_until
        if until is None and death is not None and words.dated(death.world_from):
            until, end = death.world_from, death.world_from_key  # held until the death
        ended = (
            dead or (end is not None and (now is None or end <= now)) or (now is None and until is not None)
        )
        begun = start is None or now is None or start <= now
        span = words.span(Validity(world_from=v.world_from, world_until=until))
        found.append(
            Office(
                title=s.value,
                start_key=start,
                end_key=end,
                span=span,
                ended=ended,
                current=begun and not ended,
            )
        )
    found.sort(key=lambda o: (o.start_key is None, o.start_key or 0))
    return tuple(found)


def tensed(lines: list[str], name: str, offices: Sequence[Office]) -> list[str]:
    """Return a card's lines with each office over said in the past ("Wynna Brack was the Lady Regent (from year
    731 to 735 of …)"): a card says every title it holds as "is", whenever it was held."""
    over = tuple(f"{name} is {title_phrase(o.title)} (" for o in offices if o.ended)
    if not over:
        return lines
    return [f"{name} was {line[len(name) + 4 :]}" if line.startswith(over) else line for line in lines]


def event_key(card: EntityCard, words: Wording = PLAIN) -> int | None:
    """Return the world key of the day an event took place, as the asker may read it, or None."""
    v = card.entity.validity
    return _key(words, v.world_from, v.world_from_key) if card.entity.type == "Event" else None


async def _holders(reader: CanonReader, title: str, have: set[int]) -> list[EntityMatch]:
    """Return everyone canon says held a title for a span (the asker may see), as matches found by that title."""
    bare = bare_title(title)
    if not bare:
        return []
    found: list[EntityMatch] = []
    # Each word held, not the words run together: "Warden of the Ford" is held by the words of "warden of ford";
    # an office's noun by its title's word ("wardenship": "warden").
    held = await facts_holding(reader, (HELD_TITLE,), [office_stem(bare) or w for w in bare.split()])
    meant = titles_meant(bare, [s.value or "" for s in held]) or [bare]  # "Warden": the titles starting so
    for statement in held:
        value = statement.value or ""
        if bare_title(value) not in meant or statement.subject_id in have or len(found) >= _MOST:
            continue
        have.add(statement.subject_id)
        found.append(EntityMatch(entity_id=statement.subject_id, matched=value, window=value, score=_SCORE))
    return found


async def office_holders(
    reader: CanonReader, question: str, named: Sequence[EntityMatch]
) -> list[EntityMatch]:
    """Return the holders of the office a question asks about (see the module docstring): of the title it names,
    else of every title held for a span by the one it names ("who succeeded Aldous Brack"); none otherwise."""
    asked = asked_office(question)
    if asked is None or asked[0] == "held":
        return []
    parts = asked[1]
    have = {m.entity_id for m in named}
    title = parts.get("title", "")
    if title and not title.startswith(("office", "it ", "that")) and title not in ("it", "that"):
        holders = await _holders(reader, title, have)
        if not holders and (mine := possessed_title(title)) is not None:  # "redgulch's mayor"
            holders = await _holders(reader, mine, have)
        if holders or parts.get("who") is None:
            return holders  # a title no one holds ("high reve", a typo): the offices of the one named
    who = parts.get("who")
    if who is None:
        return []
    people = [m for m in named if set(fold_words(m.window)) <= set(fold_words(who))]
    if not people:
        return []
    held = await reader.statements(
        predicates=[HELD_TITLE], subject_ids=[people[0].entity_id], with_evidence=False
    )
    found: list[EntityMatch] = []
    for title_said in dict.fromkeys(s.value or "" for s in held):
        found += await _holders(reader, title_said, have)
    return found
