"""Scripted scenes for `bench/extraction.py`, each with the proposals a careful GM would accept.

A scene lists the canon entities known before it (name, type, aliases), its turns (speaker kind, author, text)
and `gold`: the proposals in the extraction reply's own shape (so a stub can replay them as a harness check).
Several scenes hold traps a careful GM would not accept: plans, rumours, questions, out-of-character talk.
Matching rules live in the benchmark: names through canon aliases and fuzzy equality, facts by subject and
value (the attribute's wording is free), events by their participants or name.

The long scenes (`long-*`) run past one piece of the transcript (hours of table talk around a few moments that
matter), so extraction reads them in pieces and merges what overlapping pieces both found. A scene's `canon`
lists what canon already holds before it and the scene restates (in the same shape, citing the turns that
restate it): the benchmark writes it into canon first, so a proposal repeating it is merged into canon by the
production check, never proposed; it is never gold.
"""

from __future__ import annotations

from typing import Any

from bench.extraction_scenes_first import FIRST_SCENES
from bench.extraction_scenes_long import LONG_SCENES
from bench.extraction_scenes_more import MORE_SCENES

SCENES: list[dict[str, Any]] = [*FIRST_SCENES, *MORE_SCENES, *LONG_SCENES]
