"""Write the short answer of a lore question without a language model: from the canon graph, or extractive.

Canon facts from play outrank imported prose, so the graph is asked first:
- a relation question ("Who is Ysolde's brother?", "Who rules Greyhaven?") names an entity and a relation word;
  the entity's card answers it when it holds such a relation ("Ysolde Marrow is a sibling of Tomas Marrow.");
- a question only about an entity ("Who is Abbot Vell?") is answered by its card's description.
Otherwise the answer is extractive: the one or two sentences of the best passages that cover most of the
question's words (a word in a passage's headings counts for each of its sentences, at half weight). The
question's names (its capitalised words) must all be in the passage, and at least half of its other words:
otherwise nothing the asker may see answers it, and the answer says so plainly ("Nothing the table knows says who
Ysolde's brother is."). Only what the asker may see reaches this module (the retriever filtered it first), so an
answer never hints at GM-only material. Inspiration is never quoted as fact.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from memory import fulltext
from memory.knowledge.answer_models import AnswerMode, Citation, ShortAnswer
from memory.knowledge.models import CanonFact, LoreResult

__all__ = ["compose", "key_words", "nothing_known", "numbered", "sentences"]

#: Words of a question that ask, rather than say what about.
GENERIC = frozenset(
    {
        *("tell", "about", "know", "describe", "explain", "lore", "story", "information", "info", "detail"),
        *(
            "details",
            "say",
            "says",
            "said",
            "mean",
            "means",
            "called",
            "name",
            "named",
            "kind",
            "sort",
            "type",
        ),
        *("happen", "happens", "happened", "give", "list", "does", "like", "much", "many"),
    }
)
#: Question words that ask for a relation, and the relation types that answer them.
RELATION_WORDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(["brother", "brothers", "sister", "sisters", "sibling", "siblings"], ("SIBLING_OF",)),
    **dict.fromkeys(
        [
            "father",
            "mother",
            "parent",
            "parents",
            "son",
            "sons",
            "daughter",
            "daughters",
            "child",
            "children",
        ],
        ("PARENT_OF",),
    ),
    **dict.fromkeys(["wife", "husband", "spouse", "married", "consort"], ("SPOUSE_OF",)),
    **dict.fromkeys(
        ["rules", "rule", "ruler", "ruled", "governs", "king", "queen", "lord", "lady"], ("RULES", "LEADS")
    ),
    **dict.fromkeys(["leads", "leader", "led", "commands", "heads"], ("LEADS",)),
    **dict.fromkeys(["ally", "allies", "allied"], ("ALLY_OF",)),
    **dict.fromkeys(["enemy", "enemies", "foe", "foes"], ("ENEMY_OF",)),
    **dict.fromkeys(["member", "members", "belongs"], ("MEMBER_OF",)),
    **dict.fromkeys(["worship", "worships", "worshipped"], ("WORSHIPS",)),
    **dict.fromkeys(["owns", "possesses", "holds", "wields"], ("POSSESSES",)),
    **dict.fromkeys(["killed", "slew", "murdered"], ("KILLED",)),
}
#: How a relation reads in a sentence.
RELATION_PHRASES = {
    "SIBLING_OF": "is a sibling of",
    "PARENT_OF": "is a parent of",
    "SPOUSE_OF": "is married to",
    "RULES": "rules",
    "LEADS": "leads",
    "ALLY_OF": "is an ally of",
    "ENEMY_OF": "is an enemy of",
    "MEMBER_OF": "is a member of",
    "WORSHIPS": "worships",
    "POSSESSES": "holds",
    "KILLED": "killed",
}
#: Passages whose sentences may answer (the best few), and the longest sentence quoted.
PASSAGES_READ = 3
SENTENCE_CHARS = 320
#: Shorter pieces are not sentences ("Cost 5 gp" is one: a list item of a stat block).
MIN_SENTENCE_CHARS = 8
#: Share of the question's words a passage must hold to answer it.
MIN_COVERAGE = 0.5
#: Share of the question's weight a quoted sentence and its headings must hold.
SENTENCE_COVERAGE = 0.6

_WORD = re.compile(r"[^\W_]+")
#: "What does X do?" cannot be turned into "what X does" by moving a word: such questions are quoted.
_AUXILIARIES = frozenset(
    [
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
    ]
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"“(]?[A-Z0-9])")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_MARKUP = re.compile(r"[*_`>|]+")


def _fold(text: str) -> list[str]:
    return _WORD.findall(unicodedata.normalize("NFKC", text).casefold())


def same_word(a: str, b: str) -> bool:
    """Return whether two folded words are the same but for an ending ("aboleths" and "aboleth")."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if len(short) < 4 or len(long_) - len(short) > 3:
        return False
    common = 0
    for x, y in zip(short, long_, strict=False):
        if x != y:
            break
        common += 1
    return common >= len(short) - 1 and common >= 4


def _has(words: set[str], word: str) -> bool:
    return word in words or any(same_word(word, w) for w in words)


