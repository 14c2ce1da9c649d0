"""A parent the table believes, said as what is believed: "Dunmore Vell is known as Aske Vell's son".

A person's `reputed_parents` (REPUTED_PARENT_OF) is the public story of whose child they are. Where the asker sees
no parent kept for the GM (a player never does), the reputed parent is one of the family the kin answers walk
(`retrieval.kin`), but an answer naming them says it as what is believed, never as the truth: the same words
whether or not the GM keeps another father, so a player's answer gives no hint of a secret. The GM, who sees the
true parent, reads the truth, and the story beside it in the same words (`Kin.story`).
"""

from __future__ import annotations

from collections.abc import Sequence

from canon.wording.relations import possessive
from memory.knowledge.answer_models import Kin
from memory.knowledge.retrieval.answer_happenings import names_list

__all__ = ["believed", "believed_tie", "known_as", "plain_ties"]

_CHILD = {"male": "son", "female": "daughter"}


def known_as(child: str, parents: Sequence[str], kin: Kin) -> str:
    """Return "<child> is known as <parents>'s <son, daughter or child>" (the child's sex as canon says it)."""
    noun = _CHILD.get(kin.sexes.get(child) or "", "child")
    return f"{child} is known as {possessive(names_list(list(parents)))} {noun}"


def believed(name: str, kin: Kin, tie: str, sex: str | None) -> list[str]:
    """Return the sentences saying whom of a tie ("parents", "children") of `name` the table believes, of the sex
    asked where canon says one's: what the asker walks as the family (`Kin.reputed`) and the story told beside
    the truth (`Kin.story`) alike."""
    names = [
        n
        for n in (*kin.reputed.get(tie, ()), *kin.story.get(tie, ()))
        if sex is None or kin.sexes.get(n) in (sex, None)
    ]
    if not names:
        return []
    story = set(kin.story.get(tie, ()))
    caveat = "; canon does not say it is true"
    if tie == "parents":
        return [known_as(name, names, kin) + (caveat if story & set(names) else "")]
    return [known_as(child, [name], kin) + (caveat if child in story else "") for child in names]


def believed_tie(name: str, them: str, kin: Kin, tie: str, sex: str | None) -> str | None:
    """Return that the table believes `them` is `name`'s kin of the tie asked ("parents", "children"), of the sex
    asked where canon says one's; the GM, who sees the truth, reads too that canon does not say it. None when
    the tie asked is no reputed one of the two."""
    if tie not in ("parents", "children") or (kin.sexes.get(them) not in (sex, None) and sex is not None):
        return None
    child, parent = (name, them) if tie == "parents" else (them, name)
    if them in kin.reputed.get(tie, ()):
        return known_as(child, [parent], kin)
    if them in kin.story.get(tie, ()):
        return f"{known_as(child, [parent], kin)}; canon does not say it is true"
    return None


def plain_ties(kin: Kin, tie: str) -> Kin:
    """Return the family with the tie's reputed people left out: the truth as the asker may see it."""
    reputed = set(kin.reputed.get(tie, ()))
    kept = tuple(n for n in kin.ties.get(tie, ()) if n not in reputed)
    ties = {**kin.ties, tie: kept} if kept else {t: n for t, n in kin.ties.items() if t != tie}
    return kin.model_copy(update={"ties": ties})
