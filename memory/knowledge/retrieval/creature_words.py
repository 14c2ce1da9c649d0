"""The words of a question asking what creatures live in a place ("are there any dangerous beasts in the
Mirefen?", "what lives in the Mirefen?"): read by `places.around`, which reads the creatures there, and answered
by `answer_creatures`."""

from __future__ import annotations

import re

__all__ = ["BEASTS", "DWELLS", "asks_creatures"]

BEASTS = r"(?:beasts?|creatures?|monsters?|animals?|wildlife|predators?|critters?|fauna|vermin)"
DWELLS = r"(?:lives?|dwells?|roams?|haunts?|inhabits?|lurks?|prowls?|hunts?|nests?|breeds?|stalks?)"
#: "are there any (dangerous) beasts in X", "what (dangerous) creatures live in X", "what lives in X", "what
#: roams the Dry Downs".
_ASKS = (
    re.compile(
        rf"^\s*(?:are|is)\s+there\s+(?:any\s+)?(?:\w+\s+){{0,2}}?{BEASTS}\b.*?\b(?:in|at|around|near|on)\b",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:what|which)\s+(?:\w+\s+)?{BEASTS}\s+(?:{DWELLS}|(?:are|is)\s+(?:there\s+)?(?:found\s+)?(?:in|at|on))\b",
        re.I,
    ),
    re.compile(rf"^\s*what\s+{DWELLS}\s+(?:in|at|around|near|on|within)?\b", re.I),
)


def asks_creatures(question: str) -> bool:
    """Return whether a question asks what creatures live in a place (see the module docstring)."""
    return any(p.search(question) for p in _ASKS)