#: The table's abbreviations, read as the words a source writes out.
ABBREVIATIONS = {
    "ac": ("armor", "class"),
    "hp": ("hit", "points"),
    "cr": ("challenge",),
    "dc": ("difficulty", "class"),
    "xp": ("experience",),
}


def key_words(question: str) -> list[str]:
    """Return the words a question is about: content words but the ones that only ask, abbreviations spelt out."""
    words: list[str] = []
    for word in fulltext.query_words(question.replace("’", "'")):
        words += ABBREVIATIONS.get(word, (word,))
    return [w for w in dict.fromkeys(words) if w not in GENERIC and w not in fulltext.STOPWORDS]


def names_in(question: str) -> list[str]:
    """Return the folded capitalised words of a question that do not start it (its names, mostly)."""
    found = []
    for index, match in enumerate(_WORD.finditer(unicodedata.normalize("NFKC", question))):
        word = match.group(0)
        if index and word[:1].isupper() and len(word) >= 3:
            found.append(word.casefold())
    return found


_BLOCK_START = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s|\|)")


def _blocks(text: str) -> list[str]:
    """Return a passage's paragraphs, list items and table rows, each on one line (headings left out)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        starts = not line.strip() or _HEADING.match(line) or _BLOCK_START.match(line)
        if starts and current:
            blocks.append(" ".join(current))
            current = []
        if line.strip() and not _HEADING.match(line) and not set(line.strip()) <= set("|-: "):
            current.append(line.strip())
            if line.lstrip().startswith("|"):
                blocks.append(" ".join(current))
                current = []
    if current:
        blocks.append(" ".join(current))
    return blocks


def sentences(text: str) -> list[str]:
    """Return a passage's sentences (headings left out, markup stripped, each clipped)."""
    found: list[str] = []
    for block in _blocks(text):
        clean = " ".join(_MARKUP.sub(" ", block).split()).strip(" -•")
        for piece in _SENTENCE.split(clean):
            piece = piece.strip()
            if len(piece) >= MIN_SENTENCE_CHARS:
                found.append(piece if len(piece) <= SENTENCE_CHARS else piece[: SENTENCE_CHARS - 1] + "…")
    return found


def nothing_known(question: str) -> str:
    """Return the honest "nothing known" sentence for a question, in its own words where they allow."""
    q = " ".join(question.split()).rstrip("?!. ")
    match = re.match(r"(?i)^(who|what|where|when|which|how)\s+(is|are|was|were)\s+(.+)$", q)
    if match:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(3)} {match.group(2).lower()}."
    match = re.match(r"(?i)^(who|what|where|when|which|how|why)\s+(\w+)\b(.*)$", q)
    asks = {w.casefold() for w in q.split()[1:4]} & _AUXILIARIES  # "what damage does a mace deal"
    if match and not asks:
        return f"Nothing the table knows says {match.group(1).lower()} {match.group(2)}{match.group(3)}."
    if match:
        return f"Nothing the table knows answers “{q}?”."
    return f"Nothing the table knows answers “{q}”."


def numbered(facts: Sequence[CanonFact], results: Sequence[LoreResult]) -> list[Citation]:
    """Return the numbered sources of an answer: canon facts first, then the passages, in order."""
    citations = [
        Citation(number=n, kind="canon", label=f"{f.entity_name} (canon)", entity_id=f.entity_id)
        for n, f in enumerate(facts, 1)
    ]
    for n, r in enumerate(results, len(citations) + 1):
        label = " › ".join([r.source_title, *[h for h in r.heading_path if h and h != r.source_title]])
        citations.append(
            Citation(
                number=n,
                kind="passage",
                label=label,
                chunk_id=r.chunk_id,
                source_id=r.source_id,
                out_of_date=r.out_of_date,
            )
        )
    return citations


@dataclass(slots=True)
class _Sentence:
    text: str
    number: int
    score: float
    words: set[str]


def _relation_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return a sentence answering a relation question from the canon graph, and the card it comes from."""
    asked = [w for w in _fold(question.replace("’", "'")) if w in RELATION_WORDS]
    if not asked:
        return None
    wanted = {p for w in asked for p in RELATION_WORDS[w]}
    for number, fact in enumerate(facts, 1):
        found = [r for r in fact.relations if r.predicate.upper() in wanted]
        if found:
            parts = [
                f"{r.subject} {RELATION_PHRASES.get(r.predicate.upper(), r.predicate.lower())} {r.object}"
                for r in found[:3]
            ]
            return "; ".join(parts) + f". [{number}]", number
    return None


def _about_entity_only(question: str, fact: CanonFact) -> bool:
    """Return whether a question asks only about an entity ("Who is X?", "Tell me about X")."""
    named = set(_fold(fact.matched)) | set(_fold(fact.entity_name))
    return all(_has(named, w) for w in key_words(question))


def _graph_answer(question: str, facts: Sequence[CanonFact]) -> tuple[str, int] | None:
    """Return an answer from the canon graph (a relation, or the card of the entity asked about), or None."""
    relation = _relation_answer(question, facts)
    if relation is not None:
        return relation
    if any(w in RELATION_WORDS for w in _fold(question)):
        return None  # a relation the graph does not hold: the passages may still say it
    for number, fact in enumerate(facts, 1):
        if not _about_entity_only(question, fact):
            continue
        said = [s for s in sentences(fact.description or "")[:2]] or fact.facts[:2]
        if said:
            body = " ".join(s if s.endswith((".", "!", "?", "…")) else s + "." for s in said)
            return f"{fact.entity_name}: {body} [{number}]", number
    return None


def _covers(words: set[str], word: str) -> bool:
    """Return whether a passage's words hold a question word (a relation word: or one of the same relation)."""
    if _has(words, word):
        return True
    relation = RELATION_WORDS.get(word)
    return relation is not None and any(RELATION_WORDS.get(w) == relation for w in words)


