"""The field a comparison weighs when it names none: "which is better armour, X or Y", "is X stronger than Y".

A comparison that asks no field by a known name still says what it weighs: a word of a label of the entries
compared ("better *armour*": the table's "Armour value"), or a comparative that English uses of one kind of
quantity ("stronger" of damage, "cheaper" of cost, "faster" of speed). The labels of the passages' fields holding
such a word are the candidates, the ones whose value is a number first: the comparison tries each until both
parts have it.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.fulltext import STOPWORDS
from memory.knowledge.fields import fields_of
from memory.knowledge.models import LoreResult
from memory.knowledge.question import Question
from memory.knowledge.retrieval.answer_words import fold_words, has_word

__all__ = ["asks_nothing_else", "quality_labels"]

#: Passages whose fields' labels are read.
PASSAGES_READ = 6
#: Comparatives and the words of the labels of the quantity each weighs.
COMPARATIVES: dict[str, tuple[str, ...]] = {
    "stronger": ("damage", "attack", "strength", "power", "challenge"),
    "weaker": ("damage", "attack", "strength", "power", "challenge"),
    "deadlier": ("damage", "challenge"),
    "dangerous": ("challenge", "damage"),
    "harder": ("damage",),
    "cheaper": ("cost", "price"),
    "pricier": ("cost", "price"),
    "expensive": ("cost", "price"),
    "faster": ("speed", "move", "movement"),
    "slower": ("speed", "move", "movement"),
    "tougher": ("wounds", "hit", "health", "armour", "armor", "defence", "defense"),
    "heavier": ("weight",),
    "lighter": ("weight",),
    "longer": ("duration", "length"),
    "shorter": ("duration", "length"),
    "farther": ("range",),
    "further": ("range",),
}
#: Words of a comparison that weigh nothing by themselves.
_PLAIN = frozenset(
    {"better", "worse", "best", "worst", "more", "less", "which", "one", "than", "or", "vs", "versus"}
)


#: Words that set two things side by side and ask nothing of them.
_SIDE_BY_SIDE = frozenset(
    {
        "difference",
        "differences",
        "differ",
        "different",
        "compare",
        "compared",
        "comparison",
        "between",
        "whats",
    }
)


def _said(question: Question) -> list[str]:
    """Return the words of a comparison besides its parts' and the words of any comparison."""
    named = {w for part in question.parts for w in part}
    return [
        w for w in fold_words(question.expanded) if w not in STOPWORDS and w not in _PLAIN and w not in named
    ]


def asks_nothing_else(question: Question) -> bool:
    """Return whether a comparison asks nothing of its parts but to be set side by side ("A vs B", "the
    difference between A and B"), not a quality in words of its own ("which heals more")."""
    return all(w in _SIDE_BY_SIDE for w in _said(question))


def quality_labels(question: Question, results: Sequence[LoreResult]) -> list[str]:
    """Return the labels (folded) a comparison naming no field may weigh, the likeliest first."""
    said = _said(question)
    wanted = set(said) | {w for word in said for w in COMPARATIVES.get(word, ())}
    if not wanted:
        return []
    scored: dict[str, float] = {}
    for result in [r for r in results if r.is_fact][:PASSAGES_READ]:
        for found in fields_of(result):
            words = [w for w in fold_words(found.label) if w not in STOPWORDS]
            shared = sum(1 for w in words if has_word(wanted, w))
            if not shared:
                continue
            numeric = found.value.strip()[:1].isdigit() or found.value.strip()[:2].lstrip("+-−")[:1].isdigit()
            score = shared / len(words) + (1.0 if numeric else 0.0)
            label = " ".join(found.label.casefold().split())
            scored[label] = max(scored.get(label, 0.0), score)
    return sorted(scored, key=lambda label: -scored[label])
