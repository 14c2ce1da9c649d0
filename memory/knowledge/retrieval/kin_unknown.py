"""A far tie asked of one whose family canon holds none of it ("who is Edric's mother-in-law?" of a man whose
wife's parents canon does not name): said plainly as unknown, never read as a nearer tie ("Edric's mother").

A parent-in-law is said through the one spouse the asker sees ("Nothing the table knows says who the mother of
Edric Corrow's wife Sabine Marr is."); a spouse the asker may not see is not said, as if never written.
"""

from __future__ import annotations

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.kin_far_words import FAR_NOUNS
from memory.knowledge.retrieval.kin_nouns import tie_noun

__all__ = ["far_unknown"]

#: A spouse's noun by their sex.
_SPOUSE = {"male": "husband", "female": "wife"}
#: A parent's noun by the sex a parent-in-law word asks.
_PARENT = {"male": "father", "female": "mother"}


def far_unknown(name: str, kin: Kin, tie: str, sex: str | None) -> str | None:
    """Return that nothing known names `name`'s kin of a far tie (`kin_far_words.FAR_NOUNS`) none of which canon
    holds, or None of a near tie or one canon does hold."""
    if tie not in FAR_NOUNS or kin.ties.get(tie):
        return None
    spouses = kin.ties.get("spouses", ())
    if tie == "parents-in-law" and len(spouses) == 1:
        spouse = spouses[0]
        partner = _SPOUSE.get(kin.sexes.get(spouse, ""), "spouse")
        parent = _PARENT.get(sex or "", "parents")
        verb = "are" if parent == "parents" else "is"
        return (
            f"Nothing the table knows says who the {parent} of {possessive(name)} {partner} {spouse} {verb}"
        )
    return f"Nothing the table knows says who {possessive(name)} {tie_noun(tie, sex, False)} is"
