"""A kin word asked with a word doubting the tie the table knows: "who is Pip's real father", "her true mother",
"his biological son".

Such a word asks the truth behind a tie the table only believes (a reputed parent, `kin_reputed`): the answer says
the true tie the asker may see first, with the word asked ("Pip Thorne's real father is Aldric Thorne"), then what
is believed, with canon's caveat that it does not say it is true. A player, who sees no parent the GM keeps, reads
what is believed with that caveat, word for word whether or not the GM keeps another parent. A child taken in later
than birth is answered by its birth parents (`answer_fates`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from canon.wording.relations import possessive

__all__ = ["CAVEAT", "DOUBTING", "doubted", "doubting_word"]

#: Words before a kin word asking the truth of the tie rather than what the table believes or took up later.
DOUBTING = frozenset({"real", "true", "biological", "birth", "natural", "actual", "blood"})
#: What a tie the table believes is said with when canon does not say it is true.
CAVEAT = "; canon does not say it is true"


def doubting_word(words: Sequence[str], word: str) -> str | None:
    """Return the doubting word right before the kin word asked (`words`: the question's, kin words joined), or
    None."""
    for before, after in itertools.pairwise(words):
        if after == word and before in DOUBTING:
            return before
    return None


def doubted(
    name: str, listed: str | None, rumours: Sequence[str], doubt: str
) -> tuple[str | None, list[str]]:
    """Return the true tie said with the doubting word ("Pip Thorne's real father is …") where what is believed
    stands beside it, and what is believed with canon's caveat."""
    said = [r if r.endswith(CAVEAT) else r + CAVEAT for r in rumours]
    lead = f"{possessive(name)} "
    if listed and rumours and listed.startswith(lead):
        listed = f"{lead}{doubt} {listed[len(lead) :]}"
    return listed, said
