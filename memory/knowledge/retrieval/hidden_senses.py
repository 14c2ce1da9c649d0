"""Words a GM's secret notes say a state in, other than the question's: "is Orla sick?" of a GM-only section
saying Orla "is dying of the grey cough"; "is the steward a traitor?" of one saying he "sells the keep's secrets
to the river-lords".

Each family holds the common words for one state a table asks of a person or a thing (ill health, death,
treachery, madness, a curse, love, deceit, a fortune or a debt); a question's word of a family is said by a
sentence holding another word of it. Read only where a GM-only section answers the GM (`answer_hidden`), whose
sentences must still name what the question names: a player's passages hold no such section.
"""

from __future__ import annotations

from collections.abc import Iterable

from canon.wording.word_forms import root

__all__ = ["same_sense"]

_FAMILIES: tuple[frozenset[str], ...] = tuple(
    frozenset(words)
    for words in (
        (
            *("sick", "ill", "illness", "unwell", "ailing", "ails", "disease", "diseased", "dying", "cough"),
            *("fever", "plague", "pox", "poisoned", "malady", "sickness", "wasting", "consumption", "ague"),
            *("infected", "infection", "frail", "rot", "rotting", "blight", "blighted", "healthy", "health"),
        ),
        ("dead", "died", "dying", "killed", "murdered", "slain", "alive", "perished", "drowned", "death"),
        (
            *("traitor", "betray", "betrayed", "betrays", "treachery", "treason", "spy", "spies", "spying"),
            *("informer", "turncoat", "disloyal", "loyal", "loyalty", "plotting", "plots", "conspires"),
            *("conspiracy", "sells", "sold", "selling", "secretly", "double"),
        ),
        ("pregnant", "expecting", "pregnancy"),
        ("cursed", "curse", "hexed", "hex", "bewitched", "possessed", "enchanted", "doomed"),
        ("mad", "insane", "madness", "raving", "lunatic", "unhinged", "deranged", "lunacy"),
        ("love", "lover", "loves", "affair", "mistress", "sweetheart", "beloved", "courting", "smitten"),
        (
            "lying",
            "liar",
            "lies",
            "deceive",
            "deceives",
            "deceiving",
            "false",
            "fake",
            "impostor",
            "disguised",
        ),
        ("rich", "wealthy", "wealth", "fortune", "debt", "debts", "owes", "poor", "penniless", "ruined"),
    )
)
_ROOTS: tuple[frozenset[str], ...] = tuple(frozenset(root(w) for w in family) for family in _FAMILIES)


def same_sense(word: str, said: Iterable[str]) -> bool:
    """Tell whether a sentence's words (`said`, folded) say the question's word in another word of its family."""
    asked = root(word)
    families = [f for f, roots in zip(_FAMILIES, _ROOTS, strict=True) if word in f or asked in roots]
    if not families:
        return False
    for other in said:
        if other != word and any(
            other in f or root(other) in r for f, r in zip(_FAMILIES, _ROOTS, strict=True) if f in families
        ):
            return True
    return False