def _weights(keys: Sequence[str], names: Sequence[str], results: Sequence[LoreResult]) -> dict[str, float]:
    """Return each question word's weight: rarer among the passages found weighs more, a name double."""
    texts = [set(_fold(" ".join([r.source_title, *r.heading_path, r.text]))) for r in results]
    weight = {}
    for w in keys:
        found = sum(1 for words in texts if _covers(words, w))
        # A word no passage holds cannot be quoted: it weighs nothing here (a passage must still hold it).
        rarity = 1.0 + math.log((1 + len(texts)) / (1 + found)) if found else 0.0
        weight[w] = rarity * (2.0 if w in names else 1.0)
    return weight


def _scored(question: str, results: Sequence[LoreResult], first: int) -> list[_Sentence]:
    """Return the sentences of the passages that answer the question, scored against it, best first.

    A passage answers when it holds every name of the question and at least half of its other words (a name
    alone is not an answer to "Who is Eliza Crane's brother?"); a sentence, when it and its headings hold most
    of the question's weight. Short sentences are preferred ("Range 60 feet" over a paragraph naming a range).
    """
    keys = key_words(question)
    names = [n for n in names_in(question) if n in keys]
    others = [w for w in keys if w not in names]
    weight = _weights(keys, names, results)
    total = sum(weight.values()) or 1.0
    scored: list[_Sentence] = []
    readable = [(i, r) for i, r in enumerate(results) if r.is_fact][:PASSAGES_READ]
    for rank, (index, result) in enumerate(readable):
        heading = set(_fold(" ".join([result.source_title, *result.heading_path])))
        passage = heading | set(_fold(result.text))
        if not all(_has(passage, n) for n in names):
            continue
        if others and sum(1 for w in others if _covers(passage, w)) / len(others) < MIN_COVERAGE:
            continue
        damp = (1.0 - 0.12 * rank) * (0.5 if result.out_of_date else 1.0)
        for position, text in enumerate(sentences(result.text)):
            words = set(_fold(text))
            own = sum(weight[w] for w in keys if _covers(words, w))
            by_heading = sum(weight[w] for w in keys if not _covers(words, w) and _has(heading, w))
            if not own or (own + by_heading) / total < SENTENCE_COVERAGE:
                continue
            density = 1.0 / (1.0 + len(words) / 30)
            score = (own + 0.5 * by_heading) * damp * density - 0.01 * position
            scored.append(_Sentence(text, first + index, score, {w for w in keys if _covers(words, w)}))
    scored.sort(key=lambda s: -s.score)
    return scored


def _extractive(question: str, results: Sequence[LoreResult], first: int) -> list[_Sentence]:
    """Return the one or two sentences that best answer the question (none when no passage does)."""
    scored = _scored(question, results, first)
    if not scored:
        return []
    chosen = [scored[0]]
    for other in scored[1:4]:
        if other.score >= 0.7 * scored[0].score and other.words - scored[0].words:
            chosen.append(other)
            break
    return chosen


def compose(question: str, facts: Sequence[CanonFact], results: Sequence[LoreResult]) -> ShortAnswer:
    """Return the short answer to a question from what the asker may see (see the module docstring)."""
    citations = numbered(facts, results)
    cited: set[int] = set()
    parts: list[str] = []
    mode = AnswerMode.EXTRACTIVE
    graph = _graph_answer(question, facts)
    if graph is not None:
        parts.append(graph[0])
        cited.add(graph[1])
        mode = AnswerMode.GRAPH
    else:
        for sentence in _extractive(question, results, len(facts) + 1):
            text = sentence.text if sentence.text.endswith((".", "!", "?", "…")) else sentence.text + "."
            parts.append(f"{text} [{sentence.number}]")
            cited.add(sentence.number)
    for number in sorted(cited):
        stale = citations[number - 1].out_of_date
        if stale:
            parts.append(f"[{number}] is out of date: {stale} now.")
    if not parts:
        return ShortAnswer(
            text=nothing_known(question), mode=AnswerMode.NOTHING, known=False, citations=citations
        )
    marked = [c.model_copy(update={"cited": c.number in cited}) for c in citations]
    return ShortAnswer(text=" ".join(parts), mode=mode, known=True, citations=marked)
